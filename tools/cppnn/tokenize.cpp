// `cppnn tokenize MODEL [--text TEXT | --file LINES.txt] [--no-special] [--no-add-special]
// [--decode] [--skip-special] [--json] [--spec-json]`: encodes text into token ids with a
// model's tokenizer (one JSON array of ids per input line), or decodes arrays of ids back into
// text. The tokenizer oracle test (tests/llm/test_tokenizer_oracle.py) drives it.
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "src/core/input_file.h"
#include "src/formats/json_reader.h"
#include "src/import/gguf/gguf_model.h"
#include "src/llm/tokenizer.h"
#include "src/llm/tokenizer_spec_json.h"
#include "src/llm/unicode_utf8.h"
#include "tools/cppnn/cli_args.h"
#include "tools/cppnn/commands.h"

namespace cppnn::tool {
namespace {

namespace fs = std::filesystem;

const char kHelp[] =
    "usage: cppnn tokenize MODEL [--text TEXT | --file LINES.txt] [--no-special]\n"
    "                      [--no-add-special] [--decode] [--skip-special] [--json]\n"
    "                      [--spec-json]\n\n"
    "Encodes text with the tokenizer of MODEL, a Hugging Face tokenizer.json or a .gguf model\n"
    "(its tokenizer.ggml.* metadata, with llama.cpp's rules), and prints one JSON array of token\n"
    "ids per input line. The\n"
    "input is --text, else the lines of --file, else the lines of stdin.\n"
    "  --no-special      treat special tokens written in the text (\"<|im_start|>\") as plain\n"
    "                    text\n"
    "  --no-add-special  do not add the model's BOS/EOS (post-processor) tokens\n"
    "  --json            every input line is a JSON string (so a text can hold newlines); with\n"
    "                    --decode, every output line is one\n"
    "  --decode          every input line is a JSON array of ids: print their text\n"
    "  --skip-special    with --decode, leave special tokens out of the text\n"
    "  --spec-json       MODEL is a JSON object of GGUF tokenizer metadata (\"tokenizer.ggml.*\"\n"
    "                    keys, as llama.cpp's gguf-py reads them): the GGUF tokenizer rules\n"
    "Exit status: 0 success, 1 a model or an input line that cannot be read, 2 usage.\n";

// The largest tokenizer file read (a tokenizer.json of a 256k vocabulary is about 20 MB).
constexpr uint64_t kMaxTokenizerFileBytes = uint64_t{1} << 30;

// A bad model or input: printed as "Error: cppnn tokenize: <message>", exit status 1.
struct InputError {
  std::string message;
};

llm::Tokenizer load_tokenizer(const std::string& path, bool spec_json) {
  if (fs::path(path).extension() == ".gguf") {
    // The GGUF file's tokenizer.ggml.* metadata, with llama.cpp's rules.
    auto file = gguf::GgufFile::open(path);
    if (!file.ok()) throw InputError{file.error().message};
    Result<llm::TokenizerSpec> spec = gguf::read_tokenizer_spec(**file);
    if (!spec.ok()) throw InputError{spec.error().message};
    Result<llm::Tokenizer> tokenizer = llm::Tokenizer::from_spec(std::move(*spec));
    if (!tokenizer.ok()) throw InputError{tokenizer.error().message};
    return std::move(*tokenizer);
  }
  Result<std::string> text = read_input_file(path, kMaxTokenizerFileBytes);
  if (!text.ok()) throw InputError{text.error().message};
  Result<llm::Tokenizer> tokenizer = [&]() -> Result<llm::Tokenizer> {
    if (!spec_json) return llm::Tokenizer::from_hf_json(*text, path);
    Result<llm::TokenizerSpec> spec = llm::tokenizer_spec_from_json(*text, path);
    if (!spec.ok()) return spec.error();
    return llm::Tokenizer::from_spec(std::move(*spec));
  }();
  if (!tokenizer.ok()) throw InputError{tokenizer.error().message};
  return std::move(*tokenizer);
}

// The input texts: --text, or the lines of --file / stdin (without their '\n').
std::vector<std::string> read_inputs(const ParsedArgs& a) {
  if (const auto text = a.value("text")) return {*text};
  std::string all;
  if (const auto file = a.value("file")) {
    Result<std::string> r = read_input_file(*file);
    if (!r.ok()) throw InputError{r.error().message};
    all = std::move(*r);
  } else {
    std::ostringstream os;
    os << std::cin.rdbuf();
    all = os.str();
  }
  std::vector<std::string> lines;
  size_t begin = 0;
  while (begin < all.size()) {
    size_t end = all.find('\n', begin);
    if (end == std::string::npos) end = all.size();
    lines.push_back(all.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

// A JSON string literal of `text` (valid UTF-8), non-ASCII kept as is.
std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Input line `n` (1-based) as a text: the JSON string it holds (--json), or itself.
std::string line_text(const std::string& line, size_t n, bool json) {
  const std::string where = "input line " + std::to_string(n);
  if (!json) {
    if (!llm::is_valid_utf8(line)) throw InputError{where + ": not valid UTF-8"};
    return line;
  }
  Result<formats::DocValue> v = formats::read_json(line, where);
  if (!v.ok()) throw InputError{v.error().message};
  if (v->kind != formats::DocValue::Kind::kString)
    throw InputError{where + ": expected a JSON string"};
  return v->s;
}

// Input line `n` as an array of ids.
std::vector<int32_t> line_ids(const std::string& line, size_t n) {
  const std::string where = "input line " + std::to_string(n);
  Result<formats::DocValue> v = formats::read_json(line, where);
  if (!v.ok()) throw InputError{v.error().message};
  if (v->kind != formats::DocValue::Kind::kArray)
    throw InputError{where + ": expected a JSON array of token ids"};
  std::vector<int32_t> ids;
  for (const formats::DocValue& item : v->items) {
    if (item.kind != formats::DocValue::Kind::kInt || item.i < INT32_MIN || item.i > INT32_MAX)
      throw InputError{where + ": expected a JSON array of token ids"};
    ids.push_back(static_cast<int32_t>(item.i));
  }
  return ids;
}

int tokenize(const ParsedArgs& a) {
  const llm::Tokenizer tokenizer = load_tokenizer(a.path, a.has("spec-json"));
  const bool json = a.has("json");
  const std::vector<std::string> lines = read_inputs(a);
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (a.has("decode")) {
      const std::string text =
          tokenizer.decode(line_ids(lines[i], i + 1), {.skip_special = a.has("skip-special")});
      out += json ? json_string(text) : text;
    } else {
      const std::vector<int32_t> ids = tokenizer.encode(
          line_text(lines[i], i + 1, json),
          {.parse_special = !a.has("no-special"), .add_special = !a.has("no-add-special")});
      out += '[';
      for (size_t k = 0; k < ids.size(); ++k) {
        if (k) out += ", ";
        out += std::to_string(ids[k]);
      }
      out += ']';
    }
    out += '\n';
    if (out.size() > (1u << 16)) {
      std::cout << out;
      out.clear();
    }
  }
  std::cout << out << std::flush;
  return kExitOk;
}

}  // namespace

int run_tokenize(const std::vector<std::string>& args) {
  ParsedArgs a;
  if (auto status = parse_command_line(find_command_spec("tokenize"), args, kHelp, a))
    return *status;
  if (a.has("text") && a.has("file"))
    return report_usage_error("tokenize", "--text and --file cannot be used together");
  if (a.has("skip-special") && !a.has("decode"))
    return report_usage_error("tokenize", "--skip-special needs --decode");
  try {
    return tokenize(a);
  } catch (const InputError& e) {
    std::cerr << "Error: cppnn tokenize: " << e.message << "\n";
    return kExitBadInput;
  }
}

}  // namespace cppnn::tool
