// ONNX MelWeightMatrix (ops_signal.def, opset 17): a function of its constant inputs only, so it
// is computed on the host, step by step as ONNX's reference does (mel scale 2595 log10(1 + f /
// 700), num_mel_bins + 2 points, floor((dft_length + 1) f / sample_rate) as the spectrogram bin
// of each point, triangles between neighbouring points), and emitted as a constant.
#include <cmath>
#include <numbers>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/tensor_proto.h"

namespace cppnn::onnx_import {
namespace {

// The largest matrix (elements) the node may produce.
constexpr uint64_t kMaxMelElements = uint64_t{1} << 26;

// A scalar (or one-element) constant input.
double scalar_input(const NodeContext& c, size_t i, const char* what) {
  const std::vector<double> v = c.constant(i, what).to_double();
  if (v.size() != 1) c.invalid(std::string(what) + " must be a scalar");
  return v[0];
}

// Python's (and numpy's) float floor division a // b.
double floor_divide(double a, double b) {
  const double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return std::copysign(0.0, a / b);
  const double floored = std::floor(div);
  return div - floored > 0.5 ? floored + 1.0 : floored;
}

}  // namespace

void import_MelWeightMatrix(NodeContext& c) {
  const double mel_bins = scalar_input(c, 0, "num_mel_bins");
  const double dft_length = scalar_input(c, 1, "dft_length");
  const double sample_rate = scalar_input(c, 2, "sample_rate");
  const double lower = scalar_input(c, 3, "lower_edge_hertz");
  const double upper = scalar_input(c, 4, "upper_edge_hertz");
  if (!(mel_bins >= 1 && mel_bins <= INT32_MAX)) c.invalid("num_mel_bins must be positive");
  if (!(dft_length >= 1 && dft_length <= INT32_MAX)) c.invalid("dft_length must be positive");
  if (!(sample_rate >= 1)) c.invalid("sample_rate must be positive");
  if (!std::isfinite(lower) || !std::isfinite(upper))
    c.invalid("the edge frequencies must be finite");
  const auto type = webnn_type_of(static_cast<int32_t>(c.attr_int("output_datatype", 1)));
  if (!type) c.unsupported("the requested output data type");

  const uint64_t mels = static_cast<uint64_t>(mel_bins);
  const uint64_t bins = static_cast<uint64_t>(dft_length) / 2 + 1;
  if (bins * mels > kMaxMelElements)
    c.unsupported("a " + std::to_string(bins) + " x " + std::to_string(mels) +
                  " mel weight matrix (limit " + std::to_string(kMaxMelElements) + " elements)");

  // The spectrogram bin of each of the num_mel_bins + 2 points evenly spaced on the mel scale.
  const double low_mel = 2595 * std::log1p(lower / 700) / std::numbers::ln10;
  const double high_mel = 2595 * std::log1p(upper / 700) / std::numbers::ln10;
  const double step = (high_mel - low_mel) / static_cast<double>(mels + 2);
  std::vector<int64_t> point(mels + 2);
  for (uint64_t i = 0; i < point.size(); ++i) {
    const double mel = static_cast<double>(i) * step + low_mel;
    const double hz = 700 * std::expm1(mel / 2595 * std::numbers::ln10);
    const double bin = floor_divide((dft_length + 1) * hz, sample_rate);
    if (!(bin >= -1e18 && bin <= 1e18)) c.invalid("a mel point's frequency is out of range");
    point[i] = static_cast<int64_t>(bin);
  }
  std::vector<double> w(bins * mels, 0.0);
  auto at = [&](int64_t j, uint64_t i) -> double& {
    if (j < 0 || static_cast<uint64_t>(j) >= bins)
      c.invalid("mel point bin " + std::to_string(j) + " is outside the " + std::to_string(bins) +
                " spectrogram bins (the edge frequencies exceed " +
                "sample_rate / 2 or are negative)");
    return w[static_cast<uint64_t>(j) * mels + i];
  };
  for (uint64_t i = 0; i < mels; ++i) {
    const int64_t left = point[i], center = point[i + 1], right = point[i + 2];
    if (center == left) {
      at(center, i) = 1;
    } else {
      for (int64_t j = left; j <= center; ++j)
        at(j, i) = static_cast<double>(j - left) / static_cast<double>(center - left);
    }
    if (right > center) {
      for (int64_t j = center; j < right; ++j)
        at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - center);
    }
  }
  c.set_output(0, HostTensor::of_double(
                      w, {static_cast<uint32_t>(bins), static_cast<uint32_t>(mels)}, *type));
}

}  // namespace cppnn::onnx_import
