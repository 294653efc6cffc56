// `cppnn compare-onnx MODEL`: converts an ONNX model with the importer, runs it on a cppnn
// backend with a fixed pseudo-random input (or the user's .npy files), runs the original file in
// ONNX Runtime directly, and compares every output element by element with a combined tolerance
// |cppnn - ort| <= atol + rtol * |ort| (NumPy's allclose; the end-to-end check of issue 6, usable
// on any model). Exit 0 when every output is within tolerance (and within --max-rel-l2 when it is
// given), 1 otherwise, 77 when ONNX Runtime is not compiled in. --input-value pins an input at
// conversion and feeds ONNX Runtime the same value; --json writes the per-output figures (the
// model sweep's record, scripts/model-sweep.py).
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <tuple>

#include "cppnn/errors.h"
#include "cppnn/float16.h"
#include "cppnn/onnx_import.h"
#include "cppnn/webnn.h"
#include "tools/cppnn/cli_args.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/convert_onnx.h"
#include "tools/cppnn/json_file.h"
#include "tools/cppnn/npy.h"
#include "tools/cppnn/onnx_standalone.h"

namespace cppnn::tool {
namespace {

constexpr char kHelp[] =
    "usage: cppnn compare-onnx MODEL.onnx [--backend NAME] [--override-dim NAME=VALUE]...\n"
    "                          [--input-shape NAME=D0,D1,...]... [--input NAME=FILE.npy]...\n"
    "                          [--input-value NAME=V0,V1,...]... [--json FILE]\n"
    "                          [--atol X] [--rtol X] [--max-rel-l2 X] [--seed N]\n"
    "                          [--input-pattern random|text] [--normalize "
    "none|imagenet|symmetric]\n"
    "                          [--skip-missing]\n\n"
    "Converts MODEL with the ONNX importer, runs it on the backend (default: the default\n"
    "backend) with a fixed pseudo-random input (floats uniform in [-1, 1), integers 0..9,\n"
    "from --seed, default 1), runs MODEL itself in ONNX Runtime, and compares each output\n"
    "element by element: an element passes when |cppnn - ort| <= atol + rtol * |ort| (NumPy's\n"
    "allclose; NaN matches only NaN, infinities only the same infinity). Per output it prints\n"
    "the max absolute error, the relative L2 error ||cppnn - ort|| / ||ort||, how many\n"
    "elements are outside the tolerance and the worst element (its index, both values).\n"
    "Exit 0 when every element of every output passes, 1 otherwise or on bad input (an\n"
    "unknown --input NAME lists the model's inputs), 2 on usage errors, 77 without ONNX\n"
    "Runtime.\n"
    "  --atol X, --rtol X     the tolerance of every output; the defaults depend on the\n"
    "                         output's type: float32 atol 1e-4 rtol 1e-3, float16 atol 1e-3\n"
    "                         rtol 1e-2, integer types exact (0, 0)\n"
    "  --max-rel-l2 X         also require each output's relative L2 error below X (off\n"
    "                         unless given)\n"
    "  --input NAME=FILE.npy  the value of input NAME (its ONNX name) instead of the generated\n"
    "                         one; the .npy dtype and shape must be the input's (repeatable)\n"
    "  --input-value NAME=V0,V1,...  fixes input NAME at conversion (like convert-onnx) and\n"
    "                         gives ONNX Runtime the same value, cast to the input's type\n"
    "                         and shaped as declared (repeatable)\n"
    "  --json FILE            also write the result as JSON: timings and per output its\n"
    "                         type, shape, max abs, rel L2, elements outside, pass; or the\n"
    "                         error\n"
    "--input-pattern text fills float NCHW inputs with a synthetic page instead (dark\n"
    "glyph-like strokes on lines of a light background, pixel values in [0, 1]) normalized\n"
    "with ImageNet mean/std (imagenet, the default for text) or (x - 0.5) / 0.5 (symmetric).\n"
    "--skip-missing exits 77 (skipped) when MODEL does not exist.\n";

// Deterministic input bytes for `desc` (xorshift64*).
std::vector<std::byte> fixed_input(const MLOperandDescriptor& desc, uint64_t& state) {
  const uint64_t n = element_count(desc.shape);
  std::vector<std::byte> bytes(byte_length(desc));
  auto next = [&state] {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1DULL;
  };
  const unsigned size = data_type_bits(desc.dataType) / 8;
  for (uint64_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(next() >> 11) / 9007199254740992.0;  // [0, 1)
    MLNumber v =
        desc.dataType == MLOperandDataType::kFloat32 || desc.dataType == MLOperandDataType::kFloat16
            ? MLNumber(2.0 * u - 1.0)
            : MLNumber(static_cast<long long>(u * 10));
    v.cast_to_bytes(desc.dataType, bytes.data() + i * size);
  }
  return bytes;
}

// A synthetic page for NCHW float inputs: light background, lines of dark glyph-like strokes.
std::vector<std::byte> text_input(const MLOperandDescriptor& desc, uint64_t& state,
                                  const std::string& normalize) {
  if (desc.shape.size() != 4 || (desc.dataType != MLOperandDataType::kFloat32 &&
                                 desc.dataType != MLOperandDataType::kFloat16))
    return fixed_input(desc, state);
  const uint32_t n = desc.shape[0], channels = desc.shape[1], h = desc.shape[2], w = desc.shape[3];
  static constexpr double kMean[3] = {0.485, 0.456, 0.406}, kStd[3] = {0.229, 0.224, 0.225};
  std::vector<std::byte> bytes(byte_length(desc));
  const unsigned size = data_type_bits(desc.dataType) / 8;
  const uint32_t line = std::max<uint32_t>(h >= 32 ? 32 : h, 1);
  uint64_t index = 0;
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t c = 0; c < channels; ++c)
      for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x, ++index) {
          const uint32_t in_line = y % line;
          const bool text_row = in_line >= line / 4 && in_line < line - line / 4;
          const uint32_t glyph = x / 12, in_glyph = x % 12;
          const uint64_t hash = (glyph * 2654435761u + (y / line) * 40503u + b) % 7;
          const bool stroke = text_row && hash != 0 && in_glyph < 9 &&
                              (in_glyph % 4 == 0 || in_line == line / 4 + hash % 5);
          const double pixel = stroke ? 0.1 : 0.95;
          double v = pixel;
          if (normalize == "imagenet")
            v = (pixel - kMean[c % 3]) / kStd[c % 3];
          else if (normalize == "symmetric")
            v = (pixel - 0.5) / 0.5;
          MLNumber(v).cast_to_bytes(desc.dataType, bytes.data() + index * size);
        }
  return bytes;
}

std::vector<double> as_doubles(const MLOperandDescriptor& desc, const std::vector<std::byte>& b) {
  const uint64_t n = element_count(desc.shape);
  if (b.size() < n * (data_type_bits(desc.dataType) / 8))
    throw std::runtime_error("an output of " + to_string(desc) + " came back with " +
                             std::to_string(b.size()) + " bytes");
  std::vector<double> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    const std::byte* p = b.data() + i * (data_type_bits(desc.dataType) / 8);
    switch (desc.dataType) {
      case MLOperandDataType::kFloat32: {
        float f;
        std::memcpy(&f, p, 4);
        out[i] = f;
        break;
      }
      case MLOperandDataType::kFloat16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        out[i] = half_bits_to_float(h);
        break;
      }
      case MLOperandDataType::kInt64: {
        int64_t v;
        std::memcpy(&v, p, 8);
        out[i] = static_cast<double>(v);
        break;
      }
      case MLOperandDataType::kUint64: {
        uint64_t v;
        std::memcpy(&v, p, 8);
        out[i] = static_cast<double>(v);
        break;
      }
      case MLOperandDataType::kInt32: {
        int32_t v;
        std::memcpy(&v, p, 4);
        out[i] = v;
        break;
      }
      case MLOperandDataType::kUint32: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        out[i] = v;
        break;
      }
      case MLOperandDataType::kInt8:
        out[i] = static_cast<int8_t>(*p);
        break;
      default:  // uint8 (int4/uint4 are no graph outputs)
        out[i] = static_cast<double>(static_cast<uint8_t>(*p));
    }
  }
  return out;
}

// The ORT feed of a pinned input (--input-value): the value cast to the input's declared type
// and shaped as declared (a scalar for rank 0, one dimension when the declared shape is free).
NamedBytes pinned_feed(const OnnxFileInput& in, const OnnxInputValue& value,
                       std::vector<std::byte>& storage) {
  if (!in.dataType)
    throw DataError("--input-value " + in.name + ": its ONNX type has no WebNN equivalent");
  const std::vector<double> values = as_doubles(value.descriptor, value.bytes);
  MLOperandDescriptor desc{*in.dataType, {}};
  bool static_shape = true;
  uint64_t declared = 1;
  for (int64_t d : in.dims) {
    static_shape = static_shape && d >= 0;
    declared *= d >= 0 ? static_cast<uint64_t>(d) : 1;
  }
  if (static_shape && declared == values.size())
    for (int64_t d : in.dims) desc.shape.push_back(static_cast<uint32_t>(d));
  else if (in.dims.size() == 1)
    desc.shape = {static_cast<uint32_t>(values.size())};
  else
    throw DataError("--input-value " + in.name + ": " + std::to_string(values.size()) +
                    " values do not fill its declared shape (rank " +
                    std::to_string(in.dims.size()) + ")");
  const unsigned size = data_type_bits(desc.dataType) / 8;
  storage.resize(values.size() * size);
  const bool is_float = value.descriptor.dataType == MLOperandDataType::kFloat32;
  for (size_t i = 0; i < values.size(); ++i)
    (is_float ? MLNumber(values[i]) : MLNumber(static_cast<long long>(values[i])))
        .cast_to_bytes(desc.dataType, storage.data() + i * size);
  return NamedBytes{desc, storage};
}

// `NAME=FILE.npy` of --input -> {NAME, FILE}; UsageError unless both parts are there.
std::pair<std::string, std::string> parse_input_file(const std::string& s) {
  const size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw UsageError("--input " + s + ": expected NAME=FILE.npy");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

// The tolerance of one output: the user's --atol / --rtol, else the type's default.
struct Tolerance {
  double atol = 0, rtol = 0;
};
Tolerance tolerance_for(MLOperandDataType t, std::optional<double> atol,
                        std::optional<double> rtol) {
  Tolerance d;  // integer and boolean types: exact
  if (t == MLOperandDataType::kFloat32)
    d = {1e-4, 1e-3};
  else if (t == MLOperandDataType::kFloat16)
    d = {1e-3, 1e-2};
  return {atol.value_or(d.atol), rtol.value_or(d.rtol)};
}

// How one output compares: error norms, the elements outside the tolerance and the worst one:
// a NaN or infinity mismatch first, then the largest |got - want| / (atol + rtol * |want|) (the
// element nearest to or furthest past its allowance), then the largest |got - want|.
struct Comparison {
  double max_abs = 0, rel_l2 = 0;
  uint64_t outside = 0;
  bool nonfinite_mismatch = false;
  std::optional<uint64_t> worst;
};
Comparison compare_values(const std::vector<double>& got, const std::vector<double>& want,
                          const Tolerance& tol) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Comparison c;
  double diff = 0, norm = 0;
  std::tuple<bool, double, double> worst{false, -1, -1};  // mismatch, |d| / allowed, |d|
  for (size_t i = 0; i < got.size(); ++i) {
    const double a = got[i], b = want[i];
    std::tuple<bool, double, double> key{false, 0, 0};
    if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) {
      // NaN matches NaN, an infinity the same infinity.
      const bool same = (std::isnan(a) && std::isnan(b)) || a == b;
      if (!same) ++c.outside;
      key = {!same, same ? 0 : kInf, same ? 0 : kInf};
    } else {
      const double d = std::fabs(a - b), allowed = tol.atol + tol.rtol * std::fabs(b);
      diff += d * d;
      norm += b * b;
      c.max_abs = std::max(c.max_abs, d);
      if (d > allowed) ++c.outside;
      key = {false, allowed > 0 ? d / allowed : (d > 0 ? kInf : 0), d};
    }
    if (!c.worst || key > worst) {
      c.worst = i;
      worst = key;
    }
  }
  c.rel_l2 = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  c.nonfinite_mismatch = std::get<0>(worst);
  // A NaN or infinity against something else: no finite error bound (NumPy's abs diff is NaN).
  if (c.nonfinite_mismatch) c.max_abs = std::numeric_limits<double>::quiet_NaN();
  return c;
}

// "[i0, i1, ...]" of the flat (row-major) `index` into `shape`.
std::string index_string(uint64_t index, const std::vector<uint32_t>& shape) {
  std::vector<uint64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? index % shape[d] : 0;
    index = shape[d] ? index / shape[d] : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) {
    if (d) s += ", ";
    s += std::to_string(idx[d]);
  }
  return s + "]";
}

// A value with the digits that tell float32 neighbours apart.
std::string precise(double v) {
  std::ostringstream os;
  os << std::setprecision(9) << v;
  return os.str();
}

}  // namespace

int run_compare_onnx(const std::vector<std::string>& args) {
  const CommandSpec& spec = find_command_spec("compare-onnx");
  ParsedArgs p;
  if (auto rc = parse_command_line(spec, args, kHelp, p)) return *rc;
  const std::string model = p.path, backend = p.get(spec, "backend");
  const bool skip_missing = p.has("skip-missing");
  std::optional<double> max_rel_l2, atol, rtol;
  std::vector<std::pair<std::string, std::string>> input_files;  // NAME, FILE
  uint64_t seed = 1;
  std::string pattern = "random", normalize, json_path;
  OnnxImportOptions options;
  try {
    auto tolerance = [&](const char* flag, std::optional<double>& out) {
      if (auto v = p.value(flag)) out = parse_number_flag(flag, *v, 0);
    };
    tolerance("atol", atol);
    tolerance("rtol", rtol);
    tolerance("max-rel-l2", max_rel_l2);
    if (auto v = p.value("seed")) seed = parse_unsigned_flag("seed", *v);
    if (auto v = p.value("input-pattern"))
      pattern = check_choice_flag("input-pattern", *v, {"random", "text"});
    if (auto v = p.value("normalize"))
      normalize = check_choice_flag("normalize", *v, {"none", "imagenet", "symmetric"});
    for (const std::string& s : p.all("input")) input_files.push_back(parse_input_file(s));
    if (auto v = p.value("json")) json_path = *v;
    for (const std::string& s : p.all("input-value")) {
      auto [name, value] = convert_onnx::parse_input_value(s);
      options.inputValues[name] = std::move(value);
    }
    for (const std::string& s : p.all("override-dim")) {
      auto [name, value] = convert_onnx::parse_override_dim(s);
      options.freeDimensions[name] = value;
    }
    for (const std::string& s : p.all("input-shape")) {
      auto [name, shape] = convert_onnx::parse_input_shape(s);
      options.inputShapes[name] = std::move(shape);
    }
  } catch (const UsageError& e) {
    return report_usage_error("compare-onnx", e.what());
  } catch (const convert_onnx::ArgumentError& e) {
    return report_usage_error("compare-onnx", e.shown());
  }
  if (skip_missing && !std::filesystem::exists(model)) {
    std::cerr << "compare-onnx: " << model << " does not exist; skipped\n";
    return 77;
  }
  if (!standalone_ort_available()) {
    std::cerr << "compare-onnx: ONNX Runtime is not compiled in; skipped\n";
    return 77;
  }
  nlohmann::json report = {{"model", model}, {"backend", backend}};
  // Writes the --json report (when asked); a write error is reported and fails the run.
  auto write_report = [&](int rc) {
    if (json_path.empty()) return rc;
    if (auto error = write_json_atomically(json_path, report)) {
      std::cerr << "Error: " << *error << "\n";
      return 1;
    }
    return rc;
  };
  try {
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::duration d) {
      return std::chrono::duration<double, std::milli>(d).count();
    };
    MLContextOptions context_options;
    context_options.backend = backend;
    MLContext context = MLContext::create(context_options);
    MLGraphBuilder builder(context);
    const auto t0 = Clock::now();
    OnnxImportResult imported = import_onnx(builder, model, options);
    const auto t1 = Clock::now();
    MLGraph graph = builder.build(imported.outputs);
    const auto t2 = Clock::now();

    // The user's inputs, by ONNX input name (or the graph's name for it).
    std::map<std::string, std::string> files;  // graph input name -> .npy file
    for (const auto& [user_name, file] : input_files) {
      std::string name;
      for (const auto& [onnx_name, graph_name] : imported.inputNames)
        if (user_name == onnx_name || (name.empty() && user_name == graph_name)) name = graph_name;
      if (name.empty()) {
        std::string known;
        for (const auto& [onnx_name, graph_name] : imported.inputNames)
          known += (known.empty() ? "" : ", ") + onnx_name;
        throw DataError("--input " + user_name + "=" + file + ": " + model + " has no input '" +
                        user_name + "' (inputs: " + (known.empty() ? "none" : known) + ")");
      }
      if (!files.emplace(name, file).second)
        throw DataError("--input: input '" + user_name + "' given twice");
    }

    uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 1;
    std::map<std::string, std::vector<std::byte>> input_bytes;
    std::map<std::string, NamedBytes> ort_inputs;
    MLNamedTensors inputs, outputs;
    for (const auto& [onnx_name, name] : imported.inputNames) {
      const MLOperandDescriptor& desc = graph.inputs().at(name);
      // Generated either way, so one input's file leaves the other inputs' values unchanged.
      input_bytes[name] = pattern == "text"
                              ? text_input(desc, state, normalize.empty() ? "imagenet" : normalize)
                              : fixed_input(desc, state);
      if (auto it = files.find(name); it != files.end()) {
        auto npy = read_npy_file(it->second);
        if (!npy) throw_error(npy.error().kind, npy.error().message);
        if (npy->dataType != desc.dataType || npy->shape != desc.shape)
          throw DataError("input '" + onnx_name + "': " + it->second + " holds " +
                          to_string(MLOperandDescriptor{npy->dataType, npy->shape}) +
                          ", the model expects " + to_string(desc));
        input_bytes[name] = std::move(npy->data);
      }
      MLTensor t = context.createTensor(MLTensorDescriptor::of(desc, false, true));
      context.writeTensor(t, input_bytes[name]);
      inputs.emplace(name, t);
      ort_inputs[onnx_name] = NamedBytes{desc, input_bytes[name]};
    }
    std::map<std::string, std::vector<std::byte>> pinned_bytes;
    if (!options.inputValues.empty())
      for (const OnnxFileInput& in : onnx_file_inputs(model))
        if (auto it = options.inputValues.find(in.name); it != options.inputValues.end())
          ort_inputs[in.name] = pinned_feed(in, it->second, pinned_bytes[in.name]);
    std::map<std::string, MLOperandDescriptor> ort_outputs;
    for (const auto& [onnx_name, name] : imported.outputNames) {
      const MLOperandDescriptor& desc = graph.outputs().at(name);
      outputs.emplace(name, context.createTensor(MLTensorDescriptor::of(desc, true, false)));
      ort_outputs[onnx_name] = desc;
    }
    context.dispatch(graph, inputs, outputs);
    const auto t3 = Clock::now();
    auto expected = run_onnx_file(model, ort_inputs, ort_outputs);
    const auto t4 = Clock::now();
    std::cout << "compare-onnx: " << model << " on " << context.backend() << ": import "
              << ms(t1 - t0) << " ms, build " << ms(t2 - t1) << " ms, first dispatch "
              << ms(t3 - t2) << " ms (ORT on the original: " << ms(t4 - t3) << " ms)\n";
    report["backend"] = context.backend();
    report["importMs"] = ms(t1 - t0);
    report["buildMs"] = ms(t2 - t1);
    report["dispatchMs"] = ms(t3 - t2);
    report["ortMs"] = ms(t4 - t3);
    report["outputs"] = nlohmann::json::array();
    bool ok = true;
    for (const auto& [onnx_name, name] : imported.outputNames) {
      const MLOperandDescriptor& desc = graph.outputs().at(name);
      const auto got = as_doubles(desc, context.readTensor(outputs.at(name)));
      const auto want = as_doubles(desc, expected.at(onnx_name));
      const Tolerance tol = tolerance_for(desc.dataType, atol, rtol);
      const Comparison c = compare_values(got, want, tol);
      // NaN fails the L2 check.
      const bool l2_ok = !max_rel_l2 || c.rel_l2 < *max_rel_l2;
      const bool pass = c.outside == 0 && l2_ok;
      ok = ok && pass;
      report["outputs"].push_back({{"name", onnx_name},
                                   {"dataType", std::string(data_type_name(desc.dataType))},
                                   {"shape", desc.shape},
                                   {"elements", got.size()},
                                   {"maxAbs", c.max_abs},
                                   {"relL2", c.rel_l2},
                                   {"outside", c.outside},
                                   {"nonfiniteMismatch", c.nonfinite_mismatch},
                                   {"atol", tol.atol},
                                   {"rtol", tol.rtol},
                                   {"passed", pass}});
      std::cout << "  output '" << onnx_name << "' " << to_string(desc) << ": max abs " << c.max_abs
                << ", rel L2 " << c.rel_l2 << ", " << c.outside << " of " << got.size()
                << " elements outside atol " << tol.atol << " + rtol " << tol.rtol << " * |ort|"
                << (pass ? "" : "  FAILED") << "\n";
      if (c.worst)
        std::cout << "    worst element " << index_string(*c.worst, desc.shape) << " (flat "
                  << *c.worst << "): cppnn " << precise(got[*c.worst]) << ", ort "
                  << precise(want[*c.worst]) << ", |diff| "
                  << precise(std::fabs(got[*c.worst] - want[*c.worst])) << ", allowed "
                  << precise(tol.atol + tol.rtol * std::fabs(want[*c.worst])) << "\n";
      if (!l2_ok)
        std::cout << "    rel L2 " << c.rel_l2 << " is not below --max-rel-l2 " << *max_rel_l2
                  << "\n";
    }
    std::cout << "compare-onnx: " << (ok ? "passed" : "FAILED")
              << " (|cppnn - ort| <= atol + rtol * |ort|";
    if (atol) std::cout << ", atol " << *atol;
    if (rtol) std::cout << ", rtol " << *rtol;
    if (max_rel_l2) std::cout << ", max rel L2 " << *max_rel_l2;
    std::cout << ")\n";
    report["passed"] = ok;
    return write_report(ok ? 0 : 1);
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << "\n";
    report["passed"] = false;
    report["error"] = e.what();
    return write_report(1);
  }
}

}  // namespace cppnn::tool
