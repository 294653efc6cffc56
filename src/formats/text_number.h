// Numbers of the webnn-graph formats: reading a number token (§3.3 "Numbers") and writing one
// canonically (§5.2).
#pragma once

#include <string>
#include <string_view>

#include "src/formats/graph_doc.h"

namespace cppnn::formats {

// A number token (already matched by a grammar) as a DocValue: an integer token that fits int64
// is kInt, one that fits uint64 is kUint when `allow_uint`, anything else is kFloat. A result
// that is not finite is the error "non-finite number: <token>".
Result<DocValue> parse_number_token(std::string_view token, bool is_integer,
                                    bool allow_uint = false);

// Appends a float per §5.2: shortest round-trip digits, `.0` on integral values, plain notation
// for 1e-5 <= |x| < 1e16, else exponent form without `+` (1e-7, 1.5e20).
void append_float(std::string& out, double v);

}  // namespace cppnn::formats
