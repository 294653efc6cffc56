#include "src/backends/cpu/packed_weights.h"

namespace cppnn::cpu {

std::shared_ptr<const PackedB> PackedWeights::get_or_pack(
    const Key& key, const std::function<std::shared_ptr<const PackedB>()>& pack) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = entries_.find(key); it != entries_.end())
    if (auto held = it->second.lock()) return held;
  std::erase_if(entries_, [](const auto& entry) { return entry.second.expired(); });
  std::shared_ptr<const PackedB> packed = pack();
  entries_[key] = packed;
  return packed;
}

std::shared_ptr<const PackedB> PackedWeights::find(const Key& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second.lock();
}

}  // namespace cppnn::cpu
