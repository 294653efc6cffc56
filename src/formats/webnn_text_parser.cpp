// The .webnn text reader (webnn-graph-format.md §3.2 grammar, §3.3 meaning, §3.4 leniencies):
// a hand-written recursive-descent parser over the cursor of text_cursor.h, following the PEG's
// ordered choices so that it accepts exactly the reference's language.
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "src/formats/doc_strings.h"
#include "src/formats/doc_symbolic.h"
#include "src/formats/text_cursor.h"
#include "src/formats/text_number.h"
#include "src/formats/webnn_text.h"
#include "src/graph/symbolic_sizes.h"

namespace cppnn::formats {
namespace {

using text::Cursor;
using text::TextParseError;

struct DtypeName {
  std::string_view text;
  MLOperandDataType type;
};
constexpr DtypeName kDtypes[] = {
    {"f32", MLOperandDataType::kFloat32}, {"f16", MLOperandDataType::kFloat16},
    {"i32", MLOperandDataType::kInt32},   {"u32", MLOperandDataType::kUint32},
    {"i64", MLOperandDataType::kInt64},   {"u64", MLOperandDataType::kUint64},
    {"i8", MLOperandDataType::kInt8},     {"u8", MLOperandDataType::kUint8},
    {"i4", MLOperandDataType::kInt4},     {"u4", MLOperandDataType::kUint4},
};

class Parser {
 public:
  Parser(std::string_view src, std::string_view file, Warnings* warnings)
      : c_(src), file_(file), warnings_(warnings) {}

  GraphDoc parse_file() {
    if (c_.looking_at("\xEF\xBB\xBF"))
      c_.fail("a byte order mark is not allowed (the file must start with 'webnn_graph')");
    c_.skip_ws();
    if (!c_.looking_at("webnn_graph")) c_.fail_expected("'webnn_graph'");
    c_.advance(11);
    c_.skip_ws();
    if (c_.peek() != '"') c_.fail_expected("the graph name (a string)");
    doc_.name.emplace();
    c_.string(*doc_.name);
    c_.skip_ws();
    if (c_.peek() != 'v') c_.fail_expected("'v' and the version");
    c_.advance(1);
    doc_.version = c_.expect_uint("the version");
    c_.skip_ws();
    if (c_.looking_at("@quantized")) {
      c_.advance(10);
      doc_.quantized = true;
    }
    c_.expect('{', "'{'");
    while (true) {
      c_.skip_ws();
      if (c_.at_end()) break;
      if (c_.accept('}')) continue;  // §3.4a: the closing brace is just another block
      const char* at = c_.pos();
      const std::string_view kw = c_.word();
      if (kw == "inputs") {
        inputs_block();
      } else if (kw == "consts") {
        consts_block();
      } else if (kw == "nodes") {
        nodes_block();
      } else if (kw == "outputs") {
        outputs_block();
      } else {
        c_.fail(at, "expected a block ('inputs', 'consts', 'nodes', 'outputs') or '}', found " +
                        found(at, kw));
      }
    }
    return std::move(doc_);
  }

  void warn(const char* at, const std::string& message) {
    if (!warnings_) return;
    uint32_t line, column;
    c_.locate(at, line, column);
    warnings_->push_back(std::string(file_) + ":" + std::to_string(line) + ":" +
                         std::to_string(column) + ": " + message);
  }

 private:
  static std::string found(const char* at, std::string_view word) {
    if (!word.empty()) return "'" + std::string(word) + "'";
    return "'" + std::string(1, *at) + "'";  // callers pass a position before the end
  }

  MLOperandDataType dtype() {
    c_.skip_ws();
    const char* at = c_.pos();
    const std::string_view w = c_.word();
    if (w.empty()) c_.fail_expected("a data type (f32, f16, i32, u32, i64, u64, i8, u8, i4, u4)");
    for (const auto& d : kDtypes)
      if (d.text == w) return d.type;
    c_.fail(at, "unknown data type " + found(at, w) +
                    " (expected f32, f16, i32, u32, i64, u64, i8, u8, i4 or u4)");
  }

  // shape = "[" [dim {"," dim}] "]"; `allow_dyn` false for constants (§3.3 Consts).
  template <class Dim>
  void shape(std::vector<Dim>& out, bool allow_dyn) {
    c_.expect('[', "'[' and the shape");
    if (c_.accept(']')) return;
    while (true) {
      c_.skip_ws();
      if (c_.looking_at("dyn")) {
        const char* at = c_.pos();
        c_.advance(3);
        if (!allow_dyn) c_.fail(at, "constant shapes must be static");
        DocDim d;
        c_.expect('(', "'(' after dyn");
        c_.skip_ws();
        if (c_.peek() != '"') c_.fail_expected("the dimension name (a string)");
        c_.string(d.name);
        c_.expect(',', "','");
        d.size = c_.expect_uint("the dimension's maximum size");
        c_.expect(')', "')'");
        if constexpr (std::is_same_v<Dim, DocDim>) out.push_back(std::move(d));
      } else {
        const uint32_t v =
            c_.expect_uint("a dimension (an unsigned integer or dyn(\"name\", max))");
        if constexpr (std::is_same_v<Dim, DocDim>)
          out.push_back(DocDim{v, {}});
        else
          out.push_back(v);
      }
      if (c_.accept(',')) continue;
      c_.expect(']', "',' or ']'");
      return;
    }
  }

  void inputs_block() {
    c_.expect('{', "'{'");
    while (!c_.accept('}')) {
      const char* at = (c_.skip_ws(), c_.pos());
      std::string name(c_.expect_ident("an input name or '}'"));
      c_.expect(':', "':'");
      DocInput in;
      in.dataType = dtype();
      shape(in.shape, true);
      c_.expect(';', "';'");
      auto [it, added] = doc_.inputs.try_emplace(std::move(name));
      if (!added)
        warn(at, "input '" + it->first + "' is declared again; the last declaration wins");
      it->second = std::move(in);
    }
  }

  void consts_block() {
    c_.expect('{', "'{'");
    while (!c_.accept('}')) {
      const char* at = (c_.skip_ws(), c_.pos());
      std::string name(c_.expect_ident("a constant name or '}'"));
      c_.expect(':', "':'");
      DocConst k;
      k.dataType = dtype();
      shape(k.shape, false);
      k.init.ref = name;  // §3.3: no annotation means @weights("<name>")
      while (true) {
        c_.skip_ws();
        if (c_.peek() != '@') break;
        annotation(k.init);
      }
      c_.expect(';', "an annotation (@weights, @scalar, @bytes) or ';'");
      auto [it, added] = doc_.consts.try_emplace(std::move(name));
      if (!added)
        warn(at, "constant '" + it->first + "' is declared again; the last declaration wins");
      it->second = std::move(k);
    }
  }

  void annotation(DocInit& init) {
    const char* at = c_.pos();
    if (c_.looking_at("@weights")) {
      c_.advance(8);
      c_.expect('(', "'('");
      c_.skip_ws();
      if (c_.peek() != '"') c_.fail_expected("the weight reference (a string)");
      init = DocInit{};
      c_.string(init.ref);
      c_.expect(')', "')'");
    } else if (c_.looking_at("@scalar")) {
      c_.advance(7);
      c_.expect('(', "'('");
      c_.skip_ws();
      if (c_.peek() != '-' && !text::has_class(c_.peek(), text::kDigit))
        c_.fail_expected("a number");
      init = DocInit{};
      init.kind = DocInit::Kind::kScalar;
      init.value = number();
      c_.expect(')', "')'");
    } else if (c_.looking_at("@bytes")) {
      c_.advance(6);
      c_.expect('(', "'('");
      c_.expect('[', "'['");
      init = DocInit{};
      init.kind = DocInit::Kind::kInlineBytes;
      if (!c_.accept(']')) {
        while (true) {
          c_.skip_ws();
          const char* vat = c_.pos();
          const uint32_t v = c_.expect_uint("a byte value");
          if (v > 255)
            c_.fail(vat, "byte out of range: " + std::to_string(v) + " (must be 0 to 255)");
          init.bytes.push_back(static_cast<uint8_t>(v));
          if (c_.accept(',')) continue;
          c_.expect(']', "',' or ']'");
          break;
        }
      }
      c_.expect(')', "')'");
    } else {
      c_.fail(at, "unknown annotation (expected @weights, @scalar or @bytes)");
    }
  }

  // A number at the cursor (§3.3 Numbers). An integer above i64 that fits u64 stays an integer
  // (the reference makes it an f64, which rounds most uint64 values): JSON carries it exactly.
  DocValue number() {
    const char* at = c_.pos();
    bool is_integer;
    const std::string_view s = c_.number(is_integer);
    Result<DocValue> v = parse_number_token(s, is_integer, true);
    if (!v) c_.fail(at, v.error().message);
    return std::move(*v);
  }

  void nodes_block() {
    c_.expect('{', "'{'");
    while (!c_.accept('}')) statement();
  }

  void statement() {
    c_.skip_ws();
    DocNode& node = doc_.nodes.emplace_back();
    node.pos = DocPos{c_.line(), c_.column()};
    if (c_.accept('[')) {
      node.outputs.emplace();
      while (true) {
        node.outputs->emplace_back(c_.expect_ident("an output name"));
        if (c_.accept(',')) continue;
        c_.expect(']', "',' or ']'");
        break;
      }
      node.id = node.outputs->front();
    } else {
      node.id = c_.expect_ident("a statement (name = op(...);) or '}'");
    }
    c_.expect('=', "'='");
    c_.skip_ws();
    if (c_.at_ident()) {
      const std::string_view name = c_.ident();
      if (c_.accept('(')) {
        node.op = name;
        call_args(node);
      } else {
        node.inputs.emplace_back(name);  // `y = x;`: an alias (op "")
      }
    } else if (c_.peek() == '"' || c_.peek() == '[' || c_.peek() == '{' || c_.peek() == '-' ||
               text::has_class(c_.peek(), text::kDigit)) {
      c_.fail("the right-hand side must be an op call or a value name, not a literal");
    } else {
      c_.fail_expected("an op call or a value name");
    }
    c_.expect(';', "';'");
  }

  void call_args(DocNode& node) {
    if (c_.accept(')')) return;
    do {
      arg(node);
    } while (c_.accept(','));
    c_.expect(')', "',' or ')'");
  }

  // arg = ident "=" value | value.
  void arg(DocNode& node) {
    c_.skip_ws();
    const char* at = c_.pos();
    if (c_.at_ident()) {
      const Cursor saved = c_;
      const std::string_view key = c_.ident();
      c_.skip_ws();
      if (c_.peek() == '=') {
        c_.advance(1);
        set_member(node.options, std::string(key), value());
        return;
      }
      if (!at_keyword_literal_at(key)) {
        node.inputs.emplace_back(key);
        return;
      }
      c_ = saved;
    }
    positional(node, at);
  }

  static bool at_keyword_literal_at(std::string_view ident) {
    return ident.starts_with("true") || ident.starts_with("false") || ident.starts_with("null");
  }

  // A positional literal: strings are inputs, arrays are flattened (0.3.0+), the rest is dropped
  // with a warning (§3.3 Arguments, §10 row 15).
  void positional(DocNode& node, const char* at) {
    DocValue v = value();
    if (v.kind == DocValue::Kind::kString) {
      node.inputs.push_back(std::move(v.s));
    } else if (v.kind == DocValue::Kind::kArray) {
      bool dropped = false;
      for (DocValue& item : v.items) {
        if (item.kind == DocValue::Kind::kString)
          node.inputs.push_back(std::move(item.s));
        else
          dropped = true;
      }
      if (dropped)
        warn(at, "node '" + node.id +
                     "': non-name items of a positional list are dropped (pass values as named "
                     "options, e.g. newShape=[...])");
    } else {
      warn(at, "node '" + node.id +
                   "': a positional literal is not an operand and is dropped (pass it as a named "
                   "option)");
    }
  }

  // value = literal | ident (literal first, §3.4c).
  DocValue value() {
    struct Depth {
      int& d;
      explicit Depth(int& x) : d(++x) {}
      ~Depth() { --d; }
    } depth(depth_);
    if (depth_ > kMaxDepth) c_.fail("values nested deeper than 256 levels");
    c_.skip_ws();
    const char ch = c_.peek();
    if (ch == '"') {
      DocValue v;
      v.kind = DocValue::Kind::kString;
      c_.string(v.s);
      return v;
    }
    if (ch == '[') {
      c_.advance(1);
      DocValue v = DocValue::array();
      if (c_.accept(']')) return v;
      while (true) {
        v.items.push_back(value());
        if (c_.accept(',')) continue;
        c_.expect(']', "',' or ']'");
        return v;
      }
    }
    if (ch == '{') {
      c_.advance(1);
      DocValue v = DocValue::object();
      if (c_.accept('}')) return v;
      while (true) {
        c_.skip_ws();
        std::string key;
        if (c_.peek() == '"')
          c_.string(key);
        else if (c_.at_ident())
          key = c_.ident();
        else
          c_.fail_expected("an object key");
        c_.expect(':', "':'");
        v.set(std::move(key), value());
        if (c_.accept(',')) continue;
        c_.expect('}', "',' or '}'");
        return v;
      }
    }
    if (ch == '-' || text::has_class(ch, text::kDigit)) return number();
    if (c_.looking_at("dyn(")) return symbolic_size();
    for (std::string_view kw : {"true", "false", "null"}) {
      if (!c_.looking_at(kw)) continue;
      const char* at = c_.pos();
      c_.advance(kw.size());
      if (text::has_class(c_.peek(), text::kIdentRest)) {
        const std::string_view rest = c_.ident_rest();
        c_.fail(at, "'" + std::string(kw) + std::string(rest) + "' reads as the literal '" +
                        std::string(kw) + "' followed by '" + std::string(rest) +
                        "' (a value name may not start with true, false or null, §3.4c)");
      }
      if (kw == "null") return DocValue::null();
      return DocValue::boolean(kw == "true");
    }
    if (c_.at_ident()) return DocValue::string(std::string(c_.ident()));
    c_.fail_expected("a value");
  }

  // A symbolic size (cppnn extension, docs/dynamic-dimensions.md): `dyn("expr", size)`.
  DocValue symbolic_size() {
    const char* at = c_.pos();
    c_.advance(4);
    c_.skip_ws();
    if (c_.peek() != '"') c_.fail_expected("the size's relation (a string such as \"seq\")");
    std::string expr;
    c_.string(expr);
    if (Result<SymbolicSize> r = parse_symbolic_expression(expr); !r)
      c_.fail(at, r.error().message);
    c_.expect(',', "','");
    c_.skip_ws();
    const DocValue size = number();
    if (size.kind != DocValue::Kind::kInt) c_.fail(at, "dyn(...)'s size must be an integer");
    c_.expect(')', "')'");
    return symbolic_value(std::move(expr), size.i);
  }

  void outputs_block() {
    c_.expect('{', "'{'");
    while (!c_.accept('}')) {
      std::string name(c_.expect_ident("an output name or '}'"));
      doc_.outputs.insert_or_assign(name, name);
      while (c_.accept(',')) {
        std::string more(c_.expect_ident("an output name"));
        doc_.outputs.insert_or_assign(more, more);
      }
      c_.accept(';');
    }
  }

  static constexpr int kMaxDepth = 256;
  int depth_ = 0;
  Cursor c_;
  std::string_view file_;
  Warnings* warnings_;
  GraphDoc doc_;
};

}  // namespace

std::string_view text_dtype_name(MLOperandDataType t) noexcept {
  for (const auto& d : kDtypes)
    if (d.type == t) return d.text;
  return {};
}

std::optional<MLOperandDataType> parse_text_dtype(std::string_view s) noexcept {
  for (const auto& d : kDtypes)
    if (d.text == s) return d.type;
  return std::nullopt;
}

bool is_text_identifier(std::string_view s) noexcept {
  if (s.empty() || !text::has_class(s[0], text::kIdentFirst)) return false;
  for (size_t i = 1; i < s.size(); ++i)
    if (!text::has_class(s[i], text::kIdentRest)) return false;
  return true;
}

Result<GraphDoc> parse_webnn_text(std::string_view src, std::string_view file_name,
                                  Warnings* warnings) {
  Parser p(src, file_name, warnings);
  try {
    GraphDoc doc = p.parse_file();
    CPPNN_RETURN_IF_ERROR(check_doc_strings(doc, file_name));  // UTF-8, no NUL (doc_strings.h)
    return doc;
  } catch (const TextParseError& e) {
    Cursor c(src);
    uint32_t line, column;
    c.locate(e.at, line, column);
    return data_error("parse error: ", file_name, ":", line, ":", column, ": ", e.message);
  }
}

}  // namespace cppnn::formats
