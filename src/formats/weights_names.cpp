#include "src/formats/weights_names.h"

#include <algorithm>

namespace cppnn::formats {

std::string normalize_weight_name(std::string_view stored) {
  std::string out;
  out.reserve(stored.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    if (stored[i] == ':' && i + 1 < stored.size() && stored[i + 1] == ':') {
      out += "__";
      ++i;
    } else {
      out += stored[i] == '.' ? '_' : stored[i];
    }
  }
  return out;
}

WeightNameIndex::WeightNameIndex(const std::vector<std::string>& stored) : exact_(stored) {
  std::sort(exact_.begin(), exact_.end());
  for (const std::string& name : exact_) normalized_[normalize_weight_name(name)].push_back(name);
}

Result<std::optional<std::string>> WeightNameIndex::find(std::string_view ref) const {
  if (std::binary_search(exact_.begin(), exact_.end(), ref))
    return std::optional<std::string>(std::string(ref));
  const auto it = normalized_.find(ref);
  if (it == normalized_.end()) return std::optional<std::string>();
  if (it->second.size() > 1)
    return ErrorInfo{ErrorKind::kDataError,
                     str_cat("ambiguous sanitized tensor name `", ref, "` (both `", it->second[0],
                             "` and `", it->second[1], "`)")};
  return std::optional<std::string>(it->second.front());
}

}  // namespace cppnn::formats
