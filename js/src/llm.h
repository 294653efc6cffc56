// Text generation in JavaScript (cppnn extension over include/cppnn/llm.h, docs/node.md):
// LanguageModel, loaded and compiled on libuv's thread pool; Generator, whose work runs on its
// own timeline (timeline.h: one step at a time, in call order, on the pool); and the async
// iterator that generate() and chat() return, one Generator::next() per iterator step.
//
// One generation holds a generator from its iterator's first next() until it ends (the last
// piece, an error, or return(), which cancels): meanwhile another generation's first next(),
// append() and rewind() reject with an InvalidStateError (nothing queues behind a generation).
// Work on the pool holds the C++ generator and model through shared pointers, and a step's
// completion holds its iterator, so they outlive their JavaScript objects while work runs.
#pragma once

#include <napi.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/llm.h"
#include "timeline.h"

namespace cppnn::node {

// LanguageModel: made by the static LanguageModel.load(path, options) (a Promise; loading and
// compiling run on the pool); info, stopTokens, tokenize, detokenize and applyChatTemplate run
// on the calling thread (the tokenizer and the template only, no graph).
class LanguageModelObject : public Napi::ObjectWrap<LanguageModelObject> {
 public:
  static Napi::Function define(Napi::Env env);
  explicit LanguageModelObject(const Napi::CallbackInfo& info);
  const LanguageModel& model() const { return model_; }

 private:
  static Napi::Value load(const Napi::CallbackInfo& info);
  Napi::Value info(const Napi::CallbackInfo& info);
  Napi::Value stop_tokens(const Napi::CallbackInfo& info);
  Napi::Value tokenize(const Napi::CallbackInfo& info);
  Napi::Value detokenize(const Napi::CallbackInfo& info);
  Napi::Value apply_chat_template(const Napi::CallbackInfo& info);

  LanguageModel model_;
  Napi::ObjectReference info_;  // the frozen info object, made once
};

// What one step of a generator gives back to the JavaScript thread.
struct StepOutcome {
  std::optional<std::string> piece;            // a generation step's text
  std::optional<GenerationResult> finished;    // set by the step that ended a generation
  std::optional<std::vector<int32_t>> tokens;  // the context after the step
};

// The state a JavaScript Generator shares with its iterators and with its steps on the pool.
struct GeneratorCore : std::enable_shared_from_this<GeneratorCore> {
  using Work = std::function<void(Generator& generator, StepOutcome& out)>;  // on the pool
  using Done = std::function<void(Napi::Env, StepOutcome& out, std::exception_ptr error)>;

  explicit GeneratorCore(LanguageModel m) : model(std::move(m)) {}
  // Queues `work` on the generator (made by the first step: its cache tensors are allocated on
  // the pool), then `done` on the JavaScript thread, after which `tokens` is up to date.
  void run(Napi::Env env, Work work, Done done);

  // Pool side, touched only by the steps of `timeline` (one at a time).
  LanguageModel model;
  std::optional<Generator> generator;
  // JavaScript thread side.
  std::shared_ptr<Timeline> timeline = std::make_shared<Timeline>();
  const void* owner = nullptr;  // the iterator whose generation holds the generator, or null
  std::vector<int32_t> tokens;  // the context as of the last settled step
};

// Generator: `new Generator(model)`; generate(prompt, options) and chat(messages, options)
// return an async iterator of text pieces; append(tokens, {allLogits}) resolves with the
// logits; tokens is the context as of the last settled step; rewind(length) is queued like the
// rest and resolves once done.
class GeneratorObject : public Napi::ObjectWrap<GeneratorObject> {
 public:
  static Napi::Function define(Napi::Env env);
  explicit GeneratorObject(const Napi::CallbackInfo& info);

 private:
  Napi::Value generate(const Napi::CallbackInfo& info);
  Napi::Value chat(const Napi::CallbackInfo& info);
  Napi::Value append(const Napi::CallbackInfo& info);
  Napi::Value tokens(const Napi::CallbackInfo& info);
  Napi::Value rewind(const Napi::CallbackInfo& info);
  // InvalidStateError naming `method` while a generation holds the generator.
  void check_idle(const char* method) const;

  std::shared_ptr<GeneratorCore> core_;
};

// What a generation starts from: a prompt (generate) or a conversation (chat), and its options.
// Pool side: `started` and `ended`, touched only by the generator's steps.
struct GenerationRequest {
  std::string prompt;
  std::optional<std::vector<ChatMessage>> messages;
  GenerationOptions options;
  bool started = false;  // Generator::start()/startChat() was called
  bool ended = false;    // the generation finished, failed or was cancelled
};

// The async iterator of one generation: next() runs one step on the pool (the first one
// tokenizes and prefills) and resolves with {value: piece, done: false}, then {value: undefined,
// done: true} once the generation has ended; return() cancels it; `result` is a Promise of the
// GenerationResult, settled when the generation ends (rejected with the step's error if one
// fails; that rejection is marked handled, next() reports it too). Made by the addon only.
class GenerationStream : public Napi::ObjectWrap<GenerationStream> {
 public:
  struct Init {
    std::shared_ptr<GeneratorCore> core;
    std::shared_ptr<GenerationRequest> request;
  };
  static Napi::Function define(Napi::Env env);
  static Napi::Object make(Napi::Env env, Init init);
  explicit GenerationStream(const Napi::CallbackInfo& info);
  ~GenerationStream() override;

 private:
  enum class Phase {
    kNotStarted,  // next() not called yet
    kRunning,     // holds the generator
    kClosed,      // ended, failed or returned
  };
  Napi::Value next(const Napi::CallbackInfo& info);
  Napi::Value return_(const Napi::CallbackInfo& info);
  Napi::Value self(const Napi::CallbackInfo& info);  // [Symbol.asyncIterator]()
  Napi::Value result(const Napi::CallbackInfo& info);
  // Queues a step of this iterator: `work` on the generator (none: only keeps the order of the
  // iterator's promises), then settles the returned promise from the outcome: {value: piece,
  // done: false}, {value: return_value or undefined, done: true}, or the step's error (which
  // closes the iterator and rejects `result`).
  Napi::Value step(Napi::Env env, GeneratorCore::Work work,
                   std::optional<Napi::Value> return_value);
  // Closes the iterator and frees the generator for another generation.
  void release();
  // Settles `result` once: with `finished`, else rejected with `error`.
  void settle(Napi::Env env, const GenerationResult* finished, Napi::Value error);

  std::shared_ptr<GeneratorCore> core_;
  std::shared_ptr<GenerationRequest> request_;
  Phase phase_ = Phase::kNotStarted;
  std::optional<Napi::Promise::Deferred> result_deferred_;  // until `result` settles
  Napi::ObjectReference result_promise_;
};

// The wrapper behind `value` when it is a LanguageModel, else nullptr.
LanguageModelObject* unwrap_language_model(Napi::Value value);

}  // namespace cppnn::node
