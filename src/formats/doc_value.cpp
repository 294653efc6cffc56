// DocValue helpers and the element sizes of the document model (webnn-graph-format.md §2, §4.1).
#include "src/formats/graph_doc.h"

namespace cppnn::formats {

void set_member(DocValue::Object& object, std::string key, DocValue value) {
  for (auto& [k, v] : object)
    if (k == key) {
      v = std::move(value);
      return;
    }
  object.emplace_back(std::move(key), std::move(value));
}

const DocValue* find_member(const DocValue::Object& object, std::string_view key) {
  for (const auto& [k, v] : object)
    if (k == key) return &v;
  return nullptr;
}

const DocValue* DocValue::find(std::string_view key) const {
  return find_member(members, key);
}

void DocValue::set(std::string key, DocValue value) {
  set_member(members, std::move(key), std::move(value));
}

bool objects_equal(const DocValue::Object& a, const DocValue::Object& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [k, v] : a) {
    const DocValue* other = find_member(b, k);
    if (!other || !(*other == v)) return false;
  }
  return true;
}

bool operator==(const DocValue& a, const DocValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case DocValue::Kind::kNull:
      return true;
    case DocValue::Kind::kBool:
      return a.b == b.b;
    case DocValue::Kind::kInt:
      return a.i == b.i;
    case DocValue::Kind::kUint:
      return a.u == b.u;
    case DocValue::Kind::kFloat:
      return a.f == b.f;
    case DocValue::Kind::kString:
      return a.s == b.s;
    case DocValue::Kind::kArray:
      return a.items == b.items;
    case DocValue::Kind::kObject:
      return objects_equal(a.members, b.members);
  }
  return false;
}

uint64_t doc_element_bytes(MLOperandDataType t) {
  const unsigned bits = data_type_bits(t);
  return bits < 8 ? 1 : bits / 8;
}

}  // namespace cppnn::formats
