// One case of `cppnn onnx-tests`: model.onnx imported with each data set's input shapes, built,
// dispatched on the context's backend and every output compared with output_<i>.pb by position
// (see onnx_tests.h).
#include <algorithm>
#include <charconv>
#include <chrono>
#include <map>
#include <memory>

#include "cppnn/errors.h"
#include "cppnn/onnx_import.h"
#include "cppnn/webnn.h"
#include "tools/cppnn/onnx_tests.h"

namespace cppnn::tool::onnx_tests {

std::string_view status_name(CaseStatus s) {
  switch (s) {
    case CaseStatus::kPassed:
      return "passed";
    case CaseStatus::kFailed:
      return "failed";
    case CaseStatus::kSkipped:
      return "skipped";
  }
  return "failed";
}

namespace {

using Shapes = std::map<std::string, std::vector<uint32_t>>;

// A data set: its inputs by ONNX input name and its expected outputs in order.
struct DataSet {
  std::string name;  // the folder name
  std::map<std::string, TestTensor> inputs;
  std::vector<TestTensor> outputs;
};

// The test_data_set_<k> folders of a case, by k.
std::vector<fs::path> data_set_dirs(const fs::path& dir) {
  std::vector<std::pair<unsigned, fs::path>> found;
  const std::string prefix = "test_data_set_";
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    unsigned k = 0;
    const char* end = name.data() + name.size();
    if (!entry.is_directory() || name.rfind(prefix, 0) != 0) continue;
    if (auto r = std::from_chars(name.data() + prefix.size(), end, k); r.ptr == end)
      found.emplace_back(k, entry.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> dirs;
  for (auto& [k, p] : found) dirs.push_back(std::move(p));
  return dirs;
}

// <prefix>_0.pb, <prefix>_1.pb, ... while they exist.
std::vector<TestTensor> read_numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<TestTensor> out;
  for (size_t i = 0;; ++i) {
    const fs::path file = dir / (prefix + "_" + std::to_string(i) + ".pb");
    if (!fs::exists(file)) break;
    out.push_back(read_test_tensor(file));
  }
  return out;
}

DataSet read_data_set(const fs::path& dir, const ModelInfo& model) {
  DataSet d;
  d.name = dir.filename().string();
  std::vector<TestTensor> inputs = read_numbered(dir, "input");
  if (inputs.size() > model.inputs.size())
    throw CaseFailure(d.name + " has " + std::to_string(inputs.size()) +
                      " inputs, the model takes " + std::to_string(model.inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    // By TensorProto name when it names a model input, else by position.
    const bool named =
        std::find(model.inputs.begin(), model.inputs.end(), inputs[i].name) != model.inputs.end();
    const std::string& key = named ? inputs[i].name : model.inputs[i];
    if (!d.inputs.emplace(key, std::move(inputs[i])).second)
      throw CaseFailure(d.name + ": two inputs for model input '" + key + "'");
  }
  d.outputs = read_numbered(dir, "output");
  if (d.outputs.size() > model.output_count)
    throw CaseFailure(d.name + " has " + std::to_string(d.outputs.size()) +
                      " outputs, the model has " + std::to_string(model.output_count));
  return d;
}

std::string shape_text(std::span<const uint32_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

// The model imported and built for one set of input shapes (and fixed input values).
struct Prepared {
  Shapes shapes;
  std::map<std::string, std::vector<std::byte>> fixed;  // inputs fixed at conversion
  OnnxImportResult result;
  MLGraph graph;
};

// The graph input an import error asks to fix at conversion ("graph input 'x' must be fixed at
// conversion"), or "".
std::string input_to_fix(const std::string& message) {
  static const std::string kStart = "graph input '", kEnd = "' must be fixed at conversion";
  const size_t end = message.find(kEnd);
  if (end == std::string::npos) return "";
  const size_t start = message.rfind(kStart, end);
  if (start == std::string::npos) return "";
  return message.substr(start + kStart.size(), end - start - kStart.size());
}

// Imports with the data set's shapes. Inputs that WebNN needs when the graph is built (axes,
// shapes, k ... fed as graph inputs by the ONNX node tests) are fixed to the data set's values
// (OnnxImportOptions::inputValues), one at a time as the importer names them.
Prepared prepare(const fs::path& model, const Shapes& shapes, const DataSet& d,
                 MLContext& context) {
  OnnxImportOptions options;
  options.inputShapes = shapes;
  std::map<std::string, std::vector<std::byte>> fixed;
  std::unique_ptr<MLGraphBuilder> owned;
  OnnxImportResult result;
  for (;;) {
    owned = std::make_unique<MLGraphBuilder>(context);
    try {
      result = import_onnx(*owned, model, options);
      break;
    } catch (const Error& e) {
      const std::string name = input_to_fix(e.what());
      const auto data = d.inputs.find(name);
      if (name.empty() || data == d.inputs.end() || options.inputValues.count(name))
        throw CaseFailure("import: " + std::string(e.name()) + ": " + e.what());
      options.inputValues[name] = {{data->second.type, data->second.shape}, data->second.bytes};
      fixed[name] = data->second.bytes;
    }
  }
  MLGraphBuilder& builder = *owned;
  try {
    MLGraph graph = builder.build(result.outputs);
    return Prepared{shapes, std::move(fixed), std::move(result), std::move(graph)};
  } catch (const Error& e) {
    throw CaseFailure("build: " + std::string(e.name()) + ": " + e.what());
  }
}

// Dispatches one data set; returns the largest float error, throws CaseFailure on a mismatch.
std::optional<double> run_data_set(const Prepared& p, const DataSet& d, MLContext& context,
                                   const Tolerance& tolerance) {
  MLNamedTensors inputs, outputs;
  try {
    for (const auto& [name, desc] : p.graph.inputs()) {
      const auto onnx = std::find_if(p.result.inputNames.begin(), p.result.inputNames.end(),
                                     [&](const auto& n) { return n.second == name; });
      const std::string onnx_name = onnx == p.result.inputNames.end() ? name : onnx->first;
      const auto data = d.inputs.find(onnx_name);
      if (data == d.inputs.end())
        throw CaseFailure(d.name + ": no data for graph input '" + onnx_name + "'");
      const TestTensor& t = data->second;
      if (t.type != desc.dataType || t.shape != desc.shape)
        throw CaseFailure(d.name + ": graph input '" + onnx_name + "' is " +
                          std::string(data_type_name(desc.dataType)) + " " +
                          shape_text(desc.shape) + ", the data " +
                          std::string(data_type_name(t.type)) + " " + shape_text(t.shape));
      MLTensor tensor = context.createTensor(MLTensorDescriptor::of(desc, false, true));
      context.writeTensor(tensor, t.bytes);
      inputs.emplace(name, std::move(tensor));
    }
    for (const auto& [name, desc] : p.graph.outputs())
      outputs.emplace(name, context.createTensor(MLTensorDescriptor::of(desc, true, false)));
    context.dispatch(p.graph, inputs, outputs);
  } catch (const Error& e) {
    throw CaseFailure(d.name + ": dispatch: " + std::string(e.name()) + ": " + e.what());
  }
  std::optional<double> max_error;
  std::string failure;
  for (size_t i = 0; i < d.outputs.size(); ++i) {
    const auto& [onnx_name, name] = p.result.outputNames.at(i);
    const auto tensor = outputs.find(name);
    if (tensor == outputs.end())
      throw CaseFailure(d.name + ": the graph has no output '" + name + "' (ONNX output " +
                        std::to_string(i) + " '" + onnx_name + "')");
    std::vector<std::byte> got;
    try {
      got = context.readTensor(tensor->second);
    } catch (const Error& e) {
      throw CaseFailure(d.name + ": readTensor: " + std::string(e.name()) + ": " + e.what());
    }
    const MLTensor& t = tensor->second;
    const Comparison c = compare_output(
        d.outputs[i], t.dataType(), t.shape(), got,
        d.name + ": output " + std::to_string(i) + " '" + onnx_name + "'", tolerance);
    if (is_floating_point(t.dataType()) || !c.ok)
      max_error = std::max(max_error.value_or(0), c.max_abs_error);
    if (!c.ok && failure.empty()) failure = c.message;
  }
  if (!failure.empty()) throw CaseFailure(failure);
  return max_error;
}

void run_data_sets(const fs::path& dir, MLContext& context, const Tolerance& tolerance,
                   CaseResult& r) {
  const fs::path model = dir / "model.onnx";
  if (!fs::is_regular_file(model)) throw CaseFailure("no model.onnx in " + dir.string());
  const ModelInfo info = read_model_info(model);
  const std::vector<fs::path> sets = data_set_dirs(dir);
  if (sets.empty()) throw CaseFailure("no test_data_set_<k> folder in " + dir.string());
  std::optional<Prepared> prepared;
  for (const fs::path& set : sets) {
    const DataSet d = read_data_set(set, info);
    Shapes shapes;
    for (const auto& [name, t] : d.inputs) shapes.emplace(name, t.shape);
    bool same_fixed = prepared.has_value();
    if (prepared)
      for (const auto& [name, bytes] : prepared->fixed)
        same_fixed = same_fixed && d.inputs.count(name) && d.inputs.at(name).bytes == bytes;
    if (!prepared || prepared->shapes != shapes || !same_fixed) {
      prepared.reset();
      prepared = prepare(model, shapes, d, context);
      for (const auto& [name, bytes] : prepared->fixed)
        if (std::find(r.fixed_inputs.begin(), r.fixed_inputs.end(), name) == r.fixed_inputs.end())
          r.fixed_inputs.push_back(name);
    }
    if (std::optional<double> e = run_data_set(*prepared, d, context, tolerance))
      r.max_abs_error = std::max(r.max_abs_error.value_or(0), *e);
  }
}

}  // namespace

CaseResult run_case(const fs::path& dir, const std::string& suite, MLContext& context,
                    const Tolerance& tolerance) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult r;
  r.suite = suite;
  r.name = dir.filename().string();
  auto fail = [&](std::string message) {
    r.status = CaseStatus::kFailed;
    r.message = std::move(message);
  };
  try {
    run_data_sets(dir, context, tolerance, r);
  } catch (const NotExpressible& e) {
    fail(std::string("not expressible: ") + e.what());
    r.not_expressible = true;
    r.category = Category::kNotExpressible;
  } catch (const CaseFailure& e) {
    fail(e.what());
  } catch (const Error& e) {
    fail(std::string(e.name()) + ": " + e.what());
  } catch (const std::exception& e) {  // not a cppnn::Error: a bug, but only this case fails
    fail(std::string("unexpected exception (not a cppnn::Error): ") + e.what());
  }
  r.time_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace cppnn::tool::onnx_tests
