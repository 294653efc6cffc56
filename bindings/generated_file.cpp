// write_generated_file() (generated_file.h).
#include "generated_file.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace cppnn::bindings {
namespace {

// The current content of `path` ("" when it cannot be read).
std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int write_generated_file(const std::string& path, std::string_view text, std::string_view tool) {
  if (file_text(path) == text) return 0;  // unchanged: leave the file alone
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    if (!out.flush()) {
      std::cerr << tool << ": cannot write " << temporary << "\n";
      std::remove(temporary.c_str());
      return 1;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::cerr << tool << ": cannot replace " << path << "\n";
    std::remove(temporary.c_str());
    return 1;
  }
  return 0;
}

}  // namespace cppnn::bindings
