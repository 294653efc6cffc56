// Dynamic dimensions through the C++ builder API (cppnn extension, docs/dynamic-dimensions.md):
// inputs whose dimensions are named dynamic dimensions (recorded at their maxima), and attribute
// sizes of recorded operations that follow them. Graph files say the same with dyn("seq", 128).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cppnn/graph_builder.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// builder.input(name, maxima) with dimension d dynamic when dim_names[d] is not empty (its size
// at dispatch from 1 to maxima.shape[d]; one name, one size). TypeError when dim_names has
// another length than the shape.
MLOperand dynamic_input(MLGraphBuilder& builder, const std::string& name,
                        const MLOperandDescriptor& maxima,
                        const std::vector<std::string>& dim_names);

// Marks element `index` of attribute `field` (reshape's "newShape", slice's "sizes", ...) of the
// operation that produced `result` as following a dynamic dimension: `expression` is
// "[scale*]name[+offset|-offset]" ("seq", "12*seq", "seq-1"). TypeError when the name is no
// dynamic input dimension of the builder, the attribute has no such element, or the recorded
// value is not the expression's value at the dimension's maximum.
void set_symbolic_size(MLGraphBuilder& builder, const MLOperand& result, const std::string& field,
                       uint32_t index, const std::string& expression);

}  // namespace cppnn

#pragma GCC visibility pop
