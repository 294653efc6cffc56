// The WPT conformance suite (shared/wpt/README.md §3-4): each case's graph is built through the
// public builder API the way WPT's buildAndExecuteGraph does, dispatched once on the context's
// backend through MLTensors, and every graph output is checked against the expected descriptor
// and data under the case's tolerance (wpt_compare.h). cast-storage.json's bit-exact storage
// cases (README §6) build one identity or cast and dispatch twice.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/dynamic_call.h"
#include "cppnn/errors.h"
#include "cppnn/onnx.h"
#include "cppnn/webnn.h"
#include "tools/cppnn/onnx_standalone.h"
#include "tools/cppnn/wpt_common.h"
#include "tools/cppnn/wpt_compare.h"

namespace cppnn::tool::wpt {
namespace {

// Conformance files keep object members in file order: an argument object with several members
// gives several positional arguments, in order (as WPT's buildAndExecuteGraph reads them).
using CJson = OrderedJson;

// The case fails with this message.
struct CaseFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- data ---------------------------------------------------------------------------------------

// A string where a number is expected: "NaN", "Infinity", "-Infinity", a decimal integer (exact,
// as for BigInt("45")) or another decimal number; nullopt for anything else.
std::optional<JsNumber> numeric_string(const std::string& s) {
  if (std::optional<double> d = non_finite_number(s)) return JsNumber::of_double(*d);
  const char* end = s.data() + s.size();
  int64_t i = 0;
  if (auto r = std::from_chars(s.data(), end, i); r.ec == std::errc() && r.ptr == end)
    return JsNumber::of_int64(i);
  uint64_t u = 0;
  if (auto r = std::from_chars(s.data(), end, u); r.ec == std::errc() && r.ptr == end)
    return JsNumber::of_uint64(u);
  double d = 0;
  if (auto r = std::from_chars(s.data(), end, d); r.ec == std::errc() && r.ptr == end && !s.empty())
    return JsNumber::of_double(d);
  return std::nullopt;
}

JsNumber js_number(const CJson& v) {
  switch (v.type()) {
    case Json::value_t::number_integer:
      return JsNumber::of_int64(v.get<int64_t>());
    case Json::value_t::number_unsigned:
      return JsNumber::of_uint64(v.get<uint64_t>());
    case Json::value_t::number_float:
      return JsNumber::of_double(v.get<double>());
    case Json::value_t::boolean:
      return JsNumber::of_int64(v.get<bool>() ? 1 : 0);
    case Json::value_t::string:
      if (std::optional<JsNumber> n = numeric_string(v.get_ref<const std::string&>())) return *n;
      break;
    default:
      break;
  }
  throw CaseFailure("corpus: " + v.dump() + " is not a number");
}

// A tensor's `data`: one number per element, or a single number (WPT fills the tensor with it).
std::vector<JsNumber> numbers(const CJson& data) {
  std::vector<JsNumber> out;
  if (!data.is_array()) {
    out.push_back(js_number(data));
    return out;
  }
  out.reserve(data.size());
  for (const CJson& v : data) out.push_back(js_number(v));
  return out;
}

size_t element_count_of(const MLOperandDescriptor& d) {
  size_t n = 1;
  for (uint32_t dim : d.shape) n *= dim;
  return n;
}

// The bytes WPT uploads for `data` (typed array conversion; int4/uint4 packed two per byte, the
// first element in the low nibble).
std::vector<std::byte> encode(const CJson& data, const MLOperandDescriptor& d,
                              const std::string& name) {
  const std::vector<JsNumber> values = numbers(data);
  const size_t count = element_count_of(d);
  const bool fill = !data.is_array();
  if (!fill && values.size() != count)
    throw CaseFailure("corpus: " + name + " has " + std::to_string(values.size()) + " values for " +
                      to_string(d));
  std::vector<std::byte> bytes(byte_length(d));
  const unsigned bits = data_type_bits(d.dataType);
  // One element's bytes (the low bytes of the typed bits: a little-endian host).
  auto put = [&](size_t i, uint64_t v) {
    if (bits == 4)
      bytes[i / 2] |= static_cast<std::byte>(i % 2 == 0 ? v : v << 4);
    else
      std::memcpy(bytes.data() + i * (bits / 8), &v, bits / 8);
  };
  const size_t first = fill ? std::min<size_t>(count, 2) : count;  // a fill: convert one value
  for (size_t i = 0; i < first; ++i) put(i, js_typed_bits(d.dataType, values[fill ? 0 : i]));
  if (fill && count > 2) {  // then copy it: whole bytes double until the tensor is full
    const size_t unit = bits == 4 ? 1 : bits / 8;
    size_t done = unit;
    while (done < bytes.size()) {
      const size_t n = std::min(done, bytes.size() - done);
      std::memcpy(bytes.data() + done, bytes.data(), n);
      done += n;
    }
    if (bits == 4 && count % 2) bytes.back() &= std::byte{0x0f};  // the unused high nibble
  }
  return bytes;
}

MLOperandDescriptor descriptor_of(const CJson& j, const std::string& what) {
  try {
    return descriptor_from_dyn(to_dyn(j, [](const CJson&) { return std::optional<DynValue>(); }),
                               what);
  } catch (const Error& e) {
    throw CaseFailure(std::string("corpus: bad descriptor: ") + e.what());
  }
}

bool is_pooling(std::string_view op) {
  return op == "averagePool2d" || op == "l2Pool2d" || op == "maxPool2d";
}

// ---- graph cases --------------------------------------------------------------------------------

struct Output {
  std::string name;
  MLOperandDescriptor descriptor;
  std::vector<JsNumber> expected;
};

// What a case compares after dispatch.
struct Outcome {
  double max_error = 0;
  std::string failure;  // empty: passed
};

class GraphCase {
 public:
  GraphCase(MLContext& context, const CJson& graph)
      : context_(context), graph_(graph), inputs_(graph.at("inputs")), builder_(context) {}

  MLGraph build(std::vector<Output>& outputs) {
    for (const CJson& op : graph_.at("operators")) record(op);
    MLNamedOperands named;
    const CJson& expected = graph_.at("expectedOutputs");
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      const auto found = operands_.find(it.key());
      if (found == operands_.end())
        throw CaseFailure("corpus: expected output " + it.key() + " is no operator's output");
      Output out{it.key(), descriptor_of(it->at("descriptor"), it.key()), numbers(it->at("data"))};
      const MLOperandDescriptor& got = found->second.descriptor();
      if (got != out.descriptor)
        throw CaseFailure("output " + it.key() + " is " + to_string(got) + ", expected " +
                          to_string(out.descriptor));
      const size_t count = element_count_of(out.descriptor);
      if (out.expected.size() != 1 && out.expected.size() != count)
        throw CaseFailure("corpus: expected output " + it.key() + " has " +
                          std::to_string(out.expected.size()) + " values for " +
                          to_string(out.descriptor));
      named.emplace(it.key(), found->second);
      outputs.push_back(std::move(out));
    }
    return builder_.build(named);
  }

  // The bytes of every graph input, by name.
  std::map<std::string, NamedBytes> input_bytes(const MLGraph& graph) {
    std::map<std::string, NamedBytes> in;
    for (const auto& [name, desc] : graph.inputs()) in[name] = {desc, bytes_of(name, desc)};
    return in;
  }

  // Binds the graph inputs, dispatches once and returns the outputs' bytes by name.
  std::map<std::string, std::vector<std::byte>> dispatch(const MLGraph& graph) {
    MLNamedTensors in, out;
    for (const auto& [name, desc] : graph.inputs()) {
      MLTensor t = context_.createTensor(MLTensorDescriptor::of(desc, false, true));
      context_.writeTensor(t, bytes_of(name, desc));
      in.emplace(name, t);
    }
    for (const auto& [name, desc] : graph.outputs())
      out.emplace(name, context_.createTensor(MLTensorDescriptor::of(desc, true, false)));
    context_.dispatch(graph, in, out);
    std::map<std::string, std::vector<std::byte>> result;
    for (const auto& [name, t] : out) result.emplace(name, context_.readTensor(t));
    return result;
  }

 private:
  const std::vector<std::byte>& bytes_of(const std::string& name, const MLOperandDescriptor& d) {
    auto it = bytes_.find(name);
    if (it == bytes_.end())
      it = bytes_.emplace(name, encode(inputs_.at(name).at("data"), d, name)).first;
    return it->second;
  }

  // The operand a name stands for: a graph input (a new constant at every use, one input() per
  // name) or an earlier operator output; nullopt for any other string.
  std::optional<MLOperand> operand(const CJson& value) {
    if (!value.is_string()) return std::nullopt;
    const std::string& name = value.get_ref<const std::string&>();
    if (const auto in = inputs_.find(name); in != inputs_.end()) {
      const MLOperandDescriptor d = descriptor_of(in->at("descriptor"), name);
      if (in->value("constant", false)) return builder_.constant(d, bytes_of(name, d));
      auto it = input_operands_.find(name);
      if (it == input_operands_.end())
        it = input_operands_.emplace(name, builder_.input(name, d)).first;
      return it->second;
    }
    if (const auto it = operands_.find(name); it != operands_.end()) return it->second;
    return std::nullopt;
  }

  static DynValue literal(const CJson& v) {
    return to_dyn(v, [](const CJson&) { return std::optional<DynValue>(); });
  }

  DynValue options(const CJson& o, const std::string& op) {
    if (!o.is_object()) return literal(o);
    DynValue::Object members;
    for (auto it = o.begin(); it != o.end(); ++it) {
      std::string key = it.key();
      if (is_pooling(op) && key == "roundingType" && !o.contains("outputShapeRounding"))
        key = "outputShapeRounding";  // the pre-rename name (README §8)
      std::optional<MLOperand> x = operand(*it);
      members.emplace_back(std::move(key), x ? DynValue(*x) : literal(*it));
    }
    return DynValue(std::move(members));
  }

  // One positional argument: options, concat's operand list, an operand or a literal.
  DynValue argument(const std::string& op, const std::string& key, const CJson& value) {
    if (key == "options") return options(value, op);
    if (op == "concat" && key == "inputs" && value.is_array()) {
      DynValue::Array list;
      for (const CJson& v : value) {
        std::optional<MLOperand> x = operand(v);
        list.push_back(x ? DynValue(*x) : literal(v));
      }
      return DynValue(std::move(list));
    }
    std::optional<MLOperand> x = operand(value);
    return x ? DynValue(*x) : literal(value);
  }

  void record(const CJson& op) {
    const std::string name = op.at("name").get<std::string>();
    std::vector<DynValue> args;
    for (const CJson& a : op.at("arguments")) {
      if (a.is_null()) continue;  // a JS array hole: WPT skips it
      if (!a.is_object()) throw CaseFailure("corpus: " + name + ": an argument is not an object");
      for (auto member = a.begin(); member != a.end(); ++member)
        args.push_back(argument(name, member.key(), member.value()));
    }
    const std::vector<MLOperand> results = call_builder_method(builder_, name, args);
    const CJson& outs = op.at("outputs");
    const CJson names = outs.is_array() ? outs : CJson::array({outs});
    if (names.size() > results.size())
      throw CaseFailure(name + " returned " + std::to_string(results.size()) +
                        " operands, the case names " + std::to_string(names.size()));
    for (size_t i = 0; i < names.size(); ++i)
      operands_.insert_or_assign(names[i].get<std::string>(), results[i]);
  }

  MLContext& context_;
  const CJson& graph_;
  const CJson& inputs_;
  MLGraphBuilder builder_;
  std::map<std::string, MLOperand> operands_;            // operator outputs by name
  std::map<std::string, MLOperand> input_operands_;      // input() operands by name
  std::map<std::string, std::vector<std::byte>> bytes_;  // encoded input data by name
};

Tolerance tolerance_of(const CJson& c) {
  const CJson& t = c.at("tolerance");
  const std::string metric = t.at("metricType").get<std::string>();
  if (metric != "ULP" && metric != "ATOL")
    throw CaseFailure("corpus: unknown metricType \"" + metric + "\"");
  return {metric == "ULP" ? Metric::kUlp : Metric::kAtol, js_number(t.at("value")).as_double()};
}

// Compares the outputs of one run with the expected values.
Outcome compare_outputs(const std::vector<Output>& outputs,
                        const std::map<std::string, std::vector<std::byte>>& results,
                        const Tolerance& tol, bool exact) {
  Outcome r;
  for (const Output& o : outputs) {
    const OutputCheck k = check_output(o.descriptor.dataType, results.at(o.name),
                                       element_count_of(o.descriptor), o.expected, tol, exact);
    r.max_error = std::max(r.max_error, k.max_error);
    if (k.mismatches && r.failure.empty())
      r.failure = o.name + ": " + std::to_string(k.mismatches) + " of " +
                  std::to_string(k.checked) + " elements differ, first " + k.first;
  }
  return r;
}

// The ONNX export check of a built graph (see OnnxExportCheck); an empty string when it passes.
std::string check_onnx_export(const OnnxExportCheck& check, GraphCase& g, const MLGraph& graph,
                              const std::vector<Output>& outputs, const Tolerance& tol,
                              bool exact) {
  try {
    check_onnx(graph.graph());
    const fs::path file = check.dir / "case.onnx";
    save_onnx(graph, file, {.externalDataThreshold = 64});
    if (!standalone_ort_available()) return {};
    const auto results = run_onnx_file(file, g.input_bytes(graph), graph.outputs());
    const Outcome o = compare_outputs(outputs, results, tol, exact);
    return o.failure.empty() ? std::string() : "onnx file on standalone ORT: " + o.failure;
  } catch (const Error& e) {
    return "onnx export: " + std::string(e.name()) + ": " + e.what();
  } catch (const std::exception& e) {
    return std::string("onnx export: ") + e.what();
  }
}

// The case's inputs as bytes by name (for the exports).
std::map<std::string, std::vector<std::byte>> input_copies(GraphCase& g, const MLGraph& graph) {
  std::map<std::string, std::vector<std::byte>> in;
  for (const auto& [name, b] : g.input_bytes(graph))
    in[name].assign(b.bytes.begin(), b.bytes.end());
  return in;
}

Outcome run_graph_case(MLContext& context, const CJson& c, const Tolerance& tol,
                       const std::string& id, const CaseExports& exports) {
  GraphCase g(context, c.at("graph"));
  std::vector<Output> outputs;
  std::optional<MLGraph> graph;
  try {
    graph = g.build(outputs);
  } catch (const Error& e) {
    throw CaseFailure("build: " + std::string(e.name()) + ": " + e.what());
  }
  if (exports.coreml)
    export_coreml_case(*exports.coreml, id, *graph, input_copies(g, *graph),
                       Json::parse(c.at("graph").at("expectedOutputs").dump()),
                       Json::parse(c.at("tolerance").dump()), c.value("exactCompare", false));
  const OnnxExportCheck* onnx_check = exports.onnx;
  std::map<std::string, std::vector<std::byte>> results;
  try {
    results = g.dispatch(*graph);
  } catch (const Error& e) {
    throw CaseFailure("dispatch: " + std::string(e.name()) + ": " + e.what());
  }
  const bool exact = c.value("exactCompare", false);
  if (exports.tflite)
    export_tflite_case(*exports.tflite, id, *graph, input_copies(g, *graph), results,
                       Json::parse(c.at("graph").at("expectedOutputs").dump()),
                       Json::parse(c.at("tolerance").dump()), exact);
  Outcome r = compare_outputs(outputs, results, tol, exact);
  if (r.failure.empty() && onnx_check)
    r.failure = check_onnx_export(*onnx_check, g, *graph, outputs, tol, exact);
  return r;
}

// ---- bit-exact storage cases (cast-storage.json) ------------------------------------------------

bool is_nan_bits(MLOperandDataType t, uint64_t b) {
  if (t == MLOperandDataType::kFloat16) return (b & 0x7c00) == 0x7c00 && (b & 0x03ff) != 0;
  if (t == MLOperandDataType::kFloat32) return (b & 0x7f800000) == 0x7f800000 && (b & 0x7fffff);
  return false;
}

Outcome run_storage_case(MLContext& context, const CJson& c, const std::string& id,
                         const CaseExports& exports) {
  auto type = [](const CJson& j) {
    const std::optional<MLOperandDataType> t = parse_data_type(j.get<std::string>());
    if (!t) throw CaseFailure("corpus: unknown data type " + j.dump());
    return *t;
  };
  const MLOperandDataType in_type = type(c.at("inputType")), out_type = type(c.at("outputType"));
  const MLOperandDescriptor in_desc{in_type, c.at("shape").get<std::vector<uint32_t>>()};
  const size_t count = element_count_of(in_desc), in_size = data_type_bits(in_type) / 8,
               out_size = data_type_bits(out_type) / 8;
  const CJson& in_bits = c.at("inputBits");
  const CJson& expected = c.at("expectedBits");
  if (in_size == 0 || out_size == 0)
    throw CaseFailure("corpus: bit-exact cases need whole-byte data types");
  if (in_bits.size() != count || expected.size() != count)
    throw CaseFailure("corpus: inputBits/expectedBits do not have one value per element");
  std::vector<std::byte> bytes(count * in_size);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t v = in_bits[i].get<uint64_t>();
    std::memcpy(bytes.data() + i * in_size, &v, in_size);
  }
  std::optional<MLGraph> graph;
  MLTensor input, output;
  try {
    MLGraphBuilder b(context);
    const bool constant = c.value("constant", false);
    const MLOperand x = constant ? b.constant(in_desc, bytes) : b.input("input", in_desc);
    const std::string op = c.at("operator").get<std::string>();
    std::vector<DynValue> args{DynValue(x)};
    if (op == "cast") args.emplace_back(std::string(data_type_name(out_type)));
    graph = b.build({{"output", call_builder_method(b, op, args).at(0)}});
  } catch (const Error& e) {
    throw CaseFailure("build: " + std::string(e.name()) + ": " + e.what());
  }
  if (exports.coreml) {
    std::map<std::string, std::vector<std::byte>> in;
    if (!graph->inputs().empty()) in.emplace("input", bytes);
    const Json expected_bits = {{"output", {{"bits", Json::parse(expected.dump())}}}};
    export_coreml_case(*exports.coreml, id, *graph, in, expected_bits,
                       {{"metricType", "bitExact"}, {"value", 0}}, true);
  }
  Outcome r;
  try {
    MLNamedTensors in;
    if (!graph->inputs().empty()) {
      input = context.createTensor(MLTensorDescriptor::of(in_desc, false, true));
      context.writeTensor(input, bytes);
      in.emplace("input", input);
    }
    output = context.createTensor({out_type, in_desc.shape, true, false});
    for (int run = 1; run <= 2; ++run) {  // WPT dispatches twice; both must match
      context.dispatch(*graph, in, {{"output", output}});
      const std::vector<std::byte> got = context.readTensor(output);
      if (run == 1 && exports.tflite) {
        std::map<std::string, std::vector<std::byte>> in_bytes;
        if (!graph->inputs().empty()) in_bytes.emplace("input", bytes);
        export_tflite_case(*exports.tflite, id, *graph, in_bytes, {{"output", got}},
                           {{"output", {{"bits", Json::parse(expected.dump())}}}},
                           {{"metricType", "bitExact"}, {"value", 0}}, true);
      }
      for (size_t i = 0; i < count && r.failure.empty(); ++i) {
        uint64_t g = 0;
        std::memcpy(&g, got.data() + i * out_size, out_size);
        const uint64_t e = expected[i].get<uint64_t>();
        if (g == e || (is_nan_bits(out_type, e) && is_nan_bits(out_type, g))) continue;
        r.max_error = 1;
        r.failure = "dispatch " + std::to_string(run) + ": [" + std::to_string(i) + "] bits " +
                    std::to_string(g) + ", expected " + std::to_string(e);
      }
    }
  } catch (const Error& e) {
    throw CaseFailure("dispatch: " + std::string(e.name()) + ": " + e.what());
  }
  return r;
}

CaseResult run_case(const std::string& file, const CJson& c, MLContext& context,
                    const CaseExports& exports) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult r;
  r.file = file;
  r.name = c.value("name", std::string());
  r.id = case_id(file, r.name, std::nullopt);
  const bool storage = !c.contains("graph") && c.contains("expectedBits");
  const size_t exported_before = exports.coreml ? exports.coreml->cases.size() : 0;
  const size_t tflite_before = exports.tflite ? exports.tflite->cases.size() : 0;
  r.fields = {{"metric", nullptr}, {"tolerance", nullptr}, {"max_error", nullptr}};
  try {
    if (c.value("dynamicShapes", false)) {
      r.status = CaseStatus::kSkipped;
      r.message = "dynamic-shape descriptors (a WebNN proposal) are not supported";
    } else if (storage) {
      r.fields["metric"] = "bitExact";
      r.fields["tolerance"] = 0;
      const Outcome o = run_storage_case(context, c, r.id, exports);
      r.fields["max_error"] = o.max_error;
      if (!o.failure.empty()) r.status = CaseStatus::kFailed;
      r.message = o.failure;
    } else {
      const Tolerance tol = tolerance_of(c);
      r.fields["metric"] = metric_name(tol.metric);
      r.fields["tolerance"] = tol.value;
      const Outcome o = run_graph_case(context, c, tol, r.id, exports);
      r.fields["max_error"] = o.max_error;  // an infinite error (NaN mismatch) is written as null
      if (!o.failure.empty()) r.status = CaseStatus::kFailed;
      r.message = o.failure;
    }
  } catch (const CaseFailure& e) {
    r.status = CaseStatus::kFailed;
    r.message = e.what();
  } catch (const Error& e) {  // from creating tensors or reading the corpus descriptors
    r.status = CaseStatus::kFailed;
    r.message = std::string(e.name()) + ": " + e.what();
  } catch (const Json::exception& e) {
    r.status = CaseStatus::kFailed;
    r.message = std::string("corpus: malformed case: ") + e.what();
  } catch (const std::exception& e) {  // not a cppnn::Error: a bug, but only this case fails
    r.status = CaseStatus::kFailed;
    r.message = std::string("unexpected exception (not a cppnn::Error): ") + e.what();
  }
  if (exports.coreml && exports.coreml->cases.size() == exported_before)
    record_coreml_failure(*exports.coreml, r.id,
                          r.message.empty() ? "not a graph case" : r.message);
  if (exports.tflite && exports.tflite->cases.size() == tflite_before)
    record_tflite_failure(*exports.tflite, r.id,
                          r.message.empty() ? "not a graph case" : r.message);
  else if (exports.tflite)
    record_tflite_outcome(*exports.tflite, status_name(r.status), r.message);
  r.time_ms = elapsed_ms(start);
  return r;
}

}  // namespace

std::vector<CaseResult> run_conformance_file(const fs::path& file, std::string_view filter,
                                             MLContext& context, const CaseExports& exports) {
  const std::string name = file.filename().string();
  std::vector<CaseResult> results;
  CJson cases;
  try {
    cases = load_ordered_json(file);
    if (!cases.is_array()) throw RunnerError(file.string() + ": expected an array of cases");
  } catch (const RunnerError& e) {
    CaseResult r;
    r.id = r.file = name;
    r.status = CaseStatus::kFailed;
    r.message = e.what();
    if (r.id.find(filter) != std::string::npos) results.push_back(std::move(r));
    return results;
  }
  for (const CJson& c : cases) {
    if (case_id(name, c.value("name", std::string()), std::nullopt).find(filter) ==
        std::string::npos)
      continue;
    if (context.is_lost()) context = MLContext::create({.backend = context.backend()});
    results.push_back(run_case(name, c, context, exports));
  }
  return results;
}

}  // namespace cppnn::tool::wpt
