// The ONNX emitter: the state of one graph -> ONNX conversion, and the helpers every lowering
// uses to add nodes, constants and casts. Names are deterministic (no global counters): a WebNN
// operand keeps one ONNX value name, and intermediates of operation #i are named "_i.k".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cppnn/graph_model.h"
#include "cppnn/number.h"
#include "onnx/onnx_pb.h"

namespace cppnn::onnx_export {

// ONNX's TensorProto.DataType of a WebNN operand type (int4/uint4 are emitted unpacked as
// int8/uint8 at opset 17).
int32_t onnx_type_of(MLOperandDataType type);

// One node attribute: int, float, string, ints, floats or strings.
struct Attr {
  std::string name;
  std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
               std::vector<std::string>>
      value;
};

// A large constant the model refers to as external data instead of embedding its bytes.
struct ExternalConstant {
  std::string name;                  // the initializer's name
  std::span<const std::byte> bytes;  // a view of the graph's constant (kept alive by the graph)
  int initializer;                   // index of its initializer in the GraphProto
};

// Conversion options.
struct EmitOptions {
  int64_t opset = 17;
  // Constants of at least this many bytes become external data (0: embed everything).
  uint64_t external_threshold = 1024;
};

// The state of one conversion.
class Emitter {
 public:
  Emitter(const Graph& graph, onnx::GraphProto& out, const EmitOptions& options);

  const Graph& graph() const { return graph_; }
  const EmitOptions& options() const { return options_; }
  const MLOperandDescriptor& desc(OperandId id) const { return graph_.descriptor(id); }
  MLOperandDataType type(OperandId id) const { return desc(id).dataType; }
  // Dimensions as int64 (what ONNX attributes and shape tensors use).
  std::vector<int64_t> dims(OperandId id) const;
  size_t rank(OperandId id) const { return desc(id).shape.size(); }

  // The ONNX value name of a WebNN operand ("" for kNoOperand).
  const std::string& value(OperandId id) const;
  // The ONNX name of graph output `name` (the operand's value name, or a reserved name that an
  // Identity node must write when the operand is an input, a constant or another output).
  const std::string& output_name(const std::string& name) const { return outputs_.at(name); }

  // Starts lowering operation #index (intermediate names and node names derive from it).
  void begin_operation(uint32_t index);
  uint32_t current_operation() const { return current_op_; }
  // A fresh intermediate value name of the current operation.
  std::string fresh();

  // Adds a node writing `outputs` (names); "" in `inputs` is an absent optional input.
  void node_to(std::string_view op_type, std::vector<std::string> inputs,
               std::vector<std::string> outputs, std::vector<Attr> attrs = {});
  // Adds a node with one fresh output and returns that output's name.
  std::string node(std::string_view op_type, std::vector<std::string> inputs,
                   std::vector<Attr> attrs = {});
  // Adds a node with `count` fresh outputs and returns their names.
  std::vector<std::string> node_n(std::string_view op_type, std::vector<std::string> inputs,
                                  size_t count, std::vector<Attr> attrs = {});

  // A 1-D int64 initializer (shapes, axes, pads, starts...).
  std::string const_i64(std::span<const int64_t> values);
  std::string const_i64(std::initializer_list<int64_t> values) {
    return const_i64(std::span<const int64_t>(values.begin(), values.size()));
  }
  // A scalar (rank 0) initializer of `type` holding `value` cast by the spec's MLNumber cast
  // algorithm (float16 rounded to nearest even; integers clamped and truncated).
  std::string const_scalar(MLOperandDataType type, const MLNumber& value);
  // An initializer of `type` and `shape` holding `bytes` (dense, row-major; int4/uint4 must
  // already be unpacked to one byte per element).
  std::string const_tensor(MLOperandDataType type, std::span<const int64_t> shape,
                           std::span<const std::byte> bytes);
  // `input` cast to `to` ("Cast" node), or `input` itself when `from == to`.
  std::string cast(const std::string& input, MLOperandDataType from, MLOperandDataType to);

  // Large constants written as external data (in initializer order).
  std::vector<ExternalConstant>& externals() { return externals_; }

 private:
  std::string unique_name(std::string base);
  std::string node_name();
  std::string add_initializer(onnx::TensorProto tensor, std::string_view key);

  const Graph& graph_;
  onnx::GraphProto& out_;
  EmitOptions options_;
  std::vector<std::string> values_;             // WebNN operand -> ONNX name
  std::map<std::string, std::string> outputs_;  // graph output name -> ONNX name
  std::map<std::string, int> taken_;            // every name in use
  std::map<std::string, std::string> dedup_;    // small-constant content key -> initializer name
  std::vector<ExternalConstant> externals_;
  uint32_t current_op_ = 0;
  uint32_t next_value_ = 0;
  uint32_t next_node_ = 0;
};

}  // namespace cppnn::onnx_export
