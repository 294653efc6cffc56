// The 95 operations of ops.def as MLGraphBuilder methods: positional arguments in the spec's
// order, then the options as a trailing dict and/or keyword arguments (camelCase or snake_case),
// all converted to DynValues for call_builder_method(), the one generic op call.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "convert.h"
#include "cppnn/dynamic_call.h"
#include "cppnn/errors.h"
#include "op_signatures.h"

namespace nb = nanobind;

namespace cppnn::py {

using bindings::op_signatures;
using bindings::OpSignature;
using bindings::Param;
using bindings::ParamKind;
namespace {

// Appends the members of an options dict (keys converted to camelCase) to `options`.
void add_options_dict(const OpSignature& op, nb::handle dict, DynValue::Object& options) {
  if (!nb::isinstance<nb::dict>(dict))
    throw TypeError(op.name + ": options must be a dict, got " + Py_TYPE(dict.ptr())->tp_name);
  for (auto [k, v] : nb::borrow<nb::dict>(dict)) {
    if (!nb::isinstance<nb::str>(k)) throw TypeError(op.name + ": option names must be strings");
    const std::string name = snake_to_camel(nb::cast<std::string>(k));
    options.emplace_back(name, to_dyn(v, op.name + ": " + name));
  }
}

// The index of positional parameter `name` (camelCase), or -1.
int param_index(const OpSignature& op, const std::string& name) {
  for (size_t i = 0; i < op.params.size(); ++i)
    if (op.params[i].name == name) return static_cast<int>(i);
  return -1;
}

bool is_option(const OpSignature& op, const std::string& name) {
  for (const std::string& o : op.options)
    if (o == name) return true;
  return false;
}

// builder.<op>(*args, **kwargs).
nb::object call_op(MLGraphBuilder& builder, const OpSignature& op, nb::args args,
                   nb::kwargs kwargs) {
  const size_t n = op.params.size();
  if (args.size() > n + 1)
    throw TypeError(op.name + ": takes at most " + std::to_string(n + 1) +
                    " positional arguments (" + std::to_string(n) + " and the options), got " +
                    std::to_string(args.size()));
  std::vector<DynValue> values(n + 1);
  std::vector<bool> given(n + 1, false);
  for (size_t i = 0; i < args.size(); ++i) {
    if (i < n) values[i] = to_dyn(args[i], op.name + ": " + op.params[i].name);
    given[i] = true;
  }
  DynValue::Object options;
  bool has_options = false;
  if (given[n] && !args[n].is_none()) {
    add_options_dict(op, args[n], options);
    has_options = true;
  }
  for (auto [k, v] : kwargs) {
    const std::string key = nb::cast<std::string>(k);
    const std::string name = snake_to_camel(key);
    if (name == "options") {
      if (given[n]) throw TypeError(op.name + ": options given twice");
      given[n] = true;
      if (!v.is_none()) add_options_dict(op, v, options);
      has_options = true;
    } else if (const int i = param_index(op, name); i >= 0) {
      if (given[i]) throw TypeError(op.name + ": got multiple values for argument '" + key + "'");
      values[i] = to_dyn(v, op.name + ": " + name);
      given[i] = true;
    } else if (is_option(op, name)) {
      options.emplace_back(name, to_dyn(v, op.name + ": " + name));
      has_options = true;
    } else {
      throw TypeError(op.name + ": unexpected keyword argument '" + key + "'");
    }
  }
  if (has_options) values[n] = DynValue(std::move(options));
  std::vector<MLOperand> outputs = call_builder_method(builder, op.name, values);
  if (op.returns_list) return nb::cast(outputs);
  return nb::cast(outputs.at(0));
}

// "conv2d(input, filter, options=None, **options)" plus the option names, for help().
std::string doc_of(const OpSignature& op) {
  std::string doc = op.name + "(";
  for (const Param& p : op.params) doc += p.name + ", ";
  doc += "options=None, **options) -> MLOperand";
  if (op.returns_list) doc += " list";
  doc += "\n\nThe WebNN MLGraphBuilder." + op.name +
         "() operation. Options, as a dict and/or keywords (camelCase or snake_case):";
  for (const std::string& o : op.options) doc += " " + o;
  doc += ".";
  return doc;
}

}  // namespace

void bind_ops(nb::class_<MLGraphBuilder>& builder) {
  static std::vector<std::string> docs;  // nanobind keeps pointers to docstrings
  docs.reserve(op_signatures().size());
  for (const OpSignature& op : op_signatures()) {
    docs.push_back(doc_of(op));
    auto method = [&op](MLGraphBuilder& b, nb::args args, nb::kwargs kwargs) {
      return call_op(b, op, args, kwargs);
    };
    builder.def(op.name.c_str(), method, docs.back().c_str());
    if (op.snake_name != op.name) builder.def(op.snake_name.c_str(), method, docs.back().c_str());
  }
}

}  // namespace cppnn::py
