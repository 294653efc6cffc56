// The minimal test backend (built for the test suite only, backends.def): it runs natively only a
// small core of ops, on the reference kernels, and relies on the shared passes for everything
// else, so the WPT conformance corpus on it checks every decomposition on the same cases as the
// real backends (reports/wpt-conformance-minimal.json).
#include <string>

#include "cppnn/errors.h"
#include "src/backends/backend.h"
#include "src/backends/reference/reference_backend.h"

namespace cppnn {
namespace {

// The core: elementwise arithmetic and comparisons, matmul, conv2d, a few unary functions,
// reduceSum and reduceMax, transpose, reshape, concat, slice, gather, where, cast.
BackendDescriptor minimal_descriptor() {
  using enum OpType;
  BackendDescriptor d = BackendDescriptor::with_ops(
      "minimal",
      {kAdd,       kSub,           kMul,        kDiv,    kMax,    kMin,      kPow,       kEqual,
       kLesser,    kLesserOrEqual, kLogicalNot, kMatmul, kConv2d, kExp,      kLog,       kSqrt,
       kErf,       kSin,           kCos,        kTanh,   kFloor,  kIdentity, kReduceSum, kReduceMax,
       kTranspose, kReshape,       kConcat,     kSlice,  kGather, kWhere,    kCast});
  d.passes.fold_constants = true;
  d.passes.unpack_int4 = true;
  d.passes.fuse = true;  // activations the core runs (tanh) and conv2d biases fold into their op
  return d;
}

class MinimalBackend final : public Backend {
 public:
  const BackendDescriptor& descriptor() const override {
    static const BackendDescriptor d = minimal_descriptor();
    return d;
  }
  std::unique_ptr<CompiledGraph> compile(std::shared_ptr<const Graph> graph) override {
    // The pipeline left only native operations (fused activations included): anything else is a
    // pass bug.
    for (const Operation& op : graph->operations) {
      if (!descriptor().fits_natively(*graph, op))
        throw OperationError("minimal backend: " + std::string(op_name(op.type)) +
                             " reached compile() without a native form");
      for (const FusedActivation& a : op.activations)
        if (!fused_natively(*graph, op, a))
          throw OperationError("minimal backend: " + std::string(op_name(a.type)) + " fused into " +
                               std::string(op_name(op.type)) + " has no native form");
    }
    return make_reference_plan(std::move(graph));
  }

 private:
  // Whether activation `a` fused into `op` runs natively, as the op it was on op's output.
  bool fused_natively(const Graph& graph, const Operation& op, const FusedActivation& a) const {
    Operation act;
    act.type = a.type;
    act.inputs = {op.outputs.at(0)};
    act.outputs = {op.outputs.at(0)};
    act.attrs = a.attrs;
    return descriptor().fits_natively(graph, act);
  }
};

}  // namespace

std::unique_ptr<Backend> make_minimal_backend(const MLContextOptions&) {
  return std::make_unique<MinimalBackend>();
}

}  // namespace cppnn
