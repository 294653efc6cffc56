// Crash and hang isolation of `cppnn onnx-tests` (see onnx_tests.h): a forked worker process
// creates one context and runs the cases in order, writing one JSON line per result to a pipe.
// When it dies (a crash in an importer handler or a backend kernel) or a case exceeds the
// timeout (the worker is killed), that case fails and a new worker continues with the next.
// The parent never creates a context, so no backend threads exist when it forks.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "cppnn/errors.h"
#include "cppnn/webnn.h"
#include "tools/cppnn/onnx_tests.h"

namespace cppnn::tool::onnx_tests {
namespace {

using Json = nlohmann::json;

Json to_json(const CaseResult& r) {
  Json j;
  j["status"] = status_name(r.status);
  j["category"] = r.category ? Json(category_name(*r.category)) : Json(nullptr);
  j["message"] = r.message;
  j["max_abs_error"] = r.max_abs_error ? Json(*r.max_abs_error) : Json(nullptr);
  if (r.max_abs_error && !std::isfinite(*r.max_abs_error)) j["max_abs_error"] = "inf";
  j["time_ms"] = r.time_ms;
  j["not_expressible"] = r.not_expressible;
  j["fixed_inputs"] = r.fixed_inputs;
  return j;
}

CaseResult from_json(const Json& j, const CaseDir& c) {
  CaseResult r;
  r.suite = c.suite;
  r.name = c.dir.filename().string();
  const std::string status = j.at("status").get<std::string>();
  r.status = status == "passed" ? CaseStatus::kPassed : CaseStatus::kFailed;
  if (j.at("category").is_string()) r.category = parse_category(j["category"].get<std::string>());
  r.message = j.at("message").get<std::string>();
  const Json& e = j.at("max_abs_error");
  if (e.is_number()) r.max_abs_error = e.get<double>();
  if (e.is_string()) r.max_abs_error = std::numeric_limits<double>::infinity();
  r.time_ms = j.at("time_ms").get<double>();
  r.not_expressible = j.at("not_expressible").get<bool>();
  r.fixed_inputs = j.at("fixed_inputs").get<std::vector<std::string>>();
  return r;
}

bool write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// The worker: a context, then cases [first, end) in order, one JSON line each; never returns.
[[noreturn]] void worker(int fd, const std::vector<CaseDir>& cases, size_t first,
                         const std::string& backend) {
  int code = 0;
  try {
    MLContext context = MLContext::create({.backend = backend});
    bool ok = write_all(fd, Json{{"backend", context.backend()}}.dump() + "\n");
    for (size_t i = first; ok && i < cases.size(); ++i) {
      if (context.is_lost()) context = MLContext::create({.backend = backend});
      const CaseResult r = run_case(cases[i].dir, cases[i].suite, context);
      ok = write_all(fd, to_json(r).dump(-1, ' ', false, Json::error_handler_t::replace) + "\n");
    }
    if (!ok) code = 3;
  } catch (const std::exception& e) {
    write_all(
        fd, Json{{"fatal", e.what()}}.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n");
    code = 4;
  }
  ::close(fd);
  ::_exit(code);  // no static destructors: they belong to the parent
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = strsignal(sig);
    return "crashed (signal " + std::to_string(sig) + (name ? std::string(", ") + name : "") + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

std::string run_in_process(const std::vector<CaseDir>& cases, const WorkerOptions& options,
                           const ResultCallback& on_result) {
  std::optional<MLContext> context;
  try {
    context = MLContext::create({.backend = options.backend});
  } catch (const Error& e) {
    throw RunnerError(e.what());
  }
  for (const CaseDir& c : cases) {
    if (context->is_lost()) context = MLContext::create({.backend = options.backend});
    on_result(run_case(c.dir, c.suite, *context), context->backend());
  }
  return context->backend();
}

}  // namespace

std::string run_cases(const std::vector<CaseDir>& cases, const WorkerOptions& options,
                      const ResultCallback& on_result) {
  if (!options.isolate) return run_in_process(cases, options, on_result);
  std::string backend;
  size_t next = 0;
  bool first_worker = true;
  while (next < cases.size() || first_worker) {
    int fds[2];
    if (::pipe(fds) != 0) throw RunnerError(std::string("pipe: ") + std::strerror(errno));
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = ::fork();
    if (pid < 0) throw RunnerError(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      ::close(fds[0]);
      worker(fds[1], cases, next, options.backend);
    }
    ::close(fds[1]);
    first_worker = false;
    std::string buffer;
    bool timed_out = false;
    auto case_start = std::chrono::steady_clock::now();
    while (true) {
      int wait_ms = -1;
      if (options.timeout_s > 0) {
        const double left =
            options.timeout_s * 1000 -
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - case_start)
                .count();
        wait_ms = left > 0 ? static_cast<int>(std::ceil(left)) : 0;
      }
      pollfd p{fds[0], POLLIN, 0};
      const int n = ::poll(&p, 1, wait_ms);
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) {
        timed_out = true;
        ::kill(pid, SIGKILL);
        break;
      }
      char chunk[65536];
      const ssize_t got = ::read(fds[0], chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;  // the worker ended
      buffer.append(chunk, static_cast<size_t>(got));
      size_t eol;
      while ((eol = buffer.find('\n')) != std::string::npos) {
        const Json j = Json::parse(buffer.substr(0, eol), nullptr, false);
        buffer.erase(0, eol + 1);
        if (j.is_discarded()) continue;
        if (j.contains("fatal")) {
          ::kill(pid, SIGKILL);
          ::waitpid(pid, nullptr, 0);
          ::close(fds[0]);
          throw RunnerError(j["fatal"].get<std::string>());
        }
        if (j.contains("backend")) {
          backend = j["backend"].get<std::string>();
        } else if (next < cases.size()) {
          on_result(from_json(j, cases[next++]), backend);
        }
        case_start = std::chrono::steady_clock::now();
      }
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (next >= cases.size()) break;
    // The worker died or hung in cases[next]: that case fails, the next worker goes on.
    CaseResult r;
    r.suite = cases[next].suite;
    r.name = cases[next].dir.filename().string();
    r.status = CaseStatus::kFailed;
    r.time_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - case_start)
            .count();
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", options.timeout_s);
    r.message = timed_out
                    ? "timed out after " + std::string(limit) + " s (the worker process was killed)"
                    : "the worker process " + describe_exit(status) + " in this case";
    on_result(std::move(r), backend);
    ++next;
  }
  return backend;
}

}  // namespace cppnn::tool::onnx_tests
