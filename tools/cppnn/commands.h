// The subcommand registry of the cppnn tool. Exit codes (cli_args.h): 0 success, 1 bad input or
// failed checks, 2 usage or internal error; 77 means "skipped" (for ctest).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace cppnn::tool {

struct Command {
  std::string name;
  std::string summary;
  std::function<int(const std::vector<std::string>&)> run;
};

// All subcommands, in help order.
const std::vector<Command>& commands();

// Subcommand entry points (one file each).
int run_wpt(const std::vector<std::string>& args);
int run_convert(const std::vector<std::string>& args);
int run_validate(const std::vector<std::string>& args);
int run_parse(const std::vector<std::string>& args);
int run_serialize(const std::vector<std::string>& args);
int run_fmt(const std::vector<std::string>& args);
int run_emit_js(const std::vector<std::string>& args);
int run_emit_html(const std::vector<std::string>& args);
int run_pack_weights(const std::vector<std::string>& args);
int run_unpack_weights(const std::vector<std::string>& args);
int run_create_manifest(const std::vector<std::string>& args);
int run_extract_weights(const std::vector<std::string>& args);
int run_inline_weights(const std::vector<std::string>& args);
int run_onnx_tests(const std::vector<std::string>& args);
int run_convert_onnx(const std::vector<std::string>& args);
int run_compare_onnx(const std::vector<std::string>& args);
int run_compare(const std::vector<std::string>& args);
int run_info(const std::vector<std::string>& args);
int run_run(const std::vector<std::string>& args);
int run_bench(const std::vector<std::string>& args);
int run_dot(const std::vector<std::string>& args);
int run_ops(const std::vector<std::string>& args);
int run_gguf_info(const std::vector<std::string>& args);
int run_tokenize(const std::vector<std::string>& args);
int run_convert_gguf(const std::vector<std::string>& args);
int run_generate(const std::vector<std::string>& args);

}  // namespace cppnn::tool
