#include "src/formats/doc_strings.h"

#include "src/core/text_check.h"

namespace cppnn::formats {
namespace {

// Checks one name; `where` says which field holds it.
Status check(std::string_view file, const std::string& where, std::string_view name) {
  if (auto problem = name_problem(name))
    return data_error(file, ": ", where, " ", quoted_for_message(name), " ", *problem);
  return Ok{};
}

// Checks the strings inside an option value (keys of nested objects included).
Status check_value(std::string_view file, const std::string& where, const DocValue& v) {
  switch (v.kind) {
    case DocValue::Kind::kString:
      return check(file, where + " string", v.s);
    case DocValue::Kind::kArray:
      for (const DocValue& e : v.items) CPPNN_RETURN_IF_ERROR(check_value(file, where, e));
      return Ok{};
    case DocValue::Kind::kObject:
      for (const auto& [k, e] : v.members) {
        CPPNN_RETURN_IF_ERROR(check(file, where + " key", k));
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

}  // namespace

Status check_doc_strings(const GraphDoc& doc, std::string_view file) {
  if (doc.name) CPPNN_RETURN_IF_ERROR(check(file, "the graph name", *doc.name));
  for (const auto& [name, in] : doc.inputs) {
    CPPNN_RETURN_IF_ERROR(check(file, "input name", name));
    for (const DocDim& d : in.shape)
      CPPNN_RETURN_IF_ERROR(
          check(file, "dimension name of input " + quoted_for_message(name), d.name));
  }
  for (const auto& [name, c] : doc.consts) {
    CPPNN_RETURN_IF_ERROR(check(file, "constant name", name));
    CPPNN_RETURN_IF_ERROR(
        check(file, "weights ref of constant " + quoted_for_message(name), c.init.ref));
    CPPNN_RETURN_IF_ERROR(
        check_value(file, "scalar of constant " + quoted_for_message(name), c.init.value));
  }
  for (size_t i = 0; i < doc.nodes.size(); ++i) {
    const DocNode& n = doc.nodes[i];
    const std::string place = node_place(n, i);
    CPPNN_RETURN_IF_ERROR(check(file, place + ": id", n.id));
    CPPNN_RETURN_IF_ERROR(check(file, place + ": op", n.op));
    for (const std::string& in : n.inputs)
      CPPNN_RETURN_IF_ERROR(check(file, place + ": input reference", in));
    if (n.outputs)
      for (const std::string& o : *n.outputs)
        CPPNN_RETURN_IF_ERROR(check(file, place + ": output name", o));
    for (const auto& [key, value] : n.options) {
      CPPNN_RETURN_IF_ERROR(check(file, place + ": option key", key));
      CPPNN_RETURN_IF_ERROR(check_value(file, place + ": option " + key, value));
    }
  }
  for (const auto& [name, ref] : doc.outputs) {
    CPPNN_RETURN_IF_ERROR(check(file, "output name", name));
    CPPNN_RETURN_IF_ERROR(check(file, "reference of output " + quoted_for_message(name), ref));
  }
  return Ok{};
}

}  // namespace cppnn::formats
