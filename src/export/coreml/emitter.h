// The MIL emitter: the state of one graph -> ML Program conversion and the helpers every
// lowering uses to add MIL operations and constants to the function's block. Every MIL variable
// has a known type (MIL declares each operation's output types, and coremltools' loader checks
// them against its own type inference). Names are deterministic: a WebNN operand keeps one
// variable name, intermediates of operation #i are named "op<i>_<k>", constants "c<k>".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cppnn/graph_model.h"
#include "cppnn/number.h"
#include "src/export/coreml/mil_types.h"
#include "src/export/coreml/weight_blob.h"

namespace cppnn::coreml_export {

// One input parameter of a MIL operation: its name and the variables bound to it (one, or
// several for a variadic parameter such as concat's `values`).
struct Param {
  std::string name;
  std::vector<std::string> values;
  Param(std::string n, std::string v) : name(std::move(n)), values{std::move(v)} {}
  Param(std::string n, std::vector<std::string> v) : name(std::move(n)), values(std::move(v)) {}
};

class Emitter {
 public:
  // Constants of at least this many elements (float16/float32) go to the weight blob.
  static constexpr size_t kBlobMinElements = 10;

  Emitter(const Graph& graph, mil::Block& block, WeightBlob& blob);

  const Graph& graph() const { return graph_; }
  const MLOperandDescriptor& desc(OperandId id) const { return graph_.descriptor(id); }
  MLOperandDataType type(OperandId id) const { return desc(id).dataType; }
  size_t rank(OperandId id) const { return desc(id).shape.size(); }
  // The operand's MIL type (NotSupportedError for types MIL lacks).
  MilType mil_type(OperandId id) const { return mil_type_of(desc(id)); }

  // The variable name of a WebNN operand.
  const std::string& value(OperandId id) const;
  // Binds a WebNN operand to a variable (graph inputs, constants).
  void bind(OperandId id, std::string name);
  // The type of a variable the emitter created or was told about.
  const MilType& type_of(const std::string& name) const;
  // Declares the type of a variable made outside the block (a function input).
  void declare(const std::string& name, MilType type);

  // Starts lowering operation #index (intermediate names derive from it: "op<index>_<k>").
  void begin_operation(uint32_t index);
  // Starts the graph inputs' or outputs' own operations (names "in_<k>" / "out_<k>").
  void begin_inputs() { begin_section("in_"); }
  void begin_outputs() { begin_section("out_"); }
  // Starts the constants' own operations (fills: "k_<k>").
  void begin_constants() { begin_section("k_"); }
  // A fresh intermediate variable name of the current operation.
  std::string fresh();

  // Adds MIL operation `op_type` reading `params` and writing `outputs` (names and types).
  void op_to(std::string_view op_type, std::vector<Param> params,
             std::vector<std::pair<std::string, MilType>> outputs);
  // Adds an operation with one fresh output of `out` and returns its name.
  std::string op(std::string_view op_type, std::vector<Param> params, MilType out);
  // Adds an operation writing the WebNN operand `id` (its variable name and type).
  void op_to(std::string_view op_type, std::vector<Param> params, OperandId id);

  // ---- constants (a `const` operation each; small ones shared by content) ----
  // A tensor of MIL element `type` and `shape` holding `bytes` (dense, row-major, MIL's element
  // size: bool one byte of 0/1).
  std::string const_tensor(mil::DataType type, std::span<const int64_t> shape,
                           std::span<const std::byte> bytes);
  // A scalar of `type` holding `value` cast by the spec's MLNumber cast (float16 rounded to
  // nearest even, integers clamped and truncated).
  std::string const_scalar(mil::DataType type, const MLNumber& value);
  // A tensor of `shape` with every element `value` (cast like const_scalar).
  std::string const_fill(mil::DataType type, std::span<const int64_t> shape, const MLNumber& value);
  // A 1-D int32 tensor (axes, shapes, pads, strides ...).
  std::string const_i32(std::span<const int32_t> values);
  std::string const_i32(std::initializer_list<int32_t> values) {
    return const_i32(std::span<const int32_t>(values.begin(), values.size()));
  }
  // Any integer list given as int64 (WebNN dims and options) as a 1-D int32 tensor; a
  // NotSupportedError past int32.
  std::string const_i32_of(std::span<const int64_t> values);
  // A scalar int32, bool or string.
  std::string const_int(int32_t value);
  std::string const_bool(bool value);
  std::string const_string(std::string_view value);
  // A 1-D bool tensor.
  std::string const_bools(std::span<const bool> values);

  // `name` cast to `to` (a MIL cast), or `name` itself when it already has that type.
  std::string cast(const std::string& name, mil::DataType to);

 private:
  void begin_section(std::string prefix);
  std::string add_const(mil::DataType type, std::span<const int64_t> shape,
                        std::span<const std::byte> bytes);

  const Graph& graph_;
  mil::Block& block_;
  WeightBlob& blob_;
  std::vector<std::string> values_;           // WebNN operand -> variable name
  std::map<std::string, MilType> types_;      // variable -> type
  std::map<std::string, std::string> dedup_;  // small-constant content key -> variable
  std::string prefix_ = "op0_";
  uint32_t next_value_ = 0;
  uint32_t next_const_ = 0;
};

// The WebNN operand's MIL type name as a string for messages ("tensor<fp32, [2, 3]>").
std::string describe(const MilType& type);

}  // namespace cppnn::coreml_export
