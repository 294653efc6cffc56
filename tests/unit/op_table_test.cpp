// The op table and the limits of every op agree: role counts match the signatures and operand
// options, role names match the option fields, and opSupportLimits lists all 95 ops.
#include <gtest/gtest.h>

#include <set>

#include "cppnn/webnn.h"
#include "src/ops/op_limits.h"

namespace cppnn {
namespace {

template <class O>
std::vector<std::string> operand_option_names() {
  std::vector<std::string> names;
  reflect::for_each_field<O>([&](auto field) {
    using T = typename decltype(field)::type;
    if constexpr (std::is_same_v<T, std::optional<MLOperand>>) names.emplace_back(field.name);
  });
  return names;
}

struct OpRow {
  OpType type;
  int positional;  // -1: a list
  std::vector<std::string> operand_options;
};

std::vector<OpRow> all_ops() {
  return {
#define CPPNN_OP(E, m, S, O, F) \
  {OpType::k##E, SignatureTraits<sig::S>::kOperands, operand_option_names<O>()},
#include "cppnn/ops.def"
#undef CPPNN_OP
  };
}

TEST(OpTable, NamesRoundTrip) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < kOpCount; ++i) {
    auto t = static_cast<OpType>(i);
    OpType back;
    ASSERT_TRUE(op_from_name(op_name(t), back));
    EXPECT_EQ(back, t);
    names.insert(op_name(t));
  }
  EXPECT_EQ(names.size(), kOpCount);
  OpType unused;
  EXPECT_FALSE(op_from_name("conv3d", unused));
}

TEST(OpTable, LimitsRolesMatchSignatures) {
  for (const OpRow& row : all_ops()) {
    const OpLimits& l = op_limits(row.type);
    SCOPED_TRACE(std::string(op_name(row.type)));
    ASSERT_FALSE(l.outputs.empty());
    if (row.positional < 0) {
      ASSERT_EQ(l.inputs.size(), 1u);
      continue;
    }
    ASSERT_EQ(l.inputs.size(), static_cast<size_t>(row.positional) + row.operand_options.size());
    for (size_t i = 0; i < row.operand_options.size(); ++i) {
      const RoleLimits& r = l.inputs[static_cast<size_t>(row.positional) + i];
      EXPECT_EQ(r.name, row.operand_options[i]);
      EXPECT_TRUE(r.optional);
    }
    for (size_t i = 0; i < l.inputs.size(); ++i) {
      const RoleLimits& r = l.inputs[i];
      EXPECT_FALSE(r.name.empty());
      EXPECT_TRUE(r.allowed != 0 || r.same_as >= 0) << r.name;
      if (r.same_as >= 0) {
        EXPECT_LT(static_cast<size_t>(r.same_as), l.inputs.size());
      }
      EXPECT_EQ(r.optional, i >= static_cast<size_t>(row.positional)) << r.name;
      EXPECT_EQ(
          r.required &
              ~(r.allowed ? r.allowed
                          : l.inputs[static_cast<size_t>(std::max<int>(r.same_as, 0))].allowed),
          0)
          << r.name << ": required types must be allowed";
    }
  }
}

TEST(OpTable, SupportLimitsCoverEveryOp) {
  MLOpSupportLimits s = MLContext::create().opSupportLimits();
  ASSERT_EQ(s.operators.size(), kOpCount);
  EXPECT_EQ(s.op("conv2d")["filter"].rankRange, (MLRankRange{4, 4}));
  EXPECT_EQ(s.op("add")["b"].dataTypes, s.op("add")["a"].dataTypes);
  EXPECT_EQ(s.op("equal")["output"].dataTypes, std::vector{MLOperandDataType::kUint8});
  EXPECT_THROW(s.op("conv3d"), TypeError);
  EXPECT_THROW(s.op("add")["filter"], TypeError);
  std::string json = s.to_json();
  for (size_t i = 0; i < kOpCount; ++i)
    EXPECT_NE(json.find("\"" + std::string(op_name(static_cast<OpType>(i))) + "\":{"),
              std::string::npos);
}

}  // namespace
}  // namespace cppnn
