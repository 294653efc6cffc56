// Packed forms of constant weights shared by every plan one cpu backend compiles. A dynamic graph
// is compiled once per size it runs at (a language model's prefill chunk and its decode step,
// docs/dynamic-dimensions.md); without sharing, each compile would pack the same weights again
// and a decode step reading them in place would keep the original pages resident beside the
// prefill's packed copy. Entries are held weakly: a packed weight lives as long as a plan uses it.
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "src/backends/cpu/gemm.h"

namespace cppnn::cpu {

class PackedWeights {
 public:
  // What a packed weight is made from: the constant's bytes (kept alive by every graph whose plan
  // holds the packed form, so the address cannot name other bytes meanwhile) and how they are
  // read (depth × n, the element strides of B, float16 or float32).
  struct Key {
    const void* data = nullptr;
    size_t depth = 0, n = 0, row_stride = 0, col_stride = 0;
    bool half = false;
    auto operator<=>(const Key&) const = default;
  };

  // The packed weight of `key`: the one a plan already holds, else `pack()`'s result (kept).
  std::shared_ptr<const PackedB> get_or_pack(
      const Key& key, const std::function<std::shared_ptr<const PackedB>()>& pack);
  // The packed weight of `key` when a plan holds one, else null.
  std::shared_ptr<const PackedB> find(const Key& key) const;

 private:
  mutable std::mutex mu_;
  std::map<Key, std::weak_ptr<const PackedB>> entries_;
};

}  // namespace cppnn::cpu
