// Generator (cppnn/llm.h) for Python: generate()/chat() return a GenerationStream, an iterator
// of text pieces over the pull-style start/next (each step runs with the GIL released; closing or
// dropping the stream cancels), and append() returns numpy logits. A generator's C++ calls are
// serialised by its mutex, taken only with the GIL released, so threads that share one generator
// wait for each other instead of racing; generators of one model run in parallel.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "cppnn/errors.h"
#include "cppnn/llm.h"
#include "llm_common.h"

namespace nb = nanobind;

namespace cppnn::py {
namespace {

// A Generator and what serialises it: every call on `generator` holds `mutex` (taken with the GIL
// released). `generation` counts the starts, so a stream knows whether it is still the current
// generation; `started` is false until a start succeeds.
struct PyGenerator {
  explicit PyGenerator(const LanguageModel& m) : model(m), generator(m) {}
  LanguageModel model;
  Generator generator;
  std::mutex mutex;
  uint64_t generation = 0;
  bool started = false;
};

// The iterator generate()/chat() return: generation `generation` of the generator `owner` (kept
// alive by the reference). `result` is its result once it finished or was cancelled (guarded by
// the generator's mutex).
struct GenerationStream {
  nb::object owner;
  PyGenerator* generator = nullptr;
  uint64_t generation = 0;
  bool finished = false;
  std::optional<GenerationResult> result;

  GenerationStream(nb::object o, PyGenerator* g, uint64_t n)
      : owner(std::move(o)), generator(g), generation(n) {}
  GenerationStream(GenerationStream&& other) noexcept
      : owner(std::move(other.owner)),
        generator(std::exchange(other.generator, nullptr)),
        generation(other.generation),
        finished(other.finished),
        result(std::move(other.result)) {}
  GenerationStream& operator=(GenerationStream&&) = delete;
  // Dropping a stream that is still running cancels it, unless another thread holds the
  // generator (the GIL is held here: waiting could deadlock).
  ~GenerationStream() {
    if (!generator) return;
    std::unique_lock lock(generator->mutex, std::try_to_lock);
    if (lock.owns_lock() && !finished && generator->generation == generation)
      generator->generator.cancel();
  }
};

// A uint32 keyword argument; TypeError naming it when out of range.
uint32_t uint32_arg(int64_t value, const char* name) {
  if (value < 0 || value > int64_t{UINT32_MAX})
    throw TypeError(std::string(name) + " must be an integer in [0, 4294967295], not " +
                    std::to_string(value));
  return static_cast<uint32_t>(value);
}

// GenerationOptions from the keyword arguments of generate()/chat(); TypeError for a temperature
// that is negative or not finite, a top_p outside (0, 1], a repetition penalty that is 0 or not
// finite, a seed that is not an integer in [0, 2^64), and stop strings that are not strs.
GenerationOptions generation_options(int64_t max_tokens, double temperature, int64_t top_k,
                                     double top_p, double repetition_penalty,
                                     int64_t repetition_window, nb::handle seed, nb::handle stop,
                                     bool ignore_eos) {
  GenerationOptions o;
  o.maxTokens = uint32_arg(max_tokens, "max_tokens");
  if (!(std::isfinite(temperature) && temperature >= 0))
    throw TypeError("temperature must be a finite number >= 0, not " + std::to_string(temperature));
  o.temperature = static_cast<float>(temperature);
  o.topK = uint32_arg(top_k, "top_k");
  if (!(top_p > 0 && top_p <= 1))
    throw TypeError("top_p must be in (0, 1], not " + std::to_string(top_p));
  o.topP = static_cast<float>(top_p);
  if (!(std::isfinite(repetition_penalty) && repetition_penalty != 0))
    throw TypeError("repetition_penalty must be a finite nonzero number, not " +
                    std::to_string(repetition_penalty));
  o.repetitionPenalty = static_cast<float>(repetition_penalty);
  o.repetitionWindow = uint32_arg(repetition_window, "repetition_window");
  if (!seed.is_none()) {
    uint64_t value = 0;
    if (nb::isinstance<nb::bool_>(seed) || nb::isinstance<nb::float_>(seed) ||
        !nb::try_cast(seed, value))
      throw TypeError("seed must be None or an integer in [0, 2^64)");
    o.seed = value;
  }
  if (nb::isinstance<nb::str>(stop)) {
    o.stop.push_back(nb::cast<std::string>(stop));
  } else if (!stop.is_none()) {
    if (!nb::isinstance<nb::iterable>(stop))
      throw TypeError("stop must be a str or a list of strs");
    for (nb::handle s : stop) {
      if (!nb::isinstance<nb::str>(s)) throw TypeError("stop must be a str or a list of strs");
      o.stop.push_back(nb::cast<std::string>(s));
    }
  }
  for (const std::string& s : o.stop)
    if (s.empty()) throw TypeError("stop: a stop string is empty");
  o.ignoreEos = ignore_eos;
  return o;
}

// Starts a generation on `self` with `begin` (the GIL released, the generator locked) and
// returns its stream.
template <class F>
GenerationStream start(nb::pointer_and_handle<PyGenerator> self, F&& begin) {
  PyGenerator& g = *self.p;
  uint64_t generation = 0;
  {
    nb::gil_scoped_release release;
    std::lock_guard lock(g.mutex);
    ++g.generation;  // an older stream of this generator is over, whatever happens next
    g.started = false;
    begin(g.generator);
    g.started = true;
    generation = g.generation;
  }
  return GenerationStream(nb::borrow(self.h), &g, generation);
}

// The InvalidStateError of a stream whose generator has started another generation.
InvalidStateError superseded() {
  return InvalidStateError(
      "GenerationStream: the generator has started another generation since this one");
}

// stream.__next__(): the next piece, or StopIteration once generation has finished.
nb::str stream_next(GenerationStream& s) {
  std::optional<std::string> piece;
  {
    nb::gil_scoped_release release;
    std::lock_guard lock(s.generator->mutex);
    if (!s.finished) {
      if (s.generator->generation != s.generation) throw superseded();
      piece = s.generator->generator.next();
      if (!piece) {
        s.result = s.generator->generator.result();
        s.finished = true;
      }
    }
  }
  if (!piece) throw nb::stop_iteration();
  return utf8_str(*piece);
}

// stream.close(): cancels the generation when it is still running.
void stream_close(GenerationStream& s) {
  nb::gil_scoped_release release;
  std::lock_guard lock(s.generator->mutex);
  if (s.finished || s.generator->generation != s.generation) return;
  s.generator->generator.cancel();
  s.result = s.generator->generator.result();
  s.finished = true;
}

// stream.result: the result so far (final once the stream is finished).
GenerationResult stream_result(GenerationStream& s) {
  nb::gil_scoped_release release;
  std::lock_guard lock(s.generator->mutex);
  if (s.result) return *s.result;
  if (s.generator->generation != s.generation) throw superseded();
  return s.generator->generator.result();
}

// generator.append(tokens, all_logits): float32 logits [len(tokens), vocabulary] or [vocabulary].
nb::object append(PyGenerator& g, const std::vector<int32_t>& tokens, bool all_logits) {
  auto* logits = new std::vector<float>();
  nb::capsule owner(logits, [](void* p) noexcept { delete static_cast<std::vector<float>*>(p); });
  {
    nb::gil_scoped_release release;
    std::lock_guard lock(g.mutex);
    *logits = g.generator.append(tokens, all_logits);
  }
  const size_t vocabulary = g.model.info().vocabularySize;
  size_t shape[2] = {logits->size() / (vocabulary == 0 ? 1 : vocabulary), vocabulary};
  const bool rows = all_logits && !tokens.empty();
  if (!rows) shape[0] = logits->size();
  return nb::ndarray<nb::numpy, float>(logits->data(), rows ? 2 : 1, shape, owner).cast();
}

std::string result_repr(const GenerationResult& r) {
  return "GenerationResult(finish_reason='" + std::string(finish_reason_name(r.finishReason)) +
         "', generated_tokens=" + std::to_string(r.stats.generatedTokens) +
         ", prompt_tokens=" + std::to_string(r.stats.promptTokens) +
         ", reused_tokens=" + std::to_string(r.stats.reusedTokens) + ")";
}

// The keyword arguments of generate() and chat(), after the prompt or messages.
#define CPPNN_GENERATION_ARGS                                                                     \
  nb::arg("max_tokens") = 256, nb::arg("temperature") = 0.0, nb::arg("top_k") = 0,                \
  nb::arg("top_p") = 1.0, nb::arg("repetition_penalty") = 1.0, nb::arg("repetition_window") = 64, \
  nb::arg("seed") = nb::none(), nb::arg("stop") = nb::tuple(), nb::arg("ignore_eos") = false

}  // namespace

void bind_generator(nb::module_& m) {
  nb::class_<GenerationResult>(m, "GenerationResult",
                               "The text, tokens, finish reason and timings of a generation.")
      .def_prop_ro(
          "text", [](const GenerationResult& r) { return utf8_str(r.text); },
          "The generated text (stop strings and stop tokens excluded).")
      .def_ro("tokens", &GenerationResult::tokens, "The generated tokens (a stop token included).")
      .def_prop_ro(
          "finish_reason",
          [](const GenerationResult& r) { return std::string(finish_reason_name(r.finishReason)); },
          "\"stop\", \"stop-string\", \"length\", \"context-full\" or \"cancelled\".")
      .def_prop_ro(
          "prompt_tokens", [](const GenerationResult& r) { return r.stats.promptTokens; },
          "Tokens prefilled (after the reused prefix).")
      .def_prop_ro(
          "reused_tokens", [](const GenerationResult& r) { return r.stats.reusedTokens; },
          "Tokens of the cache the prompt shared and kept.")
      .def_prop_ro("generated_tokens",
                   [](const GenerationResult& r) { return r.stats.generatedTokens; })
      .def_prop_ro(
          "prompt_seconds", [](const GenerationResult& r) { return r.stats.promptSeconds; },
          "Prefill time, to the first generated token's logits.")
      .def_prop_ro(
          "generate_seconds", [](const GenerationResult& r) { return r.stats.generateSeconds; },
          "Decode time of the generated tokens.")
      .def_prop_ro("prompt_tokens_per_second",
                   [](const GenerationResult& r) { return r.stats.promptTokensPerSecond(); })
      .def_prop_ro("generated_tokens_per_second",
                   [](const GenerationResult& r) { return r.stats.generatedTokensPerSecond(); })
      .def("__repr__", &result_repr);

  nb::class_<GenerationStream>(
      m, "GenerationStream",
      "The pieces of text of one generation, as an iterator (Generator.generate/chat). Closing "
      "it, leaving its `with` block or dropping it cancels the generation.")
      .def("__iter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__next__", &stream_next)
      .def("close", &stream_close, "Cancels the generation when it is still running.")
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__exit__",
          [](GenerationStream& s, nb::handle, nb::handle, nb::handle) { stream_close(s); },
          nb::arg("exc_type").none(), nb::arg("exc_value").none(), nb::arg("traceback").none())
      .def_prop_ro(
          "finished",
          [](GenerationStream& s) {
            nb::gil_scoped_release release;
            std::lock_guard lock(s.generator->mutex);
            return s.finished;
          },
          "Whether the iteration has ended (or the stream was closed).")
      .def_prop_ro("result", &stream_result,
                   "The GenerationResult so far (final once the iteration has ended).");

  nb::class_<PyGenerator>(
      m, "Generator",
      "One conversation with a LanguageModel: its key/value cache, the tokens in it, a sampler.")
      .def(nb::init<const LanguageModel&>(), nb::arg("model"))
      .def_prop_ro("model", [](const PyGenerator& g) { return g.model; })
      .def(
          "generate",
          [](nb::pointer_and_handle<PyGenerator> self, std::string prompt, int64_t max_tokens,
             double temperature, int64_t top_k, double top_p, double repetition_penalty,
             int64_t repetition_window, nb::handle seed, nb::handle stop, bool ignore_eos) {
            const GenerationOptions o =
                generation_options(max_tokens, temperature, top_k, top_p, repetition_penalty,
                                   repetition_window, seed, stop, ignore_eos);
            return start(self, [&](Generator& g) { g.start(prompt, o); });
          },
          nb::arg("prompt"), CPPNN_GENERATION_ARGS,
          "Continues the conversation with `prompt` (special tokens recognised; BOS on an empty "
          "context when the model asks for it) and returns the stream of generated pieces; the "
          "prompt is prefilled before this returns.")
      .def(
          "chat",
          [](nb::pointer_and_handle<PyGenerator> self, nb::handle messages, int64_t max_tokens,
             double temperature, int64_t top_k, double top_p, double repetition_penalty,
             int64_t repetition_window, nb::handle seed, nb::handle stop, bool ignore_eos) {
            const std::vector<ChatMessage> list = chat_messages(messages, "chat");
            const GenerationOptions o =
                generation_options(max_tokens, temperature, top_k, top_p, repetition_penalty,
                                   repetition_window, seed, stop, ignore_eos);
            return start(self, [&](Generator& g) { g.startChat(list, o); });
          },
          nb::arg("messages"), CPPNN_GENERATION_ARGS,
          "The conversation `messages` through the chat template; the cached tokens it shares "
          "with the context are kept (a follow-up turn prefills only what is new). Returns the "
          "stream of the reply's pieces.")
      .def("append", &append, nb::arg("tokens"), nb::arg("all_logits") = false,
           "Appends `tokens` to the context and returns float32 logits, [len(tokens), "
           "vocabulary_size] when all_logits, else the last position's [vocabulary_size].")
      .def_prop_ro(
          "tokens",
          [](PyGenerator& g) {
            nb::gil_scoped_release release;
            std::lock_guard lock(g.mutex);
            return g.generator.tokens();
          },
          "The tokens of the context: the prompts and the generated tokens so far.")
      .def(
          "rewind",
          [](PyGenerator& g, int64_t length) {
            if (length < 0) throw TypeError("rewind: the length must be >= 0");
            nb::gil_scoped_release release;
            std::lock_guard lock(g.mutex);
            g.generator.rewind(static_cast<size_t>(length));
          },
          nb::arg("length"), "Forgets everything after the first `length` tokens.")
      .def_prop_ro(
          "result",
          [](PyGenerator& g) -> std::optional<GenerationResult> {
            nb::gil_scoped_release release;
            std::lock_guard lock(g.mutex);
            if (!g.started) return std::nullopt;
            return g.generator.result();
          },
          "The result of the last generation so far (None before the first).");
}

}  // namespace cppnn::py
