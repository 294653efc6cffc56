// save_coreml (include/cppnn/coreml.h) and the pieces under it (src/export/coreml/): the
// package layout, the weight blob format, the model description and MIL function, feature
// names, determinism, replacing a package atomically, and refusing what MIL cannot express.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "cppnn/coreml.h"
#include "cppnn/errors.h"
#include "cppnn/webnn.h"
#include "model.pb.h"
#include "src/export/coreml/convert.h"
#include "src/export/coreml/package.h"
#include "src/export/coreml/weight_blob.h"
#include "tests/backends/run_util.h"
#include "tests/temp_dir.h"

namespace cppnn {
namespace {

namespace fs = std::filesystem;
namespace spec = CoreML::Specification;
namespace mil = CoreML::Specification::MILSpec;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

template <class T>
T at(const std::vector<std::byte>& bytes, size_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v;
}

class CoremlExport : public ::testing::Test {
 protected:
  // y = x + W (W: 2x256 float32, in the blob) and z = x + tiny (2x1 broadcast, inline).
  MLGraph graph(float scale = 1.0f) {
    MLGraphBuilder b(context_);
    MLOperand x = b.input("input x", {MLOperandDataType::kFloat32, {2, 256}});
    std::vector<float> w(512), small{1.0f, -2.0f};
    for (size_t i = 0; i < w.size(); ++i) w[i] = scale * static_cast<float>(i) - 100.0f;
    MLOperand big = b.constant({MLOperandDataType::kFloat32, {2, 256}}, testing::to_bytes(w));
    MLOperand tiny = b.constant({MLOperandDataType::kFloat32, {2, 1}}, testing::to_bytes(small));
    return b.build({{"y", b.add(x, big)}, {"z", b.add(x, tiny)}});
  }

  static const mil::Block& main_block(const spec::Model& m) {
    return m.mlprogram().functions().at("main").block_specializations().at("CoreML7");
  }

  MLContext context_ = testing::ref_context();
  testing::TempDir dir_;
};

TEST(CoremlWeightBlob, HeaderAndAlignedRecords) {
  coreml_export::WeightBlob blob;
  const std::vector<std::byte> a(10, std::byte{1}), b(6, std::byte{2});
  EXPECT_EQ(blob.add(mil::FLOAT16, a), 64u);
  EXPECT_EQ(blob.add(mil::UINT8, b), 192u);  // 64 + 64 + 10 rounded up to 64
  const std::vector<std::byte>& f = blob.bytes();
  EXPECT_EQ(at<uint32_t>(f, 0), 2u);  // count
  EXPECT_EQ(at<uint32_t>(f, 4), 2u);  // storage version
  EXPECT_EQ(at<uint32_t>(f, 64), 0xDEADBEEFu);
  EXPECT_EQ(at<uint32_t>(f, 68), 1u);  // float16
  EXPECT_EQ(at<uint64_t>(f, 72), 10u);
  EXPECT_EQ(at<uint64_t>(f, 80), 128u);
  EXPECT_EQ(at<uint32_t>(f, 196), 3u);  // uint8
  EXPECT_EQ(at<uint64_t>(f, 208), 256u);
  EXPECT_EQ(f.size(), 262u);
  EXPECT_EQ(f[128], std::byte{1});
  EXPECT_EQ(f[256], std::byte{2});
  EXPECT_EQ(coreml_export::blob_data_type(mil::FLOAT32), 2u);
  EXPECT_EQ(coreml_export::blob_data_type(mil::INT32), 14u);
  EXPECT_THROW(coreml_export::blob_data_type(mil::BOOL), NotSupportedError);
}

TEST(CoremlNames, MilIdentifiers) {
  EXPECT_EQ(coreml_export::mil_identifier("input x"), "input_x");
  EXPECT_EQ(coreml_export::mil_identifier("0abc"), "_0abc");
  EXPECT_EQ(coreml_export::mil_identifier(""), "_");
  EXPECT_EQ(coreml_export::mil_identifier("a.b/c-d"), "a_b_c_d");
}

TEST_F(CoremlExport, WritesThePackageLayout) {
  const fs::path p = dir_.path() / "m.mlpackage";
  const CoremlPackageInfo info = save_coreml(graph(), p);
  ASSERT_TRUE(fs::is_regular_file(p / "Manifest.json"));
  ASSERT_TRUE(fs::is_regular_file(p / "Data/com.apple.CoreML/model.mlmodel"));
  ASSERT_TRUE(fs::is_regular_file(p / "Data/com.apple.CoreML/weights/weight.bin"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_.path()), fs::directory_iterator()), 1)
      << "no temporary left beside the package";
  const std::string manifest = read(p / "Manifest.json");
  EXPECT_NE(manifest.find("\"path\": \"com.apple.CoreML/model.mlmodel\""), std::string::npos);
  EXPECT_NE(manifest.find("\"rootModelIdentifier\""), std::string::npos);

  spec::Model m;
  ASSERT_TRUE(m.ParseFromString(read(p / "Data/com.apple.CoreML/model.mlmodel")));
  EXPECT_EQ(m.specificationversion(), 8);
  ASSERT_EQ(m.description().input_size(), 1);
  EXPECT_EQ(m.description().input(0).name(), "input_x");
  EXPECT_EQ(m.description().input(0).type().multiarraytype().datatype(),
            spec::ArrayFeatureType::FLOAT32);
  ASSERT_EQ(m.description().output_size(), 2);
  EXPECT_EQ(m.description().output(0).name(), "y");
  const auto& f = m.mlprogram().functions().at("main");
  EXPECT_EQ(f.opset(), "CoreML7");
  ASSERT_EQ(f.inputs_size(), 1);
  EXPECT_EQ(f.inputs(0).type().tensortype().dimensions(1).constant().size(), 256u);
  const mil::Block& block = main_block(m);
  ASSERT_EQ(block.outputs_size(), 2);
  EXPECT_EQ(block.outputs(0), "y");
  EXPECT_EQ(block.outputs(1), "z");
  int blobs = 0, adds = 0;
  for (const mil::Operation& op : block.operations()) {
    adds += op.type() == "add";
    if (op.type() == "const" && op.attributes().at("val").has_blobfilevalue()) {
      ++blobs;
      EXPECT_EQ(op.attributes().at("val").blobfilevalue().filename(),
                "@model_path/weights/weight.bin");
    }
  }
  EXPECT_EQ(adds, 2);
  EXPECT_EQ(blobs, 1) << "the 2x256 constant is in the blob, the 2x1 one inline";
  EXPECT_EQ(fs::file_size(p / "Data/com.apple.CoreML/weights/weight.bin"), 128u + 2048u);
  ASSERT_EQ(info.inputs.size(), 1u);
  EXPECT_EQ(info.inputs[0].name, "input x");
  EXPECT_EQ(info.inputs[0].feature, "input_x");
}

TEST_F(CoremlExport, SameGraphSameBytes) {
  save_coreml(graph(), dir_.path() / "a.mlpackage");
  save_coreml(graph(), dir_.path() / "b.mlpackage");
  for (const char* f : {"Manifest.json", "Data/com.apple.CoreML/model.mlmodel",
                        "Data/com.apple.CoreML/weights/weight.bin"})
    EXPECT_EQ(read(dir_.path() / "a.mlpackage" / f), read(dir_.path() / "b.mlpackage" / f)) << f;
  save_coreml(graph(2.0f), dir_.path() / "c.mlpackage");
  EXPECT_NE(read(dir_.path() / "a.mlpackage/Manifest.json"),
            read(dir_.path() / "c.mlpackage/Manifest.json"));
}

TEST_F(CoremlExport, ReplacesAnExistingPackage) {
  const fs::path p = dir_.path() / "m.mlpackage";
  save_coreml(graph(), p);
  const std::string before = read(p / "Data/com.apple.CoreML/weights/weight.bin");
  save_coreml(graph(2.0f), p);
  EXPECT_NE(read(p / "Data/com.apple.CoreML/weights/weight.bin"), before);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_.path()), fs::directory_iterator()), 1);
}

TEST_F(CoremlExport, RefusesWhatIsNotAPackage) {
  const fs::path file = dir_.path() / "file.mlpackage";
  std::ofstream(file) << "x";
  EXPECT_THROW(save_coreml(graph(), file), DataError);
  EXPECT_EQ(read(file), "x");
  const fs::path folder = dir_.path() / "folder.mlpackage";
  fs::create_directory(folder);
  EXPECT_THROW(save_coreml(graph(), folder), DataError);
  const fs::path link = dir_.path() / "link.mlpackage";
  save_coreml(graph(), dir_.path() / "real.mlpackage");
  fs::create_directory_symlink(dir_.path() / "real.mlpackage", link);
  EXPECT_THROW(save_coreml(graph(), link), DataError);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_.path()), fs::directory_iterator()), 4);
}

TEST_F(CoremlExport, RefusesTypesMilLacksAndLeavesNothing) {
  MLGraphBuilder b(context_);
  MLOperand x = b.input("x", {MLOperandDataType::kInt64, {4}});
  MLGraph g = b.build({{"y", b.add(x, x)}});
  const fs::path p = dir_.path() / "m.mlpackage";
  try {
    save_coreml(g, p);
    ADD_FAILURE() << "int64 converted";
  } catch (const NotSupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("int64"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(dir_.path()));
}

TEST_F(CoremlExport, FeatureNamesAreUniqueIdentifiers) {
  MLGraphBuilder b(context_);
  MLOperand x = b.input("a-b", {MLOperandDataType::kFloat32, {2}});
  MLOperand y = b.input("a_b", {MLOperandDataType::kFloat32, {2}});
  MLOperand v = b.input("v1", {MLOperandDataType::kFloat32, {2}});
  MLGraph g = b.build({{"out", b.add(b.add(x, y), v)}});
  const CoremlPackageInfo info = save_coreml(g, dir_.path() / "m.mlpackage");
  ASSERT_EQ(info.inputs.size(), 3u);
  EXPECT_EQ(info.inputs[0].feature, "a_b");
  EXPECT_EQ(info.inputs[1].feature, "a_b_1");
  EXPECT_EQ(info.inputs[2].feature, "v1_io") << "never an internal variable's name";
}

}  // namespace
}  // namespace cppnn
