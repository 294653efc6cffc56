#include "src/passes/layout_rules.h"

#include <cstring>
#include <numeric>

#include "cppnn/reflect.h"

namespace cppnn::passes::layout_rules {

Perm identity_perm(size_t rank) {
  Perm p(rank);
  std::iota(p.begin(), p.end(), 0u);
  return p;
}

bool is_identity(const Perm& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != i) return false;
  return true;
}

Perm inverse(const Perm& p) {
  Perm q(p.size());
  for (size_t i = 0; i < p.size(); ++i) q[p[i]] = static_cast<uint32_t>(i);
  return q;
}

Perm compose(const Perm& a, const Perm& b) {
  Perm c(b.size());
  for (size_t i = 0; i < b.size(); ++i) c[i] = a[b[i]];
  return c;
}

Dims permuted(const Dims& s, const Perm& p) {
  Dims d(p.size());
  for (size_t i = 0; i < p.size(); ++i) d[i] = s[p[i]];
  return d;
}

Dims padded(const Dims& s, size_t rank) {
  Dims d(rank - s.size(), 1);
  d.insert(d.end(), s.begin(), s.end());
  return d;
}

Dims trimmed(Dims s, size_t rank) {
  size_t drop = 0;
  while (s.size() - drop > rank && s[drop] == 1) ++drop;
  s.erase(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(drop));
  return s;
}

bool keeps_order(const Dims& s, const Perm& p) {
  int64_t last = -1;
  for (uint32_t axis : p) {
    if (s[axis] == 1) continue;
    if (axis < last) return false;
    last = axis;
  }
  return true;
}

std::vector<std::byte> permute_bytes(std::span<const std::byte> bytes, const Dims& shape,
                                     const Perm& p, size_t size) {
  const size_t rank = p.size();
  std::vector<size_t> stride(rank, 1);
  for (size_t i = rank; i-- > 1;) stride[i - 1] = stride[i] * shape[i];
  const Dims out = permuted(shape, p);
  std::vector<std::byte> result(bytes.size());
  std::vector<uint32_t> index(rank, 0);
  size_t from = 0;
  const size_t count = bytes.size() / size;
  for (size_t n = 0; n < count; ++n) {
    std::memcpy(result.data() + n * size, bytes.data() + from * size, size);
    // The next output index, last dimension fastest; `from` follows in the input.
    for (size_t i = rank; i-- > 0;) {
      from += stride[p[i]];
      if (++index[i] < out[i]) break;
      from -= out[i] * stride[p[i]];
      index[i] = 0;
    }
  }
  return result;
}

std::string_view letters(MLConv2dFilterOperandLayout l) {
  switch (l) {
    case MLConv2dFilterOperandLayout::kOihw:
      return "oihw";
    case MLConv2dFilterOperandLayout::kHwio:
      return "hwio";
    case MLConv2dFilterOperandLayout::kOhwi:
      return "ohwi";
    case MLConv2dFilterOperandLayout::kIhwo:
      break;
  }
  return "ihwo";
}

std::string_view letters(MLConvTranspose2dFilterOperandLayout l) {
  switch (l) {
    case MLConvTranspose2dFilterOperandLayout::kIohw:
      return "iohw";
    case MLConvTranspose2dFilterOperandLayout::kHwoi:
      return "hwoi";
    case MLConvTranspose2dFilterOperandLayout::kOhwi:
      break;
  }
  return "ohwi";
}

Perm letter_perm(std::string_view from, std::string_view to) {
  Perm p(to.size());
  for (size_t i = 0; i < to.size(); ++i) p[i] = static_cast<uint32_t>(from.find(to[i]));
  return p;
}

bool is_unary_elementwise(OpType t) {
  using enum OpType;
  switch (t) {
    case kAbs:
    case kCeil:
    case kCos:
    case kErf:
    case kExp:
    case kFloor:
    case kIdentity:
    case kLog:
    case kNeg:
    case kReciprocal:
    case kRoundEven:
    case kSin:
    case kSign:
    case kSqrt:
    case kTan:
    case kLogicalNot:
    case kIsNaN:
    case kIsInfinite:
    case kCast:
    case kClamp:
    case kElu:
    case kGelu:
    case kHardSigmoid:
    case kHardSwish:
    case kLeakyRelu:
    case kLinear:
    case kRelu:
    case kSigmoid:
    case kSoftplus:
    case kSoftsign:
    case kTanh:
      return true;
    default:
      return false;
  }
}

bool is_broadcasting(OpType t) {
  using enum OpType;
  switch (t) {
    case kAdd:
    case kSub:
    case kMul:
    case kDiv:
    case kMax:
    case kMin:
    case kPow:
    case kEqual:
    case kNotEqual:
    case kGreater:
    case kGreaterOrEqual:
    case kLesser:
    case kLesserOrEqual:
    case kLogicalAnd:
    case kLogicalOr:
    case kLogicalXor:
    case kWhere:
    case kPrelu:
      return true;
    default:
      return false;
  }
}

bool follows_layout(OpType t) {
  return is_unary_elementwise(t) || is_broadcasting(t) || t == OpType::kConcat;
}

bool is_reduction(OpType t) {
  using enum OpType;
  switch (t) {
    case kReduceL1:
    case kReduceL2:
    case kReduceLogSum:
    case kReduceLogSumExp:
    case kReduceMax:
    case kReduceMean:
    case kReduceMin:
    case kReduceProduct:
    case kReduceSum:
    case kReduceSumSquare:
      return true;
    default:
      return false;
  }
}

Perm gathered_perm(const Perm& p, uint32_t axis, size_t index_rank) {
  const auto k = static_cast<uint32_t>(index_rank);
  Perm q;
  for (uint32_t d : p) {
    if (d == axis) {
      for (uint32_t j = 0; j < k; ++j) q.push_back(axis + j);
    } else {
      q.push_back(d < axis ? d : d + k - 1);
    }
  }
  return q;
}

Perm reduced_perm(const Perm& p, const std::vector<bool>& reduced, bool keep) {
  if (keep) return p;
  // Where each kept dimension of x lands in the result.
  std::vector<uint32_t> index(p.size());
  uint32_t next = 0;
  for (size_t d = 0; d < p.size(); ++d) index[d] = reduced[d] ? 0 : next++;
  Perm q;
  for (uint32_t d : p)
    if (!reduced[d]) q.push_back(index[d]);
  return q;
}

bool reduces_in_order(const Dims& s, const Perm& p, const std::vector<bool>& reduced) {
  int64_t last = -1;
  for (uint32_t d : p) {
    if (!reduced[d] || s[d] == 1) continue;
    if (d < last) return false;
    last = d;
  }
  return true;
}

MLOperand rerecord(GraphRewriter& rw, const Operation& op, std::vector<MLOperand> in,
                   OpAttributes attrs) {
  return rerecord_operation(rw, op, std::move(in), std::move(attrs)).at(0);
}

}  // namespace cppnn::passes::layout_rules
