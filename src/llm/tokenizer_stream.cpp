// StreamDecoder: HF tokenizers' DecodeStream::step. The window holds the ids since the start
// of the previous emission, so each step decodes a few ids and compares the text with and
// without the newest one; the start-of-text rules of the decoders apply only while the window
// starts the text.
#include "src/llm/tokenizer.h"
#include "src/llm/unicode_utf8.h"

namespace cppnn::llm {
namespace {

bool ends_with_replacement(const std::string& s) {
  return s.size() >= kReplacementUtf8.size() &&
         std::string_view(s).substr(s.size() - kReplacementUtf8.size()) == kReplacementUtf8;
}

// The part of `text` after `prefix` (after their common prefix when `prefix` is not one).
std::string suffix_after(const std::string& text, const std::string& prefix) {
  size_t common = 0;
  while (common < text.size() && common < prefix.size() && text[common] == prefix[common]) ++common;
  // Never split a UTF-8 character.
  while (common > 0 && common < text.size() && (static_cast<uint8_t>(text[common]) & 0xC0) == 0x80)
    --common;
  return text.substr(common);
}

}  // namespace

std::string StreamDecoder::push(int32_t id) {
  window_.push_back(id);
  const std::string text = tokenizer_.decode_part(window_, options_, window_at_start_);
  if (text.size() <= prefix_.size() || ends_with_replacement(text)) return {};
  std::string added = suffix_after(text, prefix_);
  // Keep the ids of this emission as the next one's context.
  if (prefix_count_ > 0) {
    window_.erase(window_.begin(), window_.begin() + static_cast<ptrdiff_t>(prefix_count_));
    window_at_start_ = false;
  }
  prefix_ = tokenizer_.decode_part(window_, options_, window_at_start_);
  prefix_count_ = window_.size();
  return added;
}

std::string StreamDecoder::finish() {
  std::string rest;
  if (window_.size() > prefix_count_) {
    const std::string text = tokenizer_.decode_part(window_, options_, window_at_start_);
    if (text.size() > prefix_.size()) rest = suffix_after(text, prefix_);
  }
  window_.clear();
  prefix_.clear();
  prefix_count_ = 0;
  window_at_start_ = true;
  return rest;
}

}  // namespace cppnn::llm
