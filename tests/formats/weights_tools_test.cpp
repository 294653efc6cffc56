// The raw-weight tools (webnn-graph-format.md §8 pack-weights, unpack-weights, create-manifest;
// §10 rows 38-40): round trips, the documented errors, and no partial output on failure.
#include "src/formats/weights_tools.h"

#include <gtest/gtest.h>

#include "src/formats/manifest.h"
#include "src/formats/manifest_weights.h"
#include "tests/formats/weights_test_util.h"

namespace cppnn::formats {
namespace {

using testing::error_of;
using testing::TempDir;

// input/a.bin (2 floats), input/b.bin (3 bytes int8), with their .meta.json files.
void make_inputs(const TempDir& dir) {
  std::filesystem::create_directories(dir / "in");
  testing::write_file(dir / "in" / "a.bin", testing::le_bytes<float>({1.25f, -3.0f}));
  testing::write_file(dir / "in" / "b.bin", testing::le_bytes<int8_t>({-1, 0, 1}));
  testing::write_file(dir / "in" / "a.meta.json",
                      R"({"dataType":"float32","shape":[2],"byteOffset":0,"byteLength":0})");
  testing::write_file(dir / "in" / "b.meta.json",
                      R"({"dataType":"int8","shape":[3],"byteOffset":0,"byteLength":0,)"
                      R"("layout":"custom"})");
}

TEST(WeightsTools, CreateManifestPackUnpackRoundTrip) {
  TempDir dir;
  make_inputs(dir);
  auto n = create_manifest(dir / "in", dir / "m.json", "little");
  ASSERT_TRUE(n.ok()) << error_of(n);
  EXPECT_EQ(*n, 2u);
  auto m = read_manifest_file(dir / "m.json", true);
  ASSERT_TRUE(m.ok()) << error_of(m);
  EXPECT_EQ(m->tensors.at("a").byteOffset, 8u);
  EXPECT_EQ(m->tensors.at("a").byteLength, 8u);
  EXPECT_EQ(m->tensors.at("a").layout, "row-major");
  EXPECT_EQ(m->tensors.at("b").byteOffset, 16u);
  EXPECT_EQ(m->tensors.at("b").layout, "custom");
  auto text = testing::read_file(dir / "m.json");
  EXPECT_NE(text.back(), std::byte{'\n'});  // written without a trailing newline

  ASSERT_TRUE(pack_weights(dir / "m.json", dir / "in", dir / "w.weights").ok());
  auto packed = testing::read_file(dir / "w.weights");
  ASSERT_EQ(packed.size(), 8u + 8 + 3);
  EXPECT_TRUE(check_wgwt_header(packed, "w").ok());

  auto names = unpack_weights(dir / "w.weights", dir / "m.json", dir / "out" / "deep");
  ASSERT_TRUE(names.ok()) << error_of(names);
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(testing::read_file(dir / "out" / "deep" / "a.bin"),
            testing::read_file(dir / "in" / "a.bin"));
  EXPECT_EQ(testing::read_file(dir / "out" / "deep" / "b.bin"),
            testing::read_file(dir / "in" / "b.bin"));
  // The packed file serves the resolver as well.
  auto r = ManifestWeights::open(dir / "w.weights", dir / "m.json");
  ASSERT_TRUE(r.ok());
  auto a = (*r)->load("a", "a", {MLOperandDataType::kFloat32, {2}});
  ASSERT_TRUE(a.ok()) << error_of(a);
  EXPECT_EQ(std::memcmp(a->data(), testing::le_bytes<float>({1.25f, -3.0f}).data(), 8), 0);
}

// §10 row 38: unpack-weights on a headerless blob.
TEST(WeightsTools, Row38UnpackRejectsHeaderlessBlob) {
  TempDir dir;
  testing::write_file(dir / "h.weights", testing::le_bytes<float>({1, 2}));
  testing::write_file(dir / "m.json", R"({"format":"wg-weights-manifest","version":1,
      "endianness":"little","tensors":{"W":{"dataType":"float32","shape":[2],"byteOffset":0,
      "byteLength":8}}})");
  auto r = unpack_weights(dir / "h.weights", dir / "m.json", dir / "out");
  EXPECT_NE(error_of(r).find("Invalid magic bytes: expected [87, 71, 87, 84], got [0, 0, 128, 63]"),
            std::string::npos)
      << error_of(r);
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
  testing::write_file(dir / "short.weights", "WGW");
  EXPECT_NE(error_of(unpack_weights(dir / "short.weights", dir / "m.json", dir / "out"))
                .find("shorter than the 8-byte WGWT header"),
            std::string::npos);
}

TEST(WeightsTools, UnpackRejectsRangesOutsideTheBody) {
  TempDir dir;
  std::vector<std::byte> blob(wgwt_header().begin(), wgwt_header().end());
  blob.resize(16);
  testing::write_file(dir / "w.weights", blob);
  const std::string head = R"({"format":"f","version":9,"endianness":"big","tensors":{"W":)";
  testing::write_file(dir / "past.json", head + R"({"dataType":"float32","shape":[4],)"
                                                R"("byteOffset":8,"byteLength":16}}})");
  EXPECT_EQ(error_of(unpack_weights(dir / "w.weights", dir / "past.json", dir / "o")),
            "Tensor 'W' extends beyond weights file: offset=8, length=16, file_size=16");
  testing::write_file(dir / "low.json", head + R"({"dataType":"float32","shape":[1],)"
                                               R"("byteOffset":4,"byteLength":4}}})");
  EXPECT_NE(error_of(unpack_weights(dir / "w.weights", dir / "low.json", dir / "o"))
                .find("inside the 8-byte WGWT header"),
            std::string::npos);
  testing::write_file(dir / "huge.json",
                      head + R"({"dataType":"uint8","shape":[1],)"
                             R"("byteOffset":18446744073709551615,"byteLength":1}}})");
  EXPECT_NE(error_of(unpack_weights(dir / "w.weights", dir / "huge.json", dir / "o"))
                .find("extends beyond weights file"),
            std::string::npos);
  testing::write_file(dir / "evil.json", R"({"format":"f","version":1,"endianness":"l",)"
                                         R"("tensors":{"../evil":{"dataType":"uint8","shape":[1],)"
                                         R"("byteOffset":8,"byteLength":1}}})");
  EXPECT_NE(error_of(unpack_weights(dir / "w.weights", dir / "evil.json", dir / "o"))
                .find("cannot be stored as a file"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "evil.bin"));
  // Format and version are not checked by unpack-weights.
  testing::write_file(dir / "ok.json", head + R"({"dataType":"float32","shape":[2],)"
                                              R"("byteOffset":8,"byteLength":8}}})");
  EXPECT_TRUE(unpack_weights(dir / "w.weights", dir / "ok.json", dir / "o").ok());
}

// §10 row 39: pack-weights with a first offset 0, or a gap.
TEST(WeightsTools, Row39PackRejectsUnexpectedOffsets) {
  TempDir dir;
  make_inputs(dir);
  auto manifest = [&](uint64_t a_off, uint64_t b_off) {
    return str_cat(R"({"format":"wg-weights-manifest","version":1,"endianness":"little",)",
                   R"("tensors":{"a":{"dataType":"float32","shape":[2],"byteOffset":)", a_off,
                   R"(,"byteLength":8},"b":{"dataType":"int8","shape":[3],"byteOffset":)", b_off,
                   R"(,"byteLength":3}}})");
  };
  testing::write_file(dir / "zero.json", manifest(0, 8));
  EXPECT_EQ(error_of(pack_weights(dir / "zero.json", dir / "in", dir / "w.weights")),
            "Tensor 'a' has unexpected byte_offset: expected 8, got 0");
  testing::write_file(dir / "gap.json", manifest(8, 20));
  EXPECT_EQ(error_of(pack_weights(dir / "gap.json", dir / "in", dir / "w.weights")),
            "Tensor 'b' has unexpected byte_offset: expected 16, got 20");
  // Entries are visited by offset, not by name.
  testing::write_file(dir / "swapped.json", manifest(11, 8));
  EXPECT_TRUE(pack_weights(dir / "swapped.json", dir / "in", dir / "w.weights").ok());
  EXPECT_EQ(testing::read_file(dir / "w.weights").size(), 19u);
  // Nothing is left behind by failures.
  std::filesystem::remove(dir / "w.weights");
  EXPECT_FALSE(pack_weights(dir / "gap.json", dir / "in", dir / "w.weights").ok());
  EXPECT_FALSE(std::filesystem::exists(dir / "w.weights"));
}

TEST(WeightsTools, PackChecksFormatVersionLengthsAndFiles) {
  TempDir dir;
  make_inputs(dir);
  auto write = [&](const std::string& fmt, int version, const std::string& a_entry) {
    testing::write_file(dir / "m.json",
                        str_cat(R"({"format":")", fmt, R"(","version":)", version,
                                R"(,"endianness":"little","tensors":{"a":)", a_entry, "}}"));
    return error_of(pack_weights(dir / "m.json", dir / "in", dir / "w.weights"));
  };
  const std::string a = R"({"dataType":"float32","shape":[2],"byteOffset":8,"byteLength":8})";
  EXPECT_EQ(write("x", 1, a), "Invalid manifest format: x");
  EXPECT_EQ(write("wg-weights-manifest", 2, a), "Unsupported manifest version: 2");
  EXPECT_EQ(write("wg-weights-manifest", 1,
                  R"({"dataType":"float32","shape":[2],"byteOffset":8,"byteLength":7})"),
            "Tensor 'a' has incorrect byte_length: expected 8, got 7");
  EXPECT_EQ(write("wg-weights-manifest", 1,
                  R"({"dataType":"float32","shape":[1],"byteOffset":8,"byteLength":4})"),
            "Tensor file 'a' has wrong size: expected 4 bytes, got 8");
  std::filesystem::remove(dir / "in" / "a.bin");
  EXPECT_EQ(write("wg-weights-manifest", 1, a),
            "Failed to open tensor file: \"" + (dir / "in" / "a.bin").string() + "\"");
  EXPECT_NE(write("wg-weights-manifest", 1, R"({"dataType":"float32","shape":[2]})")
                .find("tensors.a.byteOffset: missing"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "w.weights"));
}

// §10 row 40: create-manifest with a .bin that has no .meta.json.
TEST(WeightsTools, Row40CreateManifestNeedsMetadata) {
  TempDir dir;
  make_inputs(dir);
  std::filesystem::remove(dir / "in" / "b.meta.json");
  auto r = create_manifest(dir / "in", dir / "m.json");
  EXPECT_NE(
      error_of(r).find("Failed to read metadata file: " + (dir / "in" / "b.meta.json").string()),
      std::string::npos)
      << error_of(r);
  EXPECT_FALSE(std::filesystem::exists(dir / "m.json"));
  // A meta file without byteOffset/byteLength is not a full entry.
  testing::write_file(dir / "in" / "b.meta.json", R"({"dataType":"int8","shape":[3]})");
  EXPECT_NE(error_of(create_manifest(dir / "in", dir / "m.json")).find("Failed to read metadata"),
            std::string::npos);
  // A size mismatch.
  testing::write_file(dir / "in" / "b.meta.json",
                      R"({"dataType":"int8","shape":[4],"byteOffset":0,"byteLength":0})");
  EXPECT_EQ(error_of(create_manifest(dir / "in", dir / "m.json")),
            "Tensor 'b' file size mismatch: expected 4, got 3");
  EXPECT_FALSE(std::filesystem::exists(dir / "m.json"));
  // An empty folder gives an empty manifest.
  std::filesystem::create_directories(dir / "empty");
  ASSERT_TRUE(create_manifest(dir / "empty", dir / "e.json", "big").ok());
  auto m = read_manifest_file(dir / "e.json", true);
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->tensors.empty());
  EXPECT_EQ(m->endianness, "big");
}

}  // namespace
}  // namespace cppnn::formats
