// Normalizer and pre-tokenizer steps (HF normalizers/*.rs and pre_tokenizers/*.rs semantics).
#include "src/llm/tokenizer_pipeline.h"

#include <utility>

#include "src/llm/tokenizer_byte_level.h"
#include "src/llm/unicode.h"
#include "src/llm/unicode_normalize.h"
#include "src/llm/unicode_utf8.h"

namespace cppnn::llm::detail {
namespace {

// Appends piece.text[begin, end) as a piece (the first one keeps `at_start`).
void push_slice(const Piece& piece, size_t begin, size_t end, std::vector<Piece>& out) {
  if (begin >= end) return;
  out.push_back({piece.text.substr(begin, end - begin), piece.at_start && begin == 0});
}

void split_by_regex(SplitRegex regex, const Piece& piece, std::vector<Piece>& out) {
  std::vector<std::pair<size_t, size_t>> ranges;
  regex_split(regex, piece.text, ranges);
  for (const auto& [b, e] : ranges) push_slice(piece, b, e, out);
}

// Digits: each \p{N} character its own piece (individual), or each run of them one piece.
void split_digits(bool individual, const Piece& piece, std::vector<Piece>& out) {
  const std::string& t = piece.text;
  size_t run_begin = 0;
  bool run_is_digits = false;
  for (size_t i = 0; i < t.size();) {
    const Utf8Char c = decode_utf8(t, i);
    const bool digit = c.valid && is_number(c.cp);
    if (i > run_begin && (digit != run_is_digits || (digit && individual))) {
      push_slice(piece, run_begin, i, out);
      run_begin = i;
    }
    run_is_digits = digit;
    i += c.length;
  }
  push_slice(piece, run_begin, t.size(), out);
}

// ByteLevel: a leading space added when asked for, the GPT-2 split when use_regex, and the
// bytes of each piece mapped to their printable code points.
void byte_level(const PreTokenizerStep& step, const Piece& piece, std::vector<Piece>& out) {
  Piece p = piece;
  if (step.add_prefix_space && (p.text.empty() || p.text[0] != ' ')) p.text.insert(0, " ");
  std::vector<Piece> parts;
  if (step.use_regex) {
    split_by_regex(SplitRegex::kGpt2, p, parts);
  } else {
    parts.push_back(std::move(p));
  }
  for (Piece& part : parts) out.push_back({byte_level_encode(part.text), part.at_start});
}

// Metaspace: spaces become the replacement, which is prepended as the scheme says; with split,
// the text splits before every replacement character (HF's MergedWithNext).
void metaspace(const PreTokenizerStep& step, const Piece& piece, std::vector<Piece>& out) {
  const std::string& r = step.replacement;
  Piece p{replace_all(piece.text, " ", r), piece.at_start};
  const bool starts_with_replacement = p.text.compare(0, r.size(), r) == 0;
  if (!starts_with_replacement && (step.prepend_scheme == PrependScheme::kAlways ||
                                   (step.prepend_scheme == PrependScheme::kFirst && p.at_start)))
    p.text.insert(0, r);
  if (!step.split) {
    out.push_back(std::move(p));
    return;
  }
  size_t begin = 0;
  for (size_t hit = p.text.find(r, 1); hit != std::string::npos;
       hit = p.text.find(r, hit + r.size())) {
    push_slice(p, begin, hit, out);
    begin = hit;
  }
  push_slice(p, begin, p.text.size(), out);
}

void apply_step(const PreTokenizerStep& step, const Piece& piece, std::vector<Piece>& out) {
  switch (step.kind) {
    case PreTokenizerStep::Kind::kSplit:
      split_by_regex(step.regex, piece, out);
      return;
    case PreTokenizerStep::Kind::kDigits:
      split_digits(step.individual_digits, piece, out);
      return;
    case PreTokenizerStep::Kind::kByteLevel:
      byte_level(step, piece, out);
      return;
    case PreTokenizerStep::Kind::kMetaspace:
      metaspace(step, piece, out);
      return;
  }
}

}  // namespace

std::string replace_all(std::string_view text, std::string_view from, std::string_view to) {
  if (from.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (true) {
    const size_t hit = text.find(from, pos);
    if (hit == std::string_view::npos) break;
    out.append(text.substr(pos, hit - pos));
    out.append(to);
    pos = hit + from.size();
  }
  out.append(text.substr(pos));
  return out;
}

std::string normalize(const std::vector<NormalizerStep>& steps, std::string_view text) {
  std::string s(text);
  for (const NormalizerStep& step : steps) {
    switch (step.kind) {
      case NormalizerStep::Kind::kNfc:
        s = to_nfc(s);
        break;
      case NormalizerStep::Kind::kNfd:
        s = to_nfd(s);
        break;
      case NormalizerStep::Kind::kPrepend:
        if (!s.empty()) s.insert(0, step.text);
        break;
      case NormalizerStep::Kind::kReplace:
        s = replace_all(s, step.text, step.content);
        break;
    }
  }
  return s;
}

void pre_tokenize(const std::vector<PreTokenizerStep>& steps, Piece piece,
                  std::vector<Piece>& out) {
  std::vector<Piece> current;
  if (!piece.text.empty()) current.push_back(std::move(piece));
  std::vector<Piece> next;
  for (const PreTokenizerStep& step : steps) {
    next.clear();
    for (const Piece& p : current) apply_step(step, p, next);
    // HF drops empty splits after every step.
    std::erase_if(next, [](const Piece& p) { return p.text.empty(); });
    current.swap(next);
  }
  for (Piece& p : current) out.push_back(std::move(p));
}

}  // namespace cppnn::llm::detail
