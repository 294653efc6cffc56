// `cppnn gguf-info FILE [--json [--full-arrays]] [--tensor NAME [--dequantize -o OUT.npy]]`: what
// a GGUF file holds (src/import/gguf/gguf_file.h): version, metadata, tensors with their kinds,
// and one tensor's details or its values dequantized to a .npy file in WebNN shape.
// Exit: 0 ok, 1 bad input (a malformed file, an unknown tensor, an unsupported kind),
// 2 usage or internal error.
#include <algorithm>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "cppnn/errors.h"
#include "src/import/gguf/gguf_file.h"
#include "src/import/gguf/gguf_quant.h"
#include "tools/cppnn/cli_args.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"
#include "tools/cppnn/npy.h"

namespace cppnn::tool {
namespace {

using gguf::GgufFile;
using gguf::GgufTensor;
using gguf::GgufValue;
using gguf::GgufValueType;
using nlohmann::json;

const char kHelp[] =
    "usage: cppnn gguf-info FILE [--json [--full-arrays]]\n"
    "                       [--tensor NAME [--dequantize -o OUT.npy]]\n\n"
    "Reads a GGUF file (versions 2 and 3, little-endian) with every size and offset checked, and\n"
    "prints its version, its metadata (arrays longer than 8 elements show their type, length and\n"
    "first 8 elements), its tensors (name, kind, ggml dims with ne[0] first, bytes, offset in\n"
    "the data section) and a summary per kind.\n"
    "--json prints one JSON object instead: {file, version, alignment, dataOffset, fileSize,\n"
    "metadata: [{key, type, value} | {key, type: \"array\", elementType, count, value}],\n"
    "tensors: [{name, kind, typeId, dims, shape, elements, bytes, offset}], kinds: {KIND:\n"
    "{tensors, elements, bytes}}}; arrays hold their first 16 elements (\"truncated\": true) "
    "unless\n"
    "--full-arrays is given. shape is the WebNN shape (dims reversed).\n"
    "--tensor NAME prints one tensor: its info, its WebNN form (float, or quantized integers\n"
    "with per-block scales and offsets) and its first values dequantized; with --json as an\n"
    "object. --dequantize -o OUT.npy writes the tensor dequantized to float32 exactly as\n"
    "llama.cpp computes it, in WebNN shape, to OUT.npy (written atomically).\n"
    "Kinds read: F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K; other kinds are\n"
    "listed but cannot be dequantized.\n"
    "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";

constexpr uint64_t kTextArrayHead = 8;   // array elements shown in text
constexpr uint64_t kJsonArrayHead = 16;  // array elements in JSON without --full-arrays
constexpr size_t kTextStringChars = 160;

struct Args {
  std::string path;
  bool json = false, full_arrays = false, dequantize = false;
  std::optional<std::string> tensor, output;
};

template <class T>
T value_or_throw(Result<T> r) {
  return std::move(r).value_or_throw();
}

// A scalar (or one packed array element) as JSON.
json scalar_json(const GgufValue& v) {
  if (v.type == GgufValueType::kBool) return v.uint_value != 0;
  if (gguf::is_unsigned_type(v.type)) return v.uint_value;
  if (gguf::is_signed_type(v.type)) return v.int_value;
  if (gguf::is_float_type(v.type)) return v.float_value;
  return std::string(v.string_value);
}

// A value as JSON; arrays hold at most `head` elements (all when head is 0).
json value_json(const GgufValue& v, uint64_t head) {
  if (v.type != GgufValueType::kArray) return scalar_json(v);
  json a = json::array();
  const uint64_t n = head == 0 ? v.count : std::min(v.count, head);
  for (uint64_t i = 0; i < n; ++i) {
    if (v.element_type == GgufValueType::kString)
      a.push_back(std::string(v.strings[i]));
    else if (v.element_type == GgufValueType::kArray)
      a.push_back(value_json(v.arrays[i], head));
    else
      a.push_back(scalar_json(v.packed_element(i)));
  }
  return a;
}

json entry_json(std::string_view key, const GgufValue& v, bool full) {
  json j = {{"key", std::string(key)}, {"type", std::string(gguf::value_type_name(v.type))}};
  if (v.type == GgufValueType::kArray) {
    j["elementType"] = std::string(gguf::value_type_name(v.element_type));
    j["count"] = v.count;
    if (!full && v.count > kJsonArrayHead) j["truncated"] = true;
  }
  j["value"] = value_json(v, full ? 0 : kJsonArrayHead);
  return j;
}

std::vector<uint64_t> webnn_shape(const GgufTensor& t) {
  return {t.dims.rbegin(), t.dims.rend()};
}

json tensor_json(const GgufTensor& t) {
  return {{"name", t.name},
          {"kind", std::string(gguf::kind_name(t.kind))},
          {"typeId", static_cast<uint32_t>(t.kind)},
          {"dims", t.dims},
          {"shape", webnn_shape(t)},
          {"elements", t.element_count},
          {"bytes", t.byte_size},
          {"offset", t.offset}};
}

std::string dims_text(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// A JSON-escaped string, cut after kTextStringChars characters.
std::string string_text(std::string_view s) {
  const bool cut = s.size() > kTextStringChars;
  std::string shown = json(std::string(s.substr(0, cut ? kTextStringChars : s.size())))
                          .dump(-1, ' ', false, json::error_handler_t::replace);
  return cut ? shown + "... (" + std::to_string(s.size()) + " bytes)" : shown;
}

std::string value_text(const GgufValue& v) {
  if (v.type == GgufValueType::kString) return string_text(v.string_value);
  if (v.type != GgufValueType::kArray)
    return scalar_json(v).dump(-1, ' ', false, json::error_handler_t::replace);
  std::string s = "[";
  const uint64_t n = std::min(v.count, kTextArrayHead);
  for (uint64_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    if (v.element_type == GgufValueType::kString)
      s += string_text(v.strings[i]);
    else if (v.element_type == GgufValueType::kArray)
      s += value_text(v.arrays[i]);
    else
      s += value_text(v.packed_element(i));
  }
  return s + (v.count > n ? ", ...]" : "]");
}

struct KindSummary {
  uint64_t tensors = 0, elements = 0, bytes = 0;
};

std::map<std::string, KindSummary> kinds_of(const GgufFile& f) {
  std::map<std::string, KindSummary> kinds;
  for (const GgufTensor& t : f.tensors()) {
    KindSummary& k = kinds[std::string(gguf::kind_name(t.kind))];
    ++k.tensors;
    k.elements += t.element_count;
    k.bytes += t.byte_size;
  }
  return kinds;
}

int print_file(const GgufFile& f, const Args& a) {
  const auto kinds = kinds_of(f);
  if (a.json) {
    json j = {{"file", a.path},
              {"version", f.version()},
              {"alignment", f.alignment()},
              {"dataOffset", f.data_offset()},
              {"fileSize", f.file_size()}};
    j["metadata"] = json::array();
    for (const auto& kv : f.metadata())
      j["metadata"].push_back(entry_json(kv.key, kv.value, a.full_arrays));
    j["tensors"] = json::array();
    for (const GgufTensor& t : f.tensors()) j["tensors"].push_back(tensor_json(t));
    j["kinds"] = json::object();
    for (const auto& [name, k] : kinds)
      j["kinds"][name] = {{"tensors", k.tensors}, {"elements", k.elements}, {"bytes", k.bytes}};
    std::cout << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  std::cout << "GGUF " << a.path << ": version " << f.version() << ", " << f.metadata().size()
            << " keys, " << f.tensors().size() << " tensors, alignment " << f.alignment()
            << ", data at offset " << f.data_offset() << " of " << f.file_size() << " bytes\n";
  std::cout << "metadata (" << f.metadata().size() << "):\n";
  for (const auto& kv : f.metadata())
    std::cout << "  " << kv.key << ": " << kv.value.type_string() << " = " << value_text(kv.value)
              << "\n";
  std::cout << "tensors (" << f.tensors().size() << "):\n";
  size_t width = 0;
  for (const GgufTensor& t : f.tensors()) width = std::max(width, t.name.size());
  for (const GgufTensor& t : f.tensors())
    std::cout << "  " << std::left << std::setw(static_cast<int>(width)) << t.name << "  "
              << std::setw(7) << gguf::kind_name(t.kind) << " " << std::setw(24)
              << dims_text(t.dims) << " " << std::right << std::setw(12) << t.byte_size
              << " bytes at " << t.offset << "\n";
  std::cout << "kinds:\n";
  for (const auto& [name, k] : kinds)
    std::cout << "  " << std::left << std::setw(7) << name << std::right << std::setw(6)
              << k.tensors << " tensors " << std::setw(12) << k.elements << " elements "
              << std::setw(12) << k.bytes << " bytes\n";
  return kExitOk;
}

int print_tensor(const GgufFile& f, const GgufTensor& t, const Args& a) {
  json j = tensor_json(t);
  const auto supported = gguf::check_supported(t);
  if (supported.ok()) {
    const gguf::WebnnWeight w = value_or_throw(gguf::to_webnn_weight(t));
    j["webnn"] = {{"note", w.note}};
    if (w.form == gguf::WebnnWeight::Form::kBlockQuantized)
      j["webnn"].update({{"qType", std::string(data_type_name(w.q_type))}, {"block", w.block}});
    else
      j["webnn"]["floatType"] = std::string(data_type_name(w.float_type));
    // The first values, from the first blocks only (never the whole tensor).
    const gguf::GgufKindInfo& info = gguf::kind_info(t.kind);
    const uint64_t n = std::min<uint64_t>(t.element_count, 8);
    if (n > 0) {
      const uint64_t blocks = (n + info.block - 1) / info.block;
      std::vector<float> head(blocks * info.block);
      auto s = gguf::dequantize_blocks(t.kind, t.data.subspan(0, blocks * info.block_bytes), head);
      if (!s.ok()) throw_error(s.error().kind, s.error().message);
      j["first"] = std::vector<float>(head.begin(), head.begin() + static_cast<ptrdiff_t>(n));
    }
  } else {
    j["webnn"] = {{"error", supported.error().message}};
  }
  if (a.json) {
    std::cout << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  std::cout << "tensor " << t.name << " in " << f.name() << ":\n"
            << "  kind " << gguf::kind_name(t.kind) << " (type id " << static_cast<uint32_t>(t.kind)
            << "), ggml dims " << dims_text(t.dims) << ", WebNN shape " << dims_text(webnn_shape(t))
            << "\n  " << t.element_count << " elements, " << t.byte_size << " bytes at offset "
            << t.offset << " (file offset " << f.data_offset() + t.offset << ")\n";
  if (j["webnn"].contains("error")) {
    std::cout << "  " << j["webnn"]["error"].get<std::string>() << "\n";
    return kExitOk;
  }
  std::cout << "  WebNN form: " << j["webnn"]["note"].get<std::string>() << "\n";
  if (j.contains("first")) std::cout << "  first values: " << j["first"].dump() << "\n";
  return kExitOk;
}

int write_dequantized(const GgufTensor& t, const std::string& output) {
  NpyArray array;
  array.dataType = MLOperandDataType::kFloat32;
  for (uint64_t d : webnn_shape(t)) {
    if (d > UINT32_MAX)
      throw DataError(str_cat("tensor ", gguf::quoted_name(t.name), ": dimension ", d,
                              " does not fit a .npy shape here"));
    array.shape.push_back(static_cast<uint32_t>(d));
  }
  const std::vector<float> values = value_or_throw(gguf::dequantize(t));
  array.data.resize(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(array.data.data(), values.data(), array.data.size());
  auto written = write_npy_file(output, array);
  if (!written) throw_error(written.error().kind, written.error().message);
  std::cerr << "wrote " << output << ": " << gguf::kind_name(t.kind) << " -> float32 "
            << dims_text(webnn_shape(t)) << "\n";
  return kExitOk;
}

int gguf_info(const Args& a) {
  const std::shared_ptr<const GgufFile> f = value_or_throw(GgufFile::open(a.path));
  if (!a.tensor) return print_file(*f, a);
  const GgufTensor* t = f->find_tensor(*a.tensor);
  if (t == nullptr) throw DataError(f->error("no tensor ", gguf::quoted_name(*a.tensor)).message);
  if (a.dequantize) return write_dequantized(*t, *a.output);
  return print_tensor(*f, *t, a);
}

std::optional<int> parse(const std::vector<std::string>& argv, Args& a) {
  ParsedArgs p;
  if (auto rc = parse_command_line(find_command_spec("gguf-info"), argv, kHelp, p)) return rc;
  a.path = p.path;
  a.json = p.has("json");
  a.full_arrays = p.has("full-arrays");
  a.dequantize = p.has("dequantize");
  a.tensor = p.value("tensor");
  a.output = p.value("output");
  auto usage = [](const std::string& m) { return report_usage_error("gguf-info", m); };
  if (a.dequantize && !a.tensor) return usage("--dequantize needs --tensor NAME");
  if (a.dequantize && !a.output) return usage("--dequantize needs -o OUT.npy");
  if (a.output && !a.dequantize) return usage("-o is only used with --dequantize");
  if (a.output && a.output->empty()) return usage("an empty file name was given");
  if (a.full_arrays && !a.json) return usage("--full-arrays is only used with --json");
  return std::nullopt;
}

}  // namespace

int run_gguf_info(const std::vector<std::string>& args) {
  Args a;
  if (auto rc = parse(args, a)) return *rc;
  return run_command("gguf-info", [&] { return gguf_info(a); });
}

}  // namespace cppnn::tool
