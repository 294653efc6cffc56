// The ONNX importer's DFT, STFT, MelWeightMatrix and TfIdfVectorizer handlers on cases ONNX's
// backend test data does not reach: DFT opset 20 with the axis and dft_length inputs and a
// one-sided output, the one-sided inverse (irfft), STFT of a complex signal with a constant
// window, TfIdfVectorizer weights that belong to the n-grams (several n-grams sharing an output
// position), and the size bounds and refusals. Expected values come from naive double loops here;
// each model runs on the reference backend and, where compiled in, on ONNX Runtime.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "cppnn/errors.h"
#include "tests/import/import_test_util.h"

namespace cppnn {
namespace {

using namespace testing;

void attr_floats(onnx::NodeProto& n, const std::string& name, const std::vector<float>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_FLOATS);
  for (float x : v) a->add_floats(x);
}

TEST(OnnxImportSignal, DftOpset20AxisAndLengthInputsOnesided) {
  // x [2, 6, 3, 1] real, DFT over axis 1 zero-padded to 8, bins 0..4.
  const std::vector<float> x = pattern(2 * 6 * 3, 1);
  OnnxModelBuilder m(20);
  m.input("x", kFloat, {2, 6, 3, 1}).output("y");
  m.initializer_i64("len", {8}, {}).initializer_i64("axis", {1}, {});
  OnnxModelBuilder::attr_int(m.node("DFT", {"x", "len", "axis"}, {"y"}), "onesided", 1);
  std::vector<double> want;
  for (int b = 0; b < 2; ++b)
    for (int k = 0; k < 5; ++k)
      for (int j = 0; j < 3; ++j) {
        double re = 0, im = 0;
        for (int n = 0; n < 6; ++n) {
          const double a = -2 * std::numbers::pi * k * n / 8, v = x[(b * 6 + n) * 3 + j];
          re += v * std::cos(a);
          im += v * std::sin(a);
        }
        want.push_back(re);
        want.push_back(im);
      }
  for (const std::string& be : import_backends())
    expect_near_all(run_y_floats(m, be, {{"x", to_bytes(x)}}), want, "dft " + be);
}

TEST(OnnxImportSignal, DftInverseOnesidedIsIrfft) {
  // x [1, 5, 2]: a one-sided spectrum of 5 bins; the default length is 2 * (5 - 1) = 8.
  const std::vector<float> x = pattern(5 * 2, 2);
  OnnxModelBuilder m(20);
  m.input("x", kFloat, {1, 5, 2}).output("y");
  auto& node = m.node("DFT", {"x"}, {"y"});
  OnnxModelBuilder::attr_int(node, "inverse", 1);
  OnnxModelBuilder::attr_int(node, "onesided", 1);
  std::vector<double> want;
  for (int n = 0; n < 8; ++n) {
    double v = x[0] + x[8] * std::cos(std::numbers::pi * n);  // DC and Nyquist: real parts once
    for (int k = 1; k < 4; ++k) {
      const double a = 2 * std::numbers::pi * k * n / 8;
      v += 2 * (x[2 * k] * std::cos(a) - x[2 * k + 1] * std::sin(a));
    }
    want.push_back(v / 8);
  }
  for (const std::string& be : import_backends())
    expect_near_all(run_y_floats(m, be, {{"x", to_bytes(x)}}), want, "irfft " + be);
}

TEST(OnnxImportSignal, StftComplexTwoSidedWithConstantWindow) {
  // signal [1, 20, 2], frames of 6 every 3 samples: 5 frames of 6 bins.
  const std::vector<float> s = pattern(20 * 2, 3), w = pattern(6, 4);
  OnnxModelBuilder m(17);
  m.input("s", kFloat, {1, 20, 2}).output("y");
  m.initializer_i64("step", {3}, {}).initializer_f32("w", w, {6});
  OnnxModelBuilder::attr_int(m.node("STFT", {"s", "step", "w"}, {"y"}), "onesided", 0);
  std::vector<double> want;
  for (int f = 0; f < 5; ++f)
    for (int k = 0; k < 6; ++k) {
      double re = 0, im = 0;
      for (int n = 0; n < 6; ++n) {
        const double a = -2 * std::numbers::pi * k * n / 6;
        const double xr = s[2 * (f * 3 + n)] * double{w[n]}, xi = s[2 * (f * 3 + n) + 1] * w[n];
        re += xr * std::cos(a) - xi * std::sin(a);
        im += xr * std::sin(a) + xi * std::cos(a);
      }
      want.push_back(re);
      want.push_back(im);
    }
  for (const std::string& be : import_backends())
    expect_near_all(run_y_floats(m, be, {{"s", to_bytes(s)}}), want, "stft " + be);
}

// Counts of the unigrams {4}, {5} and the bigrams {4, 5}, {5, 4} (skip distances 1 and 2) in
// `row`, in pool order.
std::vector<double> gram_counts(const std::vector<int64_t>& row) {
  std::vector<double> c(4, 0.0);
  const int64_t n = static_cast<int64_t>(row.size());
  for (int64_t i = 0; i < n; ++i) {
    c[0] += row[i] == 4;
    c[1] += row[i] == 5;
    for (int64_t d = 1; d <= 2 && i + d < n; ++d) {
      c[2] += row[i] == 4 && row[i + d] == 5;
      c[3] += row[i] == 5 && row[i + d] == 4;
    }
  }
  return c;
}

TEST(OnnxImportSignal, TfIdfWeightsBelongToTheNgrams) {
  const std::vector<int64_t> x{4, 5, 4, 4, 5, 7, 5, 5, 4, 1, 4, 5, 5, 4};  // [2, 7]
  const std::vector<int64_t> indexes{3, 0, 1, 0};  // two n-grams share position 0
  const std::vector<float> weights{0.5f, 2.0f, 3.0f, 4.0f};
  for (const std::string mode : {"TF", "IDF", "TFIDF"}) {
    OnnxModelBuilder m(9);
    m.input("x", kInt64, {2, 7}).output("y");
    auto& node = m.node("TfIdfVectorizer", {"x"}, {"y"});
    attr_string(node, "mode", mode);
    OnnxModelBuilder::attr_int(node, "min_gram_length", 1);
    OnnxModelBuilder::attr_int(node, "max_gram_length", 2);
    OnnxModelBuilder::attr_int(node, "max_skip_count", 1);
    OnnxModelBuilder::attr_ints(node, "ngram_counts", {0, 2});
    OnnxModelBuilder::attr_ints(node, "ngram_indexes", indexes);
    OnnxModelBuilder::attr_ints(node, "pool_int64s", {4, 5, 4, 5, 5, 4});
    attr_floats(node, "weights", weights);
    std::vector<double> want(2 * 4, 0.0);
    for (int b = 0; b < 2; ++b) {
      const auto c = gram_counts(std::vector<int64_t>(x.begin() + b * 7, x.begin() + b * 7 + 7));
      for (int g = 0; g < 4; ++g) {
        const double v = mode == std::string("TF")    ? c[g]
                         : mode == std::string("IDF") ? (c[g] > 0 ? weights[g] : 0.0)
                                                      : c[g] * weights[g];
        want[b * 4 + indexes[g]] += v;
      }
    }
    for (const std::string& be : import_backends())
      expect_near_all(run_y_floats(m, be, {{"x", to_bytes(x)}}), want, "tfidf " + mode + " " + be);
  }
}

TEST(OnnxImportSignal, BoundsAndRefusals) {
  OnnxModelBuilder dft(17);  // a basis of 2^26 elements
  dft.input("x", kFloat, {1, 4096, 2}).output("y");
  dft.initializer_i64("len", {4096}, {});
  OnnxModelBuilder::attr_int(dft.node("DFT", {"x", "len"}, {"y"}), "axis", 1);
  EXPECT_THROW(run_y_floats(dft, "reference", {}), NotSupportedError);

  OnnxModelBuilder mel(17);  // a run-time input
  mel.input("bins", kInt64, {}).output("y");
  mel.initializer_i64("dft", {16}, {}).initializer_i64("rate", {8000}, {});
  mel.initializer_f32("lo", {0.0f}, {}).initializer_f32("hi", {4000.0f}, {});
  mel.node("MelWeightMatrix", {"bins", "dft", "rate", "lo", "hi"}, {"y"});
  EXPECT_THROW(run_y_floats(mel, "reference", {}), NotSupportedError);

  OnnxModelBuilder tfidf(9);  // ngram_counts past the pool
  tfidf.input("x", kInt64, {5}).output("y");
  auto& node = tfidf.node("TfIdfVectorizer", {"x"}, {"y"});
  attr_string(node, "mode", "TF");
  OnnxModelBuilder::attr_ints(node, "ngram_counts", {0, 5});
  OnnxModelBuilder::attr_ints(node, "ngram_indexes", {0});
  OnnxModelBuilder::attr_ints(node, "pool_int64s", {1, 2});
  EXPECT_THROW(run_y_floats(tfidf, "reference", {}), DataError);
}

}  // namespace
}  // namespace cppnn
