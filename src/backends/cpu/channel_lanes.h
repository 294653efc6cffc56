// The channels-in-lanes layout of the cpu backend's window kernels on narrow planes (output rows
// narrower than a 16-float vector: a network's last stages, 14×14 and 7×7 maps, and the
// small feature maps of audio models): a task takes simd::kWidth planes (channels) of one image,
// interleaved into one padded buffer [row][column][lane], computes every output for all its lanes
// at once from the positions' and taps' offsets, and writes the interleaved result back plane by
// plane. Where a row kernel would fill a few lanes of each vector and pay a band copy per plane
// for a handful of outputs, every lane here is a channel. Used by depthwise_lanes.cpp and
// pooling.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/backends/cpu/padded_band.h"
#include "src/backends/cpu/simd.h"

namespace cppnn::cpu::lanes {

inline constexpr size_t W = simd::kWidth;  // channels per task (lanes of a simd::VF)
inline constexpr size_t kBlock = 8;        // outputs computed together (independent results)

// Whether a window geometry suits the layout: output rows narrower than a vector (wider ones are
// faster on the row kernels: a 2×2 pooling to 36×16 took half again as long here), a padded input
// plane of at most 65536 elements (a task's buffer stays a few megabytes, its offsets 32-bit).
bool suits(const WindowGeometry& g);

// The layout of one geometry, resolved at build: the padded input's rows and columns (those the
// windows reach), per output position the offset in floats of its window's first element (the
// list padded to whole blocks of kBlock with the last position, whose extra results are
// dropped), per tap (ky, kx) its offset from there.
struct Plan {
  size_t rows = 0, cols = 0;
  std::vector<uint32_t> position_offsets, tap_offsets;
};
Plan make_plan(const WindowGeometry& g);

// The lanes planes [c·in_plane, +in_plane) of `planes` (lanes <= W) interleaved into `padded`
// ([plan.rows][plan.cols][W]): input (iy, ix) at (iy + pad_top, ix + pad_left), `pad` elsewhere
// and in the lanes past `lanes`. 16 × 16 transpositions where the CPU has AVX-512.
void fill_padded(const WindowGeometry& g, const Plan& plan, const float* planes, size_t lanes,
                 float pad, std::vector<float>& padded);

// planes[c·plane + p] = interleaved[p·W + c] for c < lanes, p < plane: the result back into the
// output planes.
void write_planes(const float* interleaved, size_t plane, size_t lanes, float* planes);

}  // namespace cppnn::cpu::lanes
