// Helpers the benchmarks share for measuring in child processes: this program re-executed with a
// mode flag, its stdout read back, and the child's peak resident set (VmHWM, reset by exec).
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace cppnn::bench {

// The peak resident set of this process in KiB (VmHWM; exec starts it afresh, unlike
// getrusage's ru_maxrss, which keeps the forked parent's peak).
inline long peak_rss_kb() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

// Runs `args` (argv[0] first) in a child process and returns its exit status (128 + the signal
// when a signal ended it) and stdout. With `stderr_path`, the child's stderr goes to that file
// (truncated) instead of this process's stderr.
inline std::pair<int, std::string> run_child(const std::vector<std::string>& args,
                                             const std::filesystem::path& stderr_path = {}) {
  int pipe_fd[2];
  if (pipe(pipe_fd) != 0) return {-1, ""};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fd[1], 1);
    if (!stderr_path.empty()) {
      const int fd = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, 2);
        close(fd);
      }
    }
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(pipe_fd[1]);
  std::string text;
  char buf[4096];
  for (ssize_t r; (r = read(pipe_fd[0], buf, sizeof buf)) > 0;) text.append(buf, size_t(r));
  close(pipe_fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), text};
}

// A deterministic float32 input of `n` values in [-1, 1].
inline std::vector<float> pattern_input(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
  return x;
}

inline void write_floats(const std::filesystem::path& path, std::span<const float> values) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(values.data()),
             static_cast<std::streamsize>(values.size_bytes()));
}

inline std::vector<float> read_floats(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<float> v(std::filesystem::file_size(path) / sizeof(float));
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
  return v;
}

}  // namespace cppnn::bench
