// Shared fixture for the table-driven op validation tests: a fresh builder per test and
// helpers to make operands and check output descriptors and error kinds.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cppnn/webnn.h"

namespace cppnn::testing {

using Dims = std::vector<uint32_t>;
inline constexpr auto F32 = MLOperandDataType::kFloat32;
inline constexpr auto F16 = MLOperandDataType::kFloat16;
inline constexpr auto I32 = MLOperandDataType::kInt32;
inline constexpr auto U32 = MLOperandDataType::kUint32;
inline constexpr auto I64 = MLOperandDataType::kInt64;
inline constexpr auto U64 = MLOperandDataType::kUint64;
inline constexpr auto I8 = MLOperandDataType::kInt8;
inline constexpr auto U8 = MLOperandDataType::kUint8;

// A builder on a fresh context; in(...) makes uniquely named inputs.
class OpTest : public ::testing::Test {
 protected:
  MLContext context = MLContext::create();
  MLGraphBuilder builder{context};

  MLOperand in(MLOperandDataType t, Dims shape) {
    return builder.input("in" + std::to_string(next_++), {t, std::move(shape)});
  }
  MLOperand in(Dims shape) { return in(F32, std::move(shape)); }
  // An operand of another builder (for the "validate operand" rule, §3.3).
  MLOperand foreign(MLOperandDataType t, Dims shape) {
    if (!other_) other_ = std::make_unique<MLGraphBuilder>(context);
    return other_->input("foreign" + std::to_string(next_++), {t, std::move(shape)});
  }

 private:
  int next_ = 0;
  std::unique_ptr<MLGraphBuilder> other_;
};

// Checks an operand's data type and shape.
inline ::testing::AssertionResult HasDesc(const MLOperand& o, MLOperandDataType t, const Dims& s) {
  if (o.dataType() == t && o.shape() == s) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << to_string(o.descriptor()) << ", expected "
                                       << to_string(MLOperandDescriptor{t, s});
}

}  // namespace cppnn::testing

// The statement throws cppnn::TypeError.
#define EXPECT_TYPE_ERROR(stmt) EXPECT_THROW((void)(stmt), ::cppnn::TypeError)
// The statement throws cppnn::InvalidStateError.
#define EXPECT_INVALID_STATE(stmt) EXPECT_THROW((void)(stmt), ::cppnn::InvalidStateError)
