// `cppnn generate MODEL --prompt TEXT [--chat] ...`: text generation with a language model (a
// .gguf, a converted .webnn, or an optimum-style ONNX export with its tokenizer.json) through
// the runtime of include/cppnn/llm.h. Streams the text to stdout; prompt and generation speeds
// on stderr. Exit: 0 ok, 1 bad input, 2 usage or internal error.
#include <cstring>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cppnn/llm.h"
#include "src/backends/plan_profiler.h"
#include "src/core/atomic_file.h"
#include "src/core/input_file.h"
#include "tools/cppnn/cli_args.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"
#include "tools/cppnn/npy.h"
#include "tools/cppnn/profile_report.h"

namespace cppnn::tool {
namespace {

const char kHelp[] =
    "usage: cppnn generate MODEL [--prompt TEXT | --prompt-file FILE] [--chat] [--system TEXT]\n"
    "                      [--max-tokens N] [--temperature T] [--top-k K] [--top-p P]\n"
    "                      [--repeat-penalty R] [--repeat-window N] [--seed S] [--stop TEXT]...\n"
    "                      [--ignore-eos] [--backend B] [--threads N] [--context N] [--chunk P]\n"
    "                      [--tokenizer tokenizer.json] [--chat-template FILE] [--json]\n"
    "                      [--show-prompt] [--profile] [--profile-top N] [--trace FILE]\n\n"
    "Generates text with a language model: MODEL is a GGUF file (llama, qwen2), a graph\n"
    "converted by `cppnn convert-gguf` (MODEL.webnn with MODEL.llm.json beside it), or an\n"
    "optimum-style ONNX decoder export (input_ids, attention_mask, position_ids,\n"
    "past_key_values.N.key/value -> logits, present.N.key/value) whose Hugging Face\n"
    "tokenizer.json is given by --tokenizer (default: beside the model; its\n"
    "tokenizer_config.json gives the chat template).\n"
    "The prompt continues as text (the model's special tokens such as <|im_start|> are\n"
    "recognised); with --chat it is a user message put through the model's chat template\n"
    "(after --system TEXT when given). --chat without a prompt reads one user message per line\n"
    "of stdin and answers each in turn, keeping the conversation.\n"
    "Sampling: greedy by default (--temperature 0); else the logits, after the repetition\n"
    "penalty (--repeat-penalty, over the last --repeat-window tokens, default 64), are divided\n"
    "by T, cut to the K most likely (--top-k, 0 = all) and to the smallest set reaching\n"
    "probability P (--top-p), and drawn with --seed S (default: random). Generation stops at\n"
    "an end-of-generation token (unless --ignore-eos), a --stop string, --max-tokens (default\n"
    "256) or a full context (--context N cache positions, default min(the model's, 2048);\n"
    "--chunk P tokens per prefill step, default 32; both fixed when a model is converted).\n"
    "--backend and --threads choose the context as for `cppnn run`.\n"
    "The text is streamed to stdout; prompt tokens/s and generated tokens/s go to stderr.\n"
    "--json prints one JSON object instead (text, tokens, finish reason, timings).\n"
    "--show-prompt prints the prompt as given to the model to stderr.\n"
    "--logits FILE.npy writes the logits of every prompt position (float32 [tokens,\n"
    "vocabulary]) before generating; with --max-tokens 0 nothing is generated.\n"
    "--profile times every operation of the step graphs (cpu and reference backends) and\n"
    "prints, at the end, the prefill and the decode step's operations most expensive first\n"
    "(as `cppnn bench --profile`, the first --profile-top N, default 25) to stderr;\n"
    "--trace FILE writes both as a Chrome trace (JSON) for Perfetto or chrome://tracing.\n"
    "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";

GenerationOptions generation_options(const ParsedArgs& p) {
  GenerationOptions g;
  if (auto v = p.value("max-tokens"))
    g.maxTokens = static_cast<uint32_t>(
        parse_unsigned_flag("max-tokens", *v, p.has("logits") ? 0 : 1, 1u << 24));
  if (auto v = p.value("temperature"))
    g.temperature = static_cast<float>(parse_number_flag("temperature", *v, 0));
  if (auto v = p.value("top-k"))
    g.topK = static_cast<uint32_t>(parse_unsigned_flag("top-k", *v, 0, 1u << 24));
  if (auto v = p.value("top-p")) {
    g.topP = static_cast<float>(parse_number_flag("top-p", *v, 0));
    if (g.topP <= 0 || g.topP > 1) throw UsageError("--top-p " + *v + ": expected (0, 1]");
  }
  if (auto v = p.value("repeat-penalty")) {
    g.repetitionPenalty = static_cast<float>(parse_number_flag("repeat-penalty", *v, 0));
    if (g.repetitionPenalty <= 0)
      throw UsageError("--repeat-penalty " + *v + ": expected a positive number");
  }
  if (auto v = p.value("repeat-window"))
    g.repetitionWindow =
        static_cast<uint32_t>(parse_unsigned_flag("repeat-window", *v, 0, 1u << 24));
  if (auto v = p.value("seed")) g.seed = parse_unsigned_flag("seed", *v);
  g.stop = p.all("stop");
  for (const std::string& s : g.stop)
    if (s.empty()) throw UsageError("--stop: the stop text is empty");
  g.ignoreEos = p.has("ignore-eos");
  return g;
}

void print_stats(const GenerationResult& r) {
  const GenerationStats& s = r.stats;
  std::cerr << std::fixed << std::setprecision(2) << "\nprompt: " << s.promptTokens << " tokens in "
            << s.promptSeconds << " s (" << s.promptTokensPerSecond() << " tokens/s)";
  if (s.reusedTokens) std::cerr << ", " << s.reusedTokens << " reused from the cache";
  std::cerr << "; generated: " << s.generatedTokens << " tokens in " << s.generateSeconds << " s ("
            << s.generatedTokensPerSecond()
            << " tokens/s); stop: " << finish_reason_name(r.finishReason) << "\n";
}

nlohmann::json result_json(const LanguageModel& model, const GenerationResult& r) {
  const GenerationStats& s = r.stats;
  return {{"model", model.info().name},
          {"backend", model.info().backend},
          {"text", r.text},
          {"tokens", r.tokens},
          {"finish_reason", finish_reason_name(r.finishReason)},
          {"prompt_tokens", s.promptTokens},
          {"reused_tokens", s.reusedTokens},
          {"generated_tokens", s.generatedTokens},
          {"prompt_seconds", s.promptSeconds},
          {"generate_seconds", s.generateSeconds},
          {"prompt_tokens_per_second", s.promptTokensPerSecond()},
          {"generated_tokens_per_second", s.generatedTokensPerSecond()}};
}

// --profile and --trace: the step graphs' profiles to stderr, and as one Chrome trace.
void report_profile(const LanguageModel& model, size_t top,
                    const std::optional<std::string>& trace) {
  const LanguageModelProfile profile = model.profile();
  if (!profile.decode.available)
    throw DataError("--profile: the " + model.info().backend +
                    " backend does not time operations (use cpu or reference)");
  std::fflush(stdout);
  print_profile(stderr, "prefill, " + model.info().backend, profile.prefill, top);
  print_profile(stderr, "decode, " + model.info().backend, profile.decode, top);
  if (!trace) return;
  MLGraphProfile both = profile.prefill;
  merge_profile(both, profile.decode);
  if (Status st = write_file_atomically(*trace, chrome_trace_json(both)); !st)
    throw DataError("--trace: " + st.error().message);
}

int generate(const ParsedArgs& p) {
  LanguageModelOptions mo;
  if (auto v = p.value("backend")) mo.backend = *v;
  if (auto v = p.value("threads"))
    mo.numThreads = static_cast<uint32_t>(parse_unsigned_flag("threads", *v, 1, 1024));
  if (auto v = p.value("context"))
    mo.contextLength = static_cast<uint32_t>(parse_unsigned_flag("context", *v, 1, 1u << 20));
  if (auto v = p.value("chunk"))
    mo.prefillChunk = static_cast<uint32_t>(parse_unsigned_flag("chunk", *v, 1, 4096));
  if (auto v = p.value("tokenizer")) mo.tokenizer = *v;
  if (auto v = p.value("chat-template")) mo.chatTemplate = *v;
  const std::optional<std::string> trace = p.value("trace");
  mo.profile = p.has("profile") || trace.has_value();
  const size_t top =
      p.value("profile-top") ? parse_unsigned_flag("profile-top", *p.value("profile-top"), 1) : 25;
  const GenerationOptions go = generation_options(p);
  std::optional<std::string> prompt = p.value("prompt");
  if (auto f = p.value("prompt-file")) {
    if (prompt) throw UsageError("give --prompt or --prompt-file, not both");
    prompt = std::move(read_input_file(*f, 64ull << 20)).value_or_throw();
  }
  const bool chat = p.has("chat"), json = p.has("json");
  if (!prompt && !chat) throw UsageError("no prompt: give --prompt TEXT (or --chat)");

  LanguageModel model = LanguageModel::load(p.path, mo);
  Generator generator(model);
  const TextCallback stream = [&](std::string_view piece) {
    if (!json) std::cout << piece << std::flush;
    return true;
  };
  std::vector<ChatMessage> messages;
  if (auto s = p.value("system")) {
    if (!chat) throw UsageError("--system needs --chat");
    messages.push_back({"system", *s});
  }
  auto turn = [&](const std::string& text) {
    if (auto path = p.value("logits")) {
      // The prompt's logits: its tokens appended, then generation continues from them.
      const std::string prompt_text = chat ? model.applyChatTemplate(
                                                 [&] {
                                                   auto m = messages;
                                                   m.push_back({"user", text});
                                                   return m;
                                                 }(),
                                                 true)
                                           : text;
      const std::vector<int32_t> ids = model.tokenize(prompt_text);
      if (ids.empty()) throw UsageError("--logits: the prompt has no tokens");
      std::vector<float> logits = generator.append(ids, true);
      NpyArray array;
      array.shape = {static_cast<uint32_t>(ids.size()),
                     static_cast<uint32_t>(logits.size() / ids.size())};
      array.data.resize(logits.size() * sizeof(float));
      std::memcpy(array.data.data(), logits.data(), array.data.size());
      Status written = write_npy_file(*path, array);
      if (!written.ok()) throw_error(written.error().kind, written.error().message);
      if (go.maxTokens == 0) return;
      generator.rewind(0);
    }
    GenerationResult r;
    if (chat) {
      messages.push_back({"user", text});
      if (p.has("show-prompt")) std::cerr << model.applyChatTemplate(messages) << "\n";
      r = generator.chat(messages, go, stream);
      messages.push_back({"assistant", r.text});
    } else {
      if (p.has("show-prompt")) std::cerr << text << "\n";
      r = generator.generate(text, go, stream);
    }
    if (json) {
      std::cout << result_json(model, r).dump() << "\n";
    } else {
      std::cout << "\n" << std::flush;
      print_stats(r);
    }
  };
  if (prompt) {
    turn(*prompt);
  } else {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty()) continue;
      turn(line);
    }
  }
  if (mo.profile) report_profile(model, top, trace);
  return kExitOk;
}

}  // namespace

int run_generate(const std::vector<std::string>& argv) {
  ParsedArgs p;
  if (auto rc = parse_command_line(find_command_spec("generate"), argv, kHelp, p)) return *rc;
  return run_command("generate", [&] { return generate(p); });
}

}  // namespace cppnn::tool
