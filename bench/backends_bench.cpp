// Metrics 6, 6b and 3 of docs/performance.md (../shared): every compiled-in product backend
// against ONNX Runtime on real models, at 1 and 2 threads. Models: four convnets
// (.deps/models/, scripts/fetch-models.sh and scripts/fetch-bench-models.sh): PP-OCRv4 det at
// 1x3x640x640, PP-OCRv4 rec at 1x3x48x320, PaddleOCR's MobileNetV3 direction classifier at
// 1x3x48x192 and RapidAI's PP-LCNet orientation classifier at 1x3x224x224; then every model of
// the real-model sweep (tests/models/sweep.tsv, docs/model-sweep.md; .deps/models/sweep/<id>.onnx,
// scripts/fetch-sweep-models.sh): detectors, classifiers and OCR (YOLOv8n, PicoDet, YOLOX, CNN +
// LSTM), audio (Silero VAD with control flow and LSTMs, openWakeWord's front end, embedding and
// wake-word heads) and text (MiniLM-L3, int64 token ids and attention mask), at the shapes of the
// row's flags. A sweep model that is also a convnet above is measured once, from whichever file
// exists (the convnet's first). Each is converted once with `cppnn convert-onnx` (found beside
// this program) with the model's flags (a sweep row's --input-shape, --override-dim and
// --input-value). Candidates: each cppnn backend of --backends on the converted graph (default:
// every compiled-in backend but the reference backend, the oracle, 70-150x slower; name it to
// include it), and raw ONNX Runtime (C++ API, same library, default graph optimisations) on the
// original file, each with numThreads / intra-op threads T and 1 inter-op thread.
//
// Inputs: every input of the converted graph, at its type and shape (the parent reads them from
// the graph file and passes them to the ONNX Runtime child, which feeds the same values under
// the inputs' ONNX names), plus, for ONNX Runtime, the inputs convert-onnx fixed (--input-value,
// shaped as the model declares them). The values are deterministic and the same in every child:
// float inputs the pattern of pattern_input() (float16: converted), integer inputs i % 97 + 1,
// uint8 and bool inputs 1, and a sweep row's --fill NAME=V sets every element of input NAME to V
// (its compare-only --input-pattern, --normalize and --seed are ignored).
//
// Every measurement runs in a fresh child process (this program re-executed with --measure):
// load, build (timed: cppnn's MLGraphBuilder::build() with the backend's passes and compilation,
// e.g. the TFLite conversion and LiteRT's compile; ORT's session creation), 3 warm-up runs, then
// N timed runs of dispatch + reading the outputs on the same deterministic inputs; the child
// prints its median and minimum, its peak RSS (VmHWM) and its build time, or the error that
// stopped it. The parent runs R rounds, rotating the candidates' order (A B C / B C A / C A B),
// and reports per model and thread count the median of the rounds' medians, their spread
// ((max - min) / median, the run's noise), the ratio to raw ONNX Runtime (and the ratio of the
// minimums, which background load disturbs less on a shared machine), the median build time,
// the peak RSS and its ratio, and the largest difference of the first output to raw ONNX
// Runtime's (ONNX Runtime's first output against the candidate's output of the same name, as
// float whatever its type; the candidate's first output when no name matches). A candidate that
// fails (e.g. a model its backend cannot build) is reported failed with its error and not run
// again for that model and thread count; a model convert-onnx cannot convert fails every
// candidate with the converter's error. JSON: reports/bench-backends.json (a failed candidate
// also keeps its child's distinct stderr lines, or the converter's; the children's stderr never
// reaches the terminal).
//
//   backends_bench [--backends cpu,ort,litert] [--rounds R] [--iterations N] [--threads 1,2]
//                  [--model NAME]... [--json PATH]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench/bench_models.h"
#include "bench/child_process.h"
#include "cppnn/float16.h"
#include "cppnn/formats.h"
#include "cppnn/onnx_import.h"
#include "cppnn/webnn.h"
#include "cppnn/weights.h"
#include "src/backends/reference/element.h"

#ifdef CPPNN_HAVE_ORT
#include <onnxruntime_cxx_api.h>
#endif

namespace {

namespace fs = std::filesystem;
using namespace cppnn;
using namespace cppnn::bench;
using Clock = std::chrono::steady_clock;

// The candidate name of raw ONNX Runtime on the original .onnx file (the peer of every ratio).
constexpr const char* kRawOrt = "onnxruntime";

// The comma-separated items of `s`, empty ones dropped.
std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) v.push_back(item);
  return v;
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Prints "ok median_ms min_ms peak_kb build_ms" for `run`, after 3 warm-up calls and
// `iterations` timed ones.
template <class Run>
void time_runs(Run&& run, int iterations, double build_ms) {
  for (int i = 0; i < 3; ++i) run();
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    const auto t = Clock::now();
    run();
    ms.push_back(ms_between(t, Clock::now()));
  }
  std::sort(ms.begin(), ms.end());
  std::printf("ok %.4f %.4f %ld %.4f\n", ms[ms.size() / 2], ms.front(), peak_rss_kb(), build_ms);
}

using ref::Half;  // float16 storage (src/backends/reference/element.h)
using ref::Tag;

#ifdef CPPNN_HAVE_ORT
// Calls f(Tag<T>{}) with T the element type of the ONNX type `t` (Half for float16), as
// ref::visit_data_type does for WebNN's types.
template <class F>
decltype(auto) visit_type(ONNXTensorElementDataType t, F&& f) {
  switch (t) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
      return f(Tag<float>{});
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
      return f(Tag<Half>{});
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
      return f(Tag<double>{});
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
      return f(Tag<int8_t>{});
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
      return f(Tag<uint8_t>{});
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
      return f(Tag<int16_t>{});
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
      return f(Tag<uint16_t>{});
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
      return f(Tag<int32_t>{});
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32:
      return f(Tag<uint32_t>{});
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
      return f(Tag<int64_t>{});
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
      return f(Tag<uint64_t>{});
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
      return f(Tag<bool>{});
    default:
      throw std::runtime_error("no inputs or outputs of ONNX element type " +
                               std::to_string(int(t)));
  }
}
#endif

// `values` as elements of type T, in bytes.
template <class T>
std::vector<std::byte> encode(const std::vector<double>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  for (size_t i = 0; i < values.size(); ++i) {
    const T v = static_cast<T>(values[i]);
    std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
  }
  return bytes;
}

// The `count` elements of type T at `data`, as float.
template <class T>
std::vector<float> decode(const void* data, size_t count) {
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, static_cast<const std::byte*>(data) + i * sizeof(T), sizeof(T));
    out[i] = static_cast<float>(v);
  }
  return out;
}

// Whether `a` and `b` name the same input: equal, or equal once sanitized as the ONNX importer
// names graph values (a model's ONNX name against its converted graph's name).
bool same_name(const std::string& a, const std::string& b) {
  return a == b || sanitize_onnx_name(a) == sanitize_onnx_name(b);
}

// `NAME=VALUE` -> {NAME, VALUE}; runtime_error when there is no '='.
std::pair<std::string, std::string> split_pair(const std::string& s, const char* what) {
  const size_t eq = s.find('=');
  if (eq == std::string::npos) throw std::runtime_error(std::string(what) + " " + s);
  return {s.substr(0, eq), s.substr(eq + 1)};
}

// The --fill value of input `name` (NAME=V pairs, by ONNX or graph name), if one names it.
std::optional<double> fill_of(const std::string& name, const std::vector<std::string>& fills) {
  for (const std::string& f : fills)
    if (const auto [n, v] = split_pair(f, "--fill"); same_name(n, name)) return std::stod(v);
  return std::nullopt;
}

// The generated values of an input of `n` elements: `fill` everywhere when given, else by kind:
// floats the pattern of pattern_input(), integers i % 97 + 1 (token ids stay in range), uint8 and
// bool 1.
enum class ValueKind { kFloat, kInteger, kOne };
std::vector<double> input_values(ValueKind kind, size_t n, std::optional<double> fill) {
  std::vector<double> v(n, fill.value_or(1.0));
  if (fill || kind == ValueKind::kOne) return v;
  if (kind == ValueKind::kFloat) {
    const std::vector<float> p = pattern_input(n);
    std::copy(p.begin(), p.end(), v.begin());
  } else {
    for (size_t i = 0; i < n; ++i) v[i] = double(i % 97 + 1);
  }
  return v;
}

// The value kind of a graph input of type `t`.
ValueKind kind_of(MLOperandDataType t) {
  if (t == MLOperandDataType::kFloat32 || t == MLOperandDataType::kFloat16)
    return ValueKind::kFloat;
  return t == MLOperandDataType::kUint8 ? ValueKind::kOne : ValueKind::kInteger;
}

// The input bytes of graph input `name` (`d`): the generated values as its type.
std::vector<std::byte> graph_input_bytes(const std::string& name, const MLOperandDescriptor& d,
                                         const std::vector<std::string>& fills) {
  const std::vector<double> v =
      input_values(kind_of(d.dataType), element_count(d.shape), fill_of(name, fills));
  return ref::visit_data_type(d.dataType,
                              [&](auto t) { return encode<typename decltype(t)::type>(v); });
}

// A child's outputs as float, by name, in the order it lists them (the graph's, the session's).
using NamedOutputs = std::vector<std::pair<std::string, std::vector<float>>>;

// Writes `outputs` to `path`: per output its name's length (uint32), name, element count
// (uint64) and float elements.
void write_outputs(const fs::path& path, const NamedOutputs& outputs) {
  std::ofstream out(path, std::ios::binary);
  for (const auto& [name, values] : outputs) {
    const uint32_t length = uint32_t(name.size());
    const uint64_t count = values.size();
    out.write(reinterpret_cast<const char*>(&length), sizeof length);
    out.write(name.data(), std::streamsize(length));
    out.write(reinterpret_cast<const char*>(&count), sizeof count);
    out.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(count * sizeof(float)));
  }
}

// The outputs write_outputs() wrote to `path`.
NamedOutputs read_outputs(const fs::path& path) {
  NamedOutputs outputs;
  std::ifstream in(path, std::ios::binary);
  for (uint32_t length; in.read(reinterpret_cast<char*>(&length), sizeof length);) {
    std::string name(length, '\0');
    uint64_t count = 0;
    in.read(name.data(), std::streamsize(length));
    in.read(reinterpret_cast<char*>(&count), sizeof count);
    std::vector<float> values(count);
    in.read(reinterpret_cast<char*>(values.data()),
            static_cast<std::streamsize>(count * sizeof(float)));
    if (!in) break;
    outputs.emplace_back(std::move(name), std::move(values));
  }
  return outputs;
}

// A cppnn backend on the converted graph: every input of the graph, generated (`fills`).
int measure_cppnn(const std::string& backend, const fs::path& graph_file, uint32_t threads,
                  int iterations, const fs::path& out, const std::vector<std::string>& fills) {
  MLContext context = MLContext::create({.backend = backend, .numThreads = threads});
  const std::string text = [&] {
    std::ifstream in(graph_file);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }();
  ExternalWeights ew = ExternalWeights::for_graph(graph_file);
  MLGraphBuilder builder(context);
  MLNamedOperands outputs =
      load_graph_file(builder, text, graph_file.string(),
                      [&](const std::string& name, const std::string& ref,
                          const MLOperandDescriptor& d) { return ew.load(ref, d, name); });
  const auto build_start = Clock::now();
  MLGraph graph = builder.build(outputs);
  const double build_ms = ms_between(build_start, Clock::now());
  MLNamedTensors inputs, results;
  for (const auto& [name, d] : graph.inputs()) {
    MLTensor x = context.createTensor(MLTensorDescriptor::of(d, false, true));
    context.writeTensor(x, graph_input_bytes(name, d, fills));
    inputs.emplace(name, x);
  }
  for (const auto& [name, d] : graph.outputs())
    results.emplace(name, context.createTensor(MLTensorDescriptor::of(d, true, false)));
  std::vector<std::vector<std::byte>> y(results.size());
  time_runs(
      [&] {
        context.dispatch(graph, inputs, results);
        size_t i = 0;
        for (const auto& [name, t] : results) y[i++] = context.readTensor(t);
      },
      iterations, build_ms);
  NamedOutputs named;
  size_t i = 0;
  for (const auto& [name, t] : results) {
    const MLOperandDescriptor& d = graph.outputs().at(name);
    named.emplace_back(name, ref::visit_data_type(d.dataType, [&](auto e) {
                         return decode<typename decltype(e)::type>(y[i].data(),
                                                                   element_count(d.shape));
                       }));
    ++i;
  }
  write_outputs(out, named);
  return 0;
}

// Raw ONNX Runtime on the original model: every input the session declares, fed the values of
// the converted graph's input of the same name (`graph_inputs`, their types and shapes), the
// value convert-onnx fixed (`pinned`, NAME=V0,V1,...) or else generated values at its declared
// shape (free dimensions 1).
int measure_onnxruntime(
    [[maybe_unused]] const fs::path& model, [[maybe_unused]] uint32_t threads,
    [[maybe_unused]] int iterations, [[maybe_unused]] const fs::path& out,
    [[maybe_unused]] const std::map<std::string, MLOperandDescriptor>& graph_inputs,
    [[maybe_unused]] const std::vector<std::string>& fills,
    [[maybe_unused]] const std::vector<std::string>& pinned) {
#ifdef CPPNN_HAVE_ORT
  Ort::Env env(ORT_LOGGING_LEVEL_ERROR, "backends_bench");
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(int(threads));
  options.SetInterOpNumThreads(1);
  const auto build_start = Clock::now();
  Ort::Session session(env, model.c_str(), options);
  const double build_ms = ms_between(build_start, Clock::now());
  Ort::AllocatorWithDefaultOptions allocator;
  const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeCPU);
  std::vector<std::string> in_names, out_names;
  std::vector<Ort::Value> x;
  std::deque<std::vector<std::byte>> x_bytes;  // the inputs' storage (x points into it)
  for (size_t i = 0; i < session.GetInputCount(); ++i) {
    const std::string name = session.GetInputNameAllocated(i, allocator).get();
    const Ort::TypeInfo type_info = session.GetInputTypeInfo(i);
    const auto info = type_info.GetTensorTypeAndShapeInfo();
    const ONNXTensorElementDataType type = info.GetElementType();
    std::vector<int64_t> shape = info.GetShape();
    std::vector<double> values;
    const auto in_graph = std::find_if(graph_inputs.begin(), graph_inputs.end(),
                                       [&](const auto& g) { return same_name(name, g.first); });
    const auto fixed = std::find_if(pinned.begin(), pinned.end(), [&](const std::string& p) {
      return same_name(split_pair(p, "--input-value").first, name);
    });
    if (in_graph != graph_inputs.end()) {
      const MLOperandDescriptor& d = in_graph->second;
      shape.assign(d.shape.begin(), d.shape.end());
      values = input_values(kind_of(d.dataType), element_count(d.shape),
                            fill_of(in_graph->first, fills));
    } else if (fixed != pinned.end()) {
      for (const std::string& v : split(split_pair(*fixed, "--input-value").second))
        values.push_back(std::stod(v));
      size_t declared = 1;
      bool is_static = true;
      for (int64_t d : shape) {
        is_static = is_static && d >= 0;
        declared *= d >= 0 ? size_t(d) : 1;
      }
      if (shape.size() == 1 && !(is_static && declared == values.size()))
        shape = {int64_t(values.size())};
      else if (!is_static || declared != values.size())
        throw std::runtime_error("--input-value " + name + ": " + std::to_string(values.size()) +
                                 " values do not fill its declared shape (rank " +
                                 std::to_string(shape.size()) + ")");
    } else {
      size_t n = 1;
      for (int64_t& d : shape) n *= size_t(d = std::max<int64_t>(d, 1));
      const bool is_float = type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT ||
                            type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 ||
                            type == ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE;
      const bool is_one =
          type == ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL;
      values = input_values(
          is_float ? ValueKind::kFloat : (is_one ? ValueKind::kOne : ValueKind::kInteger), n,
          fill_of(name, fills));
    }
    x_bytes.push_back(
        visit_type(type, [&](auto t) { return encode<typename decltype(t)::type>(values); }));
    x.push_back(Ort::Value::CreateTensor(memory, x_bytes.back().data(), x_bytes.back().size(),
                                         shape.data(), shape.size(), type));
    in_names.push_back(name);
  }
  for (size_t i = 0; i < session.GetOutputCount(); ++i)
    out_names.push_back(session.GetOutputNameAllocated(i, allocator).get());
  std::vector<const char*> in_c, out_c;
  for (const std::string& n : in_names) in_c.push_back(n.c_str());
  for (const std::string& n : out_names) out_c.push_back(n.c_str());
  std::vector<std::vector<std::byte>> y(out_names.size());
  std::vector<ONNXTensorElementDataType> y_types(out_names.size());
  std::vector<size_t> y_counts(out_names.size());
  time_runs(
      [&] {
        std::vector<Ort::Value> r = session.Run(Ort::RunOptions{nullptr}, in_c.data(), x.data(),
                                                x.size(), out_c.data(), out_c.size());
        for (size_t k = 0; k < r.size(); ++k) {
          const auto info = r[k].GetTensorTypeAndShapeInfo();
          y_types[k] = info.GetElementType();
          y_counts[k] = info.GetElementCount();
          const size_t size =
              visit_type(y_types[k], [](auto t) { return sizeof(typename decltype(t)::type); });
          const auto* data = static_cast<const std::byte*>(r[k].GetTensorRawData());
          y[k].assign(data, data + y_counts[k] * size);
        }
      },
      iterations, build_ms);
  NamedOutputs named;
  for (size_t k = 0; k < out_names.size(); ++k)
    named.emplace_back(out_names[k], visit_type(y_types[k], [&](auto t) {
                         return decode<typename decltype(t)::type>(y[k].data(), y_counts[k]);
                       }));
  write_outputs(out, named);
  return 0;
#else
  std::printf("error this build has no ONNX Runtime\n");
  return 3;
#endif
}

// Runs one child mode, turning an exception into "error MESSAGE" on one line and status 4.
template <class F>
int report_errors(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    std::printf("error %s\n", what.c_str());
    return 4;
  }
}

// One child's figures, or the reason it gave none.
struct Sample {
  double median_ms = 0, min_ms = 0, build_ms = 0;
  long peak_kb = 0;
  NamedOutputs outputs;
  std::vector<std::string> log;  // the child's distinct stderr lines (at most 20)
  std::string error;             // empty when the child measured
};

// The distinct non-empty lines of `path`, in order, at most `limit`.
std::vector<std::string> distinct_lines(const fs::path& path, size_t limit) {
  std::vector<std::string> lines;
  std::set<std::string> seen;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line) && lines.size() < limit;)
    if (!line.empty() && seen.insert(line).second) lines.push_back(line);
  return lines;
}

// Runs the child `--measure ARGS...`; its stderr goes to `log`, its output to `out`.
Sample measure(const std::string& self, const std::vector<std::string>& args, const fs::path& out,
               const fs::path& log) {
  std::vector<std::string> argv{self, "--measure"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto [status, text] = run_child(argv, log);
  Sample s;
  s.log = distinct_lines(log, 20);
  if (status == 0 && std::sscanf(text.c_str(), "ok %lf %lf %ld %lf", &s.median_ms, &s.min_ms,
                                 &s.peak_kb, &s.build_ms) == 4) {
    s.outputs = read_outputs(out);
    return s;
  }
  const size_t at = text.rfind("\nerror ");  // the child's "error MESSAGE" line
  if (text.rfind("error ", 0) == 0 || at != std::string::npos) {
    s.error = text.substr(at == std::string::npos ? 6 : at + 7);
    if (const size_t end = s.error.find('\n'); end != std::string::npos) s.error.resize(end);
  } else {
    s.error = status > 128 ? "killed by signal " + std::to_string(status - 128)
                           : "exit status " + std::to_string(status);
    if (!s.log.empty()) s.error += ": " + s.log.back();
  }
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

// (max - min) / median of the rounds' medians: how much the rounds disagree.
double spread(const std::vector<double>& v) {
  if (v.empty()) return NAN;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return (*hi - *lo) / median(v);
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(double(a[i]) - double(b[i])));
  return d;
}

// The largest difference of ONNX Runtime's first output (`ort`, the model's order) to the
// candidate's output of the same name (the converted graph's sanitized name), or to the
// candidate's first output when none has that name; NaN when either has no output.
double first_output_diff(const NamedOutputs& candidate, const NamedOutputs& ort) {
  if (candidate.empty() || ort.empty()) return NAN;
  const auto same = std::find_if(candidate.begin(), candidate.end(), [&](const auto& c) {
    return same_name(c.first, ort.front().first);
  });
  return max_abs_diff((same != candidate.end() ? *same : candidate.front()).second,
                      ort.front().second);
}

std::vector<uint32_t> parse_list(const std::string& s) {
  std::vector<uint32_t> v;
  for (const std::string& item : split(s)) v.push_back(uint32_t(std::stoul(item)));
  return v;
}

// What the rounds gathered for one candidate on one model and thread count.
struct Tally {
  std::vector<double> medians, builds;
  double min_ms = INFINITY;
  Sample last;
  std::string error;  // the first failure; the candidate is not run again
};

// The rows of one model and thread count: the table lines and the JSON results.
void report(const std::string& model, uint32_t threads, const std::vector<std::string>& candidates,
            std::map<std::string, Tally>& tally, nlohmann::json& results) {
  const bool have_ort = tally.count(kRawOrt) && tally[kRawOrt].error.empty();
  const Tally* ort = have_ort ? &tally[kRawOrt] : nullptr;
  const double ort_ms = have_ort ? median(ort->medians) : NAN;
  for (const std::string& who : candidates) {
    const Tally& t = tally[who];
    nlohmann::json row = {{"model", model}, {"threads", threads}, {"candidate", who}};
    if (!t.error.empty()) {
      std::printf("%-18s %3u %-12s FAILED: %s\n", model.c_str(), threads, who.c_str(),
                  t.error.c_str());
      row["status"] = "failed";
      row["error"] = t.error;
      if (!t.last.log.empty()) row["child_stderr"] = t.last.log;
    } else {
      const double ms = median(t.medians);
      const double build_ms = median(t.builds);
      const double mem = have_ort ? double(t.last.peak_kb) / double(ort->last.peak_kb) : NAN;
      const double diff = have_ort ? first_output_diff(t.last.outputs, ort->last.outputs) : NAN;
      const double min_ratio = have_ort ? t.min_ms / ort->min_ms : NAN;
      std::printf("%-18s %3u %-12s %10.2f %10.2f %7.1f %8.3f %8.3f %9.1f %9.1f %8.3f %10.3g\n",
                  model.c_str(), threads, who.c_str(), ms, t.min_ms, 100 * spread(t.medians),
                  ms / ort_ms, min_ratio, build_ms, double(t.last.peak_kb) / 1024.0, mem, diff);
      row.update({{"status", "ok"},
                  {"median_ms", ms},
                  {"min_ms", t.min_ms},
                  {"round_medians_ms", t.medians},
                  {"round_spread", spread(t.medians)},
                  {"ratio_to_onnxruntime", ms / ort_ms},
                  {"min_ratio_to_onnxruntime", min_ratio},
                  {"build_ms", build_ms},
                  {"round_build_ms", t.builds},
                  {"peak_rss_kb", t.last.peak_kb},
                  {"peak_rss_ratio_to_onnxruntime", mem},
                  {"max_abs_diff_to_onnxruntime", diff}});
    }
    results.push_back(row);
  }
  std::fflush(stdout);
}

// The cppnn backends measured by default: every compiled-in one but the reference backend.
std::vector<std::string> default_backends() {
  std::vector<std::string> v;
  for (const std::string& b : available_backends())
    if (b != "reference") v.push_back(b);
  return v;
}

// The options after a child mode's fixed arguments: --fill NAME=V and --input-value
// NAME=V0,V1,... pairs as the model gives them, and --input NAME=TYPE:D0,D1,... (the converted
// graph's inputs, for the ONNX Runtime child).
struct ChildOptions {
  std::map<std::string, MLOperandDescriptor> inputs;
  std::vector<std::string> fills, pinned;
};

ChildOptions parse_child_options(int argc, char** argv, int first) {
  ChildOptions o;
  for (int i = first; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--fill") {
      o.fills.push_back(value);
    } else if (flag == "--input-value") {
      o.pinned.push_back(value);
    } else if (flag == "--input") {
      const auto [name, spec] = split_pair(value, "--input");
      const size_t colon = spec.find(':');
      const auto type = parse_data_type(spec.substr(0, colon));
      if (colon == std::string::npos || !type) throw std::runtime_error("--input " + value);
      MLOperandDescriptor d{*type, {}};
      for (uint32_t dim : parse_list(spec.substr(colon + 1))) d.shape.push_back(dim);
      o.inputs.emplace(name, d);
    } else {
      throw std::runtime_error("unknown child option " + flag);
    }
  }
  return o;
}

// The inputs of the converted graph `graph_file` (names, types, static shapes), read from its
// GraphJson form without loading its weights.
std::map<std::string, MLOperandDescriptor> graph_file_inputs(const fs::path& graph_file) {
  std::ifstream in(graph_file);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const nlohmann::json doc = nlohmann::json::parse(format_graph_json(text, graph_file.string()));
  std::map<std::string, MLOperandDescriptor> inputs;
  for (const auto& [name, input] : doc.at("inputs").items()) {
    const auto type = parse_data_type(input.at("dataType").get<std::string>());
    if (!type) throw std::runtime_error("input " + name + ": unknown data type");
    MLOperandDescriptor d{*type, {}};
    for (const nlohmann::json& dim : input.at("shape")) {
      if (dim.is_object() && dim.contains("maxSize")) {  // a dynamic dimension: its maximum
        d.shape.push_back(dim.at("maxSize").get<uint32_t>());
        continue;
      }
      if (!dim.is_number_unsigned())
        throw std::runtime_error("input " + name + " has a dimension that is not a size");
      d.shape.push_back(dim.get<uint32_t>());
    }
    inputs.emplace(name, d);
  }
  return inputs;
}

}  // namespace

int main(int argc, char** argv) {
  // Child modes: --measure cppnn BACKEND GRAPH THREADS N OUT [--fill NAME=V]...
  //            | --measure onnxruntime MODEL THREADS N OUT [--input NAME=TYPE:D0,D1,...]...
  //                        [--fill NAME=V]... [--input-value NAME=V0,V1,...]...
  if (argc >= 8 && std::string(argv[1]) == "--measure" && std::string(argv[2]) == "cppnn")
    return report_errors([&] {
      const ChildOptions o = parse_child_options(argc, argv, 8);
      return measure_cppnn(argv[3], argv[4], uint32_t(std::stoul(argv[5])), std::stoi(argv[6]),
                           argv[7], o.fills);
    });
  if (argc >= 7 && std::string(argv[1]) == "--measure" && std::string(argv[2]) == kRawOrt)
    return report_errors([&] {
      const ChildOptions o = parse_child_options(argc, argv, 7);
      return measure_onnxruntime(argv[3], uint32_t(std::stoul(argv[4])), std::stoi(argv[5]),
                                 argv[6], o.inputs, o.fills, o.pinned);
    });
  int rounds = 3, iterations = 30;
  std::vector<uint32_t> thread_counts{1, 2};
  std::vector<std::string> only, backends = default_backends();
  std::string json_path = "reports/bench-backends.json";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--backends") {
      backends = split(next());
    } else if (a == "--rounds") {
      rounds = std::stoi(next());
    } else if (a == "--iterations") {
      iterations = std::stoi(next());
    } else if (a == "--threads") {
      thread_counts = parse_list(next());
    } else if (a == "--model") {
      only.push_back(next());
    } else if (a == "--json") {
      json_path = next();
    } else {
      std::cerr << "usage: backends_bench [--backends cpu,ort,litert] [--rounds R] "
                   "[--iterations N] [--threads 1,2] [--model NAME]... [--json PATH]\n";
      return a == "--help" ? 0 : 1;
    }
  }
  const std::vector<std::string> compiled = available_backends();
  for (const std::string& b : backends)
    if (std::find(compiled.begin(), compiled.end(), b) == compiled.end()) {
      std::cerr << "backends_bench: no backend '" << b << "' in this build\n";
      return 1;
    }
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const fs::path tool = fs::path(self).parent_path() / "cppnn";
  std::string pattern = (fs::temp_directory_path() / "cppnn-backends-bench-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) return 2;
  const fs::path dir = pattern;
  std::vector<std::string> candidates = backends;
#ifdef CPPNN_HAVE_ORT
  candidates.push_back(kRawOrt);
#endif
  nlohmann::json report_json = {{"benchmark", "backends"},
                                {"candidates", candidates},
                                {"rounds", rounds},
                                {"iterations", iterations},
                                {"results", nlohmann::json::array()}};
  std::printf("%-18s %3s %-12s %10s %10s %7s %8s %8s %9s %9s %8s %10s\n", "model", "thr",
              "candidate", "median_ms", "min_ms", "spread%", "vs_ort", "min_vs", "build_ms",
              "peak_MiB", "mem_vs", "max_diff");
  const std::vector<Model> models = load_models();
  for (const std::string& name : only)
    if (std::none_of(models.begin(), models.end(), [&](const Model& m) { return m.name == name; }))
      std::fprintf(stderr, "backends_bench: no model '%s'\n", name.c_str());
  for (const Model& m : models) {
    if (!only.empty() && std::find(only.begin(), only.end(), m.name) == only.end()) continue;
    const fs::path onnx = fs::path(".deps/models") / m.file;
    if (!fs::exists(onnx)) {
      std::printf("%-18s skipped: %s missing (%s)\n", m.name.c_str(), onnx.c_str(),
                  m.fetch.c_str());
      continue;
    }
    const fs::path own_graph = m.graph.empty() ? fs::path() : fs::path(".deps/models") / m.graph;
    if (!m.graph.empty() && !fs::exists(own_graph)) {
      std::printf("%-18s skipped: %s missing (%s)\n", m.name.c_str(), own_graph.c_str(),
                  m.fetch.c_str());
      continue;
    }
    const fs::path graph = m.graph.empty() ? dir / (m.name + ".webnn") : own_graph;
    std::vector<std::string> convert{tool.string(), "convert-onnx", onnx.string(), "-o",
                                     graph.string()};
    convert.insert(convert.end(), m.convert_args.begin(), m.convert_args.end());
    // Why no candidate can run (the conversion, or reading its graph, failed) and the
    // converter's distinct stderr lines.
    std::string setup_error;
    std::vector<std::string> setup_log;
    // The options of the children: the generated inputs' fixed values, and for ONNX Runtime the
    // converted graph's inputs and the inputs the conversion fixed.
    std::vector<std::string> cppnn_options, ort_options;
    // The model's own cppnn graph is used as it is.
    if (const int status = m.graph.empty() ? run_child(convert, dir / "convert.log").first : 0;
        status != 0) {
      std::fprintf(stderr, "backends_bench: converting %s failed\n", m.name.c_str());
      setup_log = distinct_lines(dir / "convert.log", 20);
      setup_error = "convert-onnx: " + (setup_log.empty() ? "exit status " + std::to_string(status)
                                                          : setup_log.back());
    } else {
      try {
        for (const auto& [name, d] : graph_file_inputs(graph)) {
          std::string spec = name + "=" + std::string(data_type_name(d.dataType)) + ":";
          for (size_t i = 0; i < d.shape.size(); ++i)
            spec += (i ? "," : "") + std::to_string(d.shape[i]);
          ort_options.insert(ort_options.end(), {"--input", spec});
        }
      } catch (const std::exception& e) {
        setup_error = std::string("reading the converted graph: ") + e.what();
      }
      for (const std::string& f : m.fills) {
        cppnn_options.insert(cppnn_options.end(), {"--fill", f});
        ort_options.insert(ort_options.end(), {"--fill", f});
      }
      for (size_t i = 0; i + 1 < m.convert_args.size(); i += 2)
        if (m.convert_args[i] == "--input-value")
          ort_options.insert(ort_options.end(), {"--input-value", m.convert_args[i + 1]});
    }
    for (uint32_t threads : thread_counts) {
      std::map<std::string, Tally> tally;
      if (!setup_error.empty())
        for (const std::string& who : candidates) {
          tally[who].error = setup_error;
          tally[who].last.log = setup_log;
        }
      for (int r = 0; r < rounds; ++r) {
        for (size_t c = 0; c < candidates.size(); ++c) {
          const std::string& who = candidates[(c + size_t(r)) % candidates.size()];
          Tally& t = tally[who];
          if (!t.error.empty()) continue;
          const fs::path out = dir / (who + ".out");
          const std::string model_file = who == kRawOrt ? onnx.string() : graph.string();
          std::vector<std::string> args{who == kRawOrt ? kRawOrt : "cppnn"};
          if (who != kRawOrt) args.push_back(who);
          args.insert(args.end(), {model_file, std::to_string(threads), std::to_string(iterations),
                                   out.string()});
          const std::vector<std::string>& options = who == kRawOrt ? ort_options : cppnn_options;
          args.insert(args.end(), options.begin(), options.end());
          Sample s = measure(self, args, out, dir / (who + ".log"));
          if (!s.error.empty()) {
            t.error = s.error;
            t.last = std::move(s);
            continue;
          }
          t.medians.push_back(s.median_ms);
          t.builds.push_back(s.build_ms);
          t.min_ms = std::min(t.min_ms, s.min_ms);
          t.last = std::move(s);
        }
      }
      report(m.name, threads, candidates, tally, report_json["results"]);
    }
  }
  fs::remove_all(dir);
  if (fs::path(json_path).has_parent_path())
    fs::create_directories(fs::path(json_path).parent_path());
  std::ofstream(json_path) << report_json.dump(2) << "\n";
  std::printf("report: %s\n", json_path.c_str());
  return 0;
}
