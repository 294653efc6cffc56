#include "src/formats/doc_strings.h"

#include "src/core/text_check.h"

namespace cppnn::formats {
namespace {

// Checks one name; `where()` says which field holds it, built only for the error message (the
// check runs over every string of a file, so the places are not spelled out in advance).
template <class Where>
Status check(std::string_view file, const Where& where, std::string_view name) {
  if (auto problem = name_problem(name))
    return data_error(file, ": ", where(), " ", quoted_for_message(name), " ", *problem);
  return Ok{};
}

// Checks the strings inside an option value (keys of nested objects included).
template <class Where>
Status check_value(std::string_view file, const Where& where, const DocValue& v) {
  switch (v.kind) {
    case DocValue::Kind::kString:
      return check(
          file, [&] { return where() + " string"; }, v.s);
    case DocValue::Kind::kArray:
      for (const DocValue& e : v.items) CPPNN_RETURN_IF_ERROR(check_value(file, where, e));
      return Ok{};
    case DocValue::Kind::kObject:
      for (const auto& [k, e] : v.members) {
        CPPNN_RETURN_IF_ERROR(check(
            file, [&] { return where() + " key"; }, k));
        CPPNN_RETURN_IF_ERROR(check_value(file, where, e));
      }
      return Ok{};
    default:
      return Ok{};
  }
}

std::string node_place(const DocNode& n, size_t index) {
  if (n.pos.line != 0)
    return str_cat(n.pos.line, ":", n.pos.column, ": node ", quoted_for_message(n.id));
  return str_cat("nodes[", index, "]");
}

// A fixed description, as a `where` callable.
auto fixed(const char* text) {
  return [text] { return std::string(text); };
}

}  // namespace

Status check_doc_strings(const GraphDoc& doc, std::string_view file) {
  // Named references, not structured bindings: the lambdas capture them (clang 14 refuses
  // capturing a structured binding).
  if (doc.name) CPPNN_RETURN_IF_ERROR(check(file, fixed("the graph name"), *doc.name));
  for (const auto& input : doc.inputs) {
    const std::string& name = input.first;
    CPPNN_RETURN_IF_ERROR(check(file, fixed("input name"), name));
    auto where = [&] { return "dimension name of input " + quoted_for_message(name); };
    for (const DocDim& d : input.second.shape) CPPNN_RETURN_IF_ERROR(check(file, where, d.name));
  }
  for (const auto& constant : doc.consts) {
    const std::string& name = constant.first;
    const DocInit& init = constant.second.init;
    CPPNN_RETURN_IF_ERROR(check(file, fixed("constant name"), name));
    auto ref_where = [&] { return "weights ref of constant " + quoted_for_message(name); };
    CPPNN_RETURN_IF_ERROR(check(file, ref_where, init.ref));
    auto value_where = [&] { return "scalar of constant " + quoted_for_message(name); };
    CPPNN_RETURN_IF_ERROR(check_value(file, value_where, init.value));
  }
  for (size_t i = 0; i < doc.nodes.size(); ++i) {
    const DocNode& n = doc.nodes[i];
    auto at = [&](const char* what) { return [&n, i, what] { return node_place(n, i) + what; }; };
    CPPNN_RETURN_IF_ERROR(check(file, at(": id"), n.id));
    CPPNN_RETURN_IF_ERROR(check(file, at(": op"), n.op));
    for (const std::string& in : n.inputs)
      CPPNN_RETURN_IF_ERROR(check(file, at(": input reference"), in));
    if (n.outputs)
      for (const std::string& o : *n.outputs)
        CPPNN_RETURN_IF_ERROR(check(file, at(": output name"), o));
    for (const auto& option : n.options) {
      const std::string& key = option.first;
      CPPNN_RETURN_IF_ERROR(check(file, at(": option key"), key));
      auto where = [&] { return node_place(n, i) + ": option " + key; };
      CPPNN_RETURN_IF_ERROR(check_value(file, where, option.second));
    }
  }
  for (const auto& output : doc.outputs) {
    const std::string& name = output.first;
    CPPNN_RETURN_IF_ERROR(check(file, fixed("output name"), name));
    auto where = [&] { return "reference of output " + quoted_for_message(name); };
    CPPNN_RETURN_IF_ERROR(check(file, where, output.second));
  }
  return Ok{};
}

}  // namespace cppnn::formats
