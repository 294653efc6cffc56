// Symbolic size values of graph documents (doc_symbolic.h).
#include "src/formats/doc_symbolic.h"

namespace cppnn::formats {

bool is_symbolic_value(const DocValue& v) {
  if (v.kind != DocValue::Kind::kObject || v.members.size() != 2) return false;
  const DocValue* e = v.find("dyn");
  const DocValue* s = v.find("size");
  return e && s && e->kind == DocValue::Kind::kString && s->kind == DocValue::Kind::kInt;
}

DocValue symbolic_value(std::string expression, int64_t size) {
  DocValue v = DocValue::object();
  v.set("dyn", DocValue::string(std::move(expression)));
  v.set("size", DocValue::integer(size));
  return v;
}

}  // namespace cppnn::formats
