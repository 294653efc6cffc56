// Dynamic dimensions through the builder API (include/cppnn/dynamic_dims.h).
#include "cppnn/dynamic_dims.h"
#include "cppnn/errors.h"
#include "src/api/states.h"
#include "src/graph/symbolic_sizes.h"

namespace cppnn {

MLOperand dynamic_input(MLGraphBuilder& builder, const std::string& name,
                        const MLOperandDescriptor& maxima,
                        const std::vector<std::string>& dim_names) {
  if (dim_names.size() != maxima.shape.size())
    throw TypeError("input \"" + name + "\": " + std::to_string(dim_names.size()) +
                    " dimension names for a shape of rank " + std::to_string(maxima.shape.size()));
  MLOperand o = builder.input(name, maxima);
  bool any = false;
  for (const std::string& d : dim_names) any = any || !d.empty();
  if (any) builder.state()->graph.operands[o.id().value].dim_names = dim_names;
  return o;
}

void set_symbolic_size(MLGraphBuilder& builder, const MLOperand& result, const std::string& field,
                       uint32_t index, const std::string& expression) {
  Graph& g = builder.state()->graph;
  if (result.is_null() || result.builder_state() != builder.state())
    throw TypeError("set_symbolic_size: the operand belongs to another builder");
  const OperandInfo& info = g.operand(result.id());
  if (info.kind != OperandKind::kOperationResult)
    throw TypeError("set_symbolic_size: the operand is not an operation's result");
  Operation& op = g.operations.at(info.producer);
  const std::string where = "set_symbolic_size: " + std::string(op_name(op.type));
  Result<SymbolicSize> s = parse_symbolic_expression(expression);
  if (!s) throw TypeError(where + ": " + s.error().message);
  s->field = field;
  s->index = index;
  const uint32_t* max = nullptr;
  for (OperandId in : g.inputs) {
    const OperandInfo& i = g.operand(in);
    for (size_t d = 0; d < i.dim_names.size() && !max; ++d)
      if (i.dim_names[d] == s->symbol) max = &i.descriptor.shape[d];
  }
  if (!max) throw TypeError(where + ": \"" + s->symbol + "\" names no dynamic input dimension");
  Result<int64_t> have = size_attribute(op.type, op.attrs, field, index);
  if (!have) throw TypeError(where + ": " + have.error().message);
  Result<int64_t> want = evaluate_symbolic(*s, *max);
  if (!want || *want != *have)
    throw TypeError(where + ": " + field + "[" + std::to_string(index) + "] is " +
                    std::to_string(*have) + ", not " + expression + " at " + s->symbol + " = " +
                    std::to_string(*max));
  std::erase_if(op.symbolic,
                [&](const SymbolicSize& x) { return x.field == field && x.index == index; });
  op.symbolic.push_back(std::move(*s));
}

}  // namespace cppnn
