// The C API's generation options (include/cppnn/cppnn.h cppnn_generation_options): the defaults
// of GenerationOptions (cppnn/llm.h) and the checks of the values a C caller may set.
#include <cmath>
#include <string>

#include "cppnn/errors.h"
#include "src/capi/handles.h"
#include "src/capi/llm_handles.h"

namespace cppnn::capi {

GenerationOptions generation_options(const cppnn_generation_options* options,
                                     const char* function) {
  GenerationOptions o;
  if (!options) return o;
  const std::string where = std::string(function) + ": ";
  // The comparisons are written so that NaN fails them.
  if (!(std::isfinite(options->temperature) && options->temperature >= 0.0f))
    throw TypeError(where + "temperature " + std::to_string(options->temperature) +
                    " is not a finite number >= 0");
  if (!(options->top_p > 0.0f && options->top_p <= 1.0f))
    throw TypeError(where + "top_p " + std::to_string(options->top_p) + " is not in (0, 1]");
  if (!(std::isfinite(options->repetition_penalty) && options->repetition_penalty != 0.0f))
    throw TypeError(where + "repetition_penalty " + std::to_string(options->repetition_penalty) +
                    " is not a finite nonzero number");
  o.maxTokens = options->max_tokens;
  o.temperature = options->temperature;
  o.topK = options->top_k;
  o.topP = options->top_p;
  o.repetitionPenalty = options->repetition_penalty;
  o.repetitionWindow = options->repetition_window;
  if (options->has_seed) o.seed = options->seed;
  if (options->stop_count > 0) require(options->stop, function, "the stop strings");
  for (size_t i = 0; i < options->stop_count; ++i) {
    const std::string index = "stop[" + std::to_string(i) + "]";
    const char* s = require(options->stop[i], function, index.c_str());
    if (*s == '\0') throw TypeError(where + index + " is empty");
    o.stop.emplace_back(s);
  }
  o.ignoreEos = options->ignore_eos;
  return o;
}

}  // namespace cppnn::capi

extern "C" {

void cppnn_generation_options_init(cppnn_generation_options* options) {
  if (!options) return;
  const cppnn::GenerationOptions d;
  *options = cppnn_generation_options{
      d.maxTokens,        d.temperature, d.topK, d.topP,  d.repetitionPenalty,
      d.repetitionWindow, false,         0,      nullptr, 0,
      d.ignoreEos};
}

}  // extern "C"
