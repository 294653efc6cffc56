// A progress bar on stderr for long tool runs (wpt, onnx-tests, convert-onnx of big models):
// drawn only when stderr is a terminal (isatty), silent otherwise so that logs and pipes stay
// clean. Redraws at most once per percent step; finish() clears the line.
#pragma once

#include <cstdint>
#include <string>

namespace cppnn::tool {

class ProgressBar {
 public:
  // A bar for `total` steps labelled `label`; enabled when stderr is a terminal.
  ProgressBar(std::string label, uint64_t total);
  // The same with the terminal test given (for tests).
  ProgressBar(std::string label, uint64_t total, bool enabled);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Sets the steps done (clamped to total) and an optional note (the current item).
  void update(uint64_t done, const std::string& note = {});
  // Clears the bar's line (idempotent; the destructor calls it).
  void finish();
  bool enabled() const { return enabled_; }

  // The bar's text for `done` of `total` ("label [=====>    ]  42/100 note"), `width` cells.
  static std::string render(const std::string& label, uint64_t done, uint64_t total,
                            const std::string& note, int width = 30);

 private:
  std::string label_;
  uint64_t total_ = 0;
  bool enabled_ = false;
  bool drawn_ = false;
  int last_permille_ = -1;
};

}  // namespace cppnn::tool
