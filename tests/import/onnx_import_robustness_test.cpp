// Robustness of the ONNX importer: every model of ONNX's backend test data (libonnx-testdata,
// skipped when absent) imported with hostile mutations — each integer attribute set to extreme
// values, input ranks changed, bytes truncated — must either import or fail with a cppnn::Error
// (a clear message), never crash, hang or throw anything else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cppnn/errors.h"
#include "cppnn/onnx_import.h"
#include "cppnn/webnn.h"
#include "onnx/onnx_pb.h"

namespace cppnn {
namespace {

namespace fs = std::filesystem;

const fs::path kData = "/usr/share/libonnx-testdata/data/node";

std::vector<fs::path> models() {
  std::vector<fs::path> out;
  if (!fs::is_directory(kData)) return out;
  for (const auto& entry : fs::directory_iterator(kData))
    if (fs::exists(entry.path() / "model.onnx")) out.push_back(entry.path() / "model.onnx");
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Imports `bytes`; returns "" when it imported or failed with a cppnn::Error, else a description.
std::string try_import(MLContext& context, const std::string& bytes) {
  MLGraphBuilder builder(context);
  try {
    OnnxImportOptions options;
    options.freeDimensions = {{"N", 2}};
    OnnxImportResult r =
        import_onnx_bytes(builder, std::as_bytes(std::span(bytes.data(), bytes.size())), options);
    if (!r.outputs.empty()) builder.pruned_graph(r.outputs);
  } catch (const Error&) {
  } catch (const std::exception& e) {
    return std::string("non-cppnn exception: ") + e.what();
  }
  return "";
}

TEST(OnnxImportRobustness, MutatedAttributesAndShapesFailCleanly) {
  const auto files = models();
  if (files.empty()) GTEST_SKIP() << "libonnx-testdata is not installed";
  MLContext context = MLContext::create({.backend = "reference"});
  const int64_t kExtremes[] = {INT64_MIN, -1000000, -1, 0, 1, 4294967296LL, INT64_MAX};
  size_t imports = 0;
  std::vector<std::string> problems;
  for (const fs::path& file : files) {
    onnx::ModelProto model;
    if (!model.ParseFromString(read_all(file))) continue;
    auto check = [&](const onnx::ModelProto& m, const std::string& what) {
      ++imports;
      const std::string p = try_import(context, m.SerializeAsString());
      if (!p.empty())
        problems.push_back(file.parent_path().filename().string() + " (" + what + "): " + p);
    };
    // Integer attributes of every node at extreme values (one at a time).
    for (int n = 0; n < model.graph().node_size(); ++n) {
      for (int a = 0; a < model.graph().node(n).attribute_size(); ++a) {
        const auto& attr = model.graph().node(n).attribute(a);
        if (attr.type() != onnx::AttributeProto_AttributeType_INT &&
            attr.type() != onnx::AttributeProto_AttributeType_INTS)
          continue;
        for (int64_t v : kExtremes) {
          onnx::ModelProto m = model;
          auto* target = m.mutable_graph()->mutable_node(n)->mutable_attribute(a);
          if (target->type() == onnx::AttributeProto_AttributeType_INT)
            target->set_i(v);
          else
            for (int k = 0; k < target->ints_size(); ++k) target->set_ints(k, v);
          check(m, attr.name() + "=" + std::to_string(v));
        }
      }
    }
    // Graph inputs with one dimension fewer / one more.
    for (int i = 0; i < model.graph().input_size(); ++i) {
      if (!model.graph().input(i).type().tensor_type().has_shape()) continue;
      onnx::ModelProto fewer = model, more = model;
      auto* s1 = fewer.mutable_graph()
                     ->mutable_input(i)
                     ->mutable_type()
                     ->mutable_tensor_type()
                     ->mutable_shape();
      if (s1->dim_size() > 0) s1->mutable_dim()->RemoveLast();
      check(fewer, "input rank - 1");
      auto* s2 = more.mutable_graph()
                     ->mutable_input(i)
                     ->mutable_type()
                     ->mutable_tensor_type()
                     ->mutable_shape();
      s2->add_dim()->set_dim_value(3);
      check(more, "input rank + 1");
    }
  }
  // Truncated bytes of a few models.
  for (size_t f = 0; f < files.size(); f += 97) {
    const std::string bytes = read_all(files[f]);
    for (size_t cut = 1; cut < bytes.size(); cut += std::max<size_t>(1, bytes.size() / 7)) {
      ++imports;
      const std::string p = try_import(context, bytes.substr(0, cut));
      if (!p.empty()) problems.push_back(files[f].string() + " cut at " + std::to_string(cut));
    }
  }
  std::string all;
  for (size_t i = 0; i < problems.size() && i < 40; ++i) all += problems[i] + "\n";
  EXPECT_TRUE(problems.empty()) << problems.size() << " of " << imports << " imports misbehaved:\n"
                                << all;
  EXPECT_GT(imports, 1000u);
}

}  // namespace
}  // namespace cppnn
