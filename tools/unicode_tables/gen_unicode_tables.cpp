// Build-time generator of src/llm/unicode_tables.h's tables (cmake/unicode_tables.cmake runs it):
//   gen_unicode_tables DATA_DIR OUT.cpp
// reads UnicodeData.txt, PropList.txt, DerivedCoreProperties.txt, DerivedNormalizationProps.txt
// and ReadMe.txt (for the version) from DATA_DIR (Debian's unicode-data: /usr/share/unicode) and
// writes the table definitions. Standard library only; any malformed line is an error naming the
// file and line (exit status 1), so a broken data package never yields silently wrong tables.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// A parse error: "FILE:LINE: what".
struct GenError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The two-letter category names in GeneralCategory order (src/llm/unicode_tables.h).
const std::vector<std::string>& category_names() {
  static const std::vector<std::string> kNames = {
      "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe",
      "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"};
  return kNames;
}

constexpr uint32_t kMaxCodePoint = 0x10FFFF;

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

// A hexadecimal code point (1 to 6 digits, at most U+10FFFF).
uint32_t parse_code_point(const std::string& text, const std::string& where) {
  const std::string t = trim(text);
  if (t.empty() || t.size() > 6) throw GenError(where + ": bad code point '" + text + "'");
  uint32_t v = 0;
  for (char c : t) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else {
      throw GenError(where + ": bad code point '" + text + "'");
    }
    v = v * 16 + static_cast<uint32_t>(d);
  }
  if (v > kMaxCodePoint) throw GenError(where + ": code point above U+10FFFF '" + text + "'");
  return v;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw GenError("cannot open " + path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// The per-code-point data of UnicodeData.txt.
struct UnicodeData {
  std::vector<uint8_t> category;  // index into category_names(), per code point
  std::vector<uint8_t> combining_class;
  std::map<uint32_t, std::vector<uint32_t>> canonical;  // canonical decompositions
};

UnicodeData read_unicode_data(const std::string& path) {
  UnicodeData d;
  const uint8_t cn = static_cast<uint8_t>(category_names().size() - 1);
  d.category.assign(kMaxCodePoint + 1, cn);
  d.combining_class.assign(kMaxCodePoint + 1, 0);
  const std::vector<std::string> lines = read_lines(path);
  uint32_t range_first = 0;
  bool in_range = false;
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string where = path + ":" + std::to_string(n + 1);
    if (trim(lines[n]).empty()) continue;
    const std::vector<std::string> f = split(lines[n], ';');
    if (f.size() != 15) throw GenError(where + ": expected 15 fields");
    const uint32_t cp = parse_code_point(f[0], where);
    const auto& names = category_names();
    const auto it = std::find(names.begin(), names.end(), f[2]);
    if (it == names.end()) throw GenError(where + ": unknown general category '" + f[2] + "'");
    const uint8_t cat = static_cast<uint8_t>(it - names.begin());
    int ccc = 0;
    try {
      ccc = std::stoi(f[3]);
    } catch (const std::exception&) {
      throw GenError(where + ": bad combining class '" + f[3] + "'");
    }
    if (ccc < 0 || ccc > 254) throw GenError(where + ": bad combining class '" + f[3] + "'");
    const bool first = f[1].size() > 8 && f[1].ends_with(", First>");
    const bool last = f[1].size() > 7 && f[1].ends_with(", Last>");
    if (first) {
      range_first = cp;
      in_range = true;
      continue;
    }
    uint32_t lo = cp;
    if (last) {
      if (!in_range || range_first > cp) throw GenError(where + ": range Last without First");
      lo = range_first;
      in_range = false;
    } else if (in_range) {
      throw GenError(where + ": range First without Last");
    }
    for (uint32_t c = lo; c <= cp; ++c) {
      d.category[c] = cat;
      d.combining_class[c] = static_cast<uint8_t>(ccc);
    }
    const std::string decomposition = trim(f[5]);
    if (!decomposition.empty() && decomposition[0] != '<') {
      std::vector<uint32_t> parts;
      for (const std::string& p : split(decomposition, ' ')) {
        if (!trim(p).empty()) parts.push_back(parse_code_point(p, where));
      }
      if (parts.empty() || parts.size() > 2) throw GenError(where + ": bad decomposition");
      d.canonical[cp] = parts;
    }
  }
  if (in_range) throw GenError(path + ": unterminated range");
  return d;
}

// The code points with `property` in a UCD property file ("XXXX..YYYY ; Property # ...").
std::vector<bool> read_property(const std::string& path, const std::string& property) {
  std::vector<bool> has(kMaxCodePoint + 1, false);
  const std::vector<std::string> lines = read_lines(path);
  size_t count = 0;
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string where = path + ":" + std::to_string(n + 1);
    std::string line = lines[n];
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (trim(line).empty()) continue;
    const std::vector<std::string> f = split(line, ';');
    if (f.size() < 2) throw GenError(where + ": expected 'range ; property'");
    if (trim(f[1]) != property) continue;
    const std::string range = trim(f[0]);
    const size_t dots = range.find("..");
    const uint32_t lo = parse_code_point(range.substr(0, dots), where);
    const uint32_t hi =
        dots == std::string::npos ? lo : parse_code_point(range.substr(dots + 2), where);
    if (hi < lo) throw GenError(where + ": empty range");
    for (uint32_t c = lo; c <= hi; ++c) has[c] = true;
    ++count;
  }
  if (count == 0) throw GenError(path + ": no entries for " + property);
  return has;
}

// "Version 15.0.0 of the Unicode Standard" in ReadMe.txt, else "unknown".
std::string read_version(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t p = line.find("Version ");
    if (p != std::string::npos && line.find("of the Unicode Standard") != std::string::npos) {
      std::istringstream is(line.substr(p + 8));
      std::string v;
      is >> v;
      return v;
    }
  }
  return "unknown";
}

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%X", v);
  return buf;
}

void write_ranges(std::ostream& os, const std::string& name, const std::vector<bool>& has) {
  os << "const CodeRange k" << name << "[] = {\n";
  for (uint32_t c = 0; c <= kMaxCodePoint;) {
    if (!has[c]) {
      ++c;
      continue;
    }
    uint32_t e = c;
    while (e < kMaxCodePoint && has[e + 1]) ++e;
    os << "    {" << hex(c) << ", " << hex(e) << "},\n";
    c = e + 1;
  }
  os << "};\n";
}

void generate(const std::string& dir, const std::string& out_path) {
  const UnicodeData data = read_unicode_data(dir + "/UnicodeData.txt");
  const std::vector<bool> white_space = read_property(dir + "/PropList.txt", "White_Space");
  const std::vector<bool> alphabetic =
      read_property(dir + "/DerivedCoreProperties.txt", "Alphabetic");
  const std::vector<bool> exclusion =
      read_property(dir + "/DerivedNormalizationProps.txt", "Full_Composition_Exclusion");
  const std::string version = read_version(dir + "/ReadMe.txt");

  std::ostringstream os;
  os << "// Generated by tools/unicode_tables/gen_unicode_tables.cpp from " << dir << " (Unicode "
     << version << "). Do not edit.\n"
     << "#include \"src/llm/unicode_tables.h\"\n\n"
     << "namespace cppnn::llm::unicode_tables {\nnamespace {\n\n"
     << "using C = GeneralCategory;\n\n";

  const uint8_t cn = static_cast<uint8_t>(category_names().size() - 1);
  os << "const CategoryRange kCategories[] = {\n";
  for (uint32_t c = 0; c <= kMaxCodePoint;) {
    const uint8_t cat = data.category[c];
    uint32_t e = c;
    while (e < kMaxCodePoint && data.category[e + 1] == cat) ++e;
    if (cat != cn) {
      os << "    {" << hex(c) << ", " << hex(e) << ", C::k" << category_names()[cat] << "},\n";
    }
    c = e + 1;
  }
  os << "};\n";

  write_ranges(os, "WhiteSpace", white_space);
  write_ranges(os, "Alphabetic", alphabetic);

  os << "const CombiningClassRange kCombiningClasses[] = {\n";
  for (uint32_t c = 0; c <= kMaxCodePoint;) {
    const uint8_t ccc = data.combining_class[c];
    uint32_t e = c;
    while (e < kMaxCodePoint && data.combining_class[e + 1] == ccc) ++e;
    if (ccc != 0) os << "    {" << hex(c) << ", " << hex(e) << ", " << int(ccc) << "},\n";
    c = e + 1;
  }
  os << "};\n";

  os << "const CanonicalDecomposition kDecompositions[] = {\n";
  std::vector<std::array<uint32_t, 3>> compositions;
  for (const auto& [cp, parts] : data.canonical) {
    const uint32_t second = parts.size() == 2 ? parts[1] : 0;
    os << "    {" << hex(cp) << ", " << hex(parts[0]) << ", " << hex(second) << "},\n";
    if (parts.size() == 2 && !exclusion[cp]) compositions.push_back({parts[0], parts[1], cp});
  }
  os << "};\n";
  std::sort(compositions.begin(), compositions.end());
  os << "const CanonicalComposition kCompositions[] = {\n";
  for (const auto& c : compositions)
    os << "    {" << hex(c[0]) << ", " << hex(c[1]) << ", " << hex(c[2]) << "},\n";
  os << "};\n\n}  // namespace\n\n";

  os << "const char* const kVersion = \"" << version << "\";\n"
     << "std::span<const CategoryRange> categories() { return kCategories; }\n"
     << "std::span<const CodeRange> white_space() { return kWhiteSpace; }\n"
     << "std::span<const CodeRange> alphabetic() { return kAlphabetic; }\n"
     << "std::span<const CombiningClassRange> combining_classes() { return kCombiningClasses; }\n"
     << "std::span<const CanonicalDecomposition> canonical_decompositions() {\n"
     << "  return kDecompositions;\n}\n"
     << "std::span<const CanonicalComposition> canonical_compositions() { return kCompositions; "
        "}\n\n"
     << "}  // namespace cppnn::llm::unicode_tables\n";

  // Written beside and renamed, so an interrupted run never leaves a truncated table.
  const std::string tmp = out_path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << os.str();
    if (!out) throw GenError("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), out_path.c_str()) != 0) throw GenError("cannot write " + out_path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: gen_unicode_tables UNICODE_DATA_DIR OUT.cpp\n";
    return 2;
  }
  try {
    generate(argv[1], argv[2]);
  } catch (const std::exception& e) {
    std::cerr << "gen_unicode_tables: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
