// libFuzzer target: the ONNX importer (src/import/onnx) on arbitrary bytes. The input is parsed
// as an onnx.ModelProto and imported into a reference-backend builder (free dimensions set to
// 2); the import must succeed or throw a cppnn::Error with a message, never crash, leak, hang or
// throw anything else. An imported graph is also pruned to its outputs (the graph build() would
// compile).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <span>

#include "cppnn/errors.h"
#include "cppnn/onnx_import.h"
#include "cppnn/webnn.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static cppnn::MLContext context = cppnn::MLContext::create({.backend = "reference"});
  cppnn::MLGraphBuilder builder(context);
  cppnn::OnnxImportOptions options;
  options.freeDimensions = {{"N", 2}, {"batch", 2}, {"seq", 2}};
  options.foldLimitBytes = uint64_t{1} << 20;
  try {
    cppnn::OnnxImportResult r = cppnn::import_onnx_bytes(
        builder, std::as_bytes(std::span(reinterpret_cast<const char*>(data), size)), options,
        "/nonexistent-fuzz-folder");
    if (!r.outputs.empty()) (void)builder.pruned_graph(r.outputs);
  } catch (const cppnn::Error& e) {
    if (e.what()[0] == '\0') {
      std::fprintf(stderr, "a cppnn::Error without a message\n");
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception: %s\n", e.what());
    std::abort();
  }
  return 0;
}
