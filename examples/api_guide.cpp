// The complete example of docs/api-guide.md (built and run by the `api_guide_example` test):
// record a small convolutional network with MLGraphBuilder, build it once, dispatch it many
// times, save it as a .webnn file and as ONNX, import the ONNX file back and check that both
// graphs agree.
#include <cppnn/formats.h>
#include <cppnn/onnx.h>
#include <cppnn/onnx_import.h>
#include <cppnn/webnn.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

using namespace cppnn;

namespace {

// Deterministic float32 weights as bytes.
std::vector<std::byte> pattern(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(static_cast<int>(i % 13) - 6);
  std::vector<std::byte> b(n * sizeof(float));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Runs `graph` once on `context` with input "image" and returns output "scores".
std::vector<float> run(MLContext& context, const MLGraph& graph, const std::vector<float>& image,
                       const std::string& in_name, const std::string& out_name) {
  MLTensor in =
      context.createTensor(MLTensorDescriptor::of(graph.inputs().at(in_name), false, true));
  MLTensor out =
      context.createTensor(MLTensorDescriptor::of(graph.outputs().at(out_name), true, false));
  context.writeTensor(in, std::as_bytes(std::span(image)));
  context.dispatch(graph, {{in_name, in}}, {{out_name, out}});
  return context.readTensor<float>(out);
}

}  // namespace

int main() {
  try {
    // 1. A context: the default backend (ONNX Runtime when compiled in, else the reference).
    MLContext context = MLContext::create();
    std::cout << "backend: " << context.backend() << "\n";

    // 2. Record the graph. Every call validates its operands and options and infers the output
    //    descriptor at once; errors name the op and its label.
    MLGraphBuilder builder(context);
    const MLOperandDataType f32 = MLOperandDataType::kFloat32;
    MLOperand image = builder.input("image", {f32, {1, 3, 32, 32}});
    MLOperand filter = builder.constant({f32, {8, 3, 3, 3}}, pattern(8 * 3 * 3 * 3, 0.05f));
    MLOperand bias = builder.constant({f32, {8}}, pattern(8, 0.01f));
    MLOperand conv = builder.conv2d(
        image, filter, {.padding = {1, 1, 1, 1}, .strides = {2, 2}, .bias = bias, .label = "conv"});
    MLOperand act = builder.relu(conv, {.label = "relu"});
    MLOperand pooled = builder.averagePool2d(act, {.label = "pool"});  // global: [1, 8, 1, 1]
    MLOperand flat = builder.reshape(pooled, {1, 8}, {.label = "flatten"});
    MLOperand w = builder.constant({f32, {8, 4}}, pattern(32, 0.1f));
    MLOperand scores = builder.softmax(builder.matmul(flat, w), 1, {.label = "scores"});

    // 3. Build once (compiles for the backend), then dispatch as often as needed.
    MLGraph graph = builder.build({{"scores", scores}});
    std::vector<float> input(3 * 32 * 32);
    for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 29) / 29.0f;
    std::vector<float> result;
    for (int i = 0; i < 10; ++i) result = run(context, graph, input, "image", "scores");
    std::cout << "scores:";
    for (float s : result) std::cout << " " << s;
    std::cout << "\n";

    // 4. Save it: a .webnn text file (constants above 64 KiB would go to a weights sidecar) and
    //    an ONNX model.
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "cppnn-api-guide";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "net.webnn") << graph_to_webnn_text(graph.graph());
    save_onnx(graph, dir / "net.onnx");

    // 5. Import the ONNX file back and compare.
    MLGraphBuilder builder2(context);
    OnnxImportResult imported = import_onnx(builder2, dir / "net.onnx");
    MLGraph graph2 = builder2.build(imported.outputs);
    const std::vector<float> again =
        run(context, graph2, input, imported.inputNames[0].second, imported.outputNames[0].second);
    double max_diff = 0;
    for (size_t i = 0; i < result.size(); ++i)
      max_diff = std::max(max_diff, static_cast<double>(std::fabs(result[i] - again[i])));
    std::cout << "saved " << (dir / "net.webnn").string() << " and net.onnx; re-imported ONNX "
              << "graph differs by at most " << max_diff << "\n";
    return max_diff < 1e-6 ? 0 : 1;
  } catch (const Error& e) {  // every cppnn error carries its WebNN kind
    std::cerr << "Error (" << e.name() << "): " << e.what() << "\n";
    return 1;
  }
}
