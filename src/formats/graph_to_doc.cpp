// Graph -> document: any cppnn Graph printed in the forms the loader reads back
// (webnn-graph-format.md "printing a graph recorded through the API writes the same forms").
#include <charconv>
#include <cmath>
#include <set>
#include <type_traits>

#include "cppnn/enums.h"
#include "cppnn/errors.h"
#include "cppnn/reflect.h"
#include "src/formats/doc_symbolic.h"
#include "src/formats/graph_convert.h"
#include "src/formats/op_params.h"
#include "src/graph/symbolic_sizes.h"

namespace cppnn::formats {
namespace {

// A double as a DocValue the readers take back: non-finite values, which neither format can
// spell as a number, become the strings "Infinity", "-Infinity" and "NaN", which the builder
// call reads as numbers (dynamic_call.h, like JavaScript's ToNumber).
DocValue double_value(double d) {
  if (std::isnan(d)) return DocValue::string("NaN");
  if (std::isinf(d)) return DocValue::string(d > 0 ? "Infinity" : "-Infinity");
  return DocValue::floating(d);
}

// True for a scalar fill the formats can write as `@scalar(n)` (a finite number).
bool writable_scalar(const MLNumber& n) {
  return n.kind() != MLNumber::Kind::kDouble || std::isfinite(n.as_double());
}

// clamp's bounds given as their spec defaults (minValue -Infinity, maxValue +Infinity) are
// omitted like every other default option.
bool is_default_bound(std::string_view field, const std::optional<MLNumber>& v) {
  if (!v || v->kind() != MLNumber::Kind::kDouble || !std::isinf(v->as_double())) return false;
  return (field == "minValue" && v->as_double() < 0) || (field == "maxValue" && v->as_double() > 0);
}

DocValue number_value(const MLNumber& n) {
  switch (n.kind()) {
    case MLNumber::Kind::kInt64:
      return DocValue::integer(n.raw_int64());
    case MLNumber::Kind::kUint64:
      if (n.raw_uint64() <= static_cast<uint64_t>(INT64_MAX))
        return DocValue::integer(static_cast<int64_t>(n.raw_uint64()));
      return DocValue::unsigned_integer(n.raw_uint64());
    case MLNumber::Kind::kDouble:
      return double_value(n.as_double());
  }
  return DocValue::null();
}

// A float option as the double of its shortest float spelling (0.1f prints as 0.1).
DocValue float_value(float f) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, f);
  double d = 0;
  std::from_chars(buf, r.ptr, d);
  return std::isfinite(f) ? DocValue::floating(d) : double_value(f);
}

DocValue uint_list(const std::vector<uint32_t>& v) {
  DocValue a = DocValue::array();
  a.items.reserve(v.size());
  for (uint32_t x : v) a.items.push_back(DocValue::integer(x));
  return a;
}

template <class T>
struct ListOf {
  using type = void;
};
template <class T>
struct ListOf<OptionalList<T>> {
  using type = T;
};

template <class T>
DocValue value_of(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return DocValue::boolean(v);
  } else if constexpr (std::is_same_v<T, uint32_t> || std::is_same_v<T, int32_t>) {
    return DocValue::integer(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return double_value(v);
  } else if constexpr (std::is_same_v<T, float>) {
    return float_value(v);
  } else if constexpr (std::is_same_v<T, MLNumber>) {
    return number_value(v);
  } else if constexpr (std::is_same_v<T, std::optional<MLNumber>>) {
    return number_value(*v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return DocValue::string(v);
  } else if constexpr (requires { EnumStrings<T>::values; }) {
    return DocValue::string(std::string(enum_to_string(v)));
  } else {
    using E = typename ListOf<T>::type;
    static_assert(!std::is_void_v<E>, "graph_to_doc has no writer for this option field type");
    DocValue a = DocValue::array();
    for (const E& e : v.value()) a.items.push_back(value_of(e));
    return a;
  }
}

template <class P>
void write_params(const P& p, const std::vector<std::string_view>& names, DocValue::Object& out) {
  if constexpr (std::is_same_v<P, AxisParams>) {
    out.emplace_back(names[0], DocValue::integer(p.axis));
  } else if constexpr (std::is_same_v<P, CastParams>) {
    out.emplace_back(names[0], DocValue::string(std::string(data_type_name(p.dataType))));
  } else if constexpr (std::is_same_v<P, ShapeParams>) {
    out.emplace_back(names[0], uint_list(p.shape));
  } else if constexpr (std::is_same_v<P, TwoListParams>) {
    out.emplace_back(names[0], uint_list(p.first));
    out.emplace_back(names[1], uint_list(p.second));
  } else if constexpr (std::is_same_v<P, SplitParams>) {
    if (const auto* n = std::get_if<uint32_t>(&p.splits))
      out.emplace_back(names[0], DocValue::integer(*n));
    else
      out.emplace_back(names[0], uint_list(std::get<std::vector<uint32_t>>(p.splits)));
  } else if constexpr (std::is_same_v<P, RecurrentParams>) {
    out.emplace_back(names[0], DocValue::integer(p.steps));
    out.emplace_back(names[1], DocValue::integer(p.hiddenSize));
  } else if constexpr (std::is_same_v<P, CellParams>) {
    out.emplace_back(names[0], DocValue::integer(p.hiddenSize));
  }
}

class Writer {
 public:
  Writer(const Graph& g, const GraphToDocOptions& o) : g_(g), opt_(o), names_(g.operands.size()) {}

  GraphDoc run() {
    assign_names();
    GraphDoc doc;
    doc.name = opt_.name;
    bool dynamic = false, four_bit = false;
    for (const OperandInfo& info : g_.operands)
      four_bit = four_bit || data_type_bits(info.descriptor.dataType) == 4;
    for (OperandId id : g_.inputs) {
      const OperandInfo& info = g_.operand(id);
      DocInput in;
      in.dataType = info.descriptor.dataType;
      for (size_t i = 0; i < info.descriptor.shape.size(); ++i) {
        DocDim d{info.descriptor.shape[i], {}};
        if (i < info.dim_names.size()) d.name = info.dim_names[i];
        dynamic = dynamic || d.is_dynamic();
        in.shape.push_back(std::move(d));
      }
      doc.inputs.insert_or_assign(names_[id.value], std::move(in));
    }
    for (size_t i = 0; i < g_.operands.size(); ++i) {
      const OperandInfo& info = g_.operands[i];
      if (info.kind != OperandKind::kConstant) continue;
      doc.consts.insert_or_assign(names_[i], constant(info, names_[i]));
    }
    doc.nodes.reserve(g_.operations.size());
    for (const Operation& op : g_.operations) doc.nodes.push_back(node(op));
    for (const auto& [name, id] : g_.outputs) doc.outputs.insert_or_assign(name, names_[id.value]);
    doc.version = opt_.version ? opt_.version : (dynamic ? 2 : 1);
    doc.quantized = opt_.quantized.value_or(four_bit);
    return doc;
  }

 private:
  // Names: inputs keep theirs; then file names; then unnamed outputs of the graph take their
  // output name; the rest get `<op>_<index>[_<k>]` / `const_<index>`, made unique with `_<n>`.
  void assign_names() {
    auto claim = [&](uint32_t id, const std::string& want) {
      std::string name = want;
      for (int n = 2; used_.contains(name); ++n) name = want + "_" + std::to_string(n);
      used_.insert(name);
      names_[id] = std::move(name);
    };
    for (OperandId id : g_.inputs) {
      names_[id.value] = g_.operand(id).name;
      used_.insert(g_.operand(id).name);
    }
    for (size_t i = 0; i < g_.operands.size(); ++i) {
      const OperandInfo& info = g_.operands[i];
      if (info.kind != OperandKind::kInput && !info.name.empty() && names_[i].empty())
        claim(static_cast<uint32_t>(i), info.name);
    }
    for (const auto& [name, id] : g_.outputs)
      if (names_[id.value].empty()) claim(id.value, name);
    uint32_t const_index = 0;
    for (size_t i = 0; i < g_.operands.size(); ++i) {
      const OperandInfo& info = g_.operands[i];
      if (info.kind == OperandKind::kConstant) {
        if (names_[i].empty())
          claim(static_cast<uint32_t>(i), "const_" + std::to_string(const_index));
        ++const_index;
      }
    }
    for (size_t k = 0; k < g_.operations.size(); ++k) {
      const Operation& op = g_.operations[k];
      const std::string base = std::string(op_name(op.type)) + "_" + std::to_string(k);
      for (size_t j = 0; j < op.outputs.size(); ++j) {
        const uint32_t id = op.outputs[j].value;
        if (!names_[id].empty()) continue;
        claim(id, op.outputs.size() == 1 ? base : base + "_" + std::to_string(j));
      }
    }
  }

  DocConst constant(const OperandInfo& info, const std::string& name) {
    DocConst k;
    k.dataType = info.descriptor.dataType;
    k.shape = info.descriptor.shape;
    const ConstantData& data = g_.constants.at(info.producer);
    if (!info.weight_ref.empty()) {
      k.init.kind = DocInit::Kind::kWeights;
      k.init.ref = info.weight_ref;
    } else if (info.scalar_fill && writable_scalar(*info.scalar_fill)) {
      k.init.kind = DocInit::Kind::kScalar;
      k.init.value = number_value(*info.scalar_fill);
    } else if (data.size() <= opt_.max_inline_bytes) {
      k.init.kind = DocInit::Kind::kInlineBytes;
      const auto* b = reinterpret_cast<const uint8_t*>(data.data());
      k.init.bytes.assign(b, b + data.size());
    } else {
      k.init.kind = DocInit::Kind::kWeights;
      k.init.ref = name;
    }
    return k;
  }

  DocNode node(const Operation& op) {
    DocNode n;
    n.op = op_name(op.type);
    const int count = positional_operand_count(op.type);
    const size_t positional = count < 0 ? op.inputs.size() - operand_option_names(op.type).size()
                                        : static_cast<size_t>(count);
    for (size_t i = 0; i < positional; ++i) n.inputs.push_back(names_[op.inputs[i].value]);
    const std::vector<std::string_view> params = positional_param_names(op.type);
    size_t next_operand = positional;
    std::visit(
        [&](const auto& a) {
          if constexpr (requires { a.options; }) {
            write_params(a.params, params, n.options);
            using Options = std::decay_t<decltype(a.options)>;
            const Options defaults{};
            reflect::for_each_field<Options>([&](auto field) {
              using T = typename decltype(field)::type;
              if constexpr (std::is_same_v<T, std::optional<MLOperand>>) {
                const OperandId id = op.inputs.at(next_operand++);
                if (id.valid())
                  n.options.emplace_back(field.name, DocValue::string(names_[id.value]));
              } else {
                const T& v = a.options.*field.member;
                if (v == defaults.*field.member) return;
                if constexpr (std::is_same_v<T, std::optional<MLNumber>>)
                  if (is_default_bound(field.name, v)) return;
                n.options.emplace_back(field.name, value_of(v));
              }
            });
          }
        },
        op.attrs);
    for (const SymbolicSize& s : op.symbolic) write_symbolic(op, s, n.options);
    if (op.outputs.size() == 1 && !is_sequence(op.type)) {
      n.id = names_[op.outputs[0].value];
    } else {
      n.outputs.emplace();
      for (OperandId o : op.outputs) n.outputs->push_back(names_[o.value]);
      n.id = n.outputs->front();
    }
    return n;
  }

  // A symbolic size written over the recorded value it stands for (docs/dynamic-dimensions.md).
  static void write_symbolic(const Operation& op, const SymbolicSize& s,
                             DocValue::Object& options) {
    Result<int64_t> size = size_attribute(op.type, op.attrs, s.field, s.index);
    if (!size) throw_error(size.error().kind, size.error().message);
    DocValue sym = symbolic_value(symbolic_expression(s), *size);
    for (auto& [key, value] : options) {
      if (key != s.field) continue;
      if (value.kind == DocValue::Kind::kArray && s.index < value.items.size())
        value.items[s.index] = std::move(sym);
      else if (value.kind != DocValue::Kind::kArray && s.index == 0)
        value = std::move(sym);
      return;
    }
    throw DataError(std::string(op_name(op.type)) + ": symbolic size " + s.field + "[" +
                    std::to_string(s.index) + "] has no written option");
  }

  static bool is_sequence(OpType t) {
    return t == OpType::kSplit || t == OpType::kGru || t == OpType::kLstm || t == OpType::kLstmCell;
  }

  const Graph& g_;
  const GraphToDocOptions& opt_;
  std::vector<std::string> names_;
  std::set<std::string> used_;
};

}  // namespace

Result<GraphDoc> graph_to_doc(const Graph& graph, const GraphToDocOptions& options) {
  try {
    return Writer(graph, options).run();
  } catch (const Error& e) {
    return ErrorInfo{e.kind(), e.what()};
  } catch (const std::exception& e) {
    return data_error("graph_to_doc: ", e.what());
  }
}

}  // namespace cppnn::formats
