// `cppnn convert-gguf MODEL.gguf [-o OUT.webnn] [--context N] [--chunk P]`: a GGUF language model
// written as a step graph + SafeTensors + llm.json (src/llm/gguf_conversion.h), with a report
// of the weight forms kept on stderr. Exit: 0 ok, 1 bad input, 2 usage or internal error.
#include <iostream>

#include "src/llm/gguf_conversion.h"
#include "tools/cppnn/cli_args.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool {
namespace {

namespace fs = std::filesystem;

const char kHelp[] =
    "usage: cppnn convert-gguf MODEL.gguf [-o OUT.webnn] [--context N] [--chunk P]\n"
    "                          [--weights keep|float32|float16]\n\n"
    "Converts a GGUF language model (architectures llama and qwen2; tensor kinds F32, F16,\n"
    "BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K) into files every cppnn tool loads:\n"
    "  OUT (default <model stem>.webnn; GraphJson when it ends in .json): the model's step\n"
    "      graph, run at 1 to P tokens per step (dyn(\"seq\", P)) against key/value cache\n"
    "      inputs of N positions;\n"
    "  <OUT stem>.safetensors: its weights. Quantized tensors stay quantized: packed 4-bit or\n"
    "      8-bit integers with float32 block scales, dequantizeLinear where they are used, as\n"
    "      exact as ggml's own dequantization;\n"
    "  <OUT stem>.llm.json: the step interface, the tokenizer and the chat template, which\n"
    "      `cppnn generate OUT` reads.\n"
    "--context N: cache positions, the longest conversation (default min(the model's training\n"
    "context, 2048)). --chunk P: tokens per prefill step (default 32).\n"
    "--weights: keep (default) stores the weights as the file has them; float32 dequantizes\n"
    "every weight to float32; float16 stores the matrices as float16 (rounded to nearest\n"
    "even) and the vectors (norms, biases) as float32.\n"
    "The three files are written together, all or none. A report of the weight forms and the\n"
    "file sizes goes to stderr.\n"
    "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";

int convert(const ParsedArgs& p) {
  const fs::path model = p.path;
  const fs::path out =
      p.value("output") ? fs::path(*p.value("output")) : fs::path(model.stem().string() + ".webnn");
  llm::GgufConversionOptions options;
  if (auto v = p.value("context"))
    options.capacity = static_cast<uint32_t>(parse_unsigned_flag("context", *v, 1, 1u << 20));
  if (auto v = p.value("chunk"))
    options.chunk = static_cast<uint32_t>(parse_unsigned_flag("chunk", *v, 1, 4096));
  if (auto v = p.value("weights")) {
    const std::string& form = check_choice_flag("weights", *v, {"keep", "float32", "float16"});
    options.weights = form == "float32"   ? llm::WeightForm::kFloat32
                      : form == "float16" ? llm::WeightForm::kFloat16
                                          : llm::WeightForm::kKeep;
  }
  const llm::GgufConversionReport r = llm::convert_gguf_file(model, out, options);
  std::cerr << "Converted " << r.name << " (" << r.architecture << ", " << r.layers
            << " layers): context " << r.capacity << ", prefill chunk " << r.chunk << "\n";
  for (const std::string& n : r.notes) std::cerr << "  " << n << "\n";
  if (!r.unused.empty()) {
    std::cerr << "  not used by the graph:";
    for (const std::string& n : r.unused) std::cerr << " " << n;
    std::cerr << "\n";
  }
  std::cerr << "  weights " << r.weights_bytes << " bytes (the GGUF file: " << r.gguf_bytes
            << " bytes, ratio " << (r.gguf_bytes ? double(r.weights_bytes) / r.gguf_bytes : 0)
            << ")\n";
  std::cerr << "\u2713 Wrote " << r.graph.string() << ", " << r.weights.string() << ", "
            << r.package.string() << "\n";
  return kExitOk;
}

}  // namespace

int run_convert_gguf(const std::vector<std::string>& argv) {
  ParsedArgs p;
  if (auto rc = parse_command_line(find_command_spec("convert-gguf"), argv, kHelp, p)) return *rc;
  return run_command("convert-gguf", [&] { return convert(p); });
}

}  // namespace cppnn::tool
