// Helpers shared by the convolution, pooling and resample lowerings: layout transposes between
// WebNN's nhwc and ONNX's nchw-only spatial ops, the WebNN -> ONNX padding order, and constants.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "src/export/onnx/emitter.h"

namespace cppnn::onnx_export {

// The permutation taking an nhwc tensor to nchw, and its inverse.
inline const std::vector<int64_t> kNhwcToNchw = {0, 3, 1, 2};
inline const std::vector<int64_t> kNchwToNhwc = {0, 2, 3, 1};

// WebNN padding [beginH, endH, beginW, endW] -> ONNX pads [beginH, beginW, endH, endW].
inline std::vector<int64_t> onnx_pads(const std::vector<uint32_t>& p) {
  return {p.at(0), p.at(2), p.at(1), p.at(3)};
}

// A Transpose node of `x` by `perm`; returns its output.
inline std::string transpose(Emitter& e, const std::string& x, const std::vector<int64_t>& perm) {
  return e.node("Transpose", {x}, {{"perm", perm}});
}

// Emits a spatial op that ONNX only has in nchw: body(x_nchw, y_name) must write y_name from
// the nchw input. For an nhwc layout the input is transposed to nchw and the result back to
// nhwc into `out`; for nchw the body reads `x` and writes `out` directly (no extra node).
template <class Body>
void emit_in_nchw(Emitter& e, const std::string& x, const std::string& out, bool nhwc,
                  Body&& body) {
  if (!nhwc) {
    body(x, out);
    return;
  }
  const std::string x_nchw = transpose(e, x, kNhwcToNchw);
  const std::string y_nchw = e.fresh();
  body(x_nchw, y_nchw);
  e.node_to("Transpose", {y_nchw}, {out}, {{"perm", kNchwToNhwc}});
}

// A float32 initializer of `shape` holding `values`.
inline std::string const_f32(Emitter& e, const std::vector<int64_t>& shape,
                             const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return e.const_tensor(MLOperandDataType::kFloat32, shape, bytes);
}

// A bool initializer of `shape` holding `values` (0/1).
inline std::string const_bool(Emitter& e, const std::vector<int64_t>& shape,
                              const std::vector<uint8_t>& values) {
  // const_tensor takes WebNN types; uint8 has bool's byte layout, so retag the node input by
  // casting: Cast(uint8 -> bool) is folded by ORT's constant folding.
  std::vector<std::byte> bytes(values.size());
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  const std::string u8 = e.const_tensor(MLOperandDataType::kUint8, shape, bytes);
  return e.node("Cast", {u8}, {{"to", int64_t{onnx::TensorProto::BOOL}}});
}

}  // namespace cppnn::onnx_export
