// The 95 typed builder methods, generated from ops.def: each packs its positional parameters and
// options into the op's attributes and calls the generic recorder.
#include "cppnn/graph_builder.h"

namespace cppnn {
namespace {

template <OpType T>
OpAttributes make_attrs(typename AttrsOf<T>::Params params, const typename AttrsOf<T>::Options& o) {
  return OpAttributes(std::in_place_index<static_cast<size_t>(T)>,
                      AttrsOf<T>{std::move(params), o});
}

}  // namespace

#define CPPNN_IMPL_Unary(E, m, O)                                               \
  MLOperand MLGraphBuilder::m(const MLOperand& input, const O& options) {       \
    MLOperand ops[] = {input};                                                  \
    return record(OpType::k##E, ops, make_attrs<OpType::k##E>({}, options))[0]; \
  }
#define CPPNN_IMPL_Binary(E, m, O)                                                        \
  MLOperand MLGraphBuilder::m(const MLOperand& a, const MLOperand& b, const O& options) { \
    MLOperand ops[] = {a, b};                                                             \
    return record(OpType::k##E, ops, make_attrs<OpType::k##E>({}, options))[0];           \
  }
#define CPPNN_IMPL_Ternary(E, m, O)                                                       \
  MLOperand MLGraphBuilder::m(const MLOperand& a, const MLOperand& b, const MLOperand& c, \
                              const O& options) {                                         \
    MLOperand ops[] = {a, b, c};                                                          \
    return record(OpType::k##E, ops, make_attrs<OpType::k##E>({}, options))[0];           \
  }
#define CPPNN_IMPL_Axis(E, m, O)                                                         \
  MLOperand MLGraphBuilder::m(const MLOperand& input, uint32_t axis, const O& options) { \
    MLOperand ops[] = {input};                                                           \
    return record(OpType::k##E, ops, make_attrs<OpType::k##E>({axis}, options))[0];      \
  }
#define CPPNN_IMPL_Cast(E, m, O)                                                        \
  MLOperand MLGraphBuilder::m(const MLOperand& input, MLOperandDataType dataType,       \
                              const O& options) {                                       \
    MLOperand ops[] = {input};                                                          \
    return record(OpType::k##E, ops, make_attrs<OpType::k##E>({dataType}, options))[0]; \
  }
#define CPPNN_IMPL_Concat(E, m, O)                                                     \
  MLOperand MLGraphBuilder::m(const std::vector<MLOperand>& inputs, uint32_t axis,     \
                              const O& options) {                                      \
    return record(OpType::k##E, inputs, make_attrs<OpType::k##E>({axis}, options))[0]; \
  }
#define CPPNN_IMPL_Shape(E, m, O)                                                               \
  MLOperand MLGraphBuilder::m(const MLOperand& input, std::vector<uint32_t> shape,              \
                              const O& options) {                                               \
    MLOperand ops[] = {input};                                                                  \
    return record(OpType::k##E, ops, make_attrs<OpType::k##E>({std::move(shape)}, options))[0]; \
  }
#define CPPNN_IMPL_TwoLists(E, m, O)                                                            \
  MLOperand MLGraphBuilder::m(const MLOperand& input, std::vector<uint32_t> first,              \
                              std::vector<uint32_t> second, const O& options) {                 \
    MLOperand ops[] = {input};                                                                  \
    return record(OpType::k##E, ops,                                                            \
                  make_attrs<OpType::k##E>({std::move(first), std::move(second)}, options))[0]; \
  }
#define CPPNN_IMPL_Split(E, m, O)                                                               \
  std::vector<MLOperand> MLGraphBuilder::m(const MLOperand& input, uint32_t count,              \
                                           const O& options) {                                  \
    MLOperand ops[] = {input};                                                                  \
    return record(OpType::k##E, ops, make_attrs<OpType::k##E>({count}, options));               \
  }                                                                                             \
  std::vector<MLOperand> MLGraphBuilder::m(const MLOperand& input, std::vector<uint32_t> sizes, \
                                           const O& options) {                                  \
    MLOperand ops[] = {input};                                                                  \
    return record(OpType::k##E, ops, make_attrs<OpType::k##E>({std::move(sizes)}, options));    \
  }
#define CPPNN_IMPL_Recurrent(E, m, O)                                                         \
  std::vector<MLOperand> MLGraphBuilder::m(const MLOperand& input, const MLOperand& weight,   \
                                           const MLOperand& recurrentWeight, uint32_t steps,  \
                                           uint32_t hiddenSize, const O& options) {           \
    MLOperand ops[] = {input, weight, recurrentWeight};                                       \
    return record(OpType::k##E, ops, make_attrs<OpType::k##E>({steps, hiddenSize}, options)); \
  }
#define CPPNN_IMPL_GruCell(E, m, O)                                                           \
  MLOperand MLGraphBuilder::m(const MLOperand& input, const MLOperand& weight,                \
                              const MLOperand& recurrentWeight, const MLOperand& hiddenState, \
                              uint32_t hiddenSize, const O& options) {                        \
    MLOperand ops[] = {input, weight, recurrentWeight, hiddenState};                          \
    return record(OpType::k##E, ops, make_attrs<OpType::k##E>({hiddenSize}, options))[0];     \
  }
#define CPPNN_IMPL_LstmCell(E, m, O)                                                     \
  std::vector<MLOperand> MLGraphBuilder::m(                                              \
      const MLOperand& input, const MLOperand& weight, const MLOperand& recurrentWeight, \
      const MLOperand& hiddenState, const MLOperand& cellState, uint32_t hiddenSize,     \
      const O& options) {                                                                \
    MLOperand ops[] = {input, weight, recurrentWeight, hiddenState, cellState};          \
    return record(OpType::k##E, ops, make_attrs<OpType::k##E>({hiddenSize}, options));   \
  }

#define CPPNN_OP(E, m, S, O, F) CPPNN_IMPL_##S(E, m, O)
#include "cppnn/ops.def"
#undef CPPNN_OP

}  // namespace cppnn
