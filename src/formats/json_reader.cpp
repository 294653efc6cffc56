// The strict JSON reader (RFC 8259) behind the GraphJson loader.
#include "src/formats/json_reader.h"

#include "src/formats/text_number.h"

namespace cppnn::formats {
namespace {

constexpr int kMaxDepth = 256;

struct JsonError {
  const char* at;
  std::string message;
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view s) : b_(s.data()), p_(s.data()), e_(s.data() + s.size()) {}

  DocValue document() {
    ws();
    DocValue v = value(0);
    ws();
    if (p_ != e_) fail("unexpected content after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(std::string m) const { throw JsonError{p_, std::move(m)}; }

  void ws() {
    while (p_ < e_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\t' || *p_ == '\r')) ++p_;
  }

  bool lit(std::string_view l) {
    if (static_cast<size_t>(e_ - p_) >= l.size() && std::string_view(p_, l.size()) == l) {
      p_ += l.size();
      return true;
    }
    return false;
  }

  DocValue value(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than 256 levels");
    if (p_ == e_) fail("unexpected end of input, expected a value");
    switch (*p_) {
      case '{': {
        ++p_;
        DocValue v = DocValue::object();
        ws();
        if (p_ < e_ && *p_ == '}') {
          ++p_;
          return v;
        }
        while (true) {
          ws();
          if (p_ == e_ || *p_ != '"') fail("expected a member name (a string)");
          std::string key;
          string(key);
          ws();
          if (p_ == e_ || *p_ != ':') fail("expected ':'");
          ++p_;
          ws();
          DocValue m = value(depth + 1);
          v.members.emplace_back(std::move(key), std::move(m));
          ws();
          if (p_ < e_ && *p_ == ',') {
            ++p_;
            continue;
          }
          if (p_ < e_ && *p_ == '}') {
            ++p_;
            return v;
          }
          fail("expected ',' or '}'");
        }
      }
      case '[': {
        ++p_;
        DocValue v = DocValue::array();
        ws();
        if (p_ < e_ && *p_ == ']') {
          ++p_;
          return v;
        }
        while (true) {
          ws();
          v.items.push_back(value(depth + 1));
          ws();
          if (p_ < e_ && *p_ == ',') {
            ++p_;
            continue;
          }
          if (p_ < e_ && *p_ == ']') {
            ++p_;
            return v;
          }
          fail("expected ',' or ']'");
        }
      }
      case '"': {
        DocValue v;
        v.kind = DocValue::Kind::kString;
        string(v.s);
        return v;
      }
      case 't':
        if (lit("true")) return DocValue::boolean(true);
        break;
      case 'f':
        if (lit("false")) return DocValue::boolean(false);
        break;
      case 'n':
        if (lit("null")) return DocValue::null();
        break;
      default:
        if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) return number();
    }
    fail("expected a value");
  }

  static bool digit(char c) { return c >= '0' && c <= '9'; }

  DocValue number() {
    const char* s = p_;
    bool integer = true;
    if (*p_ == '-') ++p_;
    if (p_ == e_ || !digit(*p_)) fail("expected a digit");
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < e_ && digit(*p_)) ++p_;
    }
    if (p_ < e_ && *p_ == '.') {
      integer = false;
      ++p_;
      if (p_ == e_ || !digit(*p_)) fail("expected a digit after '.'");
      while (p_ < e_ && digit(*p_)) ++p_;
    }
    if (p_ < e_ && (*p_ == 'e' || *p_ == 'E')) {
      integer = false;
      ++p_;
      if (p_ < e_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == e_ || !digit(*p_)) fail("expected a digit in the exponent");
      while (p_ < e_ && digit(*p_)) ++p_;
    }
    Result<DocValue> v =
        parse_number_token(std::string_view(s, static_cast<size_t>(p_ - s)), integer, true);
    if (!v) {
      p_ = s;
      fail(v.error().message);
    }
    return std::move(*v);
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  uint32_t hex4() {
    if (e_ - p_ < 4) fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = hex(p_[i]);
      if (h < 0) fail("bad \\u escape");
      v = v * 16 + static_cast<uint32_t>(h);
    }
    p_ += 4;
    return v;
  }

  static void utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  void string(std::string& out) {
    ++p_;  // opening quote
    const char* run = p_;
    while (true) {
      if (p_ == e_) fail("unterminated string");
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') break;
      if (c < 0x20) fail("control character in a string");
      if (c != '\\') {
        ++p_;
        continue;
      }
      out.append(run, p_);
      ++p_;
      if (p_ == e_) fail("unterminated string");
      const char esc = *p_++;
      switch (esc) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00) {
            if (!lit("\\u")) fail("unpaired surrogate in \\u escape");
            const uint32_t lo = hex4();
            if (lo < 0xDC00 || lo >= 0xE000) fail("unpaired surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            fail("unpaired surrogate in \\u escape");
          }
          utf8(out, cp);
          break;
        }
        default:
          --p_;
          fail("bad escape in a string");
      }
      run = p_;
    }
    out.append(run, p_);
    ++p_;  // closing quote
  }

 public:
  void locate(const char* at, uint32_t& line, uint32_t& col) const {
    line = 1;
    const char* ls = b_;
    for (const char* q = b_; q < at && q < e_; ++q)
      if (*q == '\n') {
        ++line;
        ls = q + 1;
      }
    col = static_cast<uint32_t>(at - ls) + 1;
  }

 private:
  const char* b_;
  const char* p_;
  const char* e_;
};

}  // namespace

Result<DocValue> read_json(std::string_view json, std::string_view file_name) {
  JsonReader r(json);
  try {
    return r.document();
  } catch (const JsonError& e) {
    uint32_t line, col;
    r.locate(e.at, line, col);
    return data_error("JSON error: ", file_name, ":", line, ":", col, ": ", e.message);
  }
}

}  // namespace cppnn::formats
