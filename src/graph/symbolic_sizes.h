// Sizes in operation attributes that follow a dynamic dimension (cppnn extension,
// docs/dynamic-dimensions.md): the text of their relation ("seq", "12*seq", "seq-1"), their
// value at given dimension sizes, and reading or writing the attribute element they stand for.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cppnn/graph_model.h"
#include "src/core/result.h"

namespace cppnn {

// The relation as text: `[scale*]symbol[+offset|-offset]` ("seq", "12*seq", "seq-1").
std::string symbolic_expression(const SymbolicSize& s);
// Parses `[scale*]symbol[+offset|-offset]` into symbol, scale (>= 1) and offset (field and
// index stay empty). DataError naming the text for anything else.
Result<SymbolicSize> parse_symbolic_expression(std::string_view text);
// scale * value + offset with checked 64-bit arithmetic (DataError on overflow).
Result<int64_t> evaluate_symbolic(const SymbolicSize& s, int64_t value);

// Element `index` of the integer attribute `field` of an operation of type `type` (a positional
// parameter: newShape, starts, sizes, beginningPadding, endingPadding, repetitions, splits; or an
// integer list or integer option field). TypeError when there is no such element.
Result<int64_t> size_attribute(OpType type, const OpAttributes& attrs, std::string_view field,
                               uint32_t index);
// Sets that element to `value` (TypeError when it does not fit the field's integer type).
Status set_size_attribute(OpType type, OpAttributes& attrs, std::string_view field, uint32_t index,
                          int64_t value);

// Every integer attribute of an operation (the fields size_attribute() reaches: positional size
// lists and integer or integer-list options) by name, with its elements; absent optional lists are
// left out.
std::vector<std::pair<std::string, std::vector<int64_t>>> integer_attributes(
    OpType type, const OpAttributes& attrs);

}  // namespace cppnn
