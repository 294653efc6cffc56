#include "tools/cppnn/commands.h"

namespace cppnn::tool {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      {"info", "print a graph's inputs, outputs, operator histogram and constants", run_info},
      {"run", "run a graph on a backend (inputs from .npy/.safetensors or generated)", run_run},
      {"bench", "time a graph's build and dispatch on each backend", run_bench},
      {"dot", "write a graph as Graphviz DOT (or SVG through dot -Tsvg)", run_dot},
      {"ops", "print the operator support matrix (backends, ONNX importer)", run_ops},
      {"wpt", "run a WPT WebNN corpus suite (validation, conformance) on a backend", run_wpt},
      {"validate", "check a .webnn or GraphJson graph (structure, manifest, --strict build)",
       run_validate},
      {"parse", "print a .webnn text graph as canonical GraphJson", run_parse},
      {"serialize", "print a GraphJson graph as canonical .webnn text", run_serialize},
      {"fmt", "print a .webnn or GraphJson graph in canonical form", run_fmt},
      {"emit-js", "print a graph as a JavaScript module that builds it with the WebNN API",
       run_emit_js},
      {"emit-html", "print a standalone HTML page that draws a graph", run_emit_html},
      {"pack-weights", "build a WGWT weights file from <name>.bin files and a manifest",
       run_pack_weights},
      {"unpack-weights", "write <name>.bin for each manifest entry of a WGWT weights file",
       run_unpack_weights},
      {"create-manifest", "write a weights manifest for <name>.bin + <name>.meta.json files",
       run_create_manifest},
      {"extract-weights", "move a graph's inline constant bytes into a WGWT file + manifest",
       run_extract_weights},
      {"inline-weights", "replace a graph's @weights constants by their bytes", run_inline_weights},
      {"convert", "write a .webnn or GraphJson graph as ONNX (+ external data), JSON or text",
       run_convert},
      {"convert-onnx", "write an ONNX model as a .webnn or GraphJson graph (+ weights sidecar)",
       run_convert_onnx},
      {"onnx-tests", "run ONNX's backend test data through the ONNX importer on a backend",
       run_onnx_tests},
      {"compare-onnx", "run an ONNX model converted on a backend and in ONNX Runtime; compare",
       run_compare_onnx},
      {"compare", "per-node errors of a converted model against ONNX Runtime, or two backends",
       run_compare},
      {"gguf-info", "print a GGUF file's metadata and tensors; dump a tensor dequantized",
       run_gguf_info},
      {"tokenize", "encode text lines into token ids (or decode ids) with a model's tokenizer",
       run_tokenize},
      {"convert-gguf", "write a GGUF language model as a .webnn step graph + SafeTensors",
       run_convert_gguf},
      {"generate", "generate text with a language model (.gguf, converted .webnn or ONNX)",
       run_generate},
  };
  return kCommands;
}

}  // namespace cppnn::tool
