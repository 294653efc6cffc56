// Document -> builder (webnn-graph-format.md "cppnn: from a file to the graph model"): every node
// goes through call_builder_method, so files get exactly the validation of API calls.
#include <cstring>
#include <unordered_map>

#include "cppnn/dynamic_call.h"
#include "cppnn/errors.h"
#include "src/api/states.h"
#include "src/core/checked_math.h"
#include "src/formats/doc_symbolic.h"
#include "src/formats/graph_convert.h"
#include "src/formats/graph_validate.h"
#include "src/formats/op_params.h"
#include "src/formats/webnn_text.h"
#include "src/graph/symbolic_sizes.h"

namespace cppnn::formats {
namespace {

struct RecordError {
  ErrorKind kind;
  std::string message;
};

MLNumber number_of(const DocValue& v) {
  switch (v.kind) {
    case DocValue::Kind::kInt:
      return MLNumber(static_cast<long long>(v.i));
    case DocValue::Kind::kUint:
      return MLNumber(static_cast<unsigned long long>(v.u));
    default:
      return MLNumber(v.f);
  }
}

DynValue dyn_of(const DocValue& v) {
  switch (v.kind) {
    case DocValue::Kind::kNull:
      return DynValue();
    case DocValue::Kind::kBool:
      return DynValue(v.b);
    case DocValue::Kind::kInt:
    case DocValue::Kind::kUint:
    case DocValue::Kind::kFloat:
      return DynValue(number_of(v));
    case DocValue::Kind::kString:
      return DynValue(v.s);
    case DocValue::Kind::kArray: {
      DynValue::Array a;
      a.reserve(v.items.size());
      for (const DocValue& item : v.items) a.push_back(dyn_of(item));
      return DynValue(std::move(a));
    }
    case DocValue::Kind::kObject: {
      DynValue::Object o;
      o.reserve(v.members.size());
      for (const auto& [k, m] : v.members) o.emplace_back(k, dyn_of(m));
      return DynValue(std::move(o));
    }
  }
  return DynValue();
}

class Recorder {
 public:
  Recorder(const GraphDoc& doc, MLGraphBuilder& builder, WeightsSource* weights,
           std::string_view file)
      : doc_(doc), builder_(builder), weights_(weights), file_(file) {}

  MLNamedOperands run() {
    env_.reserve(doc_.inputs.size() + doc_.consts.size() + doc_.nodes.size() * 2);
    for (const auto& [name, in] : doc_.inputs) input(name, in);
    for (const auto& [name, k] : doc_.consts) constant(name, k);
    for (size_t i = 0; i < doc_.nodes.size(); ++i) node(doc_.nodes[i], i);
    MLNamedOperands outputs;
    for (const auto& [name, ref] : doc_.outputs) outputs.emplace(name, env_.at(ref));
    return outputs;
  }

 private:
  [[noreturn]] static void fail(ErrorKind kind, std::string message) {
    throw RecordError{kind, std::move(message)};
  }

  OperandInfo& info(const MLOperand& o) { return builder_.state()->graph.operands[o.id().value]; }

  void input(const std::string& name, const DocInput& in) {
    MLOperandDescriptor d{in.dataType, {}};
    std::vector<std::string> dim_names;
    bool dynamic = false;
    for (const DocDim& dim : in.shape) {
      if (dim.is_dynamic() && dim.size == 0)
        fail(ErrorKind::kDataError, "input '" + name + "': dynamic dimension '" + dim.name +
                                        "' has maximum 0 (must be at least 1)");
      d.shape.push_back(dim.size);
      dim_names.push_back(dim.name);
      dynamic = dynamic || dim.is_dynamic();
    }
    MLOperand o = guarded("input '" + name + "'", [&] { return builder_.input(name, d); });
    if (dynamic) info(o).dim_names = std::move(dim_names);
    env_[name] = o;
  }

  void constant(const std::string& name, const DocConst& k) {
    const std::string where = "constant '" + name + "'";
    const MLOperandDescriptor d{k.dataType, k.shape};
    MLOperand o;
    switch (k.init.kind) {
      case DocInit::Kind::kWeights: {
        if (!weights_)
          fail(ErrorKind::kDataError,
               where + ": @weights(\"" + k.init.ref + "\") needs a weights file (none given)");
        Result<ConstantData> data = weights_->load(name, k.init.ref, d);
        if (!data) fail(data.error().kind, where + ": " + data.error().message);
        o = guarded(where, [&] { return builder_.constant_data(d, std::move(*data)); });
        info(o).weight_ref = k.init.ref;
        break;
      }
      case DocInit::Kind::kScalar: {
        if (!k.init.value.is_number())
          fail(ErrorKind::kDataError, where + ": a scalar initializer must be a number");
        const MLNumber v = number_of(k.init.value);
        // Kept as a fill: no memory until a backend reads it (ConstantData::fill).
        o = guarded(where, [&] { return builder_.constant_fill(d, v); });
        info(o).scalar_fill = v;
        break;
      }
      case DocInit::Kind::kInlineBytes:
        o = guarded(where,
                    [&] { return builder_.constant(d, std::as_bytes(std::span(k.init.bytes))); });
        break;
    }
    info(o).name = name;
    env_[name] = o;
  }

  template <class F>
  auto guarded(const std::string& where, F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const RecordError&) {
      throw;
    } catch (const Error& e) {
      fail(e.kind(), where + ": " + e.what());
    }
  }

  std::string node_where(const DocNode& n, size_t index) const {
    if (n.pos.line > 0)
      return std::string(file_) + ":" + std::to_string(n.pos.line) + ":" +
             std::to_string(n.pos.column) + ": node '" + n.id + "'";
    return "node '" + n.id + "' (nodes[" + std::to_string(index) + "])";
  }

  const MLOperand& lookup(const std::string& name, const std::string& where,
                          const std::string& role) {
    auto it = env_.find(name);
    if (it == env_.end())
      fail(ErrorKind::kDataError, where + ": " + role + " names unknown value '" + name + "'");
    return it->second;
  }

  void node(const DocNode& n, size_t index) {
    const std::string where = node_where(n, index);
    const std::vector<std::string> names = n.defined_names();
    if (n.op.empty()) {  // the alias `y = x;`: the names denote the same operand
      if (n.inputs.size() != 1 || names.size() != 1)
        fail(ErrorKind::kDataError, where + ": an alias needs exactly one input and one name");
      env_[names[0]] = lookup(n.inputs[0], where, "input");
      return;
    }
    OpType type;
    if (!op_from_name(n.op, type))
      fail(ErrorKind::kDataError, where + ": unknown op '" + n.op + "'");

    if (auto unknown = unknown_option_message(type, n.options))  // never silently ignored
      fail(ErrorKind::kDataError, where + ": " + *unknown);
    // Positional operands.
    std::vector<DynValue> args;
    const int count = positional_operand_count(type);
    if (count < 0) {
      DynValue::Array list;
      for (const std::string& in : n.inputs) list.emplace_back(lookup(in, where, "input"));
      args.emplace_back(std::move(list));
    } else {
      if (n.inputs.size() != static_cast<size_t>(count))
        fail(ErrorKind::kTypeError, where + ": " + n.op + " takes " + std::to_string(count) +
                                        " operand" + (count == 1 ? "" : "s") + ", got " +
                                        std::to_string(n.inputs.size()));
      for (const std::string& in : n.inputs) args.emplace_back(lookup(in, where, "input"));
    }
    // Positional parameters travel as named options; the rest is the options dictionary.
    const std::vector<std::string_view> params = positional_param_names(type);
    const std::vector<std::string_view> operand_options = operand_option_names(type);
    DynValue::Object options;
    std::vector<DynValue> param_values(params.size());
    std::vector<SymbolicSize> symbolic;
    DocValue::Object plain_options;  // the options with symbolic sizes as their recorded values
    const DocValue::Object* option_values = &n.options;
    if (has_symbolic(n.options)) {
      plain_options = n.options;
      for (auto& [key, value] : plain_options) take_symbolic(where, key, value, symbolic);
      option_values = &plain_options;
    }
    for (const auto& [key, value] : *option_values) {
      bool is_param = false;
      for (size_t i = 0; i < params.size(); ++i)
        if (params[i] == key) {
          param_values[i] = dyn_of(value);
          is_param = true;
        }
      if (is_param) continue;
      bool is_operand = false;
      for (std::string_view o : operand_options) is_operand = is_operand || o == key;
      if (is_operand && value.kind == DocValue::Kind::kString)
        options.emplace_back(key, DynValue(lookup(value.s, where, "option '" + key + "'")));
      else
        options.emplace_back(key, dyn_of(value));
    }
    // cast's dataType may use the text spelling (f16).
    if (type == OpType::kCast)
      if (const std::string* s = param_values[0].get_if<std::string>())
        if (auto t = parse_text_dtype(*s)) param_values[0] = DynValue(data_type_name(*t));
    for (DynValue& p : param_values) args.push_back(std::move(p));
    args.emplace_back(std::move(options));

    std::vector<MLOperand> results =
        guarded(where, [&] { return call_builder_method(builder_, n.op, args); });
    if (results.size() != names.size()) {
      if (!n.outputs)
        fail(ErrorKind::kTypeError, where + ": " + n.op + " returns " +
                                        std::to_string(results.size()) +
                                        " outputs; name them with [a, b, ...] = " + n.op + "(...)");
      fail(ErrorKind::kTypeError, where + ": " + n.op + " returns " +
                                      std::to_string(results.size()) + " outputs, " +
                                      std::to_string(names.size()) + " names given");
    }
    if (!symbolic.empty()) builder_.state()->graph.operations.back().symbolic = std::move(symbolic);
    for (size_t i = 0; i < results.size(); ++i) {
      info(results[i]).name = names[i];
      env_[names[i]] = results[i];
    }
  }

  // True when an option value or an element of a list option is a symbolic size.
  static bool has_symbolic(const DocValue::Object& options) {
    for (const auto& [key, value] : options) {
      if (is_symbolic_value(value)) return true;
      for (const DocValue& item : value.items)
        if (is_symbolic_value(item)) return true;
    }
    return false;
  }

  // Replaces the symbolic sizes of option `key` (the value itself or list elements) by their
  // recorded value and collects them; the relation must name a dynamic input dimension and give
  // the recorded value at its maximum (docs/dynamic-dimensions.md).
  void take_symbolic(const std::string& where, const std::string& key, DocValue& value,
                     std::vector<SymbolicSize>& out) {
    auto take = [&](DocValue& v, uint32_t index) {
      if (!is_symbolic_value(v)) return;
      const std::string expr = v.find("dyn")->s;
      const int64_t size = v.find("size")->i;
      Result<SymbolicSize> s = parse_symbolic_expression(expr);
      if (!s) fail(ErrorKind::kDataError, where + ": option '" + key + "': " + s.error().message);
      s->field = key;
      s->index = index;
      const uint32_t* max = dynamic_maximum(s->symbol);
      if (!max)
        fail(ErrorKind::kDataError, where + ": option '" + key + "': dyn(\"" + expr +
                                        "\") names no dynamic input dimension");
      Result<int64_t> at_max = evaluate_symbolic(*s, *max);
      if (!at_max || *at_max != size)
        fail(ErrorKind::kDataError, where + ": option '" + key + "': dyn(\"" + expr + "\", " +
                                        std::to_string(size) + ") must give " +
                                        (at_max ? std::to_string(*at_max) : "a valid size") +
                                        " at " + s->symbol + " = " + std::to_string(*max));
      out.push_back(std::move(*s));
      v = DocValue::integer(size);
    };
    take(value, 0);
    for (size_t i = 0; i < value.items.size(); ++i) take(value.items[i], static_cast<uint32_t>(i));
  }

  // The maximum of the dynamic input dimension `name`, or null.
  const uint32_t* dynamic_maximum(const std::string& name) const {
    for (const auto& [input, in] : doc_.inputs)
      for (const DocDim& d : in.shape)
        if (d.name == name) return &d.size;
    return nullptr;
  }

  const GraphDoc& doc_;
  MLGraphBuilder& builder_;
  WeightsSource* weights_;
  std::string_view file_;
  std::unordered_map<std::string, MLOperand> env_;
};

}  // namespace

Result<MLNamedOperands> record_graph_doc(const GraphDoc& doc, MLGraphBuilder& builder,
                                         WeightsSource* weights, std::string_view file_name) {
  if (Status s = validate_graph_doc(doc); !s) return s.error();
  try {
    return Recorder(doc, builder, weights, file_name).run();
  } catch (const RecordError& e) {
    return ErrorInfo{e.kind, e.message};
  } catch (const Error& e) {
    return ErrorInfo{e.kind(), e.what()};
  }
}

}  // namespace cppnn::formats
