// Symbolic sizes in option values (cppnn extension of webnn-graph-format v2,
// docs/dynamic-dimensions.md): an element of a size list that follows a dynamic input dimension,
// written `dyn("seq", 512)` in the text and {"dyn": "seq", "size": 512} in GraphJson; `size` is the
// value at the dimensions' maxima, the string the relation ([scale*]name[+offset|-offset]).
#pragma once

#include <cstdint>
#include <string>

#include "src/formats/graph_doc.h"

namespace cppnn::formats {

// True for the object {"dyn": string, "size": integer} (exactly these two members).
bool is_symbolic_value(const DocValue& v);
// That object.
DocValue symbolic_value(std::string expression, int64_t size);

}  // namespace cppnn::formats
