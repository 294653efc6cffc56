#include "src/passes/layout.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/reflect.h"
#include "src/ops/reduction_params.h"
#include "src/passes/layout_rules.h"
#include "src/passes/rewriter.h"

namespace cppnn::passes {
namespace {

// No operation index.
constexpr uint32_t kNoReader = UINT32_MAX;

using namespace layout_rules;  // the pass's own rules (layout_rules.h)

// The pass over one graph. Each source operand is held in the new graph either as itself (the
// rewriter's map) or permuted: `home_` holds transpose(operand, perm) for operands produced in
// another layout, and further permuted forms are made on demand, once each.
class LayoutPass {
 public:
  LayoutPass(const Graph& graph, const BackendDescriptor& backend, const LayoutOptions& options)
      : g_(graph), backend_(backend), options_(options), rw_(graph), home_(graph.operands.size()) {
    analyse();
  }

  // Rewrites every operation; the source graph when nothing changed or when the result would not
  // run natively (a transpose of a type the backend lacks, say).
  Graph run(bool* changed) {
    for (uint32_t i = 0; i < g_.operations.size(); ++i) rewrite(i, g_.operations[i]);
    for (const auto& [name, id] : g_.outputs) form(id, identity_perm(rank(id)));
    Graph out = rw_.finish();
    if (!modified_) return g_;
    for (const Operation& op : out.operations)
      if (!backend_.fits_natively(out, op)) return g_;
    *changed = true;
    return out;
  }

 private:
  // A source operand held permuted: value == transpose(operand, perm).
  struct Placed {
    MLOperand value;
    Perm perm;
  };

  // The rank of source operand `x`.
  size_t rank(OperandId x) const { return g_.descriptor(x).shape.size(); }
  // The number of elements of source operand `x`.
  uint64_t count_of(OperandId x) const {
    uint64_t n = 1;
    for (uint32_t d : g_.descriptor(x).shape) n *= d;
    return n;
  }

  // Who reads each operand, and which operands can take a permuted layout at no cost: every
  // reader takes it (a layout op, a transpose, a reduction, or an elementwise op or gather whose
  // result can too) and it is no graph output.
  void analyse() {
    const size_t n = g_.operands.size();
    is_output_.assign(n, false);
    for (const auto& [name, id] : g_.outputs) is_output_[id.value] = true;
    readers_.assign(n, {});
    for (uint32_t i = 0; i < g_.operations.size(); ++i)
      for (uint32_t slot = 0; slot < g_.operations[i].inputs.size(); ++slot)
        if (OperandId in = g_.operations[i].inputs[slot]; in.valid())
          readers_[in.value].push_back({i, slot});
    flexible_.assign(n, false);
    for (size_t i = g_.operations.size(); i-- > 0;) {
      for (OperandId out : g_.operations[i].outputs) {
        const auto& r = readers_[out.value];
        flexible_[out.value] =
            !is_output_[out.value] && !r.empty() &&
            std::all_of(r.begin(), r.end(), [&](const Reader& x) { return absorbs(x.op, x.slot); });
      }
    }
  }

  // Whether operation `i` takes its operand `slot` in a permuted (NHWC) layout at no cost.
  bool absorbs(uint32_t i, uint32_t slot) const {
    using enum OpType;
    const Operation& op = g_.operations[i];
    const auto nchw = MLInputOperandLayout::kNchw;
    switch (op.type) {
      case kConv2d:
        return slot == 0 && attrs_of<kConv2d>(op.attrs).options.inputLayout == nchw;
      case kConvTranspose2d:
        return slot == 0 && attrs_of<kConvTranspose2d>(op.attrs).options.inputLayout == nchw;
      case kAveragePool2d:
      case kL2Pool2d:
      case kMaxPool2d:
        return slot == 0 && pool_options(op.attrs).layout == nchw;
      case kInstanceNormalization:
        return slot == 0 && attrs_of<kInstanceNormalization>(op.attrs).options.layout == nchw;
      case kResample2d:
      case kBatchNormalization:
        return slot == 0;
      case kTranspose:
        return true;
      case kGather:
        return slot == 0 && flexible_[op.outputs[0].value];
      case kArgMin:
      case kArgMax:
        return slot == 0;
      default:
        if (is_reduction(op.type)) return slot == 0 && reduction_absorbs(op);
        return follows_layout(op.type) && flexible_[op.outputs[0].value];
    }
  }

  // Whether reduction `op` takes an NHWC-held input: its result is smaller than its input, so a
  // transpose of it costs less; it is computed in that layout when it meets the reduced
  // dimensions in their order (a rank-4 input is assumed held in NHWC).
  bool reduction_absorbs(const Operation& op) const {
    const Dims& shape = g_.descriptor(op.inputs[0]).shape;
    return shape.size() != 4 || reduces_in_order(shape, kToNhwc, reduced_dims(op));
  }

  // The dimensions of its input a reduction (or argMin/argMax) reduces.
  std::vector<bool> reduced_dims(const Operation& op) const {
    const size_t r = rank(op.inputs[0]);
    std::vector<bool> reduced(r, false);
    std::visit(
        [&](const auto& a) {
          if constexpr (requires { a.options; }) {
            using O = std::decay_t<decltype(a.options)>;
            if constexpr (std::is_same_v<O, MLReduceOptions>)
              for (uint32_t d : reduction_axes(a.options, r)) reduced[d] = true;
            if constexpr (std::is_same_v<O, MLArgMinMaxOptions>) reduced[a.params.axis] = true;
          }
        },
        op.attrs);
    return reduced;
  }

  // Whether some reader of `x` takes it permuted at no cost.
  bool absorbed_by_some_reader(OperandId x) const {
    const auto& r = readers_[x.value];
    return std::any_of(r.begin(), r.end(), [&](const Reader& a) { return absorbs(a.op, a.slot); });
  }

  // Whether `x` is needed in its own layout by someone other than operation `i` (any reader for
  // kNoReader).
  bool needed_elsewhere(OperandId x, uint32_t i) const {
    if (is_output_[x.value]) return true;
    for (const Reader& r : readers_[x.value])
      if (r.op != i && !absorbs(r.op, r.slot)) return true;
    return false;
  }

  // Whether `v` (of the new graph) is a constant.
  bool is_new_constant(const MLOperand& v) const {
    return rw_.graph().operand(v.id()).kind == OperandKind::kConstant;
  }
  // A constant of the source, or an operand held as a (permuted) constant.
  bool is_constant(OperandId x) const {
    if (g_.operand(x).kind == OperandKind::kConstant) return true;
    return home_[x.value] && is_new_constant(home_[x.value]->value);
  }
  // Whether `x` exists in the new graph in its own layout.
  bool has_identity(OperandId x) const {
    return g_.operand(x).kind != OperandKind::kOperationResult || rw_.has(x);
  }
  // Whether transpose(x, p) exists in the new graph already.
  bool available(OperandId x, const Perm& p) const {
    if (is_identity(p)) return has_identity(x);
    if (home_[x.value] && home_[x.value]->perm == p) return true;
    return forms_.contains({x.value, p});
  }

  // transpose(v, p) in the new graph: a permuted copy for a constant, a reshape when only
  // dimensions of size 1 move, else a transpose.
  MLOperand permute(const MLOperand& v, const Perm& p) {
    if (is_identity(p)) return v;
    const MLOperandDescriptor d = v.descriptor();
    const unsigned bits = data_type_bits(d.dataType);
    if (is_new_constant(v) && bits % 8 == 0) {
      const auto bytes = rw_.graph().constant(v.id()).bytes();
      return rw_.builder().constant({d.dataType, permuted(d.shape, p)},
                                    permute_bytes(bytes, d.shape, p, bits / 8));
    }
    if (keeps_order(d.shape, p)) return reshape(v, permuted(d.shape, p));
    return rw_.builder().transpose(v, {.permutation = p});
  }
  // reshape(v, shape) in the new graph: a constant with the same bytes for a constant.
  MLOperand reshape(const MLOperand& v, const Dims& shape) {
    const MLOperandDescriptor d = v.descriptor();
    if (d.shape == shape) return v;
    if (is_new_constant(v))
      return rw_.builder().constant({d.dataType, shape}, rw_.graph().constant(v.id()).bytes());
    return rw_.builder().reshape(v, shape);
  }

  // transpose(x, p) for source operand `x`, made once (from x's permuted home when it has one).
  MLOperand form(OperandId x, const Perm& p) {
    const std::optional<Placed>& home = home_[x.value];
    if (is_identity(p) && has_identity(x)) return rw_.value(x);
    if (home && home->perm == p) return home->value;
    if (auto it = forms_.find({x.value, p}); it != forms_.end()) return it->second;
    const MLOperand base = home ? home->value : rw_.value(x);
    const Perm from = home ? home->perm : identity_perm(p.size());
    const MLOperand v = permute(base, compose(inverse(from), p));
    if (is_identity(p))
      rw_.set(x, v);
    else
      forms_.emplace(std::pair{x.value, p}, v);
    return v;
  }

  // What having `x` in layout `p` costs as an operand of a broadcasting op of rank p.size():
  // nothing when it exists, is a constant or is a reshape away, else one transpose.
  int operand_cost(OperandId x, const Perm& p) const {
    if (rank(x) == p.size() && available(x, p)) return 0;
    if (is_constant(x)) return 0;
    if (keeps_order(padded(g_.descriptor(x).shape, p.size()), p)) return has_identity(x) ? 0 : 1;
    return 1;
  }
  // What having `x` in its own layout costs operation `i`.
  int identity_cost(OperandId x, uint32_t i) const {
    if (has_identity(x) || is_constant(x)) return 0;
    return needed_elsewhere(x, i) ? 0 : 1;
  }

  // `x` as an operand of a broadcasting op computed in layout `p`: transpose(pad(x), p), with
  // leading 1s beyond x's rank dropped again.
  MLOperand operand_in(OperandId x, const Perm& p) {
    const Dims& shape = g_.descriptor(x).shape;
    const size_t r = shape.size(), out_rank = p.size();
    if (r == out_rank && (available(x, p) || !keeps_order(shape, p) || !has_identity(x)))
      return form(x, p);
    const MLOperand v = form(x, identity_perm(r));
    const Dims pad = padded(shape, out_rank), target = trimmed(permuted(pad, p), r);
    if (keeps_order(pad, p)) return reshape(v, target);
    return reshape(permute(reshape(v, pad), p), target);
  }

  // The result of a rewritten operation: `v` is transpose(out, p).
  void place_output(OperandId out, const MLOperand& v, const Perm& p) {
    const Dims expected = permuted(g_.descriptor(out).shape, p);
    if (v.shape() != expected)
      throw OperationError(
          "layout pass: " + std::string(op_name(g_.operations.at(g_.operand(out).producer).type)) +
          " was rewritten with shape " + shape_to_string(v.shape()) + " instead of " +
          shape_to_string(expected));
    if (is_identity(p))
      rw_.set(out, v);
    else
      home_[out.value] = Placed{v, p};
    modified_ = true;
  }

  // Copies `op` with every operand in its own layout.
  void copy_identity(const Operation& op) {
    for (OperandId in : op.inputs)
      if (in.valid()) form(in, identity_perm(rank(in)));
    rw_.copy(op);
  }

  // Rewrites source operation `i`: in the preferred layout, in the layout of its operands, or
  // copied.
  void rewrite(uint32_t i, const Operation& op) {
    using enum OpType;
    if (op.type == kTranspose) return transpose(op);
    if (follows_layout(op.type)) return elementwise(i, op);
    bool done = false;
    if (is_reduction(op.type) || op.type == kArgMin || op.type == kArgMax) done = reduction(i, op);
    switch (op.type) {
      case kConv2d:
        done = conv2d(op);
        break;
      case kConvTranspose2d:
        done = conv_transpose2d(op);
        break;
      case kAveragePool2d:
      case kL2Pool2d:
      case kMaxPool2d:
        done = pool2d(op);
        break;
      case kResample2d:
        done = resample2d(op);
        break;
      case kBatchNormalization:
        done = batch_normalization(op);
        break;
      case kInstanceNormalization:
        done = instance_normalization(op);
        break;
      case kGather:
        done = gather(i, op);
        break;
      default:
        break;
    }
    if (!done) copy_identity(op);
  }

  // transpose(x, q): no operation when x is held permuted, is a constant, or a reader of the
  // result takes it permuted; the result is then x's held value under the combined permutation
  // (none: cancelled).
  void transpose(const Operation& op) {
    const OperandId x = op.inputs[0], y = op.outputs[0];
    const size_t r = rank(x);
    const auto& given = attrs_of<OpType::kTranspose>(op.attrs).options.permutation;
    Perm q = given ? *given : Perm{};
    if (!given)
      for (size_t i = r; i-- > 0;) q.push_back(static_cast<uint32_t>(i));
    const std::optional<Placed>& home = home_[x.value];
    if (!home && !is_constant(x) && !absorbed_by_some_reader(y)) return copy_identity(op);
    const MLOperand base = home ? home->value : form(x, identity_perm(r));
    const Perm from = home ? home->perm : identity_perm(r);
    place_output(y, base, compose(inverse(q), from));
  }

  // An elementwise op (unary, broadcasting, concat) with an operand held permuted: computed in
  // that layout unless this costs more transposes than bringing its operands back.
  void elementwise(uint32_t i, const Operation& op) {
    const OperandId out = op.outputs[0];
    const size_t r = rank(out);
    Perm p;
    for (OperandId in : op.inputs)
      if (in.valid() && home_[in.value] && home_[in.value]->perm.size() == r) {
        p = home_[in.value]->perm;
        break;
      }
    if (p.empty()) return copy_identity(op);
    std::vector<OperandId> distinct;
    for (OperandId in : op.inputs)
      if (std::find(distinct.begin(), distinct.end(), in) == distinct.end()) distinct.push_back(in);
    // One transpose serves every reader that needs the result in the other layout.
    int permuted_cost = needed_elsewhere(out, kNoReader) ? 1 : 0;
    int identity_cost_sum = absorbed_by_some_reader(out) ? 1 : 0;
    for (OperandId in : distinct) {
      permuted_cost += operand_cost(in, p);
      identity_cost_sum += identity_cost(in, i);
    }
    // On a tie the op follows its operands: transposes sink towards the outputs, next to them.
    if (permuted_cost > identity_cost_sum) return copy_identity(op);
    std::vector<MLOperand> in;
    for (OperandId x : op.inputs) in.push_back(operand_in(x, p));
    OpAttributes attrs = op.attrs;
    if (op.type == OpType::kConcat) {
      uint32_t& axis = attrs_of<OpType::kConcat>(attrs).params.axis;
      axis = inverse(p)[axis];
    }
    place_output(out, rerecord(rw_, op, std::move(in), std::move(attrs)), p);
  }

  // Records `op` with `attrs`, its data operand (slot 0) in layout `data` and its filter (slot
  // 1) in layout `filter` when given; false (nothing used) when the result does not run natively.
  bool layout_op(const Operation& op, OpAttributes attrs, const Perm& data,
                 const Perm* filter = nullptr) {
    std::vector<MLOperand> in;
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const OperandId x = op.inputs[k];
      if (!x.valid())
        in.emplace_back();
      else if (k == 0)
        in.push_back(form(x, data));
      else if (k == 1 && filter)
        in.push_back(form(x, *filter));
      else
        in.push_back(form(x, identity_perm(rank(x))));
    }
    return placed_op(op, std::move(attrs), std::move(in), data);
  }

  // Records `op` with `attrs` on the new operands `in`, its result held in layout `p`; false
  // (nothing used) when the result does not run natively.
  bool placed_op(const Operation& op, OpAttributes attrs, std::vector<MLOperand> in,
                 const Perm& p) {
    const MLOperand v = rerecord(rw_, op, std::move(in), std::move(attrs));
    if (!backend_.fits_natively(rw_.graph(), rw_.graph().operations.back())) return false;
    place_output(op.outputs[0], v, p);
    return true;
  }

  // gather(x, indices, axis) of an x held permuted: computed on x's held value along the mapped
  // axis (the indices as they are), unless that costs more transposes than x's own layout (on a
  // tie, when its result is the larger tensor). The same elements land in the same places.
  bool gather(uint32_t i, const Operation& op) {
    const OperandId x = op.inputs[0], indices = op.inputs[1], out = op.outputs[0];
    const std::optional<Placed>& home = home_[x.value];
    if (!home) return false;
    const int permuted_cost = needed_elsewhere(out, kNoReader) ? 1 : 0;
    const int own_cost = identity_cost(x, i) + (absorbed_by_some_reader(out) ? 1 : 0);
    if (permuted_cost > own_cost) return false;
    if (permuted_cost == own_cost && count_of(out) > count_of(x)) return false;
    const Perm p = home->perm;
    auto attrs = attrs_of<OpType::kGather>(op.attrs);
    const uint32_t axis = attrs.options.axis;
    attrs.options.axis = inverse(p)[axis];
    std::vector<MLOperand> in{form(x, p), form(indices, identity_perm(rank(indices)))};
    return placed_op(op, wrap<OpType::kGather>(attrs), std::move(in),
                     gathered_perm(p, axis, rank(indices)));
  }

  // A reduction (or argMin/argMax) of an x held permuted: computed on x's held value over the
  // mapped axes when that meets the reduced elements in their order (the same values), unless x
  // exists in its own layout and the result is wanted there.
  bool reduction(uint32_t i, const Operation& op) {
    const OperandId x = op.inputs[0], out = op.outputs[0];
    const std::optional<Placed>& home = home_[x.value];
    if (!home) return false;
    const Perm p = home->perm;
    const std::vector<bool> reduced = reduced_dims(op);
    if (!reduces_in_order(g_.descriptor(x).shape, p, reduced)) return false;
    if (identity_cost(x, i) == 0 && needed_elsewhere(out, kNoReader) &&
        !absorbed_by_some_reader(out))
      return false;
    const Perm at = inverse(p);
    OpAttributes attrs = op.attrs;
    bool keep = false;
    std::visit(
        [&](auto& a) {
          if constexpr (requires { a.options; }) {
            using O = std::decay_t<decltype(a.options)>;
            if constexpr (std::is_same_v<O, MLReduceOptions>) {
              std::vector<uint32_t> axes;
              for (size_t d = 0; d < p.size(); ++d)
                if (reduced[p[d]]) axes.push_back(static_cast<uint32_t>(d));
              a.options.axes = std::move(axes);
              keep = a.options.keepDimensions;
            }
            if constexpr (std::is_same_v<O, MLArgMinMaxOptions>) {
              a.params.axis = at[a.params.axis];
              keep = a.options.keepDimensions;
            }
          }
        },
        attrs);
    return placed_op(op, std::move(attrs), {form(x, p)}, reduced_perm(p, reduced, keep));
  }

  // conv2d in NHWC with the preferred filter layout.
  bool conv2d(const Operation& op) {
    auto attrs = attrs_of<OpType::kConv2d>(op.attrs);
    auto& o = attrs.options;
    const bool nchw = o.inputLayout == MLInputOperandLayout::kNchw;
    const uint32_t channels = g_.descriptor(op.inputs[0]).shape[nchw ? 1 : 3];
    const MLConv2dFilterOperandLayout target = o.groups > 1 && o.groups == channels
                                                   ? options_.depthwise_conv2d_filter
                                                   : options_.conv2d_filter;
    const Perm filter = letter_perm(letters(o.filterLayout), letters(target));
    if (!nchw && is_identity(filter)) return false;
    o.inputLayout = MLInputOperandLayout::kNhwc;
    o.filterLayout = target;
    return layout_op(op, wrap<OpType::kConv2d>(attrs), nchw ? kToNhwc : identity_perm(4), &filter);
  }

  // convTranspose2d in NHWC with the preferred filter layout.
  bool conv_transpose2d(const Operation& op) {
    auto attrs = attrs_of<OpType::kConvTranspose2d>(op.attrs);
    auto& o = attrs.options;
    const bool nchw = o.inputLayout == MLInputOperandLayout::kNchw;
    const Perm filter =
        letter_perm(letters(o.filterLayout), letters(options_.conv_transpose2d_filter));
    if (!nchw && is_identity(filter)) return false;
    o.inputLayout = MLInputOperandLayout::kNhwc;
    o.filterLayout = options_.conv_transpose2d_filter;
    return layout_op(op, wrap<OpType::kConvTranspose2d>(attrs), nchw ? kToNhwc : identity_perm(4),
                     &filter);
  }

  // averagePool2d, l2Pool2d, maxPool2d in NHWC (they share MLPool2dOptions).
  bool pool2d(const Operation& op) {
    OpAttributes attrs = op.attrs;
    MLPool2dOptions& o = pool_options(attrs);
    if (o.layout != MLInputOperandLayout::kNchw) return false;
    o.layout = MLInputOperandLayout::kNhwc;
    return layout_op(op, std::move(attrs), kToNhwc);
  }

  // resample2d over the spatial axes of the layout its input is held in (axes [1, 2] of NHWC).
  bool resample2d(const Operation& op) {
    const auto& source = attrs_of<OpType::kResample2d>(op.attrs);
    const Dims axes = source.options.axes.value_or({2, 3});
    // The attributes in layout p when the axes land on [1, 2] there (scales and sizes follow the
    // axes, so a reversed pair is put back in order with them).
    auto spatial_in = [&](const Perm& p) -> std::optional<AttrsOf<OpType::kResample2d>> {
      const Perm at = inverse(p);
      auto attrs = source;
      Dims mapped = {at[axes[0]], at[axes[1]]};
      if (mapped[0] > mapped[1]) {
        std::swap(mapped[0], mapped[1]);
        if (attrs.options.scales)
          std::swap(attrs.options.scales.value()[0], attrs.options.scales.value()[1]);
        if (attrs.options.sizes)
          std::swap(attrs.options.sizes.value()[0], attrs.options.sizes.value()[1]);
      }
      if (mapped != Dims{1, 2}) return std::nullopt;
      attrs.options.axes = mapped;
      return attrs;
    };
    const std::optional<Placed>& home = home_[op.inputs[0].value];
    if (home) {
      if (auto attrs = spatial_in(home->perm))
        return layout_op(op, wrap<OpType::kResample2d>(*attrs), Perm(home->perm));
    }
    if (auto attrs = spatial_in(kToNhwc))
      return layout_op(op, wrap<OpType::kResample2d>(*attrs), kToNhwc);
    return false;
  }

  // batchNormalization along the channel axis of the layout its input is held in, or of NHWC.
  bool batch_normalization(const Operation& op) {
    auto attrs = attrs_of<OpType::kBatchNormalization>(op.attrs);
    uint32_t& axis = attrs.options.axis;
    const std::optional<Placed>& home = home_[op.inputs[0].value];
    if (home) {
      const Perm p = home->perm;
      axis = inverse(p)[axis];
      return layout_op(op, wrap<OpType::kBatchNormalization>(attrs), p);
    }
    if (rank(op.inputs[0]) != 4 || axis != 1) return false;
    axis = 3;
    return layout_op(op, wrap<OpType::kBatchNormalization>(attrs), kToNhwc);
  }

  // instanceNormalization in NHWC.
  bool instance_normalization(const Operation& op) {
    auto attrs = attrs_of<OpType::kInstanceNormalization>(op.attrs);
    if (attrs.options.layout != MLInputOperandLayout::kNchw) return false;
    attrs.options.layout = MLInputOperandLayout::kNhwc;
    return layout_op(op, wrap<OpType::kInstanceNormalization>(attrs), kToNhwc);
  }

  // One read of an operand: operation `op`, its input `slot`.
  struct Reader {
    uint32_t op, slot;
  };

  const Graph& g_;
  const BackendDescriptor& backend_;
  const LayoutOptions options_;
  GraphRewriter rw_;
  std::vector<bool> is_output_;
  std::vector<std::vector<Reader>> readers_;
  std::vector<bool> flexible_;
  std::vector<std::optional<Placed>> home_;
  std::map<std::pair<uint32_t, Perm>, MLOperand> forms_;
  bool modified_ = false;
};

// Whether the graph has anything the pass rewrites: a layout op or a transpose.
bool has_work(const Graph& graph) {
  using enum OpType;
  for (const Operation& op : graph.operations) {
    switch (op.type) {
      case kConv2d:
      case kConvTranspose2d:
      case kAveragePool2d:
      case kL2Pool2d:
      case kMaxPool2d:
      case kResample2d:
      case kBatchNormalization:
      case kInstanceNormalization:
      case kTranspose:
        return true;
      default:
        break;
    }
  }
  return false;
}

}  // namespace

Graph convert_layout(const Graph& graph, const BackendDescriptor& backend, bool* changed) {
  return convert_layout(graph, backend, LayoutOptions{}, changed);
}

Graph convert_layout(const Graph& graph, const BackendDescriptor& backend,
                     const LayoutOptions& options, bool* changed) {
  *changed = false;
  if (backend.preferred_layout != MLInputOperandLayout::kNhwc ||
      !backend.is_native(OpType::kTranspose) || !has_work(graph))
    return graph;
  return LayoutPass(graph, backend, options).run(changed);
}

}  // namespace cppnn::passes
