// The ONNX importer on untrusted models (docs/security.md): external data confined to the
// model's folder (no `..`, absolute path or symlink out, no FIFO), opsets outside 1..21 and
// values with two producers refused, overrides that name nothing reported.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "cppnn/errors.h"
#include "cppnn/onnx_import.h"
#include "cppnn/webnn.h"
#include "tests/import/onnx_model_builder.h"
#include "tests/temp_dir.h"

namespace cppnn {
namespace {

namespace fs = std::filesystem;
using testing::OnnxModelBuilder;

using testing::TempDir;

MLContext context() {
  return MLContext::create({.backend = "reference"});
}

std::string import_error(const std::string& bytes, const OnnxImportOptions& options = {}) {
  MLGraphBuilder builder(context());
  try {
    import_onnx_bytes(builder, std::as_bytes(std::span(bytes.data(), bytes.size())), options);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// y = x + w, with w's 4 floats stored as external data at `location`.
std::string external_model(const std::string& location) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_FLOAT, {4}).output("y");
  auto* w = m.model().mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto_DataType_FLOAT);
  w->add_dims(4);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* e = w->add_external_data();
  e->set_key("location");
  e->set_value(location);
  m.node("Add", {"x", "w"}, {"y"});
  return m.bytes();
}

std::string import_file_error(const fs::path& model) {
  MLGraphBuilder builder(context());
  try {
    import_onnx(builder, model, {});
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(OnnxImportUntrusted, ExternalDataStaysInsideTheModelFolder) {
  TempDir dir;
  const fs::path folder = dir.path() / "model";
  fs::create_directories(folder / "sub");
  const std::string floats(16, '\0');
  std::ofstream(dir.path() / "secret.bin", std::ios::binary) << floats;
  std::ofstream(folder / "sub" / "w.bin", std::ios::binary) << floats;
  fs::create_symlink(dir.path() / "secret.bin", folder / "link.bin");
  fs::create_symlink(dir.path(), folder / "up");
  ASSERT_EQ(::mkfifo((folder / "pipe.bin").c_str(), 0600), 0);

  auto write_model = [&](const std::string& location) {
    const fs::path p = folder / "m.onnx";
    std::ofstream(p, std::ios::binary) << external_model(location);
    return p;
  };
  EXPECT_EQ(import_file_error(write_model("sub/w.bin")), "");
  const std::vector<std::string> bad_locations = {"link.bin", "up/secret.bin", "../secret.bin",
                                                  (dir.path() / "secret.bin").string(), "pipe.bin"};
  for (const std::string& bad : bad_locations) {
    const auto start = std::chrono::steady_clock::now();
    const std::string e = import_file_error(write_model(bad));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << bad;
    EXPECT_NE(e, "") << bad << " was read";
    EXPECT_NE(e.find("initializer 'w'"), std::string::npos) << e;
  }
}

TEST(OnnxImportUntrusted, OpsetsOutsideTheKnownRangeAreRefused) {
  for (int64_t opset : {0, 22, 99}) {
    OnnxModelBuilder m(opset);
    m.input("x", onnx::TensorProto_DataType_FLOAT, {2}).output("y");
    m.node("Relu", {"x"}, {"y"});
    const std::string e = import_error(m.bytes());
    EXPECT_NE(e.find("opset " + std::to_string(opset)), std::string::npos) << e;
  }
  OnnxModelBuilder ok(13);
  ok.input("x", onnx::TensorProto_DataType_FLOAT, {2}).output("y");
  ok.node("Relu", {"x"}, {"y"});
  EXPECT_EQ(import_error(ok.bytes()), "");
}

TEST(OnnxImportUntrusted, AValueWithTwoProducersIsRefused) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_FLOAT, {2}).output("y");
  m.node("Relu", {"x"}, {"y"}).set_name("first");
  m.node("Neg", {"x"}, {"y"}).set_name("second");
  std::string e = import_error(m.bytes());
  EXPECT_NE(e.find("'second'"), std::string::npos) << e;
  EXPECT_NE(e.find("'first'"), std::string::npos) << e;

  OnnxModelBuilder n;
  n.input("x", onnx::TensorProto_DataType_FLOAT, {2}).output("x2");
  n.node("Relu", {"x"}, {"x"});
  e = import_error(n.bytes());
  EXPECT_NE(e.find("graph input"), std::string::npos) << e;
}

TEST(OnnxImportUntrusted, OverridesThatNameNothingAreReported) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_FLOAT, {-1, 3}, {"batch"}).output("y");
  m.node("Relu", {"x"}, {"y"});
  const std::string bytes = m.bytes();
  OnnxImportOptions options;
  options.freeDimensions = {{"batch", 2}, {"nosuchdim", 5}};
  options.inputShapes = {{"missing", {1}}};
  MLGraphBuilder builder(context());
  OnnxImportResult r =
      import_onnx_bytes(builder, std::as_bytes(std::span(bytes.data(), bytes.size())), options);
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  EXPECT_NE(all.find("nosuchdim"), std::string::npos) << all;
  EXPECT_NE(all.find("batch"), std::string::npos) << all;  // the known names
  EXPECT_NE(all.find("'missing'"), std::string::npos) << all;
  EXPECT_EQ(all.find("--override-dim batch"), std::string::npos) << all;
}

}  // namespace
}  // namespace cppnn
