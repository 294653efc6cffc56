// The ONNX importer's 3-D convolutions and pools (2-D decompositions over the depth axis),
// MaxPool's Indices output and MaxUnpool, on cases ONNX's backend test data does not reach:
// groups with dilations, strides and asymmetric pads together, ConvTranspose with output_padding
// and pads that crop whole depth taps, average pools with and without count_include_pad at
// padded borders, Indices with ties (the first maximum in window order) in both storage orders,
// and the bounds that give clear errors. Expected values come from naive loops here; each model
// runs on the reference backend and, where compiled in, on ONNX Runtime.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "tests/import/import_test_util.h"

namespace cppnn {
namespace {

using namespace testing;
using Dims = std::array<int64_t, 3>;

int64_t prod(const Dims& d) {
  return d[0] * d[1] * d[2];
}

// Calls f(od, k, at, valid) for every output position od and window element k of a 3-D window
// (row-major both), `at` the input position (in padded-free coordinates).
template <class F>
void windows(const Dims& in, const Dims& out, const Dims& k, const Dims& s, const Dims& d,
             const Dims& pb, F f) {
  for (int64_t o = 0; o < prod(out); ++o) {
    const Dims od = {o / (out[1] * out[2]), o / out[2] % out[1], o % out[2]};
    for (int64_t w = 0; w < prod(k); ++w) {
      const Dims kw = {w / (k[1] * k[2]), w / k[2] % k[1], w % k[2]};
      Dims at{};
      bool valid = true;
      for (int i = 0; i < 3; ++i) {
        at[i] = od[i] * s[i] - pb[i] + kw[i] * d[i];
        valid = valid && at[i] >= 0 && at[i] < in[i];
      }
      f(o, w, at, valid);
    }
  }
}

int64_t flat(const Dims& in, const Dims& at) {
  return (at[0] * in[1] + at[1]) * in[2] + at[2];
}

TEST(OnnxImport3d, ConvGroupsDilationsStridesPads) {
  const int64_t n = 2, c = 4, o = 6, g = 2;
  const Dims in = {6, 5, 7}, k = {3, 2, 3}, s = {2, 1, 2}, d = {2, 1, 1}, pb = {2, 1, 0},
             pe = {1, 0, 2};
  Dims out{};
  for (int i = 0; i < 3; ++i) out[i] = (in[i] + pb[i] + pe[i] - (k[i] - 1) * d[i] - 1) / s[i] + 1;
  const std::vector<float> x = pattern(n * c * prod(in), -1, 1, 7);
  const std::vector<float> w = pattern(o * (c / g) * prod(k), -1, 1, 3);
  const std::vector<float> b = pattern(o, -1, 1, 5);
  std::vector<double> want(n * o * prod(out));
  for (int64_t ni = 0; ni < n; ++ni)
    for (int64_t oc = 0; oc < o; ++oc) {
      const int64_t grp = oc / (o / g);
      windows(in, out, k, s, d, pb, [&](int64_t op, int64_t kw, const Dims& at, bool valid) {
        double& acc = want[(ni * o + oc) * prod(out) + op];
        if (kw == 0) acc = b[oc];
        if (!valid) return;
        for (int64_t ci = 0; ci < c / g; ++ci)
          acc += double{x[(ni * c + grp * (c / g) + ci) * prod(in) + flat(in, at)]} *
                 w[(oc * (c / g) + ci) * prod(k) + kw];
      });
    }
  OnnxModelBuilder m(13);
  m.input("x", kFloat, {n, c, in[0], in[1], in[2]}).output("y");
  m.initializer_f32("w", w, {o, c / g, k[0], k[1], k[2]}).initializer_f32("b", b, {o});
  auto& node = m.node("Conv", {"x", "w", "b"}, {"y"});
  OnnxModelBuilder::attr_int(node, "group", g);
  OnnxModelBuilder::attr_ints(node, "strides", {s[0], s[1], s[2]});
  OnnxModelBuilder::attr_ints(node, "dilations", {d[0], d[1], d[2]});
  OnnxModelBuilder::attr_ints(node, "pads", {pb[0], pb[1], pb[2], pe[0], pe[1], pe[2]});
  for (const std::string& backend : import_backends())
    expect_near_all(run_y_floats(m, backend, {{"x", to_bytes(x)}}), want, "Conv 3-D on " + backend,
                    1e-4);
}

TEST(OnnxImport3d, ConvTransposeGroupsOutputPaddingCroppedTaps) {
  const int64_t n = 1, c = 4, og = 2, g = 2;
  const Dims in = {3, 3, 4}, k = {3, 2, 2}, s = {3, 2, 1}, d = {2, 1, 2}, pb = {4, 1, 0},
             pe = {1, 0, 1}, op = {2, 1, 0};
  Dims out{};
  for (int i = 0; i < 3; ++i)
    out[i] = (in[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 + op[i] - pb[i] - pe[i];
  const std::vector<float> x = pattern(n * c * prod(in), -1, 1, 7);
  const std::vector<float> w = pattern(c * og * prod(k), -1, 1, 3);
  const std::vector<float> b = pattern(og * g, -1, 1, 5);
  std::vector<double> want(n * og * g * prod(out));
  for (int64_t oc = 0; oc < og * g; ++oc)
    for (int64_t i = 0; i < prod(out); ++i) want[oc * prod(out) + i] = b[oc];
  for (int64_t ci = 0; ci < c; ++ci)
    for (int64_t ip = 0; ip < prod(in); ++ip)
      for (int64_t kw = 0; kw < prod(k); ++kw) {
        const Dims id = {ip / (in[1] * in[2]), ip / in[2] % in[1], ip % in[2]};
        const Dims kk = {kw / (k[1] * k[2]), kw / k[2] % k[1], kw % k[2]};
        Dims at{};
        bool valid = true;
        for (int a = 0; a < 3; ++a) {
          at[a] = id[a] * s[a] + kk[a] * d[a] - pb[a];
          valid = valid && at[a] >= 0 && at[a] < out[a];
        }
        if (!valid) continue;
        for (int64_t oj = 0; oj < og; ++oj) {
          const int64_t oc = ci / (c / g) * og + oj;
          want[oc * prod(out) + flat(out, at)] +=
              double{x[ci * prod(in) + ip]} * w[(ci * og + oj) * prod(k) + kw];
        }
      }
  OnnxModelBuilder m(13);
  m.input("x", kFloat, {n, c, in[0], in[1], in[2]}).output("y");
  m.initializer_f32("w", w, {c, og, k[0], k[1], k[2]}).initializer_f32("b", b, {og * g});
  auto& node = m.node("ConvTranspose", {"x", "w", "b"}, {"y"});
  OnnxModelBuilder::attr_int(node, "group", g);
  OnnxModelBuilder::attr_ints(node, "strides", {s[0], s[1], s[2]});
  OnnxModelBuilder::attr_ints(node, "dilations", {d[0], d[1], d[2]});
  OnnxModelBuilder::attr_ints(node, "output_padding", {op[0], op[1], op[2]});
  OnnxModelBuilder::attr_ints(node, "pads", {pb[0], pb[1], pb[2], pe[0], pe[1], pe[2]});
  for (const std::string& backend : import_backends())
    expect_near_all(run_y_floats(m, backend, {{"x", to_bytes(x)}}), want,
                    "ConvTranspose 3-D on " + backend, 1e-4);
}

// AveragePool / MaxPool 3-D over [1, 2, in] with pads on every axis.
void check_pool(const std::string& op, bool include_pad) {
  const int64_t c = 2;
  const Dims in = {5, 4, 6}, k = {3, 2, 3}, s = {2, 1, 2}, d = {1, 1, 1}, pb = {1, 1, 0},
             pe = {1, 0, 1};
  Dims out{};
  for (int i = 0; i < 3; ++i) out[i] = (in[i] + pb[i] + pe[i] - k[i]) / s[i] + 1;
  const std::vector<float> x = pattern(c * prod(in), -1, 1, 7);
  std::vector<double> want(c * prod(out)), count(c * prod(out));
  for (int64_t ci = 0; ci < c; ++ci)
    windows(in, out, k, s, d, pb, [&](int64_t o, int64_t kw, const Dims& at, bool valid) {
      double& acc = want[ci * prod(out) + o];
      if (kw == 0) acc = op == "MaxPool" ? -INFINITY : 0.0;
      if (include_pad) count[ci * prod(out) + o] += 1;
      if (!valid) return;
      const double v = x[ci * prod(in) + flat(in, at)];
      if (!include_pad) count[ci * prod(out) + o] += 1;
      acc = op == "MaxPool" ? std::max(acc, v) : acc + v;
    });
  if (op == "AveragePool")
    for (size_t i = 0; i < want.size(); ++i) want[i] /= count[i];
  OnnxModelBuilder m(13);
  m.input("x", kFloat, {1, c, in[0], in[1], in[2]}).output("y");
  auto& node = m.node(op, {"x"}, {"y"});
  OnnxModelBuilder::attr_ints(node, "kernel_shape", {k[0], k[1], k[2]});
  OnnxModelBuilder::attr_ints(node, "strides", {s[0], s[1], s[2]});
  OnnxModelBuilder::attr_ints(node, "pads", {pb[0], pb[1], pb[2], pe[0], pe[1], pe[2]});
  if (op == "AveragePool") OnnxModelBuilder::attr_int(node, "count_include_pad", include_pad);
  for (const std::string& backend : import_backends())
    expect_near_all(
        run_y_floats(m, backend, {{"x", to_bytes(x)}}), want,
        op + " 3-D (count_include_pad " + std::to_string(include_pad) + ") on " + backend, 1e-4);
}

TEST(OnnxImport3d, PoolsWithPaddedBorders) {
  check_pool("AveragePool", false);
  check_pool("AveragePool", true);
  check_pool("MaxPool", false);
}

// MaxPool Indices over [2, 3, in] (3-D: in[0] > 1; 2-D: in[0] = 1 with a rank-4 model), values
// on 4 levels so that windows tie: the first maximum in window order, padding never.
void check_indices(bool three_d, int64_t order) {
  const int64_t n = 2, c = 3;
  const Dims in = three_d ? Dims{4, 5, 6} : Dims{1, 7, 6},
             k = three_d ? Dims{2, 3, 2} : Dims{1, 3, 3},
             s = three_d ? Dims{2, 2, 1} : Dims{1, 2, 2}, d = {1, 1, 1},
             pb = three_d ? Dims{1, 1, 0} : Dims{0, 1, 1},
             pe = three_d ? Dims{0, 1, 1} : Dims{0, 1, 0};
  Dims out{};
  for (int i = 0; i < 3; ++i) out[i] = (in[i] + pb[i] + pe[i] - k[i]) / s[i] + 1;
  const std::vector<float> x = pattern(n * c * prod(in), -1, 1, 7, 4);
  std::vector<int64_t> want(n * c * prod(out));
  for (int64_t p = 0; p < n * c; ++p) {
    std::vector<double> best(prod(out), -INFINITY);
    windows(in, out, k, s, d, pb, [&](int64_t o, int64_t, const Dims& at, bool valid) {
      if (!valid) return;
      const double v = x[p * prod(in) + flat(in, at)];
      if (v <= best[o]) return;
      best[o] = v;
      const int64_t pos = order == 0 ? flat(in, at) : at[0] + in[0] * (at[1] + in[1] * at[2]);
      want[p * prod(out) + o] = p * prod(in) + pos;
    });
  }
  OnnxModelBuilder m(12);
  std::vector<int64_t> xs = {n, c, in[0], in[1], in[2]};
  std::vector<int64_t> ks = {k[0], k[1], k[2]}, ss = {s[0], s[1], s[2]},
                       ps = {pb[0], pb[1], pb[2], pe[0], pe[1], pe[2]};
  if (!three_d) {
    xs.erase(xs.begin() + 2);
    ks.erase(ks.begin());
    ss.erase(ss.begin());
    ps = {pb[1], pb[2], pe[1], pe[2]};
  }
  m.input("x", kFloat, xs).output("y");
  auto& node = m.node("MaxPool", {"x"}, {"max", "y"});
  OnnxModelBuilder::attr_ints(node, "kernel_shape", ks);
  OnnxModelBuilder::attr_ints(node, "strides", ss);
  OnnxModelBuilder::attr_ints(node, "pads", ps);
  OnnxModelBuilder::attr_int(node, "storage_order", order);
  for (const std::string& backend : import_backends())
    EXPECT_EQ(as<int64_t>(run_y_bytes(m, backend, {{"x", to_bytes(x)}})), want)
        << (three_d ? "3-D" : "2-D") << " storage_order " << order << " on " << backend;
}

TEST(OnnxImport3d, MaxPoolIndicesFirstMaximumInWindowOrder) {
  for (const bool three_d : {false, true})
    for (const int64_t order : {0, 1}) check_indices(three_d, order);
}

TEST(OnnxImport3d, MaxUnpoolScattersAndPadsToOutputShape) {
  // Values 1..4 at flat indices of the inferred [1, 1, 4, 4], padded at the end to 5 x 6.
  OnnxModelBuilder m(11);
  m.input("x", kFloat, {1, 1, 2, 2}).output("y");
  m.initializer_i64("i", {5, 2, 8, 15}, {1, 1, 2, 2}).initializer_i64("shape", {1, 1, 5, 6}, {4});
  auto& node = m.node("MaxUnpool", {"x", "i", "shape"}, {"y"});
  OnnxModelBuilder::attr_ints(node, "kernel_shape", {2, 2});
  OnnxModelBuilder::attr_ints(node, "strides", {2, 2});
  std::vector<float> want(30, 0.0f);
  want[1 * 6 + 1] = 1, want[0 * 6 + 2] = 2, want[2 * 6 + 0] = 3, want[3 * 6 + 3] = 4;
  for (const std::string& backend : import_backends())
    EXPECT_EQ(as<float>(run_y_bytes(m, backend, {{"x", to_bytes(std::vector<float>{1, 2, 3, 4})}})),
              want)
        << backend;
}

TEST(OnnxImport3d, BoundsGiveClearErrors) {
  // A MaxPool Indices window of 17 x 17 = 289 elements (over 256 slices).
  OnnxModelBuilder m(12);
  m.input("x", kFloat, {1, 1, 17, 17}).output("y");
  auto& node = m.node("MaxPool", {"x"}, {"max", "y"});
  OnnxModelBuilder::attr_ints(node, "kernel_shape", {17, 17});
  EXPECT_THROW(run_y_bytes(m, "reference", {{"x", to_bytes(std::vector<float>(289))}}),
               NotSupportedError);
  // MaxUnpool with an output_shape below the inferred shape.
  OnnxModelBuilder u(11);
  u.input("x", kFloat, {1, 1, 2, 2}).output("y");
  u.initializer_i64("i", {0, 1, 2, 3}, {1, 1, 2, 2}).initializer_i64("shape", {1, 1, 3, 4}, {4});
  auto& un = u.node("MaxUnpool", {"x", "i", "shape"}, {"y"});
  OnnxModelBuilder::attr_ints(un, "kernel_shape", {2, 2});
  OnnxModelBuilder::attr_ints(un, "strides", {2, 2});
  EXPECT_THROW(run_y_bytes(u, "reference", {{"x", to_bytes(std::vector<float>(4))}}),
               NotSupportedError);
}

}  // namespace
}  // namespace cppnn
