// Python's printf-style string formatting (`'%s: %d' % (name, count)`), which Jinja templates
// reach through the `%` operator on a string: the conversions s r d i u f F e E g G x X o c %,
// the flags - + space # 0, width and precision (also `*`), and %(key)s with a dict argument,
// with Python's rules for surplus and missing arguments.
#pragma once

#include <string>

#include "src/core/result.h"
#include "src/llm/jinja_state.h"
#include "src/llm/jinja_value.h"

namespace cppnn::llm::jinja {

// format % args (args: a tuple of arguments, a dict or list for %(key)s, or a single value).
Result<Value> printf_format(const std::string& format, const Value& args, RenderState& state);

}  // namespace cppnn::llm::jinja
