// pprof's ids (mapping, location, function) to their entries' indexes: ids need not be dense
// nor ordered, so dense ones go in a table (as Go's decoder does) and the rest in a hash map.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace profpack {

class IdIndex {
 public:
  static constexpr uint64_t kNone = ~uint64_t{0};
  IdIndex() = default;
  // The first entry of each id wins.
  explicit IdIndex(const std::vector<uint64_t>& ids) : dense_(ids.size() + 1, kNone) {
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < dense_.size()) {
        if (dense_[ids[i]] == kNone) dense_[ids[i]] = i;
      } else {
        sparse_.try_emplace(ids[i], i);
      }
    }
  }
  // The index of the entry with `id`, or kNone.
  uint64_t find(uint64_t id) const {
    if (id < dense_.size()) return dense_[id];
    auto it = sparse_.find(id);
    return it == sparse_.end() ? kNone : it->second;
  }

 private:
  std::vector<uint64_t> dense_;
  std::unordered_map<uint64_t, uint64_t> sparse_;
};

}  // namespace profpack
