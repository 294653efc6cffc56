// The one command-line parser of the cppnn tool (docs/cli-guide.md "Conventions"): every
// subcommand declares its flags in a CommandSpec (cli_specs.cpp) and parses its arguments with
// parse_args(). The exit-code rule of the whole tool: 0 success, 1 bad input or a failed check,
// 2 a usage error (unknown flag, missing value, bad flag value) or an internal error.
//
// This file and cli_specs.cpp use only the standard library, so that the fuzz target
// tests/fuzz/cli_args_fuzz.cpp can run every flag table through the parser without the tool.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cppnn::tool {

// Exit statuses.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;  // also internal errors

// A usage error: printed as `Error: <message> (see cppnn CMD --help)`, exit status 2. The message
// names the flag: "--iterations many: expected an integer >= 1".
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class FlagKind : uint8_t {
  kSwitch,    // --name (no value)
  kValue,     // --name VALUE or --name=VALUE, at most once
  kRepeated,  // like kValue, any number of times
  kList,      // --name V1 V2 ...: the values up to the next option (and repeatable)
};

struct FlagSpec {
  std::string name;  // the long name without "--"
  FlagKind kind = FlagKind::kValue;
  bool required = false;
  std::string default_value;         // what ParsedArgs::get() returns when the flag is absent
  std::vector<std::string> aliases;  // other spellings as typed: "-o", "--dim"
};

struct CommandSpec {
  std::string name;
  std::vector<FlagSpec> flags;
  // Positional arguments: between min_positionals and max_positionals of them, called
  // positional_name in messages ("GRAPH", "PATH", "MODEL").
  std::string positional_name;
  size_t min_positionals = 0, max_positionals = 0;
  // A value flag that gives the (single) positional argument instead (convert-onnx --input).
  std::string positional_flag;
  // The message when the positional argument is missing (default: "missing <positional_name>").
  std::string missing_message;
};

// The parsed command line, flags under their long names.
struct ParsedArgs {
  std::string command;
  std::string path;  // the first positional argument, "" when none
  std::vector<std::string> positionals;
  std::vector<std::string> switches;                        // given switches
  std::vector<std::pair<std::string, std::string>> values;  // given value flags, in order

  bool has(std::string_view name) const;  // a switch, or a value flag, was given
  // The value of a value flag (the first one of a repeated flag).
  std::optional<std::string> value(std::string_view name) const;
  // Every value of a repeated or list flag, in order.
  std::vector<std::string> all(std::string_view name) const;
  // value(), else the flag's default_value in `spec`, else "".
  std::string get(const CommandSpec& spec, std::string_view name) const;
};

// Parses `args` against `spec`. Returns false when --help/-h was given (before any `--`), true
// when `out` holds the command line; throws UsageError for an unknown option, a missing value,
// a switch given a value, a non-repeatable flag given twice, a missing required flag, or too few
// or too many positional arguments. `--` ends the options.
bool parse_args(const CommandSpec& spec, const std::vector<std::string>& args, ParsedArgs& out);

// Prints `Error: <message> (see cppnn COMMAND --help)` on stderr and returns kExitUsage.
int report_usage_error(std::string_view command, std::string_view message);

// parse_args() for a subcommand's entry point: with --help prints `help` on stdout and returns
// 0; for a usage error prints it and returns 2; nullopt when the command should run.
std::optional<int> parse_command_line(const CommandSpec& spec, const std::vector<std::string>& args,
                                      std::string_view help, ParsedArgs& out);

// Flag values, each throwing UsageError "--FLAG VALUE: <what is expected>":
// a decimal integer in [min, max] (no sign, no spaces),
uint64_t parse_unsigned_flag(std::string_view flag, const std::string& value, uint64_t min = 0,
                             uint64_t max = UINT64_MAX);
// a finite number >= min,
double parse_number_flag(std::string_view flag, const std::string& value, double min);
// one of `choices`.
const std::string& check_choice_flag(std::string_view flag, const std::string& value,
                                     const std::vector<std::string>& choices);

// The flag tables of every subcommand that parses with parse_args (cli_specs.cpp), in help
// order; find_command_spec() throws std::logic_error for an unknown name.
const std::vector<CommandSpec>& command_specs();
const CommandSpec& find_command_spec(std::string_view name);

}  // namespace cppnn::tool
