// The collection filters of the chat-template interpreter (jinja2/filters.py semantics): the
// filters over lists, dicts and strings as sequences. jinja_filters.cpp registers them by name.
#pragma once

#include "src/core/result.h"
#include "src/llm/jinja_builtins.h"
#include "src/llm/jinja_state.h"

namespace cppnn::llm::jinja {

// A filter: the input, the call arguments, the render state.
using FilterFn = Result<Value> (*)(const Value& input, const CallArgs& args, RenderState& state);

Result<Value> filter_length(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_first(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_last(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_list(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_items(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_join(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_reverse(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_sort(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_unique(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_dictsort(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_sum(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_min(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_max(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_map(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_select(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_reject(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_selectattr(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_rejectattr(const Value& input, const CallArgs& args, RenderState& state);
Result<Value> filter_batch(const Value& input, const CallArgs& args, RenderState& state);

}  // namespace cppnn::llm::jinja
