// Manifest-addressed raw weights (webnn-graph-format.md §6.2, §7.3, §10 rows 25-27 and 37): the
// strict and flexible schemas, the printer, the WGWT and headerless layouts, range checks.
#include <gtest/gtest.h>

#include "cppnn/int4.h"
#include "src/formats/manifest.h"
#include "src/formats/manifest_check.h"
#include "src/formats/manifest_weights.h"
#include "tests/formats/weights_test_util.h"

namespace cppnn::formats {
namespace {

using testing::error_of;
using testing::TempDir;
using T = MLOperandDataType;

constexpr const char* kManifest = R"({
  "format": "wg-weights-manifest",
  "version": 1,
  "endianness": "little",
  "tensors": {
    "W": { "dataType": "float32", "shape": [2, 2], "byteOffset": 8, "byteLength": 16, "layout": "row-major" },
    "b": { "dataType": "int64", "shape": [1], "byteOffset": 24, "byteLength": 8 }
  }
})";

TEST(WeightsManifest, StrictParseAndPrintRoundTrip) {
  auto m = parse_manifest_strict(kManifest, "m.json");
  ASSERT_TRUE(m.ok()) << error_of(m);
  ASSERT_EQ(m->tensors.size(), 2u);
  const ManifestEntry& w = m->tensors.at("W");
  EXPECT_EQ(w.dataType, T::kFloat32);
  EXPECT_EQ(w.shape, (std::vector<uint32_t>{2, 2}));
  EXPECT_EQ(w.byteOffset, 8u);
  EXPECT_EQ(w.byteLength, 16u);
  EXPECT_EQ(w.layout, "row-major");
  EXPECT_FALSE(m->tensors.at("b").layout.has_value());
  const std::string printed = print_manifest(*m);
  EXPECT_EQ(printed.rfind("{\n  \"format\": \"wg-weights-manifest\",\n  \"version\": 1,\n  "
                          "\"endianness\": \"little\",\n  \"tensors\": {\n    \"W\": {\n      "
                          "\"dataType\": \"float32\",",
                          0),
            0u)
      << printed;
  EXPECT_NE(printed.find("\"layout\": null"), std::string::npos);
  EXPECT_NE(printed.find("\"shape\": [\n        2,\n        2\n      ]"), std::string::npos)
      << printed;
  auto again = parse_manifest_strict(printed, "printed");
  ASSERT_TRUE(again.ok()) << error_of(again);
  EXPECT_EQ(print_manifest(*again), printed);
}

TEST(WeightsManifest, StrictParseNamesTheJsonPath) {
  auto err = [](std::string_view text) { return error_of(parse_manifest_strict(text, "m.json")); };
  EXPECT_NE(err("[1]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(err("{").find("m.json"), std::string::npos);
  EXPECT_NE(err(R"({"version":1,"endianness":"little","tensors":{}})").find("m.json: format"),
            std::string::npos);
  EXPECT_NE(err(R"({"format":"x","endianness":"little","tensors":{}})").find("version"),
            std::string::npos);
  EXPECT_NE(err(R"({"format":"x","version":1,"tensors":{}})").find("endianness"),
            std::string::npos);
  EXPECT_NE(err(R"({"format":"x","version":1,"endianness":"l"})").find("tensors"),
            std::string::npos);
  const std::string head = R"({"format":"x","version":1,"endianness":"l","tensors":{"W":)";
  EXPECT_NE(err(head + R"({"shape":[1],"byteOffset":8,"byteLength":4}}})")
                .find("tensors.W.dataType: missing"),
            std::string::npos);
  EXPECT_NE(err(head + R"({"dataType":"bf16","shape":[1],"byteOffset":8,"byteLength":4}}})")
                .find("tensors.W.dataType: unknown data type"),
            std::string::npos);
  EXPECT_NE(err(head + R"({"dataType":"float32","shape":[-1],"byteOffset":8,"byteLength":4}}})")
                .find("tensors.W.shape[0]"),
            std::string::npos);
  EXPECT_NE(
      err(head + R"({"dataType":"float32","shape":[4294967296],"byteOffset":8,"byteLength":4}}})")
          .find("tensors.W.shape[0]"),
      std::string::npos);
  EXPECT_NE(err(head + R"({"dataType":"float32","shape":[1],"byteOffset":-8,"byteLength":4}}})")
                .find("tensors.W.byteOffset"),
            std::string::npos);
  EXPECT_NE(err(head + R"({"dataType":"float32","shape":[1],"byteOffset":8}}})")
                .find("tensors.W.byteLength: missing"),
            std::string::npos);
  EXPECT_NE(err(head + R"({"dataType":"float32","shape":[1],"byteOffset":8.0,"byteLength":4}}})")
                .find("tensors.W.byteOffset"),
            std::string::npos);
}

TEST(WeightsManifest, FlexibleParseIgnoresEverythingButRanges) {
  auto m = parse_manifest_flexible(R"({"format":"webnn-weights-manifest","tensors":{
      "a":{"byteOffset":0,"byteLength":4},"b":{"byteOffset":4,"byteLength":4,"dataType":"bogus"}}})",
                                   "m");
  ASSERT_TRUE(m.ok()) << error_of(m);
  EXPECT_EQ(m->tensors.size(), 2u);
  EXPECT_FALSE(m->tensors.at("b").has_type);
  EXPECT_TRUE(parse_manifest_flexible("{}", "m").ok());
  EXPECT_NE(error_of(parse_manifest_flexible(R"({"tensors":{"a":{"byteOffset":0}}})", "m"))
                .find("tensors.a.byteLength: missing"),
            std::string::npos);
  EXPECT_FALSE(parse_manifest_flexible(R"({"tensors":[]})", "m").ok());
}

// §10 rows 25-27: validate --weights-manifest.
TEST(WeightsManifest, Rows25To27DeclarationChecks) {
  auto m = parse_manifest_strict(kManifest, "m.json");
  ASSERT_TRUE(m.ok());
  std::vector<DeclaredWeight> ok = {{"w", "W", {T::kFloat32, {2, 2}}},
                                    {"bias", "b", {T::kInt64, {1}}}};
  EXPECT_TRUE(check_manifest_declarations(*m, ok).ok());
  // Row 25: no entry for the ref (exact lookup, no normalization).
  std::vector<DeclaredWeight> missing = {{"w", "W.x", {T::kFloat32, {2, 2}}}};
  EXPECT_EQ(error_of(check_manifest_declarations(*m, missing)),
            "missing weights manifest entry for const ref 'W.x'");
  // Row 26: type or shape differ.
  std::vector<DeclaredWeight> type = {{"w", "W", {T::kFloat16, {2, 2}}}};
  EXPECT_EQ(error_of(check_manifest_declarations(*m, type)), "weights type/shape mismatch for 'W'");
  std::vector<DeclaredWeight> shape = {{"w", "W", {T::kFloat32, {4}}}};
  EXPECT_EQ(error_of(check_manifest_declarations(*m, shape)),
            "weights type/shape mismatch for 'W'");
  // Row 27: byteLength wrong.
  auto bad = *m;
  bad.tensors.at("W").byteLength = 12;
  EXPECT_EQ(error_of(check_manifest_declarations(bad, ok)),
            "weights byteLength mismatch for 'W': expected 16 got 12");
  // Declarations are checked in const-name order: `bias` (ref b) fails before `w`.
  bad.tensors.at("b").byteLength = 4;
  EXPECT_EQ(error_of(check_manifest_declarations(bad, ok)),
            "weights byteLength mismatch for 'b': expected 8 got 4");
  // 4-bit: packed ceil(n/2) and one byte per element both pass.
  WeightsManifest q;
  q.tensors["q"] = {T::kInt4, true, {5}, 8, 3, std::nullopt};
  std::vector<DeclaredWeight> q5 = {{"q", "q", {T::kInt4, {5}}}};
  EXPECT_TRUE(check_manifest_declarations(q, q5).ok());
  q.tensors["q"].byteLength = 5;
  EXPECT_TRUE(check_manifest_declarations(q, q5).ok());
  q.tensors["q"].byteLength = 4;
  EXPECT_EQ(error_of(check_manifest_declarations(q, q5)),
            "weights byteLength mismatch for 'q': expected 3 got 4");
}

// A blob with the given prefix, then the bytes of W (4 floats) and b (1 int64).
std::vector<std::byte> blob(bool wgwt) {
  std::vector<std::byte> out;
  if (wgwt) {
    auto h = wgwt_header();
    out.assign(h.begin(), h.end());
  }
  auto w = testing::le_bytes<float>({1, 2, 3, 4});
  auto b = testing::le_bytes<int64_t>({-5});
  out.insert(out.end(), w.begin(), w.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

TEST(WeightsManifest, LoadsWgwtAndHeaderlessBlobsAsViews) {
  TempDir dir;
  testing::write_file(dir / "a.weights", blob(true));
  testing::write_file(dir / "a.manifest.json", kManifest);
  auto a = ManifestWeights::open(dir / "a.weights", dir / "a.manifest.json");
  ASSERT_TRUE(a.ok()) << error_of(a);
  auto w = (*a)->load("W", "w", {T::kFloat32, {2, 2}});
  ASSERT_TRUE(w.ok()) << error_of(w);
  EXPECT_EQ(std::memcmp(w->data(), testing::le_bytes<float>({1, 2, 3, 4}).data(), 16), 0);
  auto b = (*a)->load("b", "bias", {T::kInt64, {1}});
  ASSERT_TRUE(b.ok()) << error_of(b);
  EXPECT_EQ(std::memcmp(b->data(), testing::le_bytes<int64_t>({-5}).data(), 8), 0);
  // The headerless layout (convert-onnx): offsets from 0, layout null, other format string.
  testing::write_file(dir / "h.weights", blob(false));
  testing::write_file(dir / "h.manifest.json", R"({"format":"webnn-weights-manifest","tensors":{
      "W":{"byteOffset":0,"byteLength":16,"layout":null},"b":{"byteOffset":16,"byteLength":8}}})");
  auto h = ManifestWeights::open(dir / "h.weights", dir / "h.manifest.json");
  ASSERT_TRUE(h.ok()) << error_of(h);
  auto hw = (*h)->load("W", "w", {T::kFloat32, {2, 2}});
  ASSERT_TRUE(hw.ok()) << error_of(hw);
  EXPECT_EQ(std::memcmp(hw->data(), w->data(), 16), 0);
  EXPECT_EQ((*h)->names(), (std::vector<std::string>{"W", "b"}));
  // Missing entry, and a length that does not fit the declaration.
  EXPECT_NE(error_of((*h)->load("V", "v", {T::kFloat32, {2, 2}}))
                .find("[manifest-weights] no manifest tensor entry for weight ref `V` (constant "
                      "`v`)"),
            std::string::npos);
  EXPECT_NE(error_of((*h)->load("W", "w", {T::kFloat32, {3}}))
                .find("weights byteLength mismatch for `W` (constant `w`): expected 12 got 16"),
            std::string::npos);
}

// §10 row 37: a range past the end of the file, or offset + length overflowing.
TEST(WeightsManifest, Row37ByteRangeChecks) {
  TempDir dir;
  testing::write_file(dir / "a.weights", blob(true));  // 32 bytes
  testing::write_file(dir / "m.json", R"({"tensors":{
      "past":{"byteOffset":24,"byteLength":16},
      "overflow":{"byteOffset":18446744073709551615,"byteLength":2},
      "huge":{"byteOffset":9223372036854775808,"byteLength":0}}})");
  auto a = ManifestWeights::open(dir / "a.weights", dir / "m.json");
  ASSERT_TRUE(a.ok()) << error_of(a);
  EXPECT_NE(error_of((*a)->load("past", "p", {T::kFloat32, {4}}))
                .find("[manifest-weights] byte range [24, 40) for `past` exceeds weights file "
                      "length 32"),
            std::string::npos);
  EXPECT_NE(error_of((*a)->load("overflow", "o", {T::kUint8, {2}}))
                .find("[manifest-weights] byte range overflow for `overflow`"),
            std::string::npos);
  EXPECT_NE(error_of((*a)->load("huge", "h", {T::kUint8, {0}})).find("exceeds weights file"),
            std::string::npos);
}

TEST(WeightsManifest, FourBitOneBytePerElementIsPacked) {
  TempDir dir;
  std::vector<std::byte> data = {std::byte{1}, std::byte{0xfe}, std::byte{7}};  // 1, -2, 7
  testing::write_file(dir / "q.weights", data);
  testing::write_file(dir / "m.json", R"({"tensors":{"q":{"byteOffset":0,"byteLength":3},
      "p":{"byteOffset":0,"byteLength":2}}})");
  auto a = ManifestWeights::open(dir / "q.weights", dir / "m.json");
  ASSERT_TRUE(a.ok()) << error_of(a);
  auto q = (*a)->load("q", "q", {T::kInt4, {3}});
  ASSERT_TRUE(q.ok()) << error_of(q);
  EXPECT_EQ(cppnn::unpack_int4(q->bytes(), 3), (std::vector<int8_t>{1, -2, 7}));
  auto p = (*a)->load("p", "p", {T::kInt4, {3}});  // already packed: a view
  ASSERT_TRUE(p.ok()) << error_of(p);
  EXPECT_EQ(p->size(), 2u);
}

TEST(WeightsManifest, WgwtHeaderChecks) {
  std::vector<std::byte> good(wgwt_header().begin(), wgwt_header().end());
  EXPECT_TRUE(check_wgwt_header(good, "w").ok());
  EXPECT_NE(error_of(check_wgwt_header(std::span(good).first(7), "w")).find("shorter than"),
            std::string::npos);
  auto bad = good;
  bad[0] = std::byte{'X'};
  EXPECT_NE(error_of(check_wgwt_header(bad, "w"))
                .find("Invalid magic bytes: expected [87, 71, 87, 84], got [88, 71, 87, 84]"),
            std::string::npos);
  bad = good;
  bad[4] = std::byte{2};
  EXPECT_NE(error_of(check_wgwt_header(bad, "w")).find("Unsupported weights file version: 2"),
            std::string::npos);
}

}  // namespace
}  // namespace cppnn::formats
