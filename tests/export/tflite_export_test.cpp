// save_tflite (include/cppnn/tflite.h) and the converter under it (src/export/tflite/): the
// flatbuffer verifies against our schema, the signature carries the graph's names and types
// (float16 as FLOAT16, scalars as [1]), the bytes are deterministic, only used buffers are
// written, large fills stay one FILL operator, and constant outputs are reported to the backend
// in their WebNN types instead of being computed by LiteRT.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "cppnn/errors.h"
#include "cppnn/float16.h"
#include "cppnn/tflite.h"
#include "cppnn/webnn.h"
#include "src/export/tflite/convert.h"
#include "tests/backends/run_util.h"
#include "tests/temp_dir.h"
#include "tflite_subset_generated.h"

namespace cppnn {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// The model of `bytes`, verified.
const tflite::Model* verified(const std::vector<uint8_t>& bytes) {
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  EXPECT_TRUE(tflite::VerifyModelBuffer(verifier));
  return tflite::GetModel(bytes.data());
}

size_t buffer_bytes(const tflite::Model* m) {
  size_t total = 0;
  for (const tflite::Buffer* b : *m->buffers())
    if (b->data()) total += b->data()->size();
  return total;
}

class TfliteExport : public ::testing::Test {
 protected:
  MLContext context_ = testing::ref_context();
  testing::TempDir dir_;
};

TEST_F(TfliteExport, SignatureNamesTypesAndScalars) {
  MLGraphBuilder b(context_);
  MLOperand x = b.input("image in", {MLOperandDataType::kFloat16, {2, 3}});
  MLOperand s = b.input("scale", {MLOperandDataType::kFloat32, {}});
  MLGraph g = b.build({{"out", b.relu(x)}, {"scaled", b.neg(s)}});
  const TfliteModelInfo info = save_tflite(g, dir_.path() / "m.tflite");
  ASSERT_EQ(info.inputs.size(), 2u);
  EXPECT_EQ(info.inputs[0].name, "image in");
  EXPECT_EQ(info.outputs[0].name, "out");  // outputs in name order
  const std::vector<uint8_t> bytes = read(dir_.path() / "m.tflite");
  const tflite::Model* m = verified(bytes);
  ASSERT_EQ(m->signature_defs()->size(), 1u);
  const tflite::SignatureDef* sig = m->signature_defs()->Get(0);
  EXPECT_EQ(sig->signature_key()->str(), "serving_default");
  const tflite::SubGraph* sg = m->subgraphs()->Get(0);
  auto tensor = [&](const tflite::TensorMap* t) { return sg->tensors()->Get(t->tensor_index()); };
  const tflite::Tensor* in0 = tensor(sig->inputs()->Get(0));
  EXPECT_EQ(sig->inputs()->Get(0)->name()->str(), "image in");
  EXPECT_EQ(in0->type(), tflite::TensorType::FLOAT16);
  const tflite::Tensor* in1 = tensor(sig->inputs()->Get(1));
  ASSERT_EQ(in1->shape()->size(), 1u);  // a scalar travels as [1]
  EXPECT_EQ(in1->shape()->Get(0), 1);
  EXPECT_EQ(tensor(sig->outputs()->Get(0))->type(), tflite::TensorType::FLOAT16);
}

TEST_F(TfliteExport, DeterministicAndOnlyUsedBuffers) {
  // matmul by a constant [64, 32] matrix: FULLY_CONNECTED with the weights transposed at export;
  // the original layout must not be written as well.
  auto build = [&] {
    MLGraphBuilder b(context_);
    MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {4, 64}});
    std::vector<float> w(64 * 32);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) - 3.0f;
    MLOperand wc = b.constant({MLOperandDataType::kFloat32, {64, 32}}, testing::to_bytes(w));
    return b.build({{"y", b.matmul(x, wc)}});
  };
  save_tflite(build(), dir_.path() / "a.tflite");
  save_tflite(build(), dir_.path() / "b.tflite");
  const std::vector<uint8_t> a = read(dir_.path() / "a.tflite");
  EXPECT_EQ(a, read(dir_.path() / "b.tflite"));
  const size_t weights = 64 * 32 * sizeof(float);
  const size_t written = buffer_bytes(verified(a));
  EXPECT_GE(written, weights);
  EXPECT_LT(written, weights + 1024) << "an unused copy of the weights was written";
}

TEST_F(TfliteExport, LargeFillIsOneFillOperator) {
  MLGraphBuilder b(context_);
  MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {1000, 1000}});
  MLOperand big = b.constant_fill({MLOperandDataType::kFloat32, {1000, 1000}}, MLNumber(1.5));
  MLGraph g = b.build({{"y", b.add(x, big)}});
  save_tflite(g, dir_.path() / "f.tflite");
  EXPECT_LT(fs::file_size(dir_.path() / "f.tflite"), 64u * 1024u);  // not 4 MB
  const std::vector<uint8_t> bytes = read(dir_.path() / "f.tflite");
  const tflite::Model* m = verified(bytes);
  bool fill = false;
  for (const tflite::OperatorCode* c : *m->operator_codes())
    fill = fill || c->builtin_code() == tflite::BuiltinOperator::FILL;
  EXPECT_TRUE(fill);
}

TEST_F(TfliteExport, ConstantOutputsInTheirWebnnTypes) {
  MLGraphBuilder b(context_);
  MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {2}});
  const std::vector<Float16> h = {Float16(1.5f), Float16(-2.25f)};
  MLOperand c = b.constant({MLOperandDataType::kFloat16, {2}}, testing::to_bytes(h));
  MLGraph g = b.build({{"c", b.identity(c)}, {"y", b.neg(x)}});
  const tflite_export::Conversion kept = tflite_export::convert_prepared(g.graph());
  EXPECT_EQ(kept.info.outputs.size(), 2u);
  const tflite_export::Conversion left =
      tflite_export::convert_prepared(g.graph(), tflite_export::ConstantOutputs::kExclude);
  ASSERT_EQ(left.constant_outputs.size(), 2u);
  ASSERT_TRUE(left.constant_outputs[0].has_value());
  EXPECT_EQ(*left.constant_outputs[0], testing::to_bytes(h));  // float16 bytes, not widened
  EXPECT_FALSE(left.constant_outputs[1].has_value());
  EXPECT_EQ(verified(left.bytes)->subgraphs()->Get(0)->outputs()->size(), 1u);
}

TEST_F(TfliteExport, UnwritableDestinationLeavesNothing) {
  MLGraphBuilder b(context_);
  MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {2}});
  MLGraph g = b.build({{"y", b.neg(x)}});
  fs::create_directory(dir_.path() / "dir.tflite");
  EXPECT_THROW(save_tflite(g, dir_.path() / "dir.tflite"), DataError);
  EXPECT_THROW(save_tflite(g, dir_.path() / "missing" / "m.tflite"), DataError);
  EXPECT_FALSE(fs::exists(dir_.path() / "missing"));
}

}  // namespace
}  // namespace cppnn
