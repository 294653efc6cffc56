// The handler table built from the ops_<family>.def lists.
#include "src/import/onnx/op_registry.h"

#include <algorithm>
#include <array>
#include <utility>

namespace cppnn::onnx_import {
namespace {

using Entry = std::pair<std::string_view, OpHandler>;

constexpr auto kUnsorted = std::to_array<Entry>({
#define CPPNN_ONNX_OP(name) Entry{#name, &import_##name},
#include "src/import/onnx/ops_activations.def"
#include "src/import/onnx/ops_control.def"
#include "src/import/onnx/ops_elementwise.def"
#include "src/import/onnx/ops_loss.def"
#include "src/import/onnx/ops_misc.def"
#include "src/import/onnx/ops_nn.def"
#include "src/import/onnx/ops_reduce.def"
#include "src/import/onnx/ops_shape.def"
#include "src/import/onnx/ops_signal.def"
#undef CPPNN_ONNX_OP
});

constexpr auto kSorted = [] {
  auto table = kUnsorted;
  std::sort(table.begin(), table.end(),
            [](const Entry& a, const Entry& b) { return a.first < b.first; });
  return table;
}();

static_assert(std::adjacent_find(kSorted.begin(), kSorted.end(),
                                 [](const Entry& a, const Entry& b) {
                                   return a.first == b.first;
                                 }) == kSorted.end(),
              "an ONNX operator is listed twice");

}  // namespace

OpHandler find_handler(std::string_view op_type) {
  auto it = std::lower_bound(kSorted.begin(), kSorted.end(), op_type,
                             [](const Entry& e, std::string_view name) { return e.first < name; });
  return it != kSorted.end() && it->first == op_type ? it->second : nullptr;
}

}  // namespace cppnn::onnx_import
