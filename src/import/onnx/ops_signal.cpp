// ONNX window operators (ops_signal.def, opset 17): the window is a function of its constant
// size, so it is computed on the host as a constant tensor.
#include <cmath>
#include <numbers>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_util.h"
#include "src/import/onnx/tensor_proto.h"

namespace cppnn::onnx_import {
namespace {

// sum_k a[k] * cos(2 pi k n / D) with D = size (periodic) or size - 1 (symmetric), as the ONNX
// reference computes it.
void cosine_window(NodeContext& c, std::initializer_list<double> coefficients) {
  const int64_t size = c.ints(0, "size").at(0);
  if (size <= 0 || size > (int64_t{1} << 24)) c.unsupported("window size " + std::to_string(size));
  const auto type = webnn_type_of(static_cast<int32_t>(c.attr_int("output_datatype", 1)));
  if (!type) c.unsupported("the requested output data type");
  const bool periodic = c.attr_int("periodic", 1) != 0;
  const double d = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> w(static_cast<size_t>(size));
  for (size_t n = 0; n < w.size(); ++n) {
    double v = 0;
    int k = 0;
    for (double a : coefficients) {
      v += a * std::cos(2 * std::numbers::pi * k * static_cast<double>(n) / d);
      ++k;
    }
    w[n] = v;
  }
  c.set_output(0, HostTensor::of_double(w, {static_cast<uint32_t>(size)}, *type));
}

}  // namespace

void import_HannWindow(NodeContext& c) {
  cosine_window(c, {0.5, -0.5});
}

void import_HammingWindow(NodeContext& c) {
  cosine_window(c, {25.0 / 46.0, -(1.0 - 25.0 / 46.0)});
}

void import_BlackmanWindow(NodeContext& c) {
  cosine_window(c, {0.42, -0.5, 0.08});
}

}  // namespace cppnn::onnx_import
