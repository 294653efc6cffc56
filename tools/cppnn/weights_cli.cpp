#include "tools/cppnn/weights_cli.h"

#include "tools/cppnn/cli_args.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool {

std::optional<int> parse_flags(const std::string& command, const std::vector<std::string>& args,
                               const std::string& help, Flags& out) {
  const CommandSpec& spec = find_command_spec(command);
  ParsedArgs parsed;
  if (auto rc = parse_command_line(spec, args, help, parsed)) return rc;
  for (const FlagSpec& f : spec.flags) out[f.name] = parsed.get(spec, f.name);
  return std::nullopt;
}

int report_error(const ErrorInfo& error) {
  return report(error);
}

std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) out.push_back(it->path());
  return out;
}

}  // namespace cppnn::tool
