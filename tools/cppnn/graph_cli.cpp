// Reading inputs, checking outputs and reporting errors for every subcommand (graph_cli.h).
#include "tools/cppnn/graph_cli.h"

#include <sys/stat.h>

#include <iostream>
#include <new>

#include "cppnn/errors.h"
#include "src/core/atomic_file.h"
#include "src/core/input_file.h"
#include "tools/cppnn/convert_onnx.h"

namespace cppnn::tool {

namespace fs = std::filesystem;

// How much of a graph file is looked at to detect its format (leading comments included).
constexpr size_t kGraphHeadBytes = size_t{1} << 20;

std::vector<std::string> all_values(const GraphArgs& a, const std::string& name) {
  return a.all(name);
}

Result<std::string> read_file(const fs::path& path, uint64_t limit) {
  return read_input_file(path, limit);
}

Result<std::string> read_graph_file(const fs::path& path,
                                    std::optional<formats::DocEncoding> want) {
  auto file = InputFile::open(path);
  if (!file) return file.error();
  auto head = file->read_head(kGraphHeadBytes);
  if (!head) return head.error();
  auto encoding = formats::detect_encoding(*head);
  if (!encoding) return formats::data_error(path.string(), ": ", encoding.error().message);
  if (want && *encoding != *want)
    return formats::data_error(
        path.string(), ": ",
        *want == formats::DocEncoding::kText
            ? "expected .webnn text (starting with 'webnn_graph'), got GraphJson"
            : "expected GraphJson (starting with '{'), got .webnn text");
  if (head->size() == file->size()) return std::move(*head);
  return file->read_all();
}

Status check_outputs(const std::vector<fs::path>& outputs, const std::vector<fs::path>& inputs) {
  for (const fs::path& out : outputs) CPPNN_RETURN_IF_ERROR(check_output_is_not_input(out, inputs));
  for (size_t i = 0; i < outputs.size(); ++i)
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      std::error_code e1, e2;
      const fs::path a = fs::weakly_canonical(outputs[i], e1),
                     b = fs::weakly_canonical(outputs[j], e2);
      if (!e1 && !e2 && a == b)
        return formats::data_error("refusing to write `", outputs[j].string(),
                                   "`: it is also the output `", outputs[i].string(), "`");
    }
  return Ok{};
}

int report(const ErrorInfo& error) {
  std::cerr << "Error: " << error.message << "\n";
  return error.kind == ErrorKind::kUnknownError ? kExitUsage : kExitBadInput;
}

ErrorInfo reading(ErrorInfo error, const std::vector<std::string>& files) {
  std::string list;
  for (const std::string& f : files) {
    if (error.message.find(f) != std::string::npos) return error;
    list += (list.empty() ? "" : ", ") + f;
  }
  error.message += " (reading " + list + ")";
  return error;
}

void print_warnings(const formats::Warnings& warnings) {
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
}

int run_command(const std::string& command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    return report_usage_error(command, e.what());
  } catch (const convert_onnx::ArgumentError& e) {
    if (e.usage) return report_usage_error(command, e.shown());
    std::cerr << "Error: " << e.shown() << "\n";
    return kExitBadInput;
  } catch (const Error& e) {
    std::cerr << "Error: " << e.what() << "\n";
    return e.kind() == ErrorKind::kUnknownError ? kExitUsage : kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "Error: internal error: out of memory\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "Error: internal error: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace cppnn::tool
