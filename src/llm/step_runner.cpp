#include "src/llm/step_runner.h"

#include <cstring>
#include <limits>
#include <set>

#include "cppnn/errors.h"
#include "src/api/tensor_copy.h"

namespace cppnn::llm {
namespace {

using D = MLOperandDataType;

// The descriptor of graph input `name` at `tokens` tokens per step: the graph's own, with the
// dimensions named interface.token_dim at `tokens`.
MLOperandDescriptor input_at(const cppnn::detail::LanguageModelState& model, const MLGraph& graph,
                             const std::string& name, uint32_t tokens) {
  auto it = graph.inputs().find(name);
  if (it == graph.inputs().end())
    throw DataError("language model: the step graph has no input `" + name + "`");
  MLOperandDescriptor d = it->second;
  if (model.interface.token_dim.empty()) return d;
  const Graph& g = graph.graph();
  for (OperandId id : g.inputs) {
    const OperandInfo& info = g.operands[id.value];
    if (info.name != name) continue;
    for (size_t i = 0; i < info.dim_names.size() && i < d.shape.size(); ++i)
      if (info.dim_names[i] == model.interface.token_dim) d.shape[i] = tokens;
  }
  return d;
}

}  // namespace

std::map<std::string, MLOperandDescriptor> step_inputs(
    const cppnn::detail::LanguageModelState& model, const MLGraph& graph, uint32_t tokens) {
  std::map<std::string, MLOperandDescriptor> inputs;
  for (const auto& [name, descriptor] : graph.inputs())
    inputs.emplace(name, input_at(model, graph, name, tokens));
  return inputs;
}

namespace {

// `values` written into `tensor` as its data type (int32/int64/uint8/float32/float16).
void write_numbers(MLContext& context, const MLTensor& tensor, std::span<const int64_t> values) {
  const D type = tensor.dataType();
  switch (type) {
    case D::kInt32: {
      std::vector<int32_t> v(values.begin(), values.end());
      context.writeTensor(tensor, v);
      return;
    }
    case D::kInt64: {
      std::vector<int64_t> v(values.begin(), values.end());
      context.writeTensor(tensor, v);
      return;
    }
    case D::kUint8: {
      std::vector<uint8_t> v(values.begin(), values.end());
      context.writeTensor(tensor, v);
      return;
    }
    case D::kFloat32: {
      std::vector<float> v(values.begin(), values.end());
      context.writeTensor(tensor, v);
      return;
    }
    default:
      throw DataError("language model: an input of type " + std::string(data_type_name(type)) +
                      " cannot take token ids, positions or a mask");
  }
}

}  // namespace

void check_step_graph(const cppnn::detail::LanguageModelState& model, const MLGraph& graph,
                      const std::string& source) {
  const StepInterface& in = model.interface;
  auto fail = [&](const std::string& what) {
    throw DataError("language model `" + source + "`: " + what);
  };
  const auto& inputs = graph.inputs();
  const auto& outputs = graph.outputs();
  std::set<std::string> named;
  auto need_input = [&](const std::string& name, const char* role) {
    if (!inputs.count(name))
      fail(std::string("the step graph has no ") + role + " input `" + name + "`");
    named.insert(name);
  };
  need_input(in.input_ids, "token");
  if (!in.position_ids.empty()) need_input(in.position_ids, "position");
  need_input(in.mask, "mask");
  if (!in.logits_index.empty()) need_input(in.logits_index, "logits index");
  if (!outputs.count(in.logits)) fail("the step graph has no logits output `" + in.logits + "`");
  if (outputs.at(in.logits).shape.size() != 3) fail("the logits output must have rank 3");
  for (const CacheBinding& b : in.cache) {
    need_input(b.past, "cache");
    const std::vector<uint32_t>& past = inputs.at(b.past).shape;
    if (b.seq_axis >= past.size() || past[b.seq_axis] != in.capacity)
      fail("cache input `" + b.past + "` " + shape_to_string(past) + " does not hold " +
           std::to_string(in.capacity) + " positions along axis " + std::to_string(b.seq_axis));
    auto present = outputs.find(b.present);
    if (present == outputs.end()) fail("the step graph has no cache output `" + b.present + "`");
    if (present->second.shape.size() != past.size() ||
        present->second.dataType != inputs.at(b.past).dataType)
      fail("cache output `" + b.present + "` " + to_string(present->second) +
           " does not match its input " + to_string(inputs.at(b.past)));
  }
  for (const auto& [name, d] : inputs)
    if (!named.count(name)) fail("the step graph input `" + name + "` is not in its interface");
}

std::vector<MLTensor> make_cache(const cppnn::detail::LanguageModelState& model) {
  MLContext context = model.context;
  std::vector<MLTensor> cache;
  for (const CacheBinding& b : model.interface.cache) {
    const MLOperandDescriptor d = input_at(model, *model.decode, b.past, 1);
    cache.push_back(context.createTensor(MLTensorDescriptor::of(d, false, true)));
  }
  return cache;
}

std::unique_ptr<cppnn::detail::StepTensors> make_step_tensors(
    const cppnn::detail::LanguageModelState& model, const MLGraph& graph, uint32_t tokens,
    const std::vector<MLTensor>& cache) {
  const StepInterface& in = model.interface;
  MLContext context = model.context;
  auto step = std::make_unique<cppnn::detail::StepTensors>();
  step->tokens = tokens;
  step->graph = graph;
  std::map<std::string, MLOperandDescriptor> descs;
  auto add_input = [&](const std::string& name, MLTensor& tensor) {
    const MLOperandDescriptor d = input_at(model, graph, name, tokens);
    descs[name] = d;
    tensor = context.createTensor(MLTensorDescriptor::of(d, false, true));
    step->inputs[name] = tensor;
  };
  add_input(in.input_ids, step->ids);
  if (!in.position_ids.empty()) add_input(in.position_ids, step->positions);
  add_input(in.mask, step->mask);
  if (!in.logits_index.empty()) add_input(in.logits_index, step->logits_index);
  for (size_t i = 0; i < in.cache.size(); ++i) {
    descs[in.cache[i].past] = input_at(model, graph, in.cache[i].past, tokens);
    step->inputs[in.cache[i].past] = cache[i];
  }
  if (descs.size() != graph.inputs().size())
    throw DataError("language model: the step graph has " + std::to_string(graph.inputs().size()) +
                    " inputs, the interface names " + std::to_string(descs.size()));
  const std::map<std::string, MLOperandDescriptor> outs = graph.outputs_for(descs);
  auto output = [&](const std::string& name) {
    auto it = outs.find(name);
    if (it == outs.end())
      throw DataError("language model: the step graph has no output `" + name + "`");
    MLTensor t = context.createTensor(MLTensorDescriptor::of(it->second, true, false));
    step->outputs[name] = t;
    return t;
  };
  step->logits = output(in.logits);
  for (const CacheBinding& b : in.cache) step->present.push_back(output(b.present));
  // Outputs the interface does not use (some ONNX exports have more) are bound too.
  for (const auto& [name, d] : outs)
    if (!step->outputs.count(name))
      step->outputs[name] = context.createTensor(MLTensorDescriptor::of(d, false, false));
  return step;
}

std::vector<float> run_step(const cppnn::detail::LanguageModelState& model,
                            cppnn::detail::StepTensors& step, const std::vector<MLTensor>& cache,
                            std::span<const int32_t> tokens, uint32_t position, bool all_logits) {
  const StepInterface& in = model.interface;
  MLContext context = model.context;
  const uint32_t n = static_cast<uint32_t>(tokens.size());
  const uint32_t S = step.tokens, C = in.capacity;
  if (n == 0 || n > S || uint64_t{position} + n > C)
    throw TypeError("language model: " + std::to_string(n) + " tokens at position " +
                    std::to_string(position) + " do not fit a step of " + std::to_string(S) +
                    " in a cache of " + std::to_string(C));
  std::vector<int64_t> values(S, 0);
  for (uint32_t i = 0; i < n; ++i) values[i] = tokens[i];
  write_numbers(context, step.ids, values);
  if (!step.positions.is_null()) {
    for (uint32_t i = 0; i < S; ++i) values[i] = position + std::min(i, n - 1);
    write_numbers(context, step.positions, values);
  }
  if (in.mask_kind == MaskKind::kCacheAdditive) {
    std::vector<float> mask(C, -std::numeric_limits<float>::infinity());
    std::fill(mask.begin(), mask.begin() + position, 0.0f);
    context.writeTensor(step.mask, mask);
  } else {
    std::vector<int64_t> mask(size_t{C} + S, 0);
    std::fill(mask.begin(), mask.begin() + position, 1);
    std::fill(mask.begin() + C, mask.begin() + C + n, 1);
    write_numbers(context, step.mask, mask);
  }
  if (!step.logits_index.is_null()) {  // the last token's row
    const int64_t last = n - 1;
    write_numbers(context, step.logits_index, std::span(&last, 1));
  }
  context.dispatch(*step.graph, step.inputs, step.outputs);

  for (size_t i = 0; i < in.cache.size(); ++i) {
    const CacheBinding& b = in.cache[i];
    const std::vector<uint32_t>& shape = step.present[i].shape();
    std::vector<uint32_t> from(shape.size(), 0), to(shape.size(), 0), sizes = shape;
    from[b.seq_axis] = b.present_offset;
    to[b.seq_axis] = position;
    sizes[b.seq_axis] = n;
    cppnn::detail::copy_tensor_region(context, step.present[i], from, cache[i], to, sizes);
  }
  std::vector<float> logits = context.readTensor<float>(step.logits);
  if (!step.logits_index.is_null() && S > 1) {  // the last token's row alone
    if (all_logits && n > 1)
      throw DataError("language model: this step graph gives the last token's logits alone");
    return logits;
  }
  const size_t vocab = logits.size() / S;
  if (all_logits) {
    logits.resize(size_t{n} * vocab);
    return logits;
  }
  return std::vector<float>(logits.begin() + static_cast<std::ptrdiff_t>((n - 1) * vocab),
                            logits.begin() + static_cast<std::ptrdiff_t>(n * vocab));
}

}  // namespace cppnn::llm
