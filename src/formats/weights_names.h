// Weight-name lookup with the §7.1 "Names" fallback (webnn-graph-format.md): an exact match
// always wins; otherwise a stored name is normalized (`::` -> `__`, then `.` -> `_`) and compared
// with the reference, which is not normalized. Several stored names normalizing to the requested
// reference are an error (0.4.0 rule: only for the reference asked for, §10 rows 35-36).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"

namespace cppnn::formats {

// `::` -> `__` first, then `.` -> `_`.
std::string normalize_weight_name(std::string_view stored);

// An index of stored tensor names answering §7.1 lookups.
class WeightNameIndex {
 public:
  WeightNameIndex() = default;
  explicit WeightNameIndex(const std::vector<std::string>& stored);
  // The stored name serving `ref`: nullopt when none does; a DataError
  // "ambiguous sanitized tensor name `ref` (both `a` and `b`)" when several normalize to it.
  Result<std::optional<std::string>> find(std::string_view ref) const;

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> normalized_;  // -> stored names
  std::vector<std::string> exact_;                                           // sorted
};

}  // namespace cppnn::formats
