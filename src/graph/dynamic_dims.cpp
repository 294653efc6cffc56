// Dynamic dimensions at dispatch: the dimension table, the sizes of a dispatch, and the graph
// re-derived at those sizes (docs/dynamic-dimensions.md).
#include "src/graph/dynamic_dims.h"

#include <algorithm>
#include <map>
#include <variant>

#include "cppnn/errors.h"
#include "cppnn/reflect.h"
#include "src/api/states.h"
#include "src/graph/symbolic_sizes.h"
#include "src/passes/rewriter.h"

namespace cppnn {
namespace {

ErrorInfo not_supported(const std::string& message) {
  return ErrorInfo{ErrorKind::kNotSupportedError, message};
}

std::string op_where(size_t index, const Operation& op) {
  std::string s = "operation " + std::to_string(index) + " (" + std::string(op_name(op.type));
  if (!op.label().empty()) s += " [" + op.label() + "]";
  return s + ")";
}

// Reshape's newShape re-derived for a changed input (see specialize_graph): the dimensions are
// split into the smallest groups of equal products at the recorded sizes; a group whose input
// product changed must map onto exactly one output dimension other than 1, which takes the new
// product over the group's other output dimensions.
Result<std::vector<uint32_t>> rederive_reshape(const std::vector<uint32_t>& old_in,
                                               const std::vector<uint32_t>& new_in,
                                               const std::vector<uint32_t>& old_out) {
  std::vector<uint32_t> out = old_out;
  size_t i = 0, j = 0;
  while (i < old_in.size() || j < old_out.size()) {
    const size_t gi = i, gj = j;
    uint64_t pin = 1, pout = 1;
    if (i < old_in.size()) pin *= old_in[i++];
    if (j < old_out.size()) pout *= old_out[j++];
    while (pin != pout) {
      if (pin < pout && i < old_in.size())
        pin *= old_in[i++];
      else if (pout < pin && j < old_out.size())
        pout *= old_out[j++];
      else
        return not_supported("the recorded shapes do not split into groups of equal size");
    }
    uint64_t pnew = 1;
    for (size_t k = gi; k < i; ++k) pnew *= new_in[k];
    if (pnew == pin) continue;
    size_t carrier = SIZE_MAX, carriers = 0;
    for (size_t k = gj; k < j; ++k)
      if (old_out[k] != 1) {
        carrier = k;
        ++carriers;
      }
    if (carriers != 1)
      return not_supported(str_cat("newShape[", gj, "..", j - 1, "] splits a changed dimension ",
                                   "among several output dimensions"));
    const uint64_t rest = pin / old_out[carrier];
    if (pnew % rest != 0 || pnew / rest > UINT32_MAX)
      return not_supported(str_cat("newShape[", carrier, "] cannot follow the input"));
    out[carrier] = static_cast<uint32_t>(pnew / rest);
  }
  return out;
}

// Expand's newShape re-derived for a changed input: an output dimension that equalled its
// (non-1) input dimension at the recorded sizes follows it; any other changed input dimension
// cannot be re-derived.
Result<std::vector<uint32_t>> rederive_expand(const std::vector<uint32_t>& old_in,
                                              const std::vector<uint32_t>& new_in,
                                              const std::vector<uint32_t>& old_out) {
  std::vector<uint32_t> out = old_out;
  if (old_in.size() > old_out.size()) return out;  // the builder reports the error
  const size_t lead = old_out.size() - old_in.size();
  for (size_t k = 0; k < old_in.size(); ++k) {
    if (old_in[k] == new_in[k]) continue;
    if (old_in[k] != old_out[lead + k] || old_in[k] == 1)
      return not_supported(str_cat("newShape[", lead + k, "] = ", old_out[lead + k],
                                   " does not follow input dimension ", k));
    out[lead + k] = new_in[k];
  }
  return out;
}

// Records `op` again on `in` (positional operands, then operand-valued options, null where
// absent) with `attrs`, keeping its symbolic sizes; all its outputs.
std::vector<MLOperand> rerecord(passes::GraphRewriter& rw, const Operation& op,
                                std::vector<MLOperand> in, OpAttributes attrs) {
  std::vector<MLOperand> outs = passes::rerecord_operation(rw, op, std::move(in), std::move(attrs));
  rw.operation(rw.operation_count() - 1).symbolic = op.symbolic;
  return outs;
}

}  // namespace

int DynamicDims::find(const std::string& name) const {
  auto it = std::lower_bound(names.begin(), names.end(), name);
  return it != names.end() && *it == name ? static_cast<int>(it - names.begin()) : -1;
}

Result<DynamicDims> dynamic_dims(const Graph& graph) {
  std::map<std::string, uint32_t> maxima;
  for (OperandId id : graph.inputs) {
    const OperandInfo& info = graph.operand(id);
    for (size_t d = 0; d < info.dim_names.size() && d < info.descriptor.shape.size(); ++d) {
      const std::string& name = info.dim_names[d];
      if (name.empty()) continue;
      const uint32_t max = info.descriptor.shape[d];
      auto [it, fresh] = maxima.emplace(name, max);
      if (!fresh && it->second != max)
        return type_error("input \"", info.name, "\" dimension ", d, ": the dynamic dimension \"",
                          name, "\" has maximum ", max, " here and ", it->second,
                          " in another input");
    }
  }
  DynamicDims dims;
  for (const auto& [name, max] : maxima) {
    dims.names.push_back(name);
    dims.maxima.push_back(max);
  }
  for (size_t k = 0; k < graph.operations.size(); ++k) {
    const Operation& op = graph.operations[k];
    for (const SymbolicSize& s : op.symbolic) {
      const int at = dims.find(s.symbol);
      if (at < 0)
        return type_error(op_where(k, op), ": the symbolic size ", s.field, "[", s.index,
                          "] = ", symbolic_expression(s), " names no dynamic input dimension");
      Result<int64_t> want = evaluate_symbolic(s, dims.maxima[at]);
      if (!want) return type_error(op_where(k, op), ": ", want.error().message);
      Result<int64_t> have = size_attribute(op.type, op.attrs, s.field, s.index);
      if (!have) return type_error(op_where(k, op), ": ", have.error().message);
      if (*have != *want)
        return type_error(op_where(k, op), ": ", s.field, "[", s.index, "] is ", *have, " but ",
                          symbolic_expression(s), " is ", *want, " at ", s.symbol, " = ",
                          dims.maxima[at]);
    }
  }
  return dims;
}

Result<std::vector<uint32_t>> dynamic_sizes(const Graph& graph, const DynamicDims& dims,
                                            std::span<const MLOperandDescriptor* const> actual) {
  std::vector<uint32_t> sizes(dims.names.size(), 0);
  std::vector<std::string> given_by(dims.names.size());
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const OperandInfo& info = graph.operand(graph.inputs[i]);
    const MLOperandDescriptor& want = info.descriptor;
    const MLOperandDescriptor& have = *actual[i];
    const std::string input = "input \"" + info.name + "\"";
    if (have.dataType != want.dataType || have.shape.size() != want.shape.size())
      return type_error(input, " expects ", to_string(want), " (dynamic dimensions up to their ",
                        "maximum), the bound tensor is ", to_string(have));
    for (size_t d = 0; d < want.shape.size(); ++d) {
      const std::string* name =
          d < info.dim_names.size() && !info.dim_names[d].empty() ? &info.dim_names[d] : nullptr;
      if (!name) {
        if (have.shape[d] != want.shape[d])
          return type_error(input, " dimension ", d, " is static ", want.shape[d],
                            ", the bound tensor has ", have.shape[d], " (", to_string(have), ")");
        continue;
      }
      const uint32_t v = have.shape[d];
      if (v < 1 || v > want.shape[d])
        return type_error(input, " dimension ", d, " (\"", *name, "\") is ", v, ", outside 1..",
                          want.shape[d]);
      const int at = dims.find(*name);
      if (at < 0) return type_error(input, ": unknown dynamic dimension \"", *name, "\"");
      if (sizes[at] != 0 && sizes[at] != v)
        return type_error(input, " dimension ", d, " (\"", *name, "\") is ", v, " but ",
                          given_by[at], " gives \"", *name, "\" = ", sizes[at]);
      sizes[at] = v;
      given_by[at] = input;
    }
  }
  for (size_t k = 0; k < sizes.size(); ++k)
    if (sizes[k] == 0) sizes[k] = dims.maxima[k];  // a dimension of no bound input
  return sizes;
}

std::string describe_sizes(const DynamicDims& dims, std::span<const uint32_t> sizes) {
  std::string s;
  for (size_t k = 0; k < dims.names.size() && k < sizes.size(); ++k) {
    if (k) s += ", ";
    s += dims.names[k] + "=" + std::to_string(sizes[k]);
  }
  return s;
}

Result<Graph> specialize_graph(const Graph& graph, const DynamicDims& dims,
                               std::span<const uint32_t> sizes) {
  const std::string at = describe_sizes(dims, sizes);
  passes::GraphRewriter rw(graph);
  Graph& g = rw.builder().state()->graph;
  for (OperandId id : g.inputs) {
    OperandInfo& info = g.operands[id.value];
    for (size_t d = 0; d < info.dim_names.size() && d < info.descriptor.shape.size(); ++d)
      if (const int k = info.dim_names[d].empty() ? -1 : dims.find(info.dim_names[d]); k >= 0)
        info.descriptor.shape[d] = sizes[k];
  }
  std::vector<int64_t> values(sizes.begin(), sizes.end());
  for (size_t k = 0; k < graph.operations.size(); ++k) {
    const Operation& op = graph.operations[k];
    const std::string where = "at " + at + ": " + op_where(k, op);
    std::vector<MLOperand> in;
    bool changed = false;
    for (OperandId id : op.inputs) {
      in.push_back(rw.value_or_null(id));
      if (id.valid() && rw.graph().descriptor(in.back().id()) != graph.descriptor(id))
        changed = true;
    }
    if (!changed && op.symbolic.empty()) {
      rw.copy(op);
      continue;
    }
    OpAttributes attrs = op.attrs;
    for (const SymbolicSize& s : op.symbolic) {
      Result<int64_t> v = evaluate_symbolic(s, values.at(dims.find(s.symbol)));
      if (!v) return not_supported(where + ": " + v.error().message);
      if (Status st = set_size_attribute(op.type, attrs, s.field, s.index, *v); !st)
        return not_supported(where + ": " + s.field + "[" + std::to_string(s.index) +
                             "] = " + symbolic_expression(s) + ": " + st.error().message);
    }
    if (op.symbolic.empty() && (op.type == OpType::kReshape || op.type == OpType::kExpand)) {
      const std::vector<uint32_t>& old_in = graph.descriptor(op.inputs[0]).shape;
      const std::vector<uint32_t>& new_in = rw.graph().descriptor(in[0].id()).shape;
      std::vector<uint32_t>& shape = op.type == OpType::kReshape
                                         ? attrs_of<OpType::kReshape>(attrs).params.shape
                                         : attrs_of<OpType::kExpand>(attrs).params.shape;
      Result<std::vector<uint32_t>> derived = op.type == OpType::kReshape
                                                  ? rederive_reshape(old_in, new_in, shape)
                                                  : rederive_expand(old_in, new_in, shape);
      if (!derived)
        return not_supported(where + ": " + derived.error().message +
                             "; record its sizes as symbolic (docs/dynamic-dimensions.md)");
      shape = std::move(*derived);
    }
    try {
      std::vector<MLOperand> outs = rerecord(rw, op, std::move(in), std::move(attrs));
      for (size_t o = 0; o < outs.size() && o < op.outputs.size(); ++o)
        rw.set(op.outputs[o], outs[o]);
    } catch (const Error& e) {
      return not_supported(where + " cannot run at these sizes: " + e.what() +
                           " (a size in this operation or before it does not follow the dynamic "
                           "dimensions; record it as symbolic, docs/dynamic-dimensions.md)");
    }
  }
  try {
    return rw.finish();
  } catch (const Error& e) {
    return not_supported("at " + at + ": " + e.what());
  }
}

}  // namespace cppnn
