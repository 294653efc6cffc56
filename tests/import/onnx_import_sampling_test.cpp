// The ONNX importer's decompositions of GridSample, RoiAlign, Det and the accumulating scatters
// (reduction add / mul / max / min) on cases ONNX's backend test data (tests/onnx, ONNX 1.12) does
// not reach: every GridSample mode x padding x align_corners with coordinates far outside and
// nearest ties, bicubic border padding by ONNX Runtime's rule, RoiAlign max mode and adaptive
// sample counts, larger determinants, max / min scatters with duplicates, negative indices and
// indices smaller than the data, and the bounds that give clear errors. Expected values come from
// naive loops here; each model runs on the reference backend and, where compiled in, on ONNX
// Runtime.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "cppnn/errors.h"
#include "tests/import/import_test_util.h"

namespace cppnn {
namespace {

using namespace testing;

// ---- GridSample: 2-D, the ONNX reference implementation's rules (bicubic border: ORT's) ----

double reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (x >= lo && x <= hi) return x;
  const double dx = x < lo ? lo - x : x - hi;
  const auto n = static_cast<int64_t>(dx / range);
  const double r = dx - static_cast<double>(n) * range;
  if (x < lo) return n % 2 == 0 ? lo + r : hi - r;
  return n % 2 == 0 ? hi - r : lo + r;
}

double keys(double d) {
  const double a = -0.75;
  d = std::fabs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
}

std::vector<double> grid_sample(const std::vector<float>& x, int h, int w,
                                const std::vector<float>& grid, int points, const std::string& mode,
                                const std::string& pad, bool align) {
  std::vector<double> out;
  for (int c = 0; c < 2; ++c) {
    for (int p = 0; p < points; ++p) {
      double pos[2];  // y, x
      const int size[2] = {h, w};
      for (int a = 0; a < 2; ++a) {
        const double g = grid[p * 2 + (1 - a)], len = size[a];
        double v = align ? (g + 1) / 2 * (len - 1) : ((g + 1) * len - 1) / 2;
        if (mode == "nearest") v = std::nearbyint(v);
        const double lo = align ? 0 : -0.5, hi = align ? len - 1 : len - 0.5;
        if (pad == "border" && mode != "cubic" && (v < lo || v > hi))
          v = std::clamp(v, 0.0, len - 1);
        if (pad == "reflection" && hi > lo) v = reflect(v, lo, hi);
        pos[a] = v;
      }
      // value(iy, ix) with the padding rule for taps.
      auto pixel = [&](int64_t iy, int64_t ix) -> double {
        const int64_t idx[2] = {iy, ix};
        int64_t fixed[2] = {0, 0};
        for (int a = 0; a < 2; ++a) {
          const int64_t len = size[a];
          if (pad == "zeros" && (idx[a] < 0 || idx[a] >= len)) return 0;
          if (pad == "border") fixed[a] = std::clamp<int64_t>(idx[a], 0, len - 1);
          const double lo = align ? 0 : -0.5, hi = align ? len - 1.0 : len - 0.5;
          if (pad == "reflection")
            fixed[a] =
                hi > lo ? static_cast<int64_t>(reflect(static_cast<double>(idx[a]), lo, hi)) : 0;
          if (pad == "zeros") fixed[a] = idx[a];
        }
        return x[(c * h + fixed[0]) * w + fixed[1]];
      };
      double v = 0;
      if (mode == "nearest") {
        v = pixel(static_cast<int64_t>(pos[0]), static_cast<int64_t>(pos[1]));
      } else {
        const int first = mode == "linear" ? 0 : -1, last = mode == "linear" ? 1 : 2;
        const double fy = std::floor(pos[0]), fx = std::floor(pos[1]);
        for (int i = first; i <= last; ++i) {
          for (int j = first; j <= last; ++j) {
            const double ty = pos[0] - fy - i, tx = pos[1] - fx - j;
            const double wy = mode == "linear" ? 1 - std::fabs(ty) : keys(ty);
            const double wx = mode == "linear" ? 1 - std::fabs(tx) : keys(tx);
            v += wy * wx * pixel(static_cast<int64_t>(fy) + i, static_cast<int64_t>(fx) + j);
          }
        }
      }
      out.push_back(v);
    }
  }
  return out;
}

TEST(OnnxImportSampling, GridSampleEveryModePaddingAndAlignment) {
  const int h = 3, w = 4, points = 12;
  const std::vector<float> x = pattern(2 * h * w, -2, 2, 11);
  std::vector<float> grid = pattern(points * 2, -1.8f, 1.8f, 5);
  // Nearest ties (x = 2 g + 1.5 on 4 columns, g + 1 on 3 rows with align_corners: -0.5, 0 and
  // 0.5 give x.5), the corners, far outside, just outside and just inside.
  const float ties[] = {-0.5f, 0.5f, 0.0f, -0.5f, 0.5f, 0.0f, -1, 1, 3.7f, -4.2f, 1.0001f, -0.999f};
  std::copy(std::begin(ties), std::end(ties), grid.begin());
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    for (const char* pad : {"zeros", "border", "reflection"}) {
      for (int align = 0; align < 2; ++align) {
        OnnxModelBuilder m(20);
        m.input("X", kFloat, {1, 2, h, w}).input("grid", kFloat, {1, 3, 4, 2}).output("y");
        auto& n = m.node("GridSample", {"X", "grid"}, {"y"});
        attr_string(n, "mode", mode);
        attr_string(n, "padding_mode", pad);
        OnnxModelBuilder::attr_int(n, "align_corners", align);
        const std::vector<double> want = grid_sample(x, h, w, grid, points, mode, pad, align == 1);
        const std::string what = std::string(mode) + "/" + pad + "/" + std::to_string(align);
        for (const std::string& backend : import_backends())
          expect_near_all(run_y_floats(m, backend, {{"X", to_bytes(x)}, {"grid", to_bytes(grid)}}),
                          want, what + " on " + backend, 1e-4);
      }
    }
  }
}

// ---- RoiAlign: the reference implementation's loops ----

std::vector<double> roi_align(const std::vector<float>& x, int ch, int h, int w,
                              const std::vector<float>& rois, const std::vector<int64_t>& batch,
                              int ph, int pw, int ratio, float scale, bool half, bool max) {
  std::vector<double> out;
  for (size_t r = 0; r < batch.size(); ++r) {
    const float off = half ? 0.5f : 0.0f;
    const float sw = rois[r * 4] * scale - off, sh = rois[r * 4 + 1] * scale - off;
    float rw = rois[r * 4 + 2] * scale - off - sw, rh = rois[r * 4 + 3] * scale - off - sh;
    if (!half) {
      rw = std::max(rw, 1.0f);
      rh = std::max(rh, 1.0f);
    }
    const float bh = rh / static_cast<float>(ph), bw = rw / static_cast<float>(pw);
    const int gh = ratio > 0 ? ratio : static_cast<int>(std::ceil(rh / static_cast<float>(ph)));
    const int gw = ratio > 0 ? ratio : static_cast<int>(std::ceil(rw / static_cast<float>(pw)));
    const double count = std::max(gh * gw, 1);
    for (int c = 0; c < ch; ++c) {
      const float* data = x.data() + (batch[r] * ch + c) * h * w;
      for (int py = 0; py < ph; ++py) {
        for (int px = 0; px < pw; ++px) {
          double acc = 0;
          bool first = true;
          for (int iy = 0; iy < gh; ++iy) {
            for (int ix = 0; ix < gw; ++ix) {
              double y = sh + py * bh + (iy + 0.5) * bh / gh;
              double xx = sw + px * bw + (ix + 0.5) * bw / gw;
              double v = 0;
              if (!(y < -1 || y > h || xx < -1 || xx > w)) {
                y = std::max(y, 0.0);
                xx = std::max(xx, 0.0);
                int yl = static_cast<int>(y), xl = static_cast<int>(xx), yh = yl + 1, xh = xl + 1;
                if (yl >= h - 1) y = yh = yl = h - 1;
                if (xl >= w - 1) xx = xh = xl = w - 1;
                const double ly = y - yl, lx = xx - xl, hy = 1 - ly, hx = 1 - lx;
                const double t[4] = {hy * hx * data[yl * w + xl], hy * lx * data[yl * w + xh],
                                     ly * hx * data[yh * w + xl], ly * lx * data[yh * w + xh]};
                v = max ? *std::max_element(t, t + 4) : t[0] + t[1] + t[2] + t[3];
              }
              acc = max ? (first ? v : std::max(acc, v)) : acc + v;
              first = false;
            }
          }
          out.push_back(max ? acc : acc / count);
        }
      }
    }
  }
  // [R, C, PH, PW] order already.
  return out;
}

TEST(OnnxImportSampling, RoiAlignModesAndAdaptiveCounts) {
  const int ch = 2, h = 6, w = 7;
  const std::vector<float> x = pattern(2 * ch * h * w, -1, 1, 11);
  const std::vector<float> rois = {0,  0,  6, 5, 1.5f, 0.5f, 5.2f, 4.9f,
                                   -2, -1, 3, 9, 4,    4,    4.2f, 4.1f};
  const std::vector<int64_t> batch = {0, 1, 1, 0};
  for (int ratio : {0, 2}) {
    for (int half = 0; half < 2; ++half) {
      for (int max = 0; max < 2; ++max) {
        OnnxModelBuilder m(16);
        m.input("X", kFloat, {2, ch, h, w}).input("b", kInt64, {4}).output("y");
        m.initializer_f32("rois", rois, {4, 4});
        auto& n = m.node("RoiAlign", {"X", "rois", "b"}, {"y"});
        attr_string(n, "mode", max ? "max" : "avg");
        attr_string(n, "coordinate_transformation_mode", half ? "half_pixel" : "output_half_pixel");
        OnnxModelBuilder::attr_int(n, "output_height", 2);
        OnnxModelBuilder::attr_int(n, "output_width", 3);
        OnnxModelBuilder::attr_int(n, "sampling_ratio", ratio);
        attr_float(n, "spatial_scale", 0.8f);
        const std::vector<double> want =
            roi_align(x, ch, h, w, rois, batch, 2, 3, ratio, 0.8f, half == 1, max == 1);
        const std::string what = "ratio " + std::to_string(ratio) + " half " +
                                 std::to_string(half) + " max " + std::to_string(max);
        for (const std::string& backend : import_backends())
          expect_near_all(run_y_floats(m, backend, {{"X", to_bytes(x)}, {"b", to_bytes(batch)}}),
                          want, what + " on " + backend, 1e-4);
      }
    }
  }
}

TEST(OnnxImportSampling, RoiAlignAdaptiveNeedsKnownRois) {
  OnnxModelBuilder m(16);
  m.input("X", kFloat, {1, 1, 4, 4}).input("rois", kFloat, {1, 4}).input("b", kInt64, {1});
  m.output("y");
  m.node("RoiAlign", {"X", "rois", "b"}, {"y"});  // sampling_ratio 0: adaptive
  try {
    run_y_bytes(m, "reference", {});
    FAIL() << "expected an error";
  } catch (const NotSupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("'rois' must be fixed at conversion"), std::string::npos)
        << e.what();
  }
}

// ---- Det ----

double det(std::vector<double> a, int n) {
  double d = 1;
  for (int k = 0; k < n; ++k) {
    int p = k;
    for (int i = k + 1; i < n; ++i)
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    if (p != k) {
      for (int j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      d = -d;
    }
    d *= a[k * n + k];
    if (a[k * n + k] == 0) return 0;
    for (int i = k + 1; i < n; ++i) {
      const double f = a[i * n + k] / a[k * n + k];
      for (int j = k; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return d;
}

TEST(OnnxImportSampling, DetUpToOrderSix) {
  for (int n = 1; n <= 6; ++n) {
    const std::vector<float> x = pattern(static_cast<size_t>(2 * n * n), -1, 1, 3 + n);
    OnnxModelBuilder m(11);
    m.input("x", kFloat, {2, n, n}).output("y");
    m.node("Det", {"x"}, {"y"});
    std::vector<double> want;
    for (int b = 0; b < 2; ++b)
      want.push_back(
          det(std::vector<double>(x.begin() + b * n * n, x.begin() + (b + 1) * n * n), n));
    for (const std::string& backend : import_backends())
      expect_near_all(run_y_floats(m, backend, {{"x", to_bytes(x)}}), want,
                      "order " + std::to_string(n) + " on " + backend, 1e-4);
  }
  OnnxModelBuilder big(11);
  big.input("x", kFloat, {7, 7}).output("y");
  big.node("Det", {"x"}, {"y"});
  EXPECT_THROW(run_y_bytes(big, "reference", {{"x", to_bytes(std::vector<float>(49))}}),
               NotSupportedError);
}

// ---- accumulating scatters ----

TEST(OnnxImportSampling, ScatterNDMaxMinWithDuplicatesOnInt32) {
  const std::vector<int32_t> data = {5, -3, 7, 0, 2, 9, -8, 4};  // [4, 2]
  const std::vector<int64_t> idx = {1, -3, 3, 1};                // [4, 1]: row 1 three times
  const std::vector<int32_t> upd = {6, -9, 1, 10, -2, 3, 8, -20};
  for (const char* red : {"max", "min"}) {
    const bool mx = std::string(red) == "max";
    std::vector<int32_t> want = data;
    for (int u = 0; u < 4; ++u) {
      const int64_t row = idx[u] < 0 ? idx[u] + 4 : idx[u];
      for (int j = 0; j < 2; ++j) {
        int32_t& d = want[row * 2 + j];
        d = mx ? std::max(d, upd[u * 2 + j]) : std::min(d, upd[u * 2 + j]);
      }
    }
    for (int known = 0; known < 2; ++known) {
      OnnxModelBuilder m(18);
      m.input("data", kInt32, {4, 2}).input("upd", kInt32, {4, 2}).output("y");
      Bytes inputs = {{"data", to_bytes(data)}, {"upd", to_bytes(upd)}};
      if (known) {
        m.initializer_i64("idx", idx, {4, 1});
      } else {
        m.input("idx", kInt64, {4, 1});
        inputs["idx"] = to_bytes(idx);
      }
      auto& n = m.node("ScatterND", {"data", "idx", "upd"}, {"y"});
      attr_string(n, "reduction", red);
      for (const std::string& backend : import_backends())
        EXPECT_EQ(as<int32_t>(run_y_bytes(m, backend, inputs)), want)
            << red << " known " << known << " on " << backend;
    }
  }
}

TEST(OnnxImportSampling, ScatterElementsMulWithSmallerIndices) {
  const std::vector<float> data = pattern(3 * 4, -2, 2, 11);  // [3, 4]
  const std::vector<int64_t> idx = {0, -1, 0, 2, 2, 0};       // [2, 3], axis 0
  const std::vector<float> upd = pattern(6, -2, 2, 9);
  std::vector<double> want(data.begin(), data.end());
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      const int64_t row = idx[i * 3 + j] < 0 ? idx[i * 3 + j] + 3 : idx[i * 3 + j];
      want[row * 4 + j] *= upd[i * 3 + j];
    }
  OnnxModelBuilder m(16);
  m.input("data", kFloat, {3, 4}).input("idx", kInt64, {2, 3}).input("upd", kFloat, {2, 3});
  m.output("y");
  auto& n = m.node("ScatterElements", {"data", "idx", "upd"}, {"y"});
  attr_string(n, "reduction", "mul");
  for (const std::string& backend : import_backends())
    expect_near_all(
        run_y_floats(m, backend,
                     {{"data", to_bytes(data)}, {"idx", to_bytes(idx)}, {"upd", to_bytes(upd)}}),
        want, "on " + backend, 1e-4);
}

TEST(OnnxImportSampling, AccumulatingScatterIsBounded) {
  // 2^14 targets x 2^14 updates: past the decomposition's bound, a clear error.
  OnnxModelBuilder m(16);
  m.input("data", kFloat, {16384}).input("idx", kInt64, {16384, 1}).input("upd", kFloat, {16384});
  m.output("y");
  auto& n = m.node("ScatterND", {"data", "idx", "upd"}, {"y"});
  attr_string(n, "reduction", "add");
  EXPECT_THROW(run_y_bytes(m, "reference", {}), NotSupportedError);
}

}  // namespace
}  // namespace cppnn
