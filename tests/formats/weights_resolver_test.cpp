// The external-weights resolver (webnn-graph-format.md §7.1, §10 rows 28-31): discovery order,
// explicit paths relative to the graph, manifest handling, the no-op rule, missing refs.
#include "src/formats/weights_resolver.h"

#include <gtest/gtest.h>

#include <cmath>

#include "src/formats/manifest_weights.h"
#include "src/formats/safetensors_reader.h"
#include "src/formats/safetensors_writer.h"
#include "tests/formats/weights_test_util.h"

namespace cppnn::formats {
namespace {

using testing::error_of;
using testing::TempDir;
using T = MLOperandDataType;

const MLOperandDescriptor kW{T::kFloat32, {2}};

void write_archive(const std::filesystem::path& p, float first) {
  auto bytes = testing::le_bytes<float>({first, first + 1});
  std::vector<WeightToWrite> w = {{"W", kW, bytes}};
  ASSERT_TRUE(write_weights_safetensors(p, w).ok());
}

void write_blob(const std::filesystem::path& weights, const std::filesystem::path& manifest,
                float first) {
  auto bytes = testing::le_bytes<float>({first, first + 1});
  std::vector<std::byte> blob(wgwt_header().begin(), wgwt_header().end());
  blob.insert(blob.end(), bytes.begin(), bytes.end());
  testing::write_file(weights, blob);
  testing::write_file(manifest, R"({"tensors":{"W":{"byteOffset":8,"byteLength":8}}})");
}

// The first float of weight W through the resolver, or NaN with the error in `err`.
float first_of(const Result<std::shared_ptr<const WeightsProvider>>& p,
               std::string* err = nullptr) {
  if (!p.ok()) {
    if (err) *err = p.error().message;
    return std::nanf("");
  }
  auto c = (*p)->load("W", "w", kW);
  if (!c.ok()) {
    if (err) *err = c.error().message;
    return std::nanf("");
  }
  float f;
  std::memcpy(&f, c->data(), 4);
  return f;
}

TEST(WeightsResolver, DiscoveryOrder) {
  TempDir dir;
  const auto graph = dir / "net.webnn";
  write_archive(dir / "model.safetensors", 30);
  write_blob(dir / "model.weights", dir / "manifest.json", 40);
  EXPECT_EQ(first_of(open_graph_weights(graph)), 30);  // model.safetensors before model.weights
  std::filesystem::remove(dir / "model.safetensors");
  EXPECT_EQ(first_of(open_graph_weights(graph)), 40);
  write_blob(dir / "net.weights", dir / "net.manifest.json", 20);
  EXPECT_EQ(first_of(open_graph_weights(graph)), 20);  // <stem>.weights + <stem>.manifest.json
  std::filesystem::remove(dir / "net.manifest.json");
  EXPECT_EQ(first_of(open_graph_weights(graph)), 20);  // falls back to manifest.json
  write_archive(dir / "net.safetensors", 10);
  EXPECT_EQ(first_of(open_graph_weights(graph)), 10);  // <stem>.safetensors first of all
}

// §10 row 28: nothing to find.
TEST(WeightsResolver, Row28NoSidecar) {
  TempDir dir;
  std::string err;
  first_of(open_graph_weights(dir / "g.webnn"), &err);
  EXPECT_NE(err.find("[weights] no weights file found next to `" + (dir / "g.webnn").string() +
                     "`; expected `" + (dir / "g.safetensors").string() + "`"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("model.weights`"), std::string::npos) << err;
}

// §10 row 29: a raw blob with no manifest.
TEST(WeightsResolver, Row29BlobWithoutManifest) {
  TempDir dir;
  testing::write_file(dir / "g.weights", "WGWT\1\0\0\0");
  std::string err;
  first_of(open_graph_weights(dir / "g.webnn"), &err);
  EXPECT_NE(
      err.find("[weights] weights blob `" + (dir / "g.weights").string() + "` requires a manifest"),
      std::string::npos)
      << err;
  first_of(open_graph_weights(dir / "g.webnn", std::nullopt, std::filesystem::path("m.json")),
           &err);
  EXPECT_NE(err.find("[weights] manifest path `" + (dir / "m.json").string() + "` does not exist"),
            std::string::npos)
      << err;
}

// §10 row 30: a SafeTensors path with a bogus manifest path: the manifest is never read.
TEST(WeightsResolver, Row30SafeTensorsIgnoresManifestArgument) {
  TempDir dir;
  write_archive(dir / "w.SafeTensors", 5);  // the extension is matched in any case
  EXPECT_EQ(first_of(open_graph_weights(dir / "g.webnn", std::filesystem::path("w.SafeTensors"),
                                        std::filesystem::path("/nonexistent/m.json"))),
            5);
  write_archive(dir / "x.safetensor", 6);
  EXPECT_EQ(first_of(open_graph_weights(dir / "g.webnn", std::filesystem::path("x.safetensor"))),
            6);
}

// §10 row 31: `.safetensors` and a broken `manifest.json` side by side: SafeTensors wins.
TEST(WeightsResolver, Row31SafeTensorsWinsOverBrokenManifest) {
  TempDir dir;
  write_archive(dir / "g.safetensors", 7);
  testing::write_file(dir / "g.weights", "garbage");
  testing::write_file(dir / "manifest.json", "{ this is not json");
  testing::write_file(dir / "g.manifest.json", "{ neither");
  EXPECT_EQ(first_of(open_graph_weights(dir / "g.webnn")), 7);
}

TEST(WeightsResolver, ExplicitPathsAreRelativeToTheGraphFolder) {
  TempDir dir;
  std::filesystem::create_directories(dir / "sub");
  write_blob(dir / "sub" / "data.bin", dir / "sub" / "idx.json", 9);
  const auto graph = dir / "sub" / "g.webnn";
  EXPECT_EQ(first_of(open_graph_weights(graph, std::filesystem::path("data.bin"),
                                        std::filesystem::path("idx.json"))),
            9);
  // Absolute paths are used as they are.
  EXPECT_EQ(first_of(open_graph_weights(dir / "elsewhere.webnn", dir / "sub" / "data.bin",
                                        dir / "sub" / "idx.json")),
            9);
  std::string err;
  first_of(open_graph_weights(graph, std::filesystem::path("nope.safetensors")), &err);
  EXPECT_NE(err.find("[weights] weights path `" + (dir / "sub" / "nope.safetensors").string() +
                     "` does not exist"),
            std::string::npos)
      << err;
  // A broken manifest is reported with its path.
  testing::write_file(dir / "sub" / "idx.json", "[");
  first_of(open_graph_weights(graph, std::filesystem::path("data.bin"),
                              std::filesystem::path("idx.json")),
           &err);
  EXPECT_NE(err.find("failed to parse manifest JSON at `"), std::string::npos) << err;
}

TEST(WeightsResolver, ResolvesAllDeclarationsAndReportsMissingOnes) {
  TempDir dir;
  auto a = testing::le_bytes<float>({1, 2}), b = testing::le_bytes<int32_t>({3});
  std::vector<WeightToWrite> w = {{"enc.a", kW, a}, {"b", {T::kInt32, {1}}, b}};
  ASSERT_TRUE(write_weights_safetensors(dir / "g.safetensors", w).ok());
  auto p = open_graph_weights(dir / "g.webnn");
  ASSERT_TRUE(p.ok()) << error_of(p);
  std::vector<DeclaredWeight> decls = {{"z", "b", {T::kInt32, {1}}}, {"a", "enc_a", kW}};
  auto all = resolve_declared_weights(**p, decls);
  ASSERT_TRUE(all.ok()) << error_of(all);
  EXPECT_EQ(std::memcmp((*all)[0].data(), b.data(), 4), 0);
  EXPECT_EQ(std::memcmp((*all)[1].data(), a.data(), 8), 0);
  decls.push_back({"m1", "nope", kW});
  decls.push_back({"m2", "gone", kW});
  EXPECT_NE(error_of(resolve_declared_weights(**p, decls))
                .find("did not provide all tensors referenced by the graph (2 still missing: "
                      "`nope`, `gone`)"),
            std::string::npos)
      << error_of(resolve_declared_weights(**p, decls));
}

TEST(WeightsResolver, LazyResolverTouchesNothingUntilUsed) {
  TempDir dir;
  ResolverWeightsSource source(dir / "missing" / "g.webnn");  // nothing exists: fine until used
  auto c = source.load("w", "W", kW);
  EXPECT_NE(error_of(c).find("[weights] no weights file found"), std::string::npos);
  write_archive(dir / "g.safetensors", 3);
  ResolverWeightsSource found(dir / "g.webnn");
  auto d = found.load("w", "W", kW);
  ASSERT_TRUE(d.ok()) << error_of(d);
}

}  // namespace
}  // namespace cppnn::formats
