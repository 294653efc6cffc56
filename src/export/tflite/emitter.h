// The TFLite model being written: tensors (each WebNN operand's tensor in its compute type, plus
// the intermediates the lowerings create), constant buffers, operator codes and operators of the
// one subgraph, and the signature. Lowerings (lower_<family>.cpp) read the tensors of their
// inputs with value(), create their outputs with output() and add operators with op()/op1().
// Deterministic: the same sequence of calls gives the same bytes.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "cppnn/graph_model.h"
#include "tflite_subset_generated.h"

namespace cppnn::tflite_export {

namespace tfl = ::tflite;

// A tensor of the subgraph (its index in SubGraph.tensors).
using TensorIndex = int32_t;
// An omitted optional operator input (TFLite's -1).
constexpr TensorIndex kOmitted = -1;

// The element type a WebNN type has inside the model: float16 is computed in float32 (TFLite's
// kernels have no float16 arithmetic; the model casts at its inputs and outputs, one rounding per
// output as with a float32 computation rounded once), int4/uint4 are carried as int8/uint8
// (unpacked), every other type is itself.
tfl::TensorType compute_type_of(MLOperandDataType t);
// The element type of a model input or output of WebNN type `t`: the type itself (FLOAT16 for
// float16), int8/uint8 for int4/uint4 (the backend unpacks and packs at dispatch).
tfl::TensorType io_type_of(MLOperandDataType t);
// The byte size of one element of `t`.
size_t element_size(tfl::TensorType t);
// A WebNN shape as TFLite's int32 shape.
std::vector<int32_t> tflite_shape(const std::vector<uint32_t>& shape);

class Emitter {
 public:
  explicit Emitter(const Graph& graph);
  const Graph& graph() const { return graph_; }
  // For creating option tables: tfl::CreateConv2DOptions(e.fbb(), ...).Union().
  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }

  // The tensor holding WebNN operand `id` (bound by the operation that produced it, the input or
  // the constant). OperationError when unbound.
  TensorIndex value(OperandId id) const;
  void bind(OperandId id, TensorIndex t);
  // A new tensor for WebNN operand `id` (its compute type and shape), bound to it: the lowering
  // writes it as an operator output.
  TensorIndex output(OperandId id);

  // A new intermediate tensor.
  TensorIndex tensor(tfl::TensorType type, std::vector<int32_t> shape);
  // A constant tensor holding `bytes` (dense, row-major, `type`'s element size each).
  TensorIndex constant(tfl::TensorType type, std::vector<int32_t> shape,
                       std::vector<std::byte> bytes);
  // A constant viewing bytes the graph owns (no copy until the model is written).
  TensorIndex constant_view(tfl::TensorType type, std::vector<int32_t> shape,
                            std::span<const std::byte> bytes);
  // 1-D int32 / int64 / float32 constants.
  TensorIndex const_i32(const std::vector<int32_t>& values);
  TensorIndex const_i64(const std::vector<int64_t>& values);
  TensorIndex const_f32(const std::vector<float>& values);
  // A constant of `type` and `shape` with every element `value` (converted to the type; rank 0
  // when `shape` is empty).
  TensorIndex scalar(tfl::TensorType type, double value, std::vector<int32_t> shape = {});

  tfl::TensorType type_of(TensorIndex t) const { return tensors_.at(t).type; }
  const std::vector<int32_t>& shape_of(TensorIndex t) const { return tensors_.at(t).shape; }
  // Whether `t` is a constant, and its bytes (empty otherwise).
  bool is_constant(TensorIndex t) const { return tensors_.at(t).buffer != 0; }
  std::span<const std::byte> constant_bytes(TensorIndex t) const;

  // Adds an operator (TFLite's builtin `code`) reading `inputs`, writing `outputs`.
  void op(tfl::BuiltinOperator code, std::vector<TensorIndex> inputs,
          std::vector<TensorIndex> outputs,
          tfl::BuiltinOptions options_type = tfl::BuiltinOptions::NONE,
          flatbuffers::Offset<void> options = 0);
  // Adds an operator with one new output tensor of `type` and `shape`; returns it.
  TensorIndex op1(tfl::BuiltinOperator code, std::vector<TensorIndex> inputs, tfl::TensorType type,
                  std::vector<int32_t> shape,
                  tfl::BuiltinOptions options_type = tfl::BuiltinOptions::NONE,
                  flatbuffers::Offset<void> options = 0);

  // Common operators: CAST (nothing when `t` already has type `to`), RESHAPE (shape as a
  // constant input), TRANSPOSE (perm as a constant input).
  TensorIndex cast(TensorIndex t, tfl::TensorType to);
  TensorIndex reshape(TensorIndex t, std::vector<int32_t> shape);
  TensorIndex transpose(TensorIndex t, const std::vector<int32_t>& perm);
  // Writes `from` into the existing tensor `to` (same shape): CAST when the types differ, else a
  // RESHAPE to the same shape (a copy).
  void copy_to(TensorIndex from, TensorIndex to);

  // Names a tensor (graph inputs and outputs carry their WebNN names).
  void set_name(TensorIndex t, std::string name) { tensors_.at(t).name = std::move(name); }
  // Whether an operator writes `t`.
  bool is_produced(TensorIndex t) const { return tensors_.at(t).produced; }

  // Writes the model: one subgraph with `inputs` and `outputs` (tensor indices) and a
  // SignatureDef "serving_default" mapping `input_names`/`output_names` to them. Returns the
  // bytes (flatbuffer identifier "TFL3"). DataError past flatbuffers' 2 GiB limit.
  std::vector<uint8_t> finish(const std::vector<TensorIndex>& inputs,
                              const std::vector<TensorIndex>& outputs,
                              const std::vector<std::string>& input_names,
                              const std::vector<std::string>& output_names);

 private:
  struct TensorRecord {
    tfl::TensorType type;
    std::vector<int32_t> shape;
    uint32_t buffer = 0;  // 0: no data
    std::string name;
    bool produced = false;
  };
  struct BufferRecord {
    std::vector<std::byte> owned;
    std::span<const std::byte> view;
  };
  struct OperatorRecord {
    uint32_t opcode;
    std::vector<TensorIndex> inputs, outputs;
    tfl::BuiltinOptions options_type;
    flatbuffers::Offset<void> options;
  };
  TensorIndex add_constant(tfl::TensorType type, std::vector<int32_t> shape, BufferRecord buffer);
  // Peephole run by finish(): a RESHAPE of a RESHAPE's result reads the first RESHAPE's input
  // instead (the same elements in the same order), and a RESHAPE whose result no operator and no
  // model output (`outputs`) reads any more is dropped (XNNPACK copies the data at each RESHAPE).
  void fold_reshape_chains(const std::vector<TensorIndex>& outputs);

  const Graph& graph_;
  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<TensorRecord> tensors_;
  std::vector<BufferRecord> buffers_;  // buffers_[0] is the empty buffer
  std::vector<OperatorRecord> operators_;
  std::vector<tfl::BuiltinOperator> opcodes_;
  std::map<tfl::BuiltinOperator, uint32_t> opcode_index_;
  std::vector<TensorIndex> values_;  // per operand id, -1 when unbound
};

}  // namespace cppnn::tflite_export
