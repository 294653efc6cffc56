// cppnn-ocr: optical character recognition with the PaddleOCR v4 models converted to WebNN
// graphs (`cppnn convert-onnx`), run on a cppnn backend. Detection finds the text lines of an
// image, recognition reads each one; `--demo` renders known text and checks what comes back.
#include <cppnn/webnn.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "ctc.h"
#include "detect.h"
#include "file_io.h"
#include "image.h"
#include "model.h"
#include "recognize.h"
#include "text_render.h"

namespace {

constexpr char kHelp[] =
    "usage: cppnn-ocr [--det DET.webnn] [--rec REC.webnn] [--keys KEYS] [--backend NAME] IMAGE\n"
    "       cppnn-ocr --demo [--out demo.png] [--font FONT.ttf] [options as above]\n\n"
    "Reads the text of IMAGE (PNG, JPEG, BMP, GIF, TGA, PNM...) with the PaddleOCR v4 detector\n"
    "and recognizer converted to WebNN graphs (cppnn convert-onnx; `make demo` converts them),\n"
    "and prints one line per text region, top to bottom and left to right, then the time of\n"
    "each stage and the backend. IMAGE must be a regular file of at least 1x1 and at most 2^28\n"
    "pixels; transparent pixels count as white paper.\n\n"
    "  --det FILE      detector graph (default MODELS/det.webnn); its fixed input size\n"
    "                  is the size images are fitted into\n"
    "  --rec FILE      recognizer graph (default MODELS/rec.webnn); its input width is\n"
    "                  the widest line it reads\n"
    "  --keys FILE     the recognizer's character list (default MODELS/ppocr_keys_v1.txt)\n"
    "  --backend NAME  the cppnn backend (ort, reference; default: the default backend)\n"
    "  --demo          render a few lines of known text instead of reading IMAGE, recognize\n"
    "                  them and end with `ocr: K/N lines exact`; exit 0 only when K == N\n"
    "  --out FILE      with --demo: also write the rendered image as PNG\n"
    "  --font FILE     with --demo: the TrueType font (default DejaVuSans); checked before\n"
    "                  use, anything but a single TrueType font is refused\n"
    "MODELS is .deps/models of the source tree the program was built in, found from the\n"
    "executable's location (../../.deps/models from build/bin/cppnn-ocr), so the defaults work\n"
    "from any folder; a file missing there is looked for in .deps/models of the current folder.\n"
    "Each graph's weights are the SafeTensors file beside it (det.safetensors ...).\n"
    "Exit: 0 ok, 1 error (a message `Error: ...` naming the file on stderr) or a demo mismatch.\n";

// The demo's text: English words and digits, one string per line.
const std::vector<std::string> kDemoLines = {
    "Hello from cppnn 2026",
    "WebNN graphs on ONNX Runtime",
    "The quick brown fox jumps 42",
    "Order 7319 shipped to Berlin",
};

struct Options {
  std::string det, rec, keys;  // empty: the default (default_model_file)
  std::string backend;
  std::string font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  std::optional<std::string> out;
  std::optional<std::string> image;
  bool demo = false;
  bool help = false;
};

// The default path of the model file `name`: in .deps/models two folders above the executable
// (build/bin/cppnn-ocr in the source tree), else in .deps/models of the current folder; when it
// is in neither, the first (so the error names where it was expected).
std::string default_model_file(const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path local = fs::path(".deps") / "models" / name;
  if (ec || exe.empty()) return local.string();
  const fs::path beside =
      (exe.parent_path() / ".." / ".." / ".deps" / "models" / name).lexically_normal();
  if (fs::exists(beside, ec) || !fs::exists(local, ec)) return beside.string();
  return local.string();
}

// Parses the command line; std::runtime_error for a bad one.
Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return argv[++i];
    };
    const auto path_value = [&]() -> std::string {
      std::string v = value();
      if (v.empty()) throw std::runtime_error(arg + " needs a file name, got an empty one");
      return v;
    };
    if (arg == "--help" || arg == "-h")
      o.help = true;
    else if (arg == "--demo")
      o.demo = true;
    else if (arg == "--det")
      o.det = path_value();
    else if (arg == "--rec")
      o.rec = path_value();
    else if (arg == "--keys")
      o.keys = path_value();
    else if (arg == "--backend")
      o.backend = value();
    else if (arg == "--out")
      o.out = path_value();
    else if (arg == "--font")
      o.font = path_value();
    else if (arg.starts_with("-"))
      throw std::runtime_error("unknown option " + arg + " (see --help)");
    else if (o.image)
      throw std::runtime_error("only one IMAGE, got " + *o.image + " and " + arg);
    else
      o.image = arg;
  }
  if (o.help) return o;
  if (o.det.empty()) o.det = default_model_file("det.webnn");
  if (o.rec.empty()) o.rec = default_model_file("rec.webnn");
  if (o.keys.empty()) o.keys = default_model_file("ppocr_keys_v1.txt");
  if (o.demo && o.image) throw std::runtime_error("--demo takes no IMAGE");
  if (!o.demo && !o.image) throw std::runtime_error("no IMAGE given (see --help)");
  if (!o.demo && o.out) throw std::runtime_error("--out is for --demo");
  return o;
}

// Milliseconds since `start`.
double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Before the graphs load: the model files are readable, or one error naming each one that
// is not (the graphs first).
void check_model_files(const Options& o) {
  std::string problems;
  const std::pair<const char*, const std::string*> files[] = {
      {"detector graph", &o.det}, {"recognizer graph", &o.rec}, {"keys file", &o.keys}};
  bool graph_missing = false;
  for (const auto& [what, path] : files) {
    const std::string problem = ocr::regular_file_problem(*path);
    if (problem.empty()) continue;
    if (!problems.empty()) problems += "; ";
    problems += std::string("cannot read ") + what + " " + *path + ": " + problem;
    graph_missing = graph_missing || path != &o.keys;
  }
  if (graph_missing)
    problems += " (`make demo` converts the models into .deps/models; see --help for the defaults)";
  if (!problems.empty()) throw std::runtime_error(problems);
}

// A recognized text region.
struct Line {
  ocr::Box box;
  std::string text;
};

int run(const Options& o) {
  const auto start = std::chrono::steady_clock::now();
  ocr::Image image;
  std::string source;
  if (o.demo) {
    image = ocr::render_text(kDemoLines, o.font);
    if (o.out) ocr::save_png(image, *o.out);
    source = "demo image";
  } else {
    image = ocr::load_image(*o.image);
    source = *o.image;
  }
  // The image (or font) is checked; now the model files, before anything is loaded.
  check_model_files(o);
  const ocr::CharacterSet chars = ocr::CharacterSet::load(o.keys);

  // Load and build both graphs once on one context.
  auto t = std::chrono::steady_clock::now();
  cppnn::MLContext context = cppnn::MLContext::create({.backend = o.backend});
  ocr::Model detector(context, o.det);
  ocr::Model recognizer(context, o.rec);
  const double load_ms = ms_since(t);

  t = std::chrono::steady_clock::now();
  const std::vector<ocr::Box> boxes = ocr::detect_text(detector, image);
  const double detect_ms = ms_since(t);

  t = std::chrono::steady_clock::now();
  std::vector<Line> lines;
  for (const ocr::Box& b : boxes) {
    const ocr::Image crop = ocr::crop(image, b.x0, b.y0, b.x1, b.y1);
    lines.push_back({b, ocr::recognize_line(recognizer, crop, chars)});
  }
  const double recognize_ms = ms_since(t);

  std::printf("cppnn-ocr: %s (%dx%d), backend %s\n", source.c_str(), image.width, image.height,
              context.backend().c_str());
  for (const Line& l : lines)
    std::printf("[%4d,%4d %4dx%-3d] %s\n", l.box.x0, l.box.y0, l.box.width(), l.box.height(),
                l.text.c_str());
  std::printf(
      "time: load+build %.1f ms, detection %.1f ms, recognition %.1f ms (%zu regions), "
      "total %.1f ms\n",
      load_ms, detect_ms, recognize_ms, lines.size(), ms_since(start));
  if (!o.demo) return 0;

  // The demo: line i must read exactly as the i-th line rendered.
  size_t exact = 0;
  for (size_t i = 0; i < kDemoLines.size(); ++i) {
    const bool ok = i < lines.size() && lines[i].text == kDemoLines[i];
    exact += ok;
    if (!ok) std::printf("mismatch: line %zu should read \"%s\"\n", i + 1, kDemoLines[i].c_str());
  }
  if (lines.size() > kDemoLines.size())
    std::printf("mismatch: %zu text regions found for %zu lines\n", lines.size(),
                kDemoLines.size());
  std::printf("ocr: %zu/%zu lines exact\n", exact, kDemoLines.size());
  return exact == kDemoLines.size() && lines.size() == kDemoLines.size() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parse_args(argc, argv);
    if (options.help) {
      std::cout << kHelp;
      return 0;
    }
    return run(options);
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << "\n";
    return 1;
  }
}
