// Atomic JSON file writing for the runners' reports (see json_file.h).
#include "tools/cppnn/json_file.h"

#include "src/core/atomic_file.h"

namespace cppnn::tool {

std::optional<std::string> write_json_atomically(const std::filesystem::path& path,
                                                 const nlohmann::json& doc) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) return "cannot create " + path.parent_path().string() + ": " + ec.message();
  // Invalid UTF-8 in a message is replaced rather than thrown on. The temporary beside `path`
  // gets a unique name (AtomicFile), so a planted file or symlink is never followed.
  const std::string text = doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (auto s = write_file_atomically(path, text); !s) return s.error().message;
  return std::nullopt;
}

}  // namespace cppnn::tool
