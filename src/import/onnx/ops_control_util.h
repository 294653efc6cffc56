// Values moved between the iterations of an unrolled ONNX Loop or Scan (ops_control.cpp): the
// slices of a scan input and the stacking of per-iteration scan outputs, on the host for known
// values (so folding goes on) and as WebNN split / reshape / concat ops otherwise.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/import/onnx/importer.h"

namespace cppnn::onnx_import {

// A known value named `name`.
std::shared_ptr<Value> host_value(const std::string& name, HostTensor t);
// A run-time value named `name` (an operand of the model's builder) computed from `depends_on`.
std::shared_ptr<Value> operand_value(const std::string& name, const MLOperand& o,
                                     std::vector<std::string> depends_on = {});
// The slices of `value` along `axis`, that axis removed: one per index (ONNX Scan's scan input
// slices; a host value sliced on the host, an operand by one split and reshapes).
std::vector<std::shared_ptr<Value>> unstack_value(NodeContext& c,
                                                  const std::shared_ptr<Value>& value,
                                                  uint32_t axis);
// `parts` stacked along a new axis `axis` (ONNX Loop/Scan scan outputs). Every part must have the
// first one's type and shape: DataError naming `what` and the part otherwise.
std::shared_ptr<Value> stack_values(NodeContext& c,
                                    const std::vector<std::shared_ptr<Value>>& parts, uint32_t axis,
                                    const std::string& name, const std::string& what);

}  // namespace cppnn::onnx_import
