// Records a small multilayer perceptron through the WebNN builder API, prints its validated
// structure (every operation with its output descriptors), then runs it on the default backend
// through MLTensor and dispatch and prints the outputs.
#include <cppnn/webnn.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <span>
#include <vector>

using namespace cppnn;

namespace {

// Bytes of `n` float32 values filled with a deterministic pattern.
std::vector<std::byte> weights(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = scale * static_cast<float>((i * 7919) % 17) / 17.0f - scale / 2;
  std::vector<std::byte> b(n * sizeof(float));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

}  // namespace

int main() {
  MLContext context = MLContext::create();
  MLGraphBuilder builder(context);
  const MLOperandDataType f32 = MLOperandDataType::kFloat32;

  MLOperand x = builder.input("x", {f32, {1, 784}});
  MLOperand w1 = builder.constant({f32, {784, 128}}, weights(784 * 128, 0.1f));
  MLOperand b1 = builder.constant({f32, {128}}, weights(128, 0.01f));
  MLOperand h = builder.relu(builder.gemm(x, w1, {.c = b1, .label = "dense1"}), {.label = "act1"});
  MLOperand w2 = builder.constant({f32, {128, 10}}, weights(128 * 10, 0.1f));
  MLOperand b2 = builder.constant({f32, {10}}, weights(10, 0.01f));
  MLOperand logits =
      builder.add(builder.matmul(h, w2, {.label = "dense2"}), b2, {.label = "bias2"});
  MLOperand probs = builder.softmax(logits, 1, {.label = "probs"});
  MLGraph graph = builder.build({{"probs", probs}});

  const Graph& g = graph.graph();
  std::cout << "cppnn " << version() << " demo: a 784-128-10 MLP recorded through MLGraphBuilder\n"
            << "backend: " << context.backend() << "\n\ninputs:\n";
  for (const auto& [name, d] : graph.inputs())
    std::cout << "  " << name << ": " << to_string(d) << "\n";
  std::cout << "\noperations (" << g.operations.size() << "):\n";
  for (const auto& op : g.operations) {
    std::cout << "  " << op_name(op.type);
    if (!op.label().empty()) std::cout << " [" << op.label() << "]";
    std::cout << "(";
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      if (!op.inputs[i].valid()) continue;
      std::cout << (i ? ", " : "") << "%" << op.inputs[i].value;
    }
    std::cout << ") -> ";
    for (OperandId o : op.outputs)
      std::cout << "%" << o.value << ":" << to_string(g.descriptor(o)) << " ";
    std::cout << "\n";
  }
  uint64_t params = 0;
  for (const auto& c : g.constants) params += c.size() / 4;
  std::cout << "\noutputs:\n";
  for (const auto& [name, d] : graph.outputs())
    std::cout << "  " << name << ": " << to_string(d) << "\n";
  std::printf("\nparameters: %llu (%llu bytes), content hash %016llx\n",
              static_cast<unsigned long long>(params), static_cast<unsigned long long>(params * 4),
              static_cast<unsigned long long>(g.content_hash()));

  // Run it: one input tensor, one output tensor, written and read through the context.
  std::vector<float> image(784);
  for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<float>((i * 31) % 255) / 255.0f;
  MLTensor in = context.createTensor(MLTensorDescriptor::of(graph.inputs().at("x"), false, true));
  MLTensor out =
      context.createTensor(MLTensorDescriptor::of(graph.outputs().at("probs"), true, false));
  context.writeTensor(in, std::as_bytes(std::span(image)));
  context.dispatch(graph, {{"x", in}}, {{"probs", out}});
  std::vector<float> result = context.readTensor<float>(out);
  std::cout << "\nprobs on " << context.backend() << ":";
  float sum = 0;
  size_t best = 0;
  for (size_t i = 0; i < result.size(); ++i) {
    std::printf(" %.4f", result[i]);
    sum += result[i];
    if (result[i] > result[best]) best = i;
  }
  std::printf("\nsum %.6f, argmax %zu\n", sum, best);

  constexpr int kRuns = 200;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRuns; ++i) context.dispatch(graph, {{"x", in}}, {{"probs", out}});
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::printf("dispatch: %.1f us per run (mean of %d)\n", us / kRuns, kRuns);
  return 0;
}
