// The file mechanisms of docs/security.md: reading (src/core/input_file.h: regular files only,
// never blocking, bounded, confined beneath a folder) and writing (src/core/atomic_file.h:
// unique temporaries, both-or-neither commits, outputs that are inputs refused).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "src/core/atomic_file.h"
#include "src/core/input_file.h"
#include "tests/temp_dir.h"

namespace cppnn {
namespace {

namespace fs = std::filesystem;

using testing::TempDir;

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
// Files in `dir` whose name starts with '.' (temporaries).
int hidden_files(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string()[0] == '.';
  return n;
}

TEST(InputFile, RefusesFifosFoldersAndDevicesWithoutBlocking) {
  TempDir dir;
  const fs::path fifo = dir.path() / "graph.webnn";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  auto r = read_input_file(fifo);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("graph.webnn"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("FIFO"), std::string::npos) << r.error().message;

  auto folder = read_input_file(dir.path());
  ASSERT_FALSE(folder);
  EXPECT_NE(folder.error().message.find("folder"), std::string::npos);

  auto zero = read_input_file("/dev/zero");
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("device"), std::string::npos) << zero.error().message;
}

TEST(InputFile, BoundsWholeFileReads) {
  TempDir dir;
  write(dir.path() / "big", std::string(1000, 'x'));
  auto r = read_input_file(dir.path() / "big", 100);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("over the limit"), std::string::npos) << r.error().message;
  auto ok = read_input_file(dir.path() / "big", 1000);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->size(), 1000u);
  auto file = InputFile::open(dir.path() / "big");
  ASSERT_TRUE(file);
  EXPECT_EQ(*file->read_head(4), "xxxx");
  std::byte out[8];
  EXPECT_FALSE(file->read_at(996, out));  // past the end: an error, not a short read
  EXPECT_FALSE(file->read_at(UINT64_MAX - 2, out));
}

TEST(InputFile, OpenBeneathConfinesSymlinksAndDotDot) {
  TempDir dir;
  const fs::path model = dir.path() / "model";
  fs::create_directories(model / "sub");
  write(dir.path() / "secret", "outside");
  write(model / "sub" / "weights.bin", "inside");
  fs::create_symlink(dir.path() / "secret", model / "link_out.bin");
  fs::create_symlink("/etc", model / "etc");
  fs::create_symlink("sub/weights.bin", model / "link_in.bin");

  auto inside = InputFile::open_beneath(model, "sub/weights.bin");
  ASSERT_TRUE(inside) << inside.error().message;
  EXPECT_EQ(*inside->read_all(), "inside");
  auto link_in = InputFile::open_beneath(model, "link_in.bin");
  ASSERT_TRUE(link_in) << link_in.error().message;  // a link that stays inside is fine

  for (const char* bad : {"link_out.bin", "etc/passwd", "../secret", "sub/../../secret"}) {
    auto r = InputFile::open_beneath(model, bad);
    ASSERT_FALSE(r) << bad << " was opened";
    EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
  }
  auto abs = InputFile::open_beneath(model, (dir.path() / "secret").string());
  EXPECT_FALSE(abs);
  const fs::path fifo = model / "pipe.bin";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(InputFile::open_beneath(model, "pipe.bin"));
}

TEST(AtomicFile, WritesThroughAUniqueTemporaryAndLeavesNothingOnFailure) {
  TempDir dir;
  const fs::path dest = dir.path() / "out.onnx";
  // A planted symlink at a predictable temporary name is never followed.
  write(dir.path() / "victim", "keep");
  fs::create_symlink(dir.path() / "victim", dir.path() / "out.onnx.tmp-cppnn");
  fs::create_symlink(dir.path() / "victim", dir.path() / ".out.onnx.tmp");
  ASSERT_TRUE(write_file_atomically(dest, std::string_view("model")));
  EXPECT_EQ(slurp(dest), "model");
  EXPECT_EQ(slurp(dir.path() / "victim"), "keep");
  {
    auto f = AtomicFile::create(dir.path() / "dropped");
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->write(std::string_view("partial")));
  }  // destroyed without commit
  EXPECT_FALSE(fs::exists(dir.path() / "dropped"));
  EXPECT_EQ(hidden_files(dir.path()), 1);        // only the planted .out.onnx.tmp link
  EXPECT_FALSE(AtomicFile::create(dir.path()));  // a folder is not a file to replace
}

TEST(AtomicFile, CommitTogetherKeepsThePreviousFilesWhenOneRenameFails) {
  TempDir dir;
  const fs::path model = dir.path() / "y.onnx", data = dir.path() / "y.onnx.data";
  write(model, "old model");
  write(data, "old data");
  auto a = AtomicFile::create(model);
  auto b = AtomicFile::create(data);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->write(std::string_view("new model")));
  ASSERT_TRUE(b->write(std::string_view("new data")));
  // The second destination turns into a non-empty folder: its rename must fail.
  fs::remove(data);
  fs::create_directories(data / "x");
  Status s = commit_together({&*a, &*b});
  ASSERT_FALSE(s);
  EXPECT_EQ(slurp(model), "old model");  // put back
  EXPECT_TRUE(fs::is_directory(data));
  EXPECT_EQ(hidden_files(dir.path()), 0);

  // Without a failure both land.
  fs::remove_all(data);
  auto c = AtomicFile::create(model);
  auto d = AtomicFile::create(data);
  ASSERT_TRUE(c && d);
  ASSERT_TRUE(c->write(std::string_view("m2")));
  ASSERT_TRUE(d->write(std::string_view("d2")));
  ASSERT_TRUE(commit_together({&*c, &*d}));
  EXPECT_EQ(slurp(model), "m2");
  EXPECT_EQ(slurp(data), "d2");
  EXPECT_EQ(hidden_files(dir.path()), 0);
}

TEST(AtomicFile, RefusesAnOutputThatIsAnInput) {
  TempDir dir;
  const fs::path in = dir.path() / "model.onnx";
  write(in, "x");
  fs::create_hard_link(in, dir.path() / "hard.onnx");
  fs::create_symlink(in, dir.path() / "soft.onnx");
  const std::vector<fs::path> inputs = {in};
  EXPECT_FALSE(check_output_is_not_input(in, inputs));
  EXPECT_FALSE(check_output_is_not_input(dir.path() / "hard.onnx", inputs));
  EXPECT_FALSE(check_output_is_not_input(dir.path() / "soft.onnx", inputs));
  EXPECT_FALSE(check_output_is_not_input(dir.path() / "." / "model.onnx", inputs));
  EXPECT_TRUE(check_output_is_not_input(dir.path() / "new.webnn", inputs));
}

}  // namespace
}  // namespace cppnn
