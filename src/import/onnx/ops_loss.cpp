// ONNX loss operators (ops_loss.def), in inference form: NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss (log-softmax over axis 1, then the same NLL), with class weights,
// ignore_index and the none/sum/mean reductions of the ONNX reference.
#include <numeric>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// NLL of `scores` [N, C, d...] (log-probabilities) at `target` [N, d...]; optional class
// `weight` [C]. Implements:
//   g = weight[target] (or 1) * (target != ignore_index)
//   loss = -scores[n, target, d...] * g;  none: loss; sum: sum(loss); mean: sum(loss) / sum(g)
//   (without weights and ignore_index, mean is the plain mean).
MLOperand nll(NodeContext& c, const MLOperand& scores, const MLOperand& target,
              const std::optional<MLOperand>& weight) {
  MLGraphBuilder& b = c.builder();
  const std::string reduction = c.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    c.invalid("unknown reduction '" + reduction + "'");
  const std::vector<uint32_t>& shape = scores.shape();
  if (shape.size() < 2) c.invalid("scores need a class dimension");
  const MLOperandDataType ft = scores.dataType();
  const MLOperandDataType it = target.dataType();
  std::vector<uint32_t> tshape = target.shape();
  std::vector<uint32_t> expected(shape);
  expected.erase(expected.begin() + 1);
  if (tshape != expected)
    c.invalid("target shape " + shape_to_string(tshape) + " does not match scores " +
              shape_to_string(shape));
  const bool has_ignore = c.has_attr("ignore_index");
  MLOperand index = target;
  std::optional<MLOperand> valid;  // float mask
  if (has_ignore) {
    MLOperand ignore = c.scalar(it, static_cast<double>(c.attr_int("ignore_index", 0)));
    MLOperand is_ignored = b.equal(target, ignore);
    index = b.where(is_ignored, c.scalar(it, 0), target);
    valid = b.cast(b.logicalNot(is_ignored), ft);
  }
  std::vector<uint32_t> ushape(tshape);
  ushape.insert(ushape.begin() + 1, 1);
  MLGatherOptions go = c.opts<MLGatherOptions>();
  go.axis = 1;
  MLOperand picked = b.gatherElements(scores, b.reshape(index, ushape), go);
  MLOperand loss = b.neg(b.reshape(picked, tshape));
  std::optional<MLOperand> g;
  if (weight) {
    MLOperand w = b.gather(*weight, index);
    g = valid ? b.mul(w, *valid) : w;
  } else if (valid) {
    g = valid;
  }
  if (g) loss = b.mul(loss, *g);
  if (reduction == "none") return loss;
  std::vector<uint32_t> all(tshape.size());
  std::iota(all.begin(), all.end(), 0u);
  MLReduceOptions ro = c.opts<MLReduceOptions>();
  ro.axes = all;
  MLOperand total = b.reduceSum(loss, ro);
  if (reduction == "sum") return total;
  if (g) return b.div(total, b.reduceSum(*g, ro));
  return b.div(total, c.scalar(ft, static_cast<double>(element_count(tshape))));
}

void require_float_scores(NodeContext& c) {
  if (!is_float_type(c.input_type(0))) c.unsupported("scores of type other than float32/float16");
}

}  // namespace

void import_NegativeLogLikelihoodLoss(NodeContext& c) {
  require_float_scores(c);
  std::optional<MLOperand> weight;
  if (c.has_input(2)) weight = c.input(2);
  c.set_output(0, nll(c, c.input(0), c.input(1), weight));
}

void import_SoftmaxCrossEntropyLoss(NodeContext& c) {
  require_float_scores(c);
  MLGraphBuilder& b = c.builder();
  MLOperand x = c.input(0);
  MLReduceOptions ro = c.opts<MLReduceOptions>();
  ro.axes = std::vector<uint32_t>{1};
  ro.keepDimensions = true;
  // log_softmax over the classes: x - max - log(sum(exp(x - max))).
  MLOperand shifted = b.sub(x, b.reduceMax(x, ro));
  MLOperand log_prob = b.sub(shifted, b.log(b.reduceSum(b.exp(shifted), ro)));
  std::optional<MLOperand> weight;
  if (c.has_input(2)) weight = c.input(2);
  c.set_output(0, nll(c, log_prob, c.input(1), weight));
  if (c.wants_output(1)) c.set_output(1, log_prob);
}

}  // namespace cppnn::onnx_import
