// Layout helpers shared by the CoreML lowerings of spatial ops (convolution, pooling): MIL's conv
// and pool ops take NCHW inputs only, so an nhwc operand is transposed to NCHW before the op and
// the NCHW result back to nhwc after it; a plain nchw op stays one MIL op writing its output.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/export/coreml/emitter.h"

namespace cppnn::coreml_export {

// The permutations taking an nhwc tensor to NCHW and back.
inline constexpr int32_t kNhwcToNchw[] = {0, 3, 1, 2};
inline constexpr int32_t kNchwToNhwc[] = {0, 2, 3, 1};

// `shape` permuted by `perm` (out[i] = shape[perm[i]]).
inline std::vector<int64_t> permuted(const std::vector<int64_t>& shape,
                                     std::span<const int32_t> perm) {
  std::vector<int64_t> out;
  out.reserve(perm.size());
  for (int32_t p : perm) out.push_back(shape.at(static_cast<size_t>(p)));
  return out;
}

// A MIL transpose of variable `x` by `perm`; returns its output.
inline std::string transposed(Emitter& e, const std::string& x, std::span<const int32_t> perm) {
  const MilType t = e.type_of(x);
  return e.op("transpose", {{"x", x}, {"perm", e.const_i32(perm)}},
              MilType{t.type, permuted(t.shape, perm)});
}

// `x` in NCHW: itself, or transposed from nhwc.
inline std::string to_nchw(Emitter& e, const std::string& x, bool nhwc) {
  return nhwc ? transposed(e, x, kNhwcToNchw) : x;
}

// The output of a spatial op computed in NCHW: write(type, params) emits the op's last MIL op,
// which writes the WebNN output directly (nchw), or a fresh NCHW variable transposed to the
// nhwc output.
class NchwOutput {
 public:
  NchwOutput(Emitter& e, OperandId out, bool nhwc) : e_(e), out_(out), nhwc_(nhwc) {
    const MilType t = e.mil_type(out);
    type_ = nhwc ? MilType{t.type, permuted(t.shape, kNhwcToNchw)} : t;
  }
  // The NCHW type of the result.
  const MilType& type() const { return type_; }
  // Emits MIL op `op_type(params)` computing the NCHW result, then the transpose to nhwc.
  void write(std::string_view op_type, std::vector<Param> params) {
    if (!nhwc_) {
      e_.op_to(op_type, std::move(params), out_);
      return;
    }
    const std::string v = e_.op(op_type, std::move(params), type_);
    e_.op_to("transpose", {{"x", v}, {"perm", e_.const_i32(kNchwToNhwc)}}, out_);
  }

 private:
  Emitter& e_;
  OperandId out_;
  bool nhwc_;
  MilType type_;
};

}  // namespace cppnn::coreml_export
