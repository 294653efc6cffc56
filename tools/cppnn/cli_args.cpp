// The shared command-line parser (see cli_args.h).
#include "tools/cppnn/cli_args.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace cppnn::tool {
namespace {

const FlagSpec* find_flag(const CommandSpec& spec, std::string_view typed) {
  for (const FlagSpec& f : spec.flags) {
    if (typed.size() == f.name.size() + 2 && typed.starts_with("--") && typed.substr(2) == f.name)
      return &f;
    for (const std::string& alias : f.aliases)
      if (typed == alias) return &f;
  }
  return nullptr;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

bool ParsedArgs::has(std::string_view name) const {
  for (const std::string& s : switches)
    if (s == name) return true;
  for (const auto& [k, v] : values)
    if (k == name) return true;
  return false;
}

std::optional<std::string> ParsedArgs::value(std::string_view name) const {
  for (const auto& [k, v] : values)
    if (k == name) return v;
  return std::nullopt;
}

std::vector<std::string> ParsedArgs::all(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : values)
    if (k == name) out.push_back(v);
  return out;
}

std::string ParsedArgs::get(const CommandSpec& spec, std::string_view name) const {
  if (auto v = value(name)) return *v;
  for (const FlagSpec& f : spec.flags)
    if (f.name == name) return f.default_value;
  return {};
}

bool parse_args(const CommandSpec& spec, const std::vector<std::string>& args, ParsedArgs& out) {
  out = ParsedArgs{};
  out.command = spec.name;
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "--help" || a == "-h") return false;
  }
  std::optional<std::string> from_flag;  // the positional given through positional_flag
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!options_done && arg == "--") {
      options_done = true;
      continue;
    }
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      out.positionals.push_back(arg);
      continue;
    }
    // --name=VALUE (long options only); short aliases take their value separately.
    std::string typed = arg, value;
    bool inline_value = false;
    if (const size_t eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) {
      typed = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    const FlagSpec* flag = find_flag(spec, typed);
    if (flag == nullptr) throw UsageError("unknown option " + typed);
    const std::string shown = "--" + flag->name;
    if (flag->kind == FlagKind::kSwitch) {
      if (inline_value) throw UsageError(shown + " takes no value");
      if (!out.has(flag->name)) out.switches.push_back(flag->name);
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) throw UsageError(shown + " needs a value");
      value = args[++i];
    }
    if (flag->kind == FlagKind::kValue && out.value(flag->name))
      throw UsageError(shown + " is given twice");
    if (flag->name == spec.positional_flag) {
      if (from_flag) throw UsageError(shown + " is given twice");
      from_flag = value;
    }
    out.values.emplace_back(flag->name, value);
    if (flag->kind == FlagKind::kList)  // the values up to the next option
      while (!inline_value && i + 1 < args.size() && !args[i + 1].starts_with("-"))
        out.values.emplace_back(flag->name, args[++i]);
  }
  if (from_flag) {
    if (!out.positionals.empty())
      throw UsageError("more than one " + spec.positional_name + " given: " + *from_flag + ", " +
                       out.positionals.front());
    out.positionals.push_back(*from_flag);
  }
  if (out.positionals.size() > spec.max_positionals) {
    const std::string& extra = out.positionals[spec.max_positionals];
    if (spec.max_positionals == 0) throw UsageError("unexpected argument '" + extra + "'");
    throw UsageError("unexpected argument '" + extra + "' (one " + spec.positional_name +
                     " only: '" + out.positionals.front() + "' was given first)");
  }
  if (out.positionals.size() < spec.min_positionals)
    throw UsageError(spec.missing_message.empty() ? "missing " + spec.positional_name
                                                  : spec.missing_message);
  if (!out.positionals.empty()) out.path = out.positionals.front();
  std::vector<std::string> missing;
  for (const FlagSpec& f : spec.flags)
    if (f.required && !out.has(f.name)) missing.push_back("--" + f.name);
  if (missing.size() == 1) throw UsageError(missing.front() + " is required");
  if (!missing.empty()) {
    const std::string first = missing.front();
    missing.erase(missing.begin());
    throw UsageError(first + " is required (and " + joined(missing) + ")");
  }
  return true;
}

int report_usage_error(std::string_view command, std::string_view message) {
  std::cerr << "Error: " << message << " (see cppnn " << command << " --help)\n";
  return kExitUsage;
}

std::optional<int> parse_command_line(const CommandSpec& spec, const std::vector<std::string>& args,
                                      std::string_view help, ParsedArgs& out) {
  try {
    if (!parse_args(spec, args, out)) {
      std::cout << help;
      return kExitOk;
    }
  } catch (const UsageError& e) {
    return report_usage_error(spec.name, e.what());
  }
  return std::nullopt;
}

uint64_t parse_unsigned_flag(std::string_view flag, const std::string& value, uint64_t min,
                             uint64_t max) {
  uint64_t n = 0;
  const char* end = value.data() + value.size();
  const auto r = std::from_chars(value.data(), end, n);
  if (value.empty() || r.ec != std::errc() || r.ptr != end || n < min || n > max) {
    std::string want = "expected an integer";
    if (max != UINT64_MAX)
      want += " in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    else
      want += " >= " + std::to_string(min);
    throw UsageError("--" + std::string(flag) + " " + value + ": " + want);
  }
  return n;
}

double parse_number_flag(std::string_view flag, const std::string& value, double min) {
  char* end = nullptr;
  const double v = value.empty() ? NAN : std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(v) || v < min) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", min);
    throw UsageError("--" + std::string(flag) + " " + value + ": expected a number >= " + buf);
  }
  return v;
}

const std::string& check_choice_flag(std::string_view flag, const std::string& value,
                                     const std::vector<std::string>& choices) {
  for (const std::string& c : choices)
    if (c == value) return value;
  std::string list;
  for (size_t i = 0; i < choices.size(); ++i)
    list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  throw UsageError("--" + std::string(flag) + " " + value + ": must be " + list);
}

const CommandSpec& find_command_spec(std::string_view name) {
  for (const CommandSpec& s : command_specs())
    if (s.name == name) return s;
  throw std::logic_error("no flag table for the command " + std::string(name));
}

}  // namespace cppnn::tool
