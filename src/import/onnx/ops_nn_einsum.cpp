// ONNX Einsum (ops_nn.def) on WebNN ops: each operand first takes its diagonals (a repeated label:
// multiply by an identity mask, sum one axis) and sums the labels no one else needs; operands are
// then contracted pairwise as one batched matmul ([batch, free_a, contracted] ×
// [batch, contracted, free_b]); the result is transposed to the output's label order. Ellipses
// stand for right-aligned broadcast dimensions; size-1 batch dimensions are expanded.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_nn_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// Labels: letters as their character code, ellipsis dimension k (from the right) as 1000 + k.
using Labels = std::vector<int>;

// An operand with one label per axis.
struct Term {
  MLOperand x;
  Labels labels;
};

// The labels of one term of the equation for an operand of `rank` dims.
Labels parse_term(const NodeContext& c, const std::string& term, size_t rank, size_t& ellipsis) {
  Labels out;
  const size_t dots = term.find("...");
  std::string letters = term;
  if (dots != std::string::npos) letters.erase(dots, 3);
  for (char ch : letters)
    if (!std::isalpha(static_cast<unsigned char>(ch)))
      c.invalid("bad equation term '" + term + "'");
  if (dots == std::string::npos) {
    if (letters.size() != rank) c.invalid("term '" + term + "' does not match the operand rank");
    for (char ch : letters) out.push_back(ch);
    return out;
  }
  if (letters.size() > rank) c.invalid("term '" + term + "' does not match the operand rank");
  const size_t e = rank - letters.size();
  ellipsis = std::max(ellipsis, e);
  for (size_t i = 0; i < dots; ++i) out.push_back(term[i]);
  for (size_t k = e; k-- > 0;) out.push_back(1000 + static_cast<int>(k));
  for (size_t i = dots + 3; i < term.size(); ++i) out.push_back(term[i]);
  return out;
}

MLOperand transpose_to(NodeContext& c, const Term& t, const Labels& order) {
  std::vector<uint32_t> perm;
  for (int l : order)
    perm.push_back(
        static_cast<uint32_t>(std::find(t.labels.begin(), t.labels.end(), l) - t.labels.begin()));
  bool same = true;
  for (size_t i = 0; i < perm.size(); ++i) same = same && perm[i] == i;
  if (same) return t.x;
  MLTransposeOptions o = c.opts<MLTransposeOptions>();
  o.permutation = perm;
  return c.builder().transpose(t.x, o);
}

// Sums the axes of `t` whose labels are in `drop`.
void sum_labels(NodeContext& c, Term& t, const std::set<int>& drop) {
  std::vector<uint32_t> axes;
  Labels kept;
  for (size_t i = 0; i < t.labels.size(); ++i) {
    if (drop.count(t.labels[i]))
      axes.push_back(static_cast<uint32_t>(i));
    else
      kept.push_back(t.labels[i]);
  }
  if (axes.empty()) return;
  MLReduceOptions o = c.opts<MLReduceOptions>();
  o.axes = axes;
  t.x = c.builder().reduceSum(t.x, o);
  t.labels = kept;
}

// Takes the diagonal of every repeated label of `t`.
void take_diagonals(NodeContext& c, Term& t) {
  for (size_t p = 0; p < t.labels.size(); ++p) {
    for (size_t q = p + 1; q < t.labels.size(); ++q) {
      if (t.labels[p] != t.labels[q]) continue;
      const std::vector<uint32_t>& s = t.x.shape();
      if (s[p] != s[q]) c.invalid("a repeated label with different dimensions");
      std::vector<uint32_t> mshape(s.size(), 1);
      mshape[p] = mshape[q] = s[p];
      std::vector<int64_t> eye(uint64_t{s[p]} * s[p], 0);
      for (uint32_t i = 0; i < s[p]; ++i) eye[uint64_t{i} * s[p] + i] = 1;
      const MLOperand mask = c.constant_operand(HostTensor::of_int64(eye, mshape, t.x.dataType()));
      MLReduceOptions o = c.opts<MLReduceOptions>();
      o.axes = std::vector<uint32_t>{static_cast<uint32_t>(q)};
      t.x = c.builder().reduceSum(c.builder().mul(t.x, mask, c.opts<MLOperatorOptions>()), o);
      t.labels.erase(t.labels.begin() + static_cast<std::ptrdiff_t>(q));
      --q;
    }
  }
}

// The dimension of label l in t.
uint32_t dim_of(const Term& t, int l) {
  const auto it = std::find(t.labels.begin(), t.labels.end(), l);
  return t.x.shape()[static_cast<size_t>(it - t.labels.begin())];
}

// a ⋅ b contracted over their shared labels not in `keep`.
Term contract(NodeContext& c, Term a, Term b, const std::set<int>& keep) {
  Labels batch, free_a, free_b, summed;
  for (int l : a.labels) {
    const bool in_b = std::find(b.labels.begin(), b.labels.end(), l) != b.labels.end();
    (in_b ? (keep.count(l) ? batch : summed) : free_a).push_back(l);
  }
  for (int l : b.labels)
    if (std::find(a.labels.begin(), a.labels.end(), l) == a.labels.end()) free_b.push_back(l);
  // Size-1 broadcasting of shared labels.
  for (Term* t : {&a, &b}) {
    const Term& other = t == &a ? b : a;
    std::vector<uint32_t> target = t->x.shape();
    bool grow = false;
    for (size_t i = 0; i < t->labels.size(); ++i) {
      const int l = t->labels[i];
      if (std::find(other.labels.begin(), other.labels.end(), l) == other.labels.end()) continue;
      const uint32_t d = dim_of(other, l);
      if (target[i] == 1 && d != 1)
        target[i] = d, grow = true;
      else if (target[i] != d && d != 1)
        c.invalid("label dimensions differ");
    }
    if (grow) t->x = c.builder().expand(t->x, target, c.opts<MLOperatorOptions>());
  }
  auto prod = [&](const Term& t, const Labels& ls) {
    uint64_t p = 1;
    for (int l : ls) p *= dim_of(t, l);
    if (p > UINT32_MAX) c.unsupported("a dimension over 2^32-1");
    return static_cast<uint32_t>(p);
  };
  Labels order_a = batch, order_b = batch;
  order_a.insert(order_a.end(), free_a.begin(), free_a.end());
  order_a.insert(order_a.end(), summed.begin(), summed.end());
  order_b.insert(order_b.end(), summed.begin(), summed.end());
  order_b.insert(order_b.end(), free_b.begin(), free_b.end());
  const uint32_t nb = prod(a, batch), m = prod(a, free_a), k = prod(a, summed), n = prod(b, free_b);
  const MLOperand xa = reshape_to(c, transpose_to(c, a, order_a), {nb, m, k});
  const MLOperand xb = reshape_to(c, transpose_to(c, b, order_b), {nb, k, n});
  const MLOperand y = c.builder().matmul(xa, xb, c.opts<MLOperatorOptions>());
  Term out;
  out.labels = batch;
  out.labels.insert(out.labels.end(), free_a.begin(), free_a.end());
  out.labels.insert(out.labels.end(), free_b.begin(), free_b.end());
  std::vector<uint32_t> shape;
  for (int l : batch) shape.push_back(dim_of(a, l));
  for (int l : free_a) shape.push_back(dim_of(a, l));
  for (int l : free_b) shape.push_back(dim_of(b, l));
  out.x = reshape_to(c, y, shape);
  return out;
}

}  // namespace

void import_Einsum(NodeContext& c) {
  std::string eq;
  for (char ch : c.attr_string("equation")) {
    if (ch != ' ') eq.push_back(ch);
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != c.input_count()) c.invalid("the equation has a different operand count");
  size_t ellipsis = 0;
  std::vector<Term> ops;
  std::map<int, int> uses;
  for (size_t i = 0; i < terms.size(); ++i) {
    ops.push_back({c.input(i), parse_term(c, terms[i], c.input_rank(i), ellipsis)});
    for (int l : std::set<int>(ops.back().labels.begin(), ops.back().labels.end())) ++uses[l];
  }
  Labels out;
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    const size_t dots = rhs.find("...");
    for (size_t i = 0; i < rhs.size(); ++i) {
      if (i == dots) {
        for (size_t k = ellipsis; k-- > 0;) out.push_back(1000 + static_cast<int>(k));
        i += 2;
      } else {
        if (!uses.count(rhs[i])) c.invalid("output label '" + std::string(1, rhs[i]) + "' unused");
        out.push_back(rhs[i]);
      }
    }
  } else {
    for (size_t k = ellipsis; k-- > 0;) out.push_back(1000 + static_cast<int>(k));
    std::map<int, int> count;
    for (const Term& t : ops)
      for (int l : t.labels) ++count[l];
    for (const auto& [l, n] : count)
      if (l < 1000 && n == 1) out.push_back(l);
  }
  for (const Term& t : ops)
    if (ops.size() > 1 && !is_float_type(t.x.dataType()))
      c.unsupported("Einsum of several integer operands (WebNN matmul is float-only)");
  const std::set<int> out_set(out.begin(), out.end());
  Term acc;
  for (size_t i = 0; i < ops.size(); ++i) {
    Term t = ops[i];
    take_diagonals(c, t);
    // Labels needed later: in the output or in operands after i.
    std::set<int> later = out_set;
    for (size_t j = i + 1; j < ops.size(); ++j)
      later.insert(ops[j].labels.begin(), ops[j].labels.end());
    std::set<int> drop;
    for (int l : t.labels) {
      const bool in_acc =
          i > 0 && std::find(acc.labels.begin(), acc.labels.end(), l) != acc.labels.end();
      if (!later.count(l) && !in_acc) drop.insert(l);
    }
    sum_labels(c, t, drop);
    acc = i == 0 ? t : contract(c, acc, t, later);
  }
  std::set<int> rest;
  for (int l : acc.labels)
    if (!out_set.count(l)) rest.insert(l);
  sum_labels(c, acc, rest);
  c.set_output(0, transpose_to(c, acc, out));
}

}  // namespace cppnn::onnx_import
