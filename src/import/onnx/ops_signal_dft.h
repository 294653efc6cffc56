// The discrete Fourier transform as a matmul with a constant basis, shared by the ONNX DFT and
// STFT handlers (ops_signal_dft.cpp, ops_signal_stft.cpp). The basis is computed on the host in
// double precision (exact at quarter turns) and rounded once to float32.
#pragma once

#include <cstdint>
#include <vector>

#include "src/import/onnx/node_context.h"

namespace cppnn::onnx_import {

// One DFT along one axis, as ONNX's reference computes it (numpy fft / ifft / irfft).
struct DftSpec {
  uint32_t channels = 1;  // 1: real input; 2: complex input (real, imaginary) in the last axis
  uint32_t rows = 0;      // input samples used along the axis (the rest are zero padding)
  uint32_t length = 0;    // the DFT length (ONNX dft_length / frame_length)
  bool inverse = false;   // e^{+2 pi i k n / L} / L instead of e^{-2 pi i k n / L}
  bool onesided = false;  // forward: bins 0 .. L/2 only; inverse: irfft (real output)

  // Output samples along the axis: L/2 + 1 for a one-sided forward transform, else L.
  uint32_t bins() const { return onesided && !inverse ? length / 2 + 1 : length; }
  // Output channels: 1 (real) for the one-sided inverse (irfft), else 2 (complex).
  uint32_t out_channels() const { return onesided && inverse ? 1 : 2; }
  // Input samples along the axis that the transform reads: L/2 + 1 for irfft, else L.
  uint32_t used_rows() const { return onesided && inverse ? length / 2 + 1 : length; }
};

// `x` shaped [M, rows * channels] (sample-major, channels interleaved, float32) times the basis:
// [M, bins * out_channels] (bin-major, real and imaginary interleaved). `window` (rows values,
// optional) scales the input samples and is folded into the basis. NotSupportedError past the
// basis size limit.
MLOperand dft_matmul(NodeContext& c, const MLOperand& x, const DftSpec& spec,
                     const std::vector<double>* window = nullptr);

}  // namespace cppnn::onnx_import
