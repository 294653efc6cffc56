// CoreML lowering of resample2d (see lower.h; webnn-spec.md §2 row 80 and its numeric note),
// float32 and float16 (int8/uint8 inputs are decomposed first, see target.h).
//
// WebNN maps output coordinate x of an axis resampled from `in` to `out` elements to the
// half-pixel coordinate x_in = clamp((x + 0.5)·in/out − 0.5, 0, in − 1).
// - nearest-neighbor takes index ceil(x_in − 0.5) (ties to the smaller index). For an integer
//   upscale s = out/in that is floor(x / s), which is MIL's upsample_nearest_neighbor with
//   integer scale factors on the last two axes; any other case (another ratio, other axes) is a
//   MIL gather per resampled axis at the indices computed at conversion time exactly as the
//   reference kernel does (integer arithmetic), so every scale and axis pair is exact.
// - linear is bilinear between floor(x_in) and ceil(x_in): MIL resize_bilinear with
//   sampling_mode UNALIGN_CORNERS, whose grid is min(in − 1, max(0, x·in/out + 0.5·in/out − 0.5)),
//   the same coordinates; axes other than the last two are transposed there and back. float16 is
//   interpolated in float32 and rounded once (the reference interpolates in double).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "src/export/coreml/lower.h"
#include "src/export/coreml/lower_compute_util.h"
#include "src/export/coreml/lower_util.h"
#include "src/ops/resample_params.h"

namespace cppnn::coreml_export {
namespace {

// nearest-neighbor by gathers: x gathered along each resampled axis whose size changes at the
// reference's indices; the last gather writes the output.
void lower_nearest_gathers(Emitter& e, const Operation& op, const std::vector<uint32_t>& axes) {
  const MilType out = out_type(e, op);
  std::string v = in(e, op, 0);
  MilType t = e.type_of(v);
  std::vector<uint32_t> changed;
  for (uint32_t a : axes)
    if (t.shape[a] != out.shape[a]) changed.push_back(a);
  for (size_t k = 0; k < changed.size(); ++k) {
    const uint32_t a = changed[k];
    std::vector<int32_t> indices(static_cast<size_t>(out.shape[a]));
    for (size_t i = 0; i < indices.size(); ++i)
      indices[i] = static_cast<int32_t>(resample_nearest_index(i, t.shape[a], out.shape[a]));
    std::vector<Param> params{{"x", v},
                              {"indices", e.const_i32(indices)},
                              {"axis", e.const_int(static_cast<int32_t>(a))}};
    t.shape[a] = out.shape[a];
    if (k + 1 == changed.size())
      e.op_to("gather", std::move(params), op.outputs[0]);
    else
      v = e.op("gather", std::move(params), t);
  }
}

// linear: resize_bilinear (UNALIGN_CORNERS) of the last two axes in float32, the resampled axes
// a0 < a1 transposed there (and back) when they are not already.
void lower_linear(Emitter& e, const Operation& op, uint32_t a0, uint32_t a1) {
  const std::vector<int64_t> out = out_type(e, op).shape;
  const std::string x = e.cast(in(e, op, 0), mil::FLOAT32);
  const std::vector<int64_t> dims = e.type_of(x).shape;
  auto resize = [&](const std::string& v) {
    return std::vector<Param>{
        {"x", v},
        {"target_size_height", e.const_int(static_cast<int32_t>(out[a0]))},
        {"target_size_width", e.const_int(static_cast<int32_t>(out[a1]))},
        {"sampling_mode", e.const_string("UNALIGN_CORNERS")},
    };
  };
  if (a0 == 2 && a1 == 3) {
    emit_result(e, op, "resize_bilinear", resize(x), mil::FLOAT32);
    return;
  }
  // perm: the other two axes in order, then a0 and a1.
  std::vector<int32_t> perm;
  for (int32_t d = 0; d < 4; ++d)
    if (d != static_cast<int32_t>(a0) && d != static_cast<int32_t>(a1)) perm.push_back(d);
  perm.push_back(static_cast<int32_t>(a0));
  perm.push_back(static_cast<int32_t>(a1));
  std::vector<int32_t> inverse(4);
  std::vector<int64_t> moved(4), moved_out(4);
  for (size_t i = 0; i < 4; ++i) {
    inverse[static_cast<size_t>(perm[i])] = static_cast<int32_t>(i);
    moved[i] = dims[static_cast<size_t>(perm[i])];
    moved_out[i] = out[static_cast<size_t>(perm[i])];
  }
  const std::string t =
      e.op("transpose", {{"x", x}, {"perm", e.const_i32(perm)}}, MilType{mil::FLOAT32, moved});
  const std::string r = e.op("resize_bilinear", resize(t), MilType{mil::FLOAT32, moved_out});
  emit_result(e, op, "transpose", {{"x", r}, {"perm", e.const_i32(inverse)}}, mil::FLOAT32);
}

}  // namespace

// resample2d is lowered directly in every case the target gives it (float32, float16).
bool lowers_resample(const Graph&, const Operation&) {
  return true;
}

// resample2d (row 80): an identity when no size changes; nearest-neighbor by
// upsample_nearest_neighbor (integer upscales of axes 2 and 3) or gathers; linear by
// resize_bilinear (see the file comment).
void lower_resample2d(Emitter& e, const Operation& op, const AttrsOf<OpType::kResample2d>& attrs) {
  const std::vector<int64_t>& dims = e.mil_type(op.inputs[0]).shape;
  const std::vector<int64_t> out = out_type(e, op).shape;
  const std::vector<uint32_t> axes = resample_axes(attrs.options);
  const uint32_t a0 = std::min(axes[0], axes[1]), a1 = std::max(axes[0], axes[1]);
  if (dims == out) {
    e.op_to("identity", {{"x", in(e, op, 0)}}, op.outputs[0]);
    return;
  }
  if (attrs.options.mode == MLInterpolationMode::kLinear) {
    lower_linear(e, op, a0, a1);
    return;
  }
  if (a0 == 2 && a1 == 3 && out[2] % dims[2] == 0 && out[3] % dims[3] == 0) {
    e.op_to("upsample_nearest_neighbor",
            {{"x", in(e, op, 0)},
             {"scale_factor_height", e.const_int(static_cast<int32_t>(out[2] / dims[2]))},
             {"scale_factor_width", e.const_int(static_cast<int32_t>(out[3] / dims[3]))}},
            op.outputs[0]);
    return;
  }
  lower_nearest_gathers(e, op, {a0, a1});
}

}  // namespace cppnn::coreml_export
