// Uses the installed headers and library: records a tiny graph and prints its output shape.
#include <cppnn/webnn.h>

#include <iostream>

int main() {
  using namespace cppnn;
  MLGraphBuilder b(MLContext::create());
  MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {2, 3}});
  MLGraph g = b.build({{"y", b.transpose(b.relu(x))}});
  std::cout << to_string(g.outputs().at("y")) << "\n";
  return to_string(g.outputs().at("y")) == "float32[3,2]" ? 0 : 1;
}
