#include "src/graph/attr_hash.h"

#include <type_traits>

namespace cppnn {
namespace {

template <class T>
struct IsOptionalList : std::false_type {};
template <class T>
struct IsOptionalList<OptionalList<T>> : std::true_type {};

void hash_value(Hasher& h, bool v) {
  h.add(uint64_t{v});
}
void hash_value(Hasher& h, uint32_t v) {
  h.add(uint64_t{v});
}
void hash_value(Hasher& h, int32_t v) {
  h.add(static_cast<uint64_t>(static_cast<int64_t>(v)));
}
void hash_value(Hasher& h, float v) {
  h.add(uint64_t{std::bit_cast<uint32_t>(v)});
}
void hash_value(Hasher& h, double v) {
  h.add(std::bit_cast<uint64_t>(v));
}
void hash_value(Hasher& h, const std::string& v) {
  h.add(v);
}
void hash_value(Hasher& h, const MLNumber& v) {
  h.add(static_cast<uint64_t>(v.kind()));
  switch (v.kind()) {
    case MLNumber::Kind::kDouble:
      h.add(std::bit_cast<uint64_t>(v.as_double()));
      break;
    case MLNumber::Kind::kInt64:
      h.add(static_cast<uint64_t>(v.raw_int64()));
      break;
    case MLNumber::Kind::kUint64:
      h.add(v.raw_uint64());
      break;
  }
}
template <class E>
requires std::is_enum_v<E>
void hash_value(Hasher& h, E v) {
  h.add(static_cast<uint64_t>(v));
}
template <class T>
void hash_value(Hasher& h, const std::vector<T>& v) {
  h.add(uint64_t{v.size()});
  for (const auto& x : v) hash_value(h, x);
}
template <class T>
void hash_value(Hasher& h, const OptionalList<T>& v) {
  h.add(uint64_t{v.has_value()});
  if (v) hash_value(h, *v);
}
void hash_value(Hasher& h, const std::optional<MLNumber>& v) {
  h.add(uint64_t{v.has_value()});
  if (v) hash_value(h, *v);
}
// Operand-valued options are empty in a recorded graph (their operands are op inputs).
void hash_value(Hasher&, const std::optional<MLOperand>&) {}

void hash_params(Hasher&, const NoParams&) {}
void hash_params(Hasher& h, const AxisParams& p) {
  h.add(uint64_t{p.axis});
}
void hash_params(Hasher& h, const CastParams& p) {
  h.add(static_cast<uint64_t>(p.dataType));
}
void hash_params(Hasher& h, const ShapeParams& p) {
  h.add(p.shape);
}
void hash_params(Hasher& h, const TwoListParams& p) {
  h.add(p.first);
  h.add(p.second);
}
void hash_params(Hasher& h, const SplitParams& p) {
  h.add(uint64_t{p.splits.index()});
  if (p.splits.index() == 0)
    h.add(uint64_t{std::get<0>(p.splits)});
  else
    h.add(std::get<1>(p.splits));
}
void hash_params(Hasher& h, const RecurrentParams& p) {
  h.add(uint64_t{p.steps});
  h.add(uint64_t{p.hiddenSize});
}
void hash_params(Hasher& h, const CellParams& p) {
  h.add(uint64_t{p.hiddenSize});
}

}  // namespace

void hash_attributes(Hasher& h, const OpAttributes& attrs) {
  h.add(uint64_t{attrs.index()});
  std::visit(
      [&](const auto& a) {
        if constexpr (requires { a.options; }) {
          hash_params(h, a.params);
          using O = std::decay_t<decltype(a.options)>;
          reflect::for_each_field<O>([&](auto field) { hash_value(h, a.options.*field.member); });
        }
      },
      attrs);
}

}  // namespace cppnn
