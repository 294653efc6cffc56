// Atomic JSON file writing for the runners' reports (see json_file.h).
#include "tools/cppnn/json_file.h"

#include <fstream>

namespace cppnn::tool {

std::optional<std::string> write_json_atomically(const std::filesystem::path& path,
                                                 const nlohmann::json& doc) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) return "cannot create " + path.parent_path().string() + ": " + ec.message();
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return "cannot write " + tmp.string();
    // Invalid UTF-8 in a message is replaced rather than thrown on.
    out << doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!out.flush()) return "cannot write " + tmp.string();
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return "cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message();
  }
  return std::nullopt;
}

}  // namespace cppnn::tool
