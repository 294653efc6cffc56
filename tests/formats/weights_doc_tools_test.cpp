// extract-weights and inline-weights on a document (webnn-graph-format.md §8, §10 row 38):
// inline bytes -> WGWT + manifest -> inline bytes is lossless; the documented errors.
#include "src/formats/weights_doc_tools.h"

#include <gtest/gtest.h>

#include "src/formats/manifest.h"
#include "src/formats/manifest_weights.h"
#include "tests/formats/weights_test_util.h"

namespace cppnn::formats {
namespace {

using testing::error_of;
using testing::TempDir;
using T = MLOperandDataType;

DocConst inline_const(T type, std::vector<uint32_t> shape, std::vector<uint8_t> bytes) {
  DocConst c;
  c.dataType = type;
  c.shape = std::move(shape);
  c.init.kind = DocInit::Kind::kInlineBytes;
  c.init.bytes = std::move(bytes);
  return c;
}

GraphDoc sample() {
  GraphDoc doc;
  doc.name = "g";
  doc.inputs["x"] = {T::kFloat32, {{2, ""}}};
  doc.consts["w"] = inline_const(T::kFloat32, {2}, {0, 0, 128, 63, 0, 0, 0, 64});  // 1.0, 2.0
  doc.consts["q"] = inline_const(T::kUint4, {3}, {0x21, 0x03});
  doc.consts["m"] = inline_const(T::kUint8, {4}, {1, 1, 0, 0});
  DocConst s;
  s.shape = {1};
  s.init.kind = DocInit::Kind::kScalar;
  s.init.value = DocValue::floating(0.5);
  doc.consts["s"] = s;
  DocConst ext;
  ext.shape = {2};
  ext.init.ref = "elsewhere";
  doc.consts["e"] = ext;
  doc.nodes.push_back({"y", "mul", {"x", "w"}, {}, std::nullopt, {}});
  doc.outputs["y"] = "y";
  return doc;
}

TEST(WeightsDocTools, ExtractThenInlineRoundTrips) {
  TempDir dir;
  GraphDoc doc = sample();
  auto n = extract_weights(doc, dir / "out", dir / "g.weights", dir / "g.manifest.json");
  ASSERT_TRUE(n.ok()) << error_of(n);
  EXPECT_EQ(*n, 3u);
  for (const char* name : {"m", "q", "w"}) {
    EXPECT_EQ(doc.consts.at(name).init.kind, DocInit::Kind::kWeights) << name;
    EXPECT_EQ(doc.consts.at(name).init.ref, name);
    EXPECT_TRUE(std::filesystem::exists(dir / "out" / "tensors" / (std::string(name) + ".bin")));
  }
  EXPECT_EQ(doc.consts.at("s").init.kind, DocInit::Kind::kScalar);  // others unchanged
  EXPECT_EQ(doc.consts.at("e").init.ref, "elsewhere");
  auto m = read_manifest_file(dir / "g.manifest.json", true);
  ASSERT_TRUE(m.ok()) << error_of(m);
  EXPECT_EQ(m->tensors.size(), 3u);              // the existing `elsewhere` ref is not added
  EXPECT_EQ(m->tensors.at("m").byteOffset, 8u);  // name order: m, q, w
  EXPECT_EQ(m->tensors.at("q").byteOffset, 12u);
  EXPECT_EQ(m->tensors.at("q").byteLength, 2u);
  EXPECT_EQ(m->tensors.at("w").byteOffset, 14u);
  EXPECT_EQ(m->tensors.at("w").layout, "row-major");
  EXPECT_EQ(testing::read_file(dir / "g.weights").size(), 8u + 4 + 2 + 8);

  doc.consts.erase("e");  // its ref is not in this manifest
  auto back = inline_weights(doc, dir / "g.weights", dir / "g.manifest.json");
  ASSERT_TRUE(back.ok()) << error_of(back);
  EXPECT_EQ(*back, 3u);
  GraphDoc expected = sample();
  expected.consts.erase("e");
  EXPECT_EQ(doc, expected);
}

TEST(WeightsDocTools, ExtractWithNothingInlineWritesAnEmptyManifest) {
  TempDir dir;
  GraphDoc doc;
  doc.outputs["x"] = "x";
  auto n = extract_weights(doc, dir / "o", dir / "w.weights", dir / "m.json");
  ASSERT_TRUE(n.ok()) << error_of(n);
  EXPECT_EQ(*n, 0u);
  EXPECT_EQ(testing::read_file(dir / "w.weights").size(), 8u);
  auto m = read_manifest_file(dir / "m.json", true);
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->tensors.empty());
}

TEST(WeightsDocTools, ExtractRejectsWrongByteCounts) {
  TempDir dir;
  GraphDoc doc = sample();
  doc.consts["w"].init.bytes.pop_back();
  EXPECT_EQ(error_of(extract_weights(doc, dir / "o", dir / "w.weights", dir / "m.json")),
            "Const 'w' has wrong byte count: expected 8, got 7");
  EXPECT_FALSE(std::filesystem::exists(dir / "w.weights"));
  EXPECT_FALSE(std::filesystem::exists(dir / "m.json"));
  // 4-bit: one byte per element (the reference's count) is accepted too.
  GraphDoc four = sample();
  four.consts["q"].init.bytes = {1, 2, 3};
  EXPECT_TRUE(extract_weights(four, dir / "o", dir / "w.weights", dir / "m.json").ok());
  four = sample();
  four.consts["q"].init.bytes = {1, 2, 3, 4};
  EXPECT_EQ(error_of(extract_weights(four, dir / "o", dir / "w.weights", dir / "m.json")),
            "Const 'q' has wrong byte count: expected 2, got 4");
}

// §10 row 38: inline-weights on a headerless blob.
TEST(WeightsDocTools, Row38InlineRejectsHeaderlessBlob) {
  TempDir dir;
  testing::write_file(dir / "h.weights", testing::le_bytes<float>({1, 2}));
  testing::write_file(dir / "m.json", R"({"format":"x","version":7,"endianness":"little",
      "tensors":{"W":{"dataType":"float32","shape":[2],"byteOffset":0,"byteLength":8}}})");
  GraphDoc doc;
  DocConst w;
  w.shape = {2};
  w.init.ref = "W";
  doc.consts["W"] = w;
  auto r = inline_weights(doc, dir / "h.weights", dir / "m.json");
  EXPECT_NE(error_of(r).find("Invalid magic bytes"), std::string::npos) << error_of(r);
  EXPECT_EQ(doc.consts.at("W").init.kind, DocInit::Kind::kWeights);  // unchanged
}

TEST(WeightsDocTools, InlineRejectsMissingRefsAndBadRanges) {
  TempDir dir;
  std::vector<std::byte> blob(wgwt_header().begin(), wgwt_header().end());
  blob.resize(16);
  testing::write_file(dir / "w.weights", blob);
  const std::string head = R"({"format":"x","version":1,"endianness":"l","tensors":{"A":)";
  testing::write_file(dir / "past.json", head + R"({"dataType":"float32","shape":[4],)"
                                                R"("byteOffset":8,"byteLength":16}}})");
  GraphDoc doc;
  DocConst w;
  w.shape = {4};
  w.init.ref = "A";
  doc.consts["a"] = w;
  EXPECT_NE(error_of(inline_weights(doc, dir / "w.weights", dir / "past.json"))
                .find("Weight reference 'A' extends beyond weights file"),
            std::string::npos);
  testing::write_file(dir / "low.json", head + R"({"dataType":"float32","shape":[1],)"
                                               R"("byteOffset":0,"byteLength":4}}})");
  EXPECT_NE(error_of(inline_weights(doc, dir / "w.weights", dir / "low.json"))
                .find("Weight reference 'A' extends beyond weights file"),
            std::string::npos);
  doc.consts["a"].init.ref = "B";
  EXPECT_EQ(error_of(inline_weights(doc, dir / "w.weights", dir / "low.json")),
            "Weight reference 'B' not found in manifest");
}

}  // namespace
}  // namespace cppnn::formats
