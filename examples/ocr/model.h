// A converted model (a .webnn graph file plus its SafeTensors weights, as `cppnn convert-onnx`
// writes them) loaded through the WebNN builder and built once on a context: one float32
// input, one float32 output, run as often as needed.
#pragma once

#include <cppnn/webnn.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ocr {

// A graph file built on a context, with its input and output tensors created once.
class Model {
 public:
  // Loads `graph_file` (its weights: the sidecar next to it, e.g. det.safetensors) into a
  // builder of `context` and builds it. Throws (cppnn errors, std::runtime_error) when the file
  // is missing or malformed or the graph does not have one float32 input and output.
  Model(cppnn::MLContext context, const std::string& graph_file);

  // The fixed input shape, e.g. [1, 3, 640, 640].
  const std::vector<uint32_t>& input_shape() const { return input_shape_; }
  // The output shape, e.g. [1, 1, 640, 640].
  const std::vector<uint32_t>& output_shape() const { return output_shape_; }
  // Runs the graph on `input` (exactly the input's element count) and returns the output.
  std::vector<float> run(std::span<const float> input);

 private:
  cppnn::MLContext context_;
  cppnn::MLGraph graph_;
  std::string input_name_, output_name_;
  std::vector<uint32_t> input_shape_, output_shape_;
  cppnn::MLTensor input_, output_;
};

}  // namespace ocr
