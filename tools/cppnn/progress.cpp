// The stderr progress bar.
#include "tools/cppnn/progress.h"

#include <unistd.h>

#include <cstdio>

namespace cppnn::tool {

ProgressBar::ProgressBar(std::string label, uint64_t total)
    : ProgressBar(std::move(label), total, ::isatty(STDERR_FILENO) == 1) {}

ProgressBar::ProgressBar(std::string label, uint64_t total, bool enabled)
    : label_(std::move(label)), total_(total), enabled_(enabled) {}

ProgressBar::~ProgressBar() {
  finish();
}

std::string ProgressBar::render(const std::string& label, uint64_t done, uint64_t total,
                                const std::string& note, int width) {
  if (done > total) done = total;
  const int filled = total ? int(done * uint64_t(width) / total) : width;
  std::string bar = label + " [";
  for (int i = 0; i < width; ++i) bar += i < filled ? '=' : (i == filled ? '>' : ' ');
  bar += "] " + std::to_string(done) + "/" + std::to_string(total);
  if (!note.empty()) bar += " " + (note.size() > 40 ? "..." + note.substr(note.size() - 37) : note);
  return bar;
}

void ProgressBar::update(uint64_t done, const std::string& note) {
  if (!enabled_) return;
  if (done > total_) done = total_;
  const int permille = total_ ? int(done * 1000 / total_) : 1000;
  if (permille / 10 == last_permille_ / 10 && note.empty() && drawn_) return;
  last_permille_ = permille;
  // \r, the bar, then clear to the end of the line.
  std::fprintf(stderr, "\r%s\x1b[K", render(label_, done, total_, note).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace cppnn::tool
