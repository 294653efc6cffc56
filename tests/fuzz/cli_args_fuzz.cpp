// libFuzzer target: the command-line parser of the cppnn tool (tools/cppnn/cli_args.h) with the
// flag table of every subcommand (cli_specs.cpp), without running any command. The input is an
// argv: the first byte picks the subcommand, the rest is split at NUL bytes into arguments. The
// parser must either throw UsageError with a message or return a command line that obeys the
// table: known flags only, each kValue flag at most once, switches without values, every
// required flag present and the positional count within bounds.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_check.h"
#include "tools/cppnn/cli_args.h"

namespace {

using namespace cppnn::tool;

const FlagSpec* flag_named(const CommandSpec& spec, const std::string& name) {
  for (const FlagSpec& f : spec.flags)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::vector<CommandSpec>& specs = command_specs();
  const CommandSpec& spec = specs[data[0] % specs.size()];
  std::vector<std::string> args;
  std::string current;
  for (size_t i = 1; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  if (size > 1) args.push_back(current);

  ParsedArgs out;
  bool help = false;
  try {
    help = !parse_args(spec, args, out);
  } catch (const UsageError& e) {
    CHECK(e.what()[0] != '\0');
    return 0;
  }
  CHECK(&find_command_spec(spec.name) == &spec);
  if (help) return 0;
  CHECK(out.command == spec.name);
  CHECK(out.positionals.size() >= spec.min_positionals);
  CHECK(out.positionals.size() <= spec.max_positionals);
  CHECK(out.path == (out.positionals.empty() ? std::string() : out.positionals.front()));
  for (const std::string& s : out.switches) {
    const FlagSpec* f = flag_named(spec, s);
    CHECK(f != nullptr && f->kind == FlagKind::kSwitch);
  }
  for (const auto& [name, value] : out.values) {
    const FlagSpec* f = flag_named(spec, name);
    CHECK(f != nullptr && f->kind != FlagKind::kSwitch);
    if (f->kind == FlagKind::kValue) CHECK(out.all(name).size() == 1);
  }
  for (const FlagSpec& f : spec.flags) {
    if (f.required) CHECK(out.has(f.name));
    if (!out.has(f.name)) CHECK(out.get(spec, f.name) == f.default_value);
  }
  // Every value that was given appears among the arguments (nothing is made up).
  for (const auto& [name, value] : out.values) {
    bool seen = false;
    for (const std::string& a : args)
      seen = seen || a == value || (a.size() > value.size() && a.ends_with("=" + value));
    CHECK(seen);
  }
  return 0;
}
