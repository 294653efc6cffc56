// ONNX TfIdfVectorizer (ops_misc.def, opset 9) for integer input on WebNN ops. The n-gram pool is
// an attribute, so each n-gram size n and skip distance d is one comparison: the n slices
// x[:, i d : i d + S] (S = C - (n - 1) d start positions) are compared with the pool's i-th tokens
// ([B, S, 1] == [G]), combined with logicalAnd and summed over the start positions into
// [B, G] counts (IDF: min(count, 1)); a constant [G, O] matmul adds each n-gram's count, times
// its weight (TFIDF, IDF) or 1, into its ngram_indexes output position. As in ONNX's reference
// and ONNX Runtime, unigrams count once and longer n-grams at every skip distance
// 1 .. max_skip_count + 1; an n-gram listed twice counts only at its last position. Weights
// belong to the n-grams (the operator spec and ONNX Runtime 1.32; ONNX's Python reference indexes
// them by output position instead, which differs when ngram_indexes is not the identity).
#include <map>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

using DT = MLOperandDataType;

// The most comparison elements (batch x starts x n-grams x n, over every size and skip) and the
// most (size, skip) comparisons one node may record.
constexpr uint64_t kMaxCompareElements = uint64_t{1} << 27;
constexpr uint64_t kMaxComparisons = 4096;
// The largest output row (max of ngram_indexes + 1).
constexpr int64_t kMaxOutputSize = int64_t{1} << 24;

// The n-grams of one size that the node counts: tokens [g * n + i], the output position and the
// weight of each.
struct Grams {
  std::vector<int64_t> tokens;
  std::vector<int64_t> outputs;
  std::vector<double> weights;
};

// The pool of ngram_counts / pool_int64s, keyed by size, for sizes in [min, max]; an n-gram
// listed twice keeps its last id (the reference's trie). N-grams with a token outside int32 are
// left out for int32 input (they can never match).
std::map<int64_t, Grams> parse_pool(const NodeContext& c, int64_t min_n, int64_t max_n,
                                    const std::vector<int64_t>& indexes,
                                    const std::vector<float>& weights, bool int32_input) {
  const auto* pool_attr = c.attr("pool_int64s");
  const std::vector<int64_t> pool =
      pool_attr ? std::vector<int64_t>(pool_attr->ints().begin(), pool_attr->ints().end())
                : std::vector<int64_t>{};
  const std::vector<int64_t> counts = c.attr_ints("ngram_counts");
  const int64_t total = static_cast<int64_t>(pool.size());
  std::map<std::vector<int64_t>, int64_t> ids;  // n-gram -> id (0-based)
  int64_t id = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const int64_t n = static_cast<int64_t>(i) + 1;
    const int64_t start = counts[i];
    const int64_t end = i + 1 < counts.size() ? counts[i + 1] : total;
    if (start < 0 || start > end || end > total)
      c.invalid("ngram_counts must be non-decreasing offsets into pool_int64s");
    const int64_t grams = (end - start) / n;
    for (int64_t g = 0; g < grams; ++g, ++id) {
      if (n < min_n || n > max_n) continue;
      const auto first = pool.begin() + start + g * n;
      ids[std::vector<int64_t>(first, first + n)] = id;
    }
  }
  std::map<int64_t, Grams> out;
  for (const auto& [gram, gid] : ids) {
    if (gid >= static_cast<int64_t>(indexes.size()))
      c.invalid("ngram_indexes has fewer entries than the pool has n-grams");
    bool fits = true;
    for (int64_t t : gram) fits = fits && (!int32_input || (t >= INT32_MIN && t <= INT32_MAX));
    if (!fits) continue;
    Grams& g = out[static_cast<int64_t>(gram.size())];
    g.tokens.insert(g.tokens.end(), gram.begin(), gram.end());
    g.outputs.push_back(indexes[static_cast<size_t>(gid)]);
    g.weights.push_back(weights.empty() ? 1.0 : weights[static_cast<size_t>(gid)]);
  }
  return out;
}

}  // namespace

void import_TfIdfVectorizer(NodeContext& c) {
  const DT type = c.input_type(0);
  if (type != DT::kInt32 && type != DT::kInt64)
    c.unsupported("TfIdfVectorizer input of a type other than int32 / int64");
  if (c.has_attr("pool_strings")) c.unsupported("a string n-gram pool (WebNN has no strings)");
  const std::string mode = c.attr_string("mode");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    c.invalid("mode '" + mode + "' is not TF, IDF or TFIDF");
  const int64_t min_n = c.attr_int("min_gram_length", 1);
  const int64_t max_n = c.attr_int("max_gram_length", 1);
  const int64_t max_skip = c.attr_int("max_skip_count", 0);
  if (min_n < 1 || max_n < min_n || max_skip < 0)
    c.invalid("bad min_gram_length / max_gram_length / max_skip_count");
  const std::vector<int64_t> indexes = c.attr_ints("ngram_indexes");
  int64_t out_size = 0;
  for (int64_t v : indexes) {
    if (v < 0) c.invalid("ngram_indexes must not be negative");
    out_size = std::max(out_size, v + 1);
  }
  if (out_size == 0) c.invalid("ngram_indexes is empty");
  if (out_size > kMaxOutputSize)
    c.unsupported("an output of " + std::to_string(out_size) + " n-gram positions (limit " +
                  std::to_string(kMaxOutputSize) + ")");
  std::vector<float> weights = c.attr_floats("weights");
  if (!weights.empty() && weights.size() != indexes.size())
    c.invalid("weights must have as many entries as ngram_indexes");
  if (mode == "TF") weights.clear();

  const std::vector<uint32_t>& shape = c.input_shape(0);
  if (shape.size() > 2) c.invalid("the input must be [C] or [B, C]");
  const uint32_t batch = shape.size() == 2 ? shape[0] : 1;
  const uint32_t row = shape.empty() ? 1 : shape.back();
  const uint32_t o = static_cast<uint32_t>(out_size);
  std::vector<uint32_t> out_shape{o};
  if (shape.size() == 2) out_shape.insert(out_shape.begin(), batch);

  MLGraphBuilder& b = c.builder();
  const std::map<int64_t, Grams> pool =
      parse_pool(c, min_n, max_n, indexes, weights, type == DT::kInt32);
  std::vector<MLOperand> counts;   // [B, G] per size
  std::vector<int64_t> positions;  // the output position of each counted n-gram, in order
  std::vector<double> scale;       // and its weight
  double elements = 0;             // a double: the product of four sizes may exceed 64 bits
  uint64_t comparisons = 0;
  if (batch > 0 && row > 0) {
    const MLOperand x = b.reshape(c.input(0), {batch, row}, c.opts<MLOperatorOptions>());
    for (const auto& [n, grams] : pool) {
      const uint32_t g = static_cast<uint32_t>(grams.outputs.size());
      std::optional<MLOperand> total;
      const int64_t last_skip = n == 1 ? 1 : max_skip + 1;  // unigrams are counted once
      for (int64_t d = 1; d <= last_skip; ++d) {
        const int64_t starts = int64_t{row} - (n - 1) * d;
        if (starts <= 0) break;
        elements +=
            static_cast<double>(batch) * static_cast<double>(starts) * g * static_cast<double>(n);
        if (elements > static_cast<double>(kMaxCompareElements) || ++comparisons > kMaxComparisons)
          c.unsupported("counting these n-grams needs more than " +
                        std::to_string(kMaxCompareElements) + " comparisons or " +
                        std::to_string(kMaxComparisons) + " comparison steps");
        std::optional<MLOperand> match;
        for (int64_t i = 0; i < n; ++i) {
          MLOperand part =
              b.slice(x, {0, static_cast<uint32_t>(i * d)}, {batch, static_cast<uint32_t>(starts)},
                      c.opts<MLSliceOptions>());
          part = b.reshape(part, {batch, static_cast<uint32_t>(starts), 1},
                           c.opts<MLOperatorOptions>());
          std::vector<int64_t> tokens(g);
          for (uint32_t k = 0; k < g; ++k) tokens[k] = grams.tokens[k * n + i];
          MLOperand eq = b.equal(part, c.constant_ints(tokens, type), c.opts<MLOperatorOptions>());
          match = match ? b.logicalAnd(*match, eq, c.opts<MLOperatorOptions>()) : eq;
        }
        MLReduceOptions r = c.opts<MLReduceOptions>();
        r.axes = {1};
        MLOperand count = b.reduceSum(b.cast(*match, DT::kFloat32, c.opts<MLOperatorOptions>()), r);
        total = total ? b.add(*total, count, c.opts<MLOperatorOptions>()) : count;
      }
      if (!total) continue;
      counts.push_back(*total);
      positions.insert(positions.end(), grams.outputs.begin(), grams.outputs.end());
      scale.insert(scale.end(), grams.weights.begin(), grams.weights.end());
    }
  }
  if (counts.empty()) {  // nothing can match: all zeros
    std::vector<double> zeros(uint64_t{batch} * o, 0.0);
    c.set_output(0, HostTensor::of_double(zeros, out_shape));
    return;
  }
  // Scatter the (weighted) counts into the output positions: [B, G] x [G, O].
  if (static_cast<double>(positions.size()) * o > static_cast<double>(kMaxCompareElements))
    c.unsupported("a " + std::to_string(positions.size()) + " x " + std::to_string(o) +
                  " n-gram to output matrix (limit " + std::to_string(kMaxCompareElements) +
                  " elements)");
  MLOperand all = counts.size() == 1 ? counts[0] : b.concat(counts, 1, c.opts<MLOperatorOptions>());
  // IDF: whether each n-gram occurs.
  if (mode == "IDF") all = b.min(all, c.scalar(DT::kFloat32, 1.0), c.opts<MLOperatorOptions>());
  std::vector<double> onehot(positions.size() * o, 0.0);
  for (size_t k = 0; k < positions.size(); ++k)
    onehot[k * o + static_cast<size_t>(positions[k])] += scale[k];
  const MLOperand y = b.matmul(all,
                               c.constant_operand(HostTensor::of_double(
                                   onehot, {static_cast<uint32_t>(positions.size()), o})),
                               c.opts<MLOperatorOptions>());
  c.set_output(0, b.reshape(y, out_shape, c.opts<MLOperatorOptions>()));
}

}  // namespace cppnn::onnx_import
