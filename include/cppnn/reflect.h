// Field reflection for option structs: CPPNN_REFLECT(Type, field, ...) lists the members of an
// aggregate by name, so that generic code (file loaders, the dynamic op call, printers, hashing)
// can read and write every option without a hand-written case per op.
#pragma once

#include <string_view>
#include <tuple>

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn::reflect {

// One reflected member: its spec name and a member pointer.
template <class T, class M>
struct Field {
  std::string_view name;
  M T::*member;
  using type = M;
};

template <class T, class M>
constexpr Field<T, M> make_field(std::string_view n, M T::*m) {
  return Field<T, M>{n, m};
}

// Calls f(field) for each reflected field of T, in declaration order.
template <class T, class F>
constexpr void for_each_field(F&& f) {
  std::apply([&](auto... fields) { (f(fields), ...); },
             cppnn_fields(static_cast<const T*>(nullptr)));
}

}  // namespace cppnn::reflect

#define CPPNN_R_EXPAND(x) x
#define CPPNN_R_F(T, m) ::cppnn::reflect::make_field(#m, &T::m)
#define CPPNN_R_1(T, a) CPPNN_R_F(T, a)
#define CPPNN_R_2(T, a, ...) CPPNN_R_F(T, a), CPPNN_R_EXPAND(CPPNN_R_1(T, __VA_ARGS__))
#define CPPNN_R_3(T, a, ...) CPPNN_R_F(T, a), CPPNN_R_EXPAND(CPPNN_R_2(T, __VA_ARGS__))
#define CPPNN_R_4(T, a, ...) CPPNN_R_F(T, a), CPPNN_R_EXPAND(CPPNN_R_3(T, __VA_ARGS__))
#define CPPNN_R_5(T, a, ...) CPPNN_R_F(T, a), CPPNN_R_EXPAND(CPPNN_R_4(T, __VA_ARGS__))
#define CPPNN_R_6(T, a, ...) CPPNN_R_F(T, a), CPPNN_R_EXPAND(CPPNN_R_5(T, __VA_ARGS__))
#define CPPNN_R_7(T, a, ...) CPPNN_R_F(T, a), CPPNN_R_EXPAND(CPPNN_R_6(T, __VA_ARGS__))
#define CPPNN_R_8(T, a, ...) CPPNN_R_F(T, a), CPPNN_R_EXPAND(CPPNN_R_7(T, __VA_ARGS__))
#define CPPNN_R_9(T, a, ...) CPPNN_R_F(T, a), CPPNN_R_EXPAND(CPPNN_R_8(T, __VA_ARGS__))
#define CPPNN_R_10(T, a, ...) CPPNN_R_F(T, a), CPPNN_R_EXPAND(CPPNN_R_9(T, __VA_ARGS__))
#define CPPNN_R_11(T, a, ...) CPPNN_R_F(T, a), CPPNN_R_EXPAND(CPPNN_R_10(T, __VA_ARGS__))
#define CPPNN_R_12(T, a, ...) CPPNN_R_F(T, a), CPPNN_R_EXPAND(CPPNN_R_11(T, __VA_ARGS__))
#define CPPNN_R_13(T, a, ...) CPPNN_R_F(T, a), CPPNN_R_EXPAND(CPPNN_R_12(T, __VA_ARGS__))
#define CPPNN_R_COUNT(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, N, ...) N
#define CPPNN_R_SELECT(...) \
  CPPNN_R_EXPAND(CPPNN_R_COUNT(__VA_ARGS__, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0))
#define CPPNN_R_CAT2(a, b) a##b
#define CPPNN_R_CAT(a, b) CPPNN_R_CAT2(a, b)

// Declares the reflected field list of aggregate T (found by argument-dependent lookup).
#define CPPNN_REFLECT(T, ...)                                                                \
  inline constexpr auto cppnn_fields(const T*) {                                             \
    return std::make_tuple(                                                                  \
        CPPNN_R_EXPAND(CPPNN_R_CAT(CPPNN_R_, CPPNN_R_SELECT(__VA_ARGS__))(T, __VA_ARGS__))); \
  }

#pragma GCC visibility pop
