// Differential import of kept-dynamic free dimensions (keep_dynamic.h).
#include "src/import/onnx/keep_dynamic.h"

#include <cstring>
#include <optional>
#include <set>
#include <vector>

#include "cppnn/errors.h"
#include "src/graph/attr_hash.h"
#include "src/graph/dynamic_dims.h"
#include "src/graph/symbolic_sizes.h"
#include "src/passes/rewriter.h"

namespace cppnn::onnx_import {
namespace {

// One imported graph and the sizes it was imported at.
struct Variant {
  size_t symbol = 0;  // the kept dimension that differs from its maximum
  int64_t size = 0;
  Graph graph;
};

[[noreturn]] void fail(const std::string& message) {
  throw NotSupportedError("--keep-dynamic: " + message);
}

std::string op_where(const Graph& g, size_t k) {
  const Operation& op = g.operations[k];
  std::string s = "operation " + std::to_string(k) + " (" + std::string(op_name(op.type));
  if (!op.label().empty()) s += " [" + op.label() + "]";
  return s + ")";
}

// The affine relation v = scale * s + offset through (m, v0), (a1, v1) checked at (a2, v2); nullopt
// when the values are not affine in s with an integer scale of at least 1.
std::optional<SymbolicSize> fit(int64_t m, int64_t v0, int64_t a1, int64_t v1, int64_t a2,
                                int64_t v2) {
  const int64_t dv = v0 - v1, ds = m - a1;
  if (ds == 0 || dv % ds != 0) return std::nullopt;
  SymbolicSize s;
  s.scale = dv / ds;
  if (s.scale < 1) return std::nullopt;
  s.offset = v0 - s.scale * m;
  if (s.scale * a2 + s.offset != v2) return std::nullopt;
  return s;
}

// The variants of symbol k, in order (two per kept dimension).
std::vector<const Variant*> variants_of(const std::vector<Variant>& all, size_t k) {
  std::vector<const Variant*> out;
  for (const Variant& v : all)
    if (v.symbol == k) out.push_back(&v);
  return out;
}

// The same structure: operands (kinds, names), operations (types, operands, labels), inputs and
// output names. Descriptors and attributes may differ.
void check_structure(const Graph& g0, const Variant& v, const std::string& at) {
  const Graph& g = v.graph;
  auto differ = [&](const std::string& what) {
    fail("the converted graph's structure depends on the dynamic dimension (" + what + " at " + at +
         "); the model cannot be kept dynamic");
  };
  if (g.operands.size() != g0.operands.size() || g.operations.size() != g0.operations.size())
    differ(std::to_string(g.operations.size()) + " operations instead of " +
           std::to_string(g0.operations.size()));
  if (g.inputs != g0.inputs) differ("other inputs");
  for (size_t i = 0; i < g.outputs.size() && i < g0.outputs.size(); ++i)
    if (g.outputs[i] != g0.outputs[i]) differ("other outputs");
  if (g.outputs.size() != g0.outputs.size()) differ("other outputs");
  for (size_t i = 0; i < g.operands.size(); ++i)
    if (g.operands[i].kind != g0.operands[i].kind || g.operands[i].name != g0.operands[i].name ||
        g.operands[i].descriptor.dataType != g0.operands[i].descriptor.dataType ||
        g.operands[i].descriptor.shape.size() != g0.operands[i].descriptor.shape.size())
      differ("operand " + std::to_string(i) + " '" + g0.operands[i].name + "'");
  for (size_t k = 0; k < g.operations.size(); ++k) {
    const Operation& a = g0.operations[k];
    const Operation& b = g.operations[k];
    if (a.type != b.type || a.inputs != b.inputs || a.outputs != b.outputs ||
        a.label() != b.label())
      differ(op_where(g0, k));
  }
}

// The hash of an op's attributes with every integer attribute element zeroed (what must not
// change with the dynamic dimension).
uint64_t non_integer_hash(const Operation& op) {
  OpAttributes attrs = op.attrs;
  for (const auto& [field, values] : integer_attributes(op.type, attrs))
    for (size_t i = 0; i < values.size(); ++i)
      (void)set_size_attribute(op.type, attrs, field, static_cast<uint32_t>(i), 0);
  Hasher h;
  hash_attributes(h, attrs);
  return h.value();
}

// True when `small` (shape `ss`) equals the leading block of `big` (shape `bs`, same rank and
// element size `es`).
bool is_leading_block(std::span<const std::byte> big, const std::vector<uint32_t>& bs,
                      std::span<const std::byte> small, const std::vector<uint32_t>& ss,
                      size_t es) {
  const size_t rank = bs.size();
  if (rank == 0)
    return big.size() == small.size() && std::memcmp(big.data(), small.data(), big.size()) == 0;
  // Rows of the last axis: compare ss.back() elements of each row of the small block.
  std::vector<uint64_t> big_strides(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) big_strides[d - 1] = big_strides[d] * bs[d];
  const uint64_t rows = element_count(ss) / std::max<uint32_t>(ss.back(), 1);
  std::vector<uint32_t> idx(rank, 0);
  for (uint64_t r = 0; r < rows; ++r) {
    uint64_t off = 0;
    for (size_t d = 0; d + 1 < rank; ++d) off += idx[d] * big_strides[d];
    const size_t n = size_t{ss.back()} * es;
    if (std::memcmp(big.data() + off * es, small.data() + r * n, n) != 0) return false;
    for (size_t d = rank - 1; d-- > 0;) {  // next row index (row-major over the leading axes)
      if (++idx[d] < ss[d]) break;
      idx[d] = 0;
    }
  }
  return true;
}

size_t element_bytes(MLOperandDataType t) {
  return static_cast<size_t>(byte_length(MLOperandDescriptor{t, {1}}));
}

}  // namespace

Graph onnx_to_dynamic_graph(const std::filesystem::path& model, const OnnxImportOptions& options,
                            const std::map<std::string, uint32_t>& keep, OnnxImportResult* result) {
  std::vector<std::string> names;
  std::vector<int64_t> maxima;
  OnnxImportOptions base = options;
  for (const auto& [name, max] : keep) {
    if (max < 4)
      fail("the maximum of '" + name + "' must be at least 4, got " + std::to_string(max));
    names.push_back(name);
    maxima.push_back(max);
    base.freeDimensions[name] = max;
  }
  OnnxImportResult r;
  Graph g0 = onnx_to_graph(model, base, &r);
  // Two more sizes per kept dimension, the others at their maximum.
  std::vector<Variant> variants;
  for (size_t k = 0; k < names.size(); ++k) {
    const int64_t m = maxima[k];
    int64_t a2 = m / 2 + 1;
    if (a2 == m - 1) a2 = m - 2;
    for (int64_t a : {m - 1, a2}) {
      OnnxImportOptions o = base;
      o.freeDimensions[names[k]] = static_cast<uint32_t>(a);
      variants.push_back({k, a, onnx_to_graph(model, o, nullptr)});
      check_structure(g0, variants.back(), names[k] + "=" + std::to_string(a));
    }
  }
  if (result) *result = std::move(r);

  // The relation of one integer across the variants: nullopt when it never changes.
  auto relation = [&](const std::string& what, auto&& value_of) -> std::optional<SymbolicSize> {
    std::optional<SymbolicSize> found;
    for (size_t k = 0; k < names.size(); ++k) {
      std::vector<const Variant*> vs = variants_of(variants, k);
      const int64_t v0 = value_of(g0), v1 = value_of(vs[0]->graph), v2 = value_of(vs[1]->graph);
      if (v0 == v1 && v0 == v2) continue;
      if (found)
        fail(what + " depends on two dynamic dimensions ('" + found->symbol + "' and '" + names[k] +
             "')");
      found = fit(maxima[k], v0, vs[0]->size, v1, vs[1]->size, v2);
      if (!found)
        fail(what + " is " + std::to_string(v0) + ", " + std::to_string(v1) + ", " +
             std::to_string(v2) + " at " + names[k] + " = " + std::to_string(maxima[k]) + ", " +
             std::to_string(vs[0]->size) + ", " + std::to_string(vs[1]->size) + ": not scale * " +
             names[k] + " + offset");
      found->symbol = names[k];
    }
    return found;
  };

  // Inputs: a dimension that changes is the kept dimension itself.
  for (OperandId id : g0.inputs) {
    OperandInfo& info = g0.operands[id.value];
    const size_t rank = info.descriptor.shape.size();
    std::vector<std::string> dims(rank);
    bool any = false;
    for (size_t d = 0; d < rank; ++d) {
      auto rel =
          relation("input '" + info.name + "' dimension " + std::to_string(d),
                   [&](const Graph& g) { return int64_t{g.operand(id).descriptor.shape[d]}; });
      if (!rel) continue;
      if (rel->scale != 1 || rel->offset != 0)
        fail("input '" + info.name + "' dimension " + std::to_string(d) + " is " +
             symbolic_expression(*rel) + ", not a free dimension");
      dims[d] = rel->symbol;
      any = true;
    }
    if (any) info.dim_names = std::move(dims);
  }

  // Operations: integer attributes that change become symbolic sizes; nothing else may change.
  for (size_t k = 0; k < g0.operations.size(); ++k) {
    Operation& op = g0.operations[k];
    const auto fields = integer_attributes(op.type, op.attrs);
    std::vector<std::vector<std::pair<std::string, std::vector<int64_t>>>> others;
    for (const Variant& v : variants) {
      if (non_integer_hash(v.graph.operations[k]) != non_integer_hash(op))
        fail(op_where(g0, k) + ": an attribute other than a size changes with " + names[v.symbol]);
      others.push_back(integer_attributes(op.type, v.graph.operations[k].attrs));
      if (others.back().size() != fields.size())
        fail(op_where(g0, k) + ": its attributes change with " + names[v.symbol]);
    }
    for (size_t f = 0; f < fields.size(); ++f) {
      // Not a structured binding: lambdas below capture `values` (clang before 16 cannot).
      const auto& field = fields[f].first;
      const auto& values = fields[f].second;
      for (const auto& o : others)
        if (o[f].first != field || o[f].second.size() != values.size())
          fail(op_where(g0, k) + ": the length of '" + field +
               "' changes with the dynamic "
               "dimension");
      for (size_t i = 0; i < values.size(); ++i) {
        auto rel = relation(op_where(g0, k) + " " + field + "[" + std::to_string(i) + "]",
                            [&](const Graph& g) {
                              if (&g == &g0) return values[i];
                              for (size_t vi = 0; vi < variants.size(); ++vi)
                                if (&variants[vi].graph == &g) return others[vi][f].second[i];
                              return values[i];
                            });
        if (!rel) continue;
        rel->field = field;
        rel->index = static_cast<uint32_t>(i);
        op.symbolic.push_back(*rel);
      }
    }
  }

  // Constants: the same bytes, or (a changed extent) the leading block of the one at the maxima.
  std::map<uint32_t, std::vector<std::optional<SymbolicSize>>> sliced;  // operand -> per axis
  for (size_t i = 0; i < g0.operands.size(); ++i) {
    const OperandInfo& info = g0.operands[i];
    if (info.kind != OperandKind::kConstant) continue;
    const OperandId id{static_cast<uint32_t>(i)};
    const size_t rank = info.descriptor.shape.size();
    std::vector<std::optional<SymbolicSize>> axes(rank);
    bool changed = false;
    for (size_t d = 0; d < rank; ++d) {
      axes[d] =
          relation("constant '" + info.name + "' dimension " + std::to_string(d),
                   [&](const Graph& g) { return int64_t{g.operand(id).descriptor.shape[d]}; });
      changed = changed || axes[d].has_value();
    }
    const ConstantData& c0 = g0.constant(id);
    for (const Variant& v : variants) {
      const ConstantData& c = v.graph.constant(id);
      if (c.data() == c0.data() && c.size() == c0.size()) continue;
      const bool same =
          changed ? is_leading_block(c0.bytes(), info.descriptor.shape, c.bytes(),
                                     v.graph.descriptor(id).shape,
                                     element_bytes(info.descriptor.dataType))
                  : c.size() == c0.size() && std::memcmp(c.data(), c0.data(), c.size()) == 0;
      if (!same)
        fail("constant '" + info.name + "' " + shape_to_string(info.descriptor.shape) +
             (changed ? " is not the leading block of itself at the maxima" : " has other values") +
             " at " + names[v.symbol] + " = " + std::to_string(v.size) +
             " (a value computed from the dynamic dimension; it cannot be kept dynamic)");
    }
    if (changed) sliced[id.value] = std::move(axes);
  }

  // The graph at the maxima with the changed constants sliced to their symbolic extent.
  passes::GraphRewriter rw(g0);
  for (const Operation& op : g0.operations) {
    for (OperandId in : op.inputs) {
      auto it = in.valid() ? sliced.find(in.value) : sliced.end();
      if (it == sliced.end() || rw.has(in)) continue;
      const std::vector<uint32_t>& shape = g0.descriptor(in).shape;
      MLSliceOptions so;
      so.label = g0.operand(in).name + "/keep_dynamic";
      MLOperand s =
          rw.builder().slice(rw.value(in), std::vector<uint32_t>(shape.size(), 0), shape, so);
      Operation& slice = rw.operation(rw.operation_count() - 1);
      for (size_t d = 0; d < it->second.size(); ++d)
        if (it->second[d]) {
          SymbolicSize sym = *it->second[d];
          sym.field = "sizes";
          sym.index = static_cast<uint32_t>(d);
          slice.symbolic.push_back(sym);
        }
      rw.set(in, s);
    }
    rw.copy(op);
  }
  Graph out = rw.finish();

  // Self-check: re-derived at each imported size, the graph has that import's output shapes.
  Result<DynamicDims> dims = dynamic_dims(out);
  if (!dims) fail(dims.error().message);
  for (const Variant& v : variants) {
    std::vector<uint32_t> sizes;
    for (size_t k = 0; k < dims->names.size(); ++k)
      sizes.push_back(dims->names[k] == names[v.symbol] ? static_cast<uint32_t>(v.size)
                                                        : dims->maxima[k]);
    Result<Graph> s = specialize_graph(out, *dims, sizes);
    if (!s)
      fail("the graph does not re-derive at " + describe_sizes(*dims, sizes) + ": " +
           s.error().message);
    for (size_t o = 0; o < s->outputs.size(); ++o)
      if (s->descriptor(s->outputs[o].second) != v.graph.descriptor(v.graph.outputs.at(o).second))
        fail("output '" + s->outputs[o].first + "' re-derives to " +
             to_string(s->descriptor(s->outputs[o].second)) + " at " +
             describe_sizes(*dims, sizes) + ", the import gives " +
             to_string(v.graph.descriptor(v.graph.outputs.at(o).second)));
  }
  return out;
}

}  // namespace cppnn::onnx_import
