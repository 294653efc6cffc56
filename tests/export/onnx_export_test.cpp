// save_onnx / to_onnx_bytes / check_onnx (include/cppnn/onnx.h): files, external data,
// atomicity, determinism and the ONNX checker.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "cppnn/onnx.h"
#include "cppnn/webnn.h"
#include "onnx/onnx_pb.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

namespace fs = std::filesystem;

// A fresh temporary directory per test, removed afterwards.
class OnnxExport : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "cppnn-onnx-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // x[2,256] + W[2,256] (2 KiB constant, external by default) + b[2] broadcast... then relu.
  MLGraph graph(float scale = 1.0f) {
    MLGraphBuilder b(context_);
    MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {2, 256}});
    std::vector<float> w(512), small{1.0f, -2.0f};
    for (size_t i = 0; i < w.size(); ++i) w[i] = scale * static_cast<float>(i) - 100.0f;
    MLOperand big = b.constant({MLOperandDataType::kFloat32, {2, 256}}, testing::to_bytes(w));
    MLOperand tiny = b.constant({MLOperandDataType::kFloat32, {2, 1}}, testing::to_bytes(small));
    return b.build({{"y", b.relu(b.add(b.add(x, big), tiny))}, {"z", b.add(x, tiny)}});
  }

  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  MLContext context_ = testing::ref_context();
  fs::path dir_;
};

TEST_F(OnnxExport, WritesModelAndExternalData) {
  MLGraph g = graph();
  save_onnx(g, dir_ / "m.onnx");
  ASSERT_TRUE(fs::exists(dir_ / "m.onnx"));
  ASSERT_TRUE(fs::exists(dir_ / "m.onnx.data"));
  // The 2 KiB constant lives in the data file, not in the protobuf.
  EXPECT_GE(fs::file_size(dir_ / "m.onnx.data"), 2048u);
  EXPECT_LT(fs::file_size(dir_ / "m.onnx"), 1024u);
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(read(dir_ / "m.onnx")));
  EXPECT_EQ(model.opset_import(0).version(), 17);
  int external = 0;
  for (const auto& t : model.graph().initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
    ++external;
    std::map<std::string, std::string> entries;
    for (const auto& e : t.external_data()) entries[e.key()] = e.value();
    EXPECT_EQ(entries["location"], "m.onnx.data");
    EXPECT_EQ(entries["length"], "2048");
    EXPECT_EQ(std::stoull(entries["offset"]) % 64, 0u);
  }
  EXPECT_EQ(external, 1);
  // Graph inputs and outputs keep their WebNN names.
  ASSERT_EQ(model.graph().input_size(), 1);
  EXPECT_EQ(model.graph().input(0).name(), "x");
  ASSERT_EQ(model.graph().output_size(), 2);
  EXPECT_EQ(model.graph().output(0).name(), "y");
  EXPECT_EQ(model.graph().output(1).name(), "z");
}

TEST_F(OnnxExport, EmbedsEverythingWithThresholdZero) {
  save_onnx(graph(), dir_ / "m.onnx", {.externalDataThreshold = 0});
  EXPECT_TRUE(fs::exists(dir_ / "m.onnx"));
  EXPECT_FALSE(fs::exists(dir_ / "m.onnx.data"));
  EXPECT_GE(fs::file_size(dir_ / "m.onnx"), 2048u);
}

TEST_F(OnnxExport, IsDeterministic) {
  const std::string a = to_onnx_bytes(graph().graph());
  const std::string b = to_onnx_bytes(graph().graph());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, to_onnx_bytes(graph(2.0f).graph()));  // and depends on the constants
  save_onnx(graph(), dir_ / "a.onnx");
  save_onnx(graph(), dir_ / "b.onnx");
  EXPECT_EQ(read(dir_ / "a.onnx.data"), read(dir_ / "b.onnx.data"));
}

TEST_F(OnnxExport, PassesTheOnnxChecker) {
  EXPECT_NO_THROW(check_onnx(graph().graph()));
}

TEST_F(OnnxExport, LeavesNothingBehindOnFailure) {
  // The destination folder does not exist: DataError, and no file appears anywhere.
  EXPECT_THROW(save_onnx(graph(), dir_ / "missing" / "m.onnx"), DataError);
  EXPECT_TRUE(fs::is_empty(dir_));
  // A destination that is a directory: the rename fails, the temporary files are removed.
  fs::create_directory(dir_ / "m.onnx");
  EXPECT_THROW(save_onnx(graph(), dir_ / "m.onnx"), DataError);
  fs::remove(dir_ / "m.onnx");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(OnnxExport, ReplacesAnExistingFileOnlyWhenComplete) {
  { std::ofstream(dir_ / "m.onnx") << "old"; }
  save_onnx(graph(), dir_ / "m.onnx");
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromString(read(dir_ / "m.onnx")));
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
}

}  // namespace
}  // namespace cppnn
