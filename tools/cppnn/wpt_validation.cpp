// The WPT validation suite: replays each recorded trace (shared/wpt/README.md §5) through the
// public builder API and checks what WPT requires of every step: success with the expected output
// descriptors, or the expected exception (and the label in its message).
//
// The traces were recorded against a fake context claiming every data type and rank in
// opSupportLimits(); WPT itself skips or expects TypeError where the real limits are narrower.
// The replay does the same: a successful input() or constant() of a data type outside the
// context's limits is not run (and neither is anything using its operand), and a successful op
// call whose operands (or expected outputs) are outside the op's limits must throw TypeError.
#include <algorithm>
#include <limits>
#include <optional>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cppnn/dynamic_call.h"
#include "cppnn/errors.h"
#include "cppnn/webnn.h"
#include "tools/cppnn/wpt_common.h"

namespace cppnn::tool::wpt {
namespace {

// The step cannot run: it uses an operand that WPT would not have created under the real limits.
struct NotRun {};

// A step failed; the case fails with this message.
struct StepFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a step requires: success, or an exception of a given name.
struct Expect {
  bool success = true;
  std::string error;  // "TypeError", "InvalidStateError", ...
  std::string text;   // as recorded
};

Expect parse_expect(const std::string& s) {
  Expect e{true, "", s};
  if (s == "success") return e;
  for (std::string_view verb : {"throws ", "rejects "}) {
    if (s.rfind(verb, 0) != 0) continue;
    std::string rest = s.substr(verb.size());
    if (rest.rfind("DOMException ", 0) == 0) rest = rest.substr(13);
    return {false, rest, s};
  }
  throw RunnerError("unknown expectation \"" + s + "\"");
}

// The pattern of a recorded JavaScript regex literal ("/\\[label\\]/" -> "\\[label\\]").
const std::regex& label_regex(const std::string& literal) {
  static std::unordered_map<std::string, std::regex> cache;
  auto it = cache.find(literal);
  if (it != cache.end()) return it->second;
  std::string pattern = literal;
  if (pattern.size() >= 2 && pattern.front() == '/')
    pattern = pattern.substr(1, pattern.rfind('/') - 1);
  return cache.emplace(literal, std::regex(pattern, std::regex::ECMAScript)).first->second;
}

bool is_pooling(std::string_view op) {
  return op == "averagePool2d" || op == "l2Pool2d" || op == "maxPool2d";
}

bool contains(const std::vector<MLOperandDataType>& types, MLOperandDataType t) {
  return std::find(types.begin(), types.end(), t) != types.end();
}

// A number argument (the strings JSON uses for non-finite numbers included).
std::optional<MLNumber> number_arg(const DynValue& v) {
  if (const MLNumber* n = v.get_if<MLNumber>()) return *n;
  if (const std::string* s = v.get_if<std::string>()) {
    if (std::optional<double> d = non_finite_number(*s)) return *d;
  }
  return std::nullopt;
}

// One test's replay: one context, builders by index, operands by id.
class Replay {
 public:
  explicit Replay(const MLOpSupportLimits& limits)
      : context_(MLContext::create()), limits_(limits) {}

  // Runs every step; throws StepFailure at the first failing one. Returns a note on what the
  // support limits changed ("" when nothing).
  std::string run(const Json& steps) {
    size_t not_run = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      step_ = i + 1;
      try {
        run_step(steps[i]);
      } catch (const NotRun&) {
        ++not_run;
      }
    }
    if (!not_run && !flipped_) return "";
    return "outside opSupportLimits(): " + std::to_string(not_run) + " steps not run, " +
           std::to_string(flipped_) + " calls expected to throw TypeError";
  }

 private:
  struct Slot {
    std::optional<MLOperand> operand;
    bool unsupported = false;
  };

  [[noreturn]] void fail(const std::string& op, const std::string& message) const {
    throw StepFailure("step " + std::to_string(step_) + " (" + op + "): " + message);
  }

  void run_step(const Json& step) {
    const Expect expect = parse_expect(step.at("expect").get<std::string>());
    const bool single = step.contains("op");
    const Json& calls = single ? step : step.at("calls");
    const size_t n = single ? 1 : calls.size();
    for (size_t k = 0; k < n; ++k) {
      const Json& call = single ? step : calls[k];
      const std::string op = call.at("op").get<std::string>();
      std::string unsupported;  // non-empty: WPT expects TypeError under the real limits
      std::vector<MLOperand> outputs;
      try {
        outputs = invoke(call, expect.success, unsupported);
      } catch (const Error& e) {
        check_error(step, op, expect, unsupported, e);
        if (!unsupported.empty()) ++flipped_;
        mark_unsupported(call, !unsupported.empty());
        return;
      } catch (const NotRun&) {
        mark_unsupported(call, true);
        throw;
      } catch (const StepFailure&) {
        throw;
      } catch (const Json::exception& e) {
        fail(op, std::string("malformed trace: ") + e.what());
      } catch (const std::exception& e) {
        fail(op, std::string("unexpected exception (not a cppnn::Error): ") + e.what());
      }
      if (!unsupported.empty())
        fail(op, "expected TypeError (" + unsupported +
                     " is outside opSupportLimits()), but the call succeeded");
      bind(call, op, outputs);
      if (expect.success) check_outputs(step, op);
    }
    if (!expect.success)
      fail(single ? step.at("op").get<std::string>() : "calls",
           "expected " + expect.error + ", but no call threw");
  }

  void check_error(const Json& step, const std::string& op, const Expect& expect,
                   const std::string& unsupported, const Error& e) const {
    const std::string expected = expect.success ? "TypeError" : expect.error;
    if (expect.success && unsupported.empty())
      fail(op, "unexpected " + std::string(e.name()) + ": " + e.what());
    if (e.name() != expected)
      fail(op, "expected " + expected + ", got " + std::string(e.name()) + ": " + e.what());
    if (!expect.success && step.contains("expectLabelMatch")) {
      const std::string& literal = step["expectLabelMatch"].get_ref<const std::string&>();
      if (!std::regex_search(e.what(), label_regex(literal)))
        fail(op, "the message \"" + std::string(e.what()) + "\" does not match " + literal);
    }
  }

  // The operand-id slots of a call's recorded outputs are marked as not created.
  void mark_unsupported(const Json& call, bool unsupported) {
    if (!unsupported || !call.contains("outputs")) return;
    for (const Json& id : call["outputs"]) slot(id.get<size_t>()).unsupported = true;
  }

  Slot& slot(size_t id) {
    if (id >= operands_.size()) operands_.resize(id + 1);
    return operands_[id];
  }

  void bind(const Json& call, const std::string& op, const std::vector<MLOperand>& outputs) {
    if (!call.contains("outputs")) return;
    const Json& ids = call["outputs"];
    if (ids.size() != outputs.size())
      fail(op, "returned " + std::to_string(outputs.size()) + " operands, the trace has " +
                   std::to_string(ids.size()));
    for (size_t i = 0; i < outputs.size(); ++i) slot(ids[i].get<size_t>()) = {outputs[i], false};
  }

  void check_outputs(const Json& step, const std::string& op) {
    if (!step.contains("expectedOutputs")) return;
    for (auto it = step["expectedOutputs"].begin(); it != step["expectedOutputs"].end(); ++it) {
      const size_t id = std::stoul(it.key());
      Json recorded = *it;
      if (id >= operands_.size() || !operands_[id].operand) fail(op, "no operand " + it.key());
      const MLOperandDescriptor& got = operands_[id].operand->descriptor();
      // A few traces recorded no usable dataType (an object); check the shape only there.
      if (!recorded.value("dataType", Json()).is_string())
        recorded["dataType"] = data_type_name(got.dataType);
      const MLOperandDescriptor expected = descriptor(recorded, op);
      if (got != expected)
        fail(op,
             "operand " + it.key() + " is " + to_string(got) + ", expected " + to_string(expected));
    }
  }

  MLOperandDescriptor descriptor(const Json& j, const std::string& op) const {
    try {
      return descriptor_from_dyn(to_dyn(j, no_operands), op + ": expected output");
    } catch (const Error& e) {
      fail(op, std::string("bad expected descriptor: ") + e.what());
    }
  }

  static std::optional<DynValue> no_operands(const Json&) { return std::nullopt; }

  // A recorded argument, with {"operand": id} replaced by the operand.
  DynValue arg(const Json& j, const std::string& op) {
    return to_dyn(j, [&](const Json& o) -> std::optional<DynValue> {
      auto it = o.find("operand");
      if (o.size() != 1 || it == o.end() || !it->is_number_integer()) return std::nullopt;
      const size_t id = it->get<size_t>();
      if (id < operands_.size() && operands_[id].unsupported) throw NotRun{};
      if (id >= operands_.size() || !operands_[id].operand)
        fail(op, "operand " + std::to_string(id) + " was never created");
      return DynValue(*operands_[id].operand);
    });
  }

  MLGraphBuilder& builder(size_t index) {
    if (index >= builders_.size()) builders_.resize(index + 1);
    if (!builders_[index]) builders_[index].emplace(context_);
    return *builders_[index];
  }

  // Runs one recorded call. For a call that must succeed, sets `unsupported` (before recording)
  // when its operands or outputs are outside the op's support limits.
  std::vector<MLOperand> invoke(const Json& call, bool must_succeed, std::string& unsupported) {
    const std::string op = call.at("op").get<std::string>();
    const Json& args = call.at("args");
    MLGraphBuilder& b = builder(call.value("builder", size_t{0}));
    if (op == "input") return {input(b, args, must_succeed)};
    if (op == "constant") return {constant(b, args, must_succeed)};
    if (op == "build") {
      build(b, args, op);
      return {};
    }
    std::vector<DynValue> dyn;
    dyn.reserve(args.size());
    for (const Json& a : args) dyn.push_back(arg(a, op));
    // The 2025-03 corpus spells outputShapeRounding by its old name (webnn-spec.md §6 item 20).
    if (is_pooling(op) && dyn.size() > 1) {
      if (auto* o = dyn[1].get_if<DynValue::Object>(); o && !dyn[1].find("outputShapeRounding"))
        for (auto& [key, value] : *o)
          if (key == "roundingType") key = "outputShapeRounding";
    }
    DynCall decoded = decode_builder_call(op, dyn);
    if (must_succeed) unsupported = outside_limits(decoded, call);
    return b.record(decoded.type, decoded.operands, std::move(decoded.attrs));
  }

  MLOperand input(MLGraphBuilder& b, const Json& args, bool must_succeed) {
    if (args.size() < 2 || !args[0].is_string())
      throw TypeError("input: needs a name and a descriptor");
    const MLOperandDescriptor d = descriptor_from_dyn(arg(args[1], "input"), "input");
    if (must_succeed && !contains(limits_.input.dataTypes, d.dataType)) throw NotRun{};
    return b.input(args[0].get<std::string>(), d);
  }

  MLOperand constant(MLGraphBuilder& b, const Json& args, bool must_succeed) {
    if (args.size() < 2) throw TypeError("constant: needs two arguments");
    if (args[0].is_string()) {  // constant(dataType, value)
      const std::string& name = args[0].get_ref<const std::string&>();
      const auto t = enum_from_string<MLOperandDataType>(name);
      if (!t) throw TypeError("constant: dataType \"" + name + "\" is not an MLOperandDataType");
      const std::optional<MLNumber> value = number_arg(arg(args[1], "constant"));
      if (!value) throw TypeError("constant: value must be a number");
      if (must_succeed && !contains(limits_.constant.dataTypes, *t)) throw NotRun{};
      return b.constant(*t, *value);
    }
    const MLOperandDescriptor d = descriptor_from_dyn(arg(args[0], "constant"), "constant");
    if (must_succeed && !contains(limits_.constant.dataTypes, d.dataType)) throw NotRun{};
    // The view type check runs after "can build" (an unbuildable builder throws ISE first).
    std::vector<std::byte> bytes;
    if (!b.has_built() && !b.context().is_lost()) bytes = buffer_from_json(args[1], d.dataType);
    return b.constant(d, bytes);
  }

  void build(MLGraphBuilder& b, const Json& args, const std::string& op) {
    if (args.empty() || !args[0].is_object()) throw TypeError("build: outputs must be a record");
    MLNamedOperands named;
    for (auto it = args[0].begin(); it != args[0].end(); ++it) {
      DynValue v = arg(*it, op);
      const MLOperand* o = v.get_if<MLOperand>();
      if (!o) throw TypeError("build: output \"" + it.key() + "\" is not an MLOperand");
      named.emplace(it.key(), *o);
    }
    (void)b.build(named);
  }

  // Which operand (or expected output) of a decoded call is outside its role's support limits,
  // or "" when all are inside.
  std::string outside_limits(const DynCall& call, const Json& recorded) const {
    const MLOpLimits& ol = limits_.op(call.type);
    const std::vector<std::optional<MLOperand>> inputs = call.inputs();
    const bool list = call.type == OpType::kConcat;
    const size_t input_roles = list ? 1 : inputs.size();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const size_t r = list ? 0 : i;
      if (!inputs[i] || r >= ol.roles.size()) continue;
      const auto& [name, limits] = ol.roles[r];
      const MLOperandDescriptor& d = inputs[i]->descriptor();
      if (!contains(limits.dataTypes, d.dataType))
        return name + " data type " + std::string(data_type_name(d.dataType));
      if (d.shape.size() < limits.rankRange.min || d.shape.size() > limits.rankRange.max)
        return name + " rank " + std::to_string(d.shape.size());
    }
    if (ol.roles.size() <= input_roles || !recorded.contains("expectedOutputs") ||
        !recorded.contains("outputs"))
      return "";
    const Json& ids = recorded["outputs"];
    const Json& expected = recorded["expectedOutputs"];
    const size_t output_roles = ol.roles.size() - input_roles;
    for (size_t k = 0; k < ids.size(); ++k) {
      auto it = expected.find(std::to_string(ids[k].get<size_t>()));
      if (it == expected.end() || !it->value("dataType", Json()).is_string()) continue;
      const auto t = parse_data_type(it->at("dataType").get<std::string>());
      const auto& [name, limits] = ol.roles[input_roles + std::min(k, output_roles - 1)];
      if (t && !contains(limits.dataTypes, *t))
        return name + " data type " + std::string(data_type_name(*t));
    }
    return "";
  }

  MLContext context_;
  const MLOpSupportLimits& limits_;
  std::vector<std::optional<MLGraphBuilder>> builders_;
  std::vector<Slot> operands_;
  size_t step_ = 0;
  size_t flipped_ = 0;  // successful calls that had to throw TypeError under the real limits
};

// Why a test cannot be replayed, or "".
std::string unreplayable(const Json& test) {
  if (test.contains("harnessError"))
    return "the trace has a harness error: " + test["harnessError"].get<std::string>();
  const Json& steps = test.value("steps", Json::array());
  if (steps.empty()) return "no recorded builder calls";
  for (size_t i = 0; i < steps.size(); ++i) {
    const Json& s = steps[i];
    if (!s.contains("op") && s.value("calls", Json::array()).empty())
      return "step " + std::to_string(i + 1) + " expects \"" + s.value("expect", std::string()) +
             "\" but has no recorded calls (it needs an API the trace does not record)";
  }
  return "";
}

CaseResult run_case(const std::string& file, const Json& test, const MLOpSupportLimits& limits) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult r;
  r.file = file;
  r.name = test.value("name", std::string());
  if (test.contains("variant")) r.variant = test["variant"].get<std::string>();
  r.id = case_id(file, r.name, r.variant);
  if (std::string why = unreplayable(test); !why.empty()) {
    r.status = CaseStatus::kSkipped;
    r.message = why;
  } else {
    try {
      Replay replay(limits);
      r.message = replay.run(test["steps"]);
    } catch (const StepFailure& e) {
      r.status = CaseStatus::kFailed;
      r.message = e.what();
    } catch (const std::exception& e) {  // a malformed trace, or an error outside any call
      r.status = CaseStatus::kFailed;
      r.message = std::string("cannot replay the trace: ") + e.what();
    }
  }
  r.time_ms = elapsed_ms(start);
  return r;
}

}  // namespace

std::vector<CaseResult> run_validation_file(const fs::path& file, std::string_view filter) {
  static const MLOpSupportLimits limits = MLContext::create().opSupportLimits();
  const std::string name = file.filename().string();
  std::vector<CaseResult> results;
  Json tests;
  try {
    tests = load_json(file);
    if (!tests.is_array()) throw RunnerError(file.string() + ": expected an array of tests");
  } catch (const RunnerError& e) {
    CaseResult r;
    r.id = r.file = name;
    r.status = CaseStatus::kFailed;
    r.message = e.what();
    if (r.id.find(filter) != std::string::npos) results.push_back(std::move(r));
    return results;
  }
  for (const Json& test : tests) {
    const std::optional<std::string> variant =
        test.contains("variant") ? std::optional(test["variant"].get<std::string>()) : std::nullopt;
    if (case_id(name, test.value("name", std::string()), variant).find(filter) == std::string::npos)
      continue;
    results.push_back(run_case(name, test, limits));
  }
  return results;
}

}  // namespace cppnn::tool::wpt
