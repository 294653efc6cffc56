// The flag tables of the cppnn subcommands (cli_args.h), all in one place so that the parser and
// its fuzz target see every one. The help texts live with each command.
#include "tools/cppnn/cli_args.h"

namespace cppnn::tool {
namespace {

using K = FlagKind;

FlagSpec sw(std::string name, std::vector<std::string> aliases = {}) {
  return {std::move(name), K::kSwitch, false, {}, std::move(aliases)};
}
FlagSpec val(std::string name, std::vector<std::string> aliases = {}) {
  return {std::move(name), K::kValue, false, {}, std::move(aliases)};
}
FlagSpec rep(std::string name, std::vector<std::string> aliases = {}) {
  return {std::move(name), K::kRepeated, false, {}, std::move(aliases)};
}
FlagSpec req(std::string name) {
  return {std::move(name), K::kValue, true, {}, {}};
}

// The flags of every command that loads a GRAPH (graph_source.h).
std::vector<FlagSpec> graph_source(std::vector<FlagSpec> more) {
  std::vector<FlagSpec> flags = {val("weights"), val("weights-manifest"), rep("override-dim")};
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}

CommandSpec graph_command(std::string name, std::vector<FlagSpec> flags,
                          std::string positional = "GRAPH") {
  CommandSpec s;
  s.name = std::move(name);
  s.flags = std::move(flags);
  s.positional_name = std::move(positional);
  s.min_positionals = s.max_positionals = 1;
  return s;
}

CommandSpec flags_only(std::string name, std::vector<FlagSpec> flags) {
  CommandSpec s;
  s.name = std::move(name);
  s.flags = std::move(flags);
  return s;
}

std::vector<CommandSpec> make_specs() {
  std::vector<CommandSpec> specs;
  specs.push_back(graph_command("info", graph_source({sw("json")})));
  specs.push_back(graph_command(
      "run", graph_source({val("backend"), rep("input"), val("inputs"), val("seed"),
                           val("output-dir"), val("iterations"), val("threads"), sw("json")})));
  specs.push_back(graph_command(
      "bench", graph_source({rep("backend"), val("iterations"), val("warmup"), val("threads"),
                             sw("profile"), val("profile-top"), val("trace"), sw("json")})));
  specs.push_back(graph_command("dot", graph_source({val("output", {"-o"}), val("svg")})));
  specs.push_back(flags_only("ops", {rep("backend"), sw("markdown"), sw("json")}));
  specs.push_back(flags_only("wpt", {val("suite"),
                                     val("backend"),
                                     {"corpus", K::kList, false, {}, {}},
                                     val("report"),
                                     val("expectations"),
                                     val("filter"),
                                     sw("check-onnx"),
                                     val("export-coreml"),
                                     val("export-tflite"),
                                     sw("verbose", {"-v"})}));
  specs.push_back(graph_command("validate", {sw("strict"), val("weights-manifest")}, "PATH"));
  specs.push_back(graph_command("parse", {}, "PATH"));
  specs.push_back(graph_command("serialize", {sw("quantized")}, "PATH"));
  specs.push_back(graph_command("fmt", {sw("json"), sw("check")}, "PATH"));
  specs.push_back(graph_command("emit-js", {}, "PATH"));
  specs.push_back(graph_command("emit-html", {}, "PATH"));
  specs.push_back(flags_only("pack-weights", {req("manifest"), req("input-dir"), req("output")}));
  specs.push_back(
      flags_only("unpack-weights", {req("weights"), req("manifest"), req("output-dir")}));
  specs.push_back(flags_only(
      "create-manifest",
      {req("input-dir"), req("output"), {"endianness", K::kValue, false, "little", {}}}));
  specs.push_back(flags_only("extract-weights", {req("input"), req("output-dir"), req("weights"),
                                                 req("manifest"), req("output-graph")}));
  specs.push_back(
      flags_only("inline-weights", {req("input"), req("weights"), req("manifest"), req("output")}));
  specs.push_back(graph_command("convert",
                                {val("to"), val("output", {"-o"}), val("weights"),
                                 val("weights-manifest"), val("external-threshold")},
                                "PATH"));
  {
    CommandSpec s =
        flags_only("convert-onnx",
                   {val("input", {"-i"}), val("output", {"-o"}), val("weights"), val("manifest"),
                    val("weights-format"), sw("inline-weights"), sw("optimize"),
                    sw("experimental-dynamic-inputs"), rep("override-dim", {"--dim"}),
                    val("override-dims-file"), rep("input-shape"), rep("input-value"),
                    val("max-inline-bytes"), rep("keep-dynamic")});
    s.positional_name = "MODEL";
    s.min_positionals = s.max_positionals = 1;
    s.positional_flag = "input";
    s.missing_message = "no ONNX model given";
    specs.push_back(std::move(s));
  }
  {
    CommandSpec s = flags_only(
        "compare-onnx",
        {val("backend"), rep("override-dim", {"--dim"}), rep("input-shape"), rep("input"),
         val("atol"), val("rtol"), val("max-rel-l2"), val("seed"), val("input-pattern"),
         val("normalize"), sw("skip-missing"), rep("input-value"), val("json")});
    s.positional_name = "MODEL";
    s.min_positionals = s.max_positionals = 1;
    specs.push_back(std::move(s));
  }
  {
    CommandSpec s =
        flags_only("compare", {val("backend"), val("against"), rep("override-dim", {"--dim"}),
                               rep("input-shape"), rep("input-value"), rep("input"), val("atol"),
                               val("rtol"), val("seed"), val("report"), sw("all"), val("perturb"),
                               val("weights"), val("weights-manifest")});
    s.positional_name = "MODEL";
    s.min_positionals = s.max_positionals = 1;
    specs.push_back(std::move(s));
  }
  specs.push_back(graph_command("tokenize",
                                {val("text"), val("file"), sw("no-special"), sw("no-add-special"),
                                 sw("decode"), sw("skip-special"), sw("json"), sw("spec-json")},
                                "MODEL"));
  {
    CommandSpec s = flags_only(
        "convert-gguf", {val("output", {"-o"}), val("context"), val("chunk"), val("weights")});
    s.positional_name = "MODEL";
    s.min_positionals = s.max_positionals = 1;
    s.missing_message = "no GGUF model given";
    specs.push_back(std::move(s));
  }
  {
    CommandSpec s = flags_only("generate", {val("prompt", {"-p"}),
                                            val("prompt-file"),
                                            sw("chat"),
                                            val("system"),
                                            val("max-tokens", {"-n"}),
                                            val("temperature"),
                                            val("top-k"),
                                            val("top-p"),
                                            val("repeat-penalty"),
                                            val("repeat-window"),
                                            val("seed"),
                                            rep("stop"),
                                            sw("ignore-eos"),
                                            val("backend"),
                                            val("threads"),
                                            val("context"),
                                            val("chunk"),
                                            val("tokenizer"),
                                            val("chat-template"),
                                            sw("json"),
                                            sw("show-prompt"),
                                            val("logits"),
                                            sw("profile"),
                                            val("profile-top"),
                                            val("trace")});
    s.positional_name = "MODEL";
    s.min_positionals = s.max_positionals = 1;
    s.missing_message = "no model given";
    specs.push_back(std::move(s));
  }
  specs.push_back(flags_only(
      "onnx-tests", {val("backend"), val("suite"), val("filter"), val("data"), val("expectations"),
                     val("report"), val("timeout"), sw("in-process"), sw("verbose", {"-v"})}));
  // gguf-info FILE (tools/cppnn/gguf_info.cpp).
  specs.push_back(graph_command(
      "gguf-info",
      {sw("json"), sw("full-arrays"), val("tensor"), sw("dequantize"), val("output", {"-o"})},
      "FILE"));
  return specs;
}

}  // namespace

const std::vector<CommandSpec>& command_specs() {
  static const std::vector<CommandSpec> kSpecs = make_specs();
  return kSpecs;
}

}  // namespace cppnn::tool
