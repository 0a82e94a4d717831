// A hash map from a pair of integers to an integer (64-bit: PairMap; 32-bit: PairMap32, whose
// arguments are converted without a check: callers pass numbers below 2^32), for the aggregation
// loops that look one up per row: open addressing in one array, where std::unordered_map pays an
// integer division and a pointer chase per lookup. The keys are often addresses from an input file,
// so every bit of both reaches the slot, through a seed drawn once per process: a file cannot pick
// keys that share a slot (a multiply alone leaves the high bits out of a small table's slot,
// and a perf.data of call chains at multiples of 2^45 took quadratic time).
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <random>
#include <vector>

namespace profpack {

// Keys and values are `T`: PairMap's are 64-bit; PairMap32 holds 32-bit ones (numbers given
// out by a reader or a model) in half the memory, 16 bytes a slot instead of 32.
template <class T>
class BasicPairMap {
 public:
  // The value of (a, b). If the pair is absent it is inserted with value `fresh` and
  // `inserted` is set. The reference stays valid until the next insertion.
  T& findOrInsert(T a, T b, T fresh, bool& inserted) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    for (size_t i = hash(a, b) & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) {
        s = {a, b, fresh, true};
        ++size_;
        inserted = true;
        return s.value;
      }
      if (s.a == a && s.b == b) {
        inserted = false;
        return s.value;
      }
    }
  }
  // The value of (a, b), or null if the pair is absent.
  const T* find(T a, T b) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = hash(a, b) & mask_;; i = (i + 1) & mask_) {  // never full: see grow()
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.a == a && s.b == b) return &s.value;
    }
  }
  size_t size() const { return size_; }
  // The hash of (a, b) under `seed`: each bit of both moves about half the bits of the result
  // (MurmurHash3's finalizer, twice).
  static uint64_t mix(uint64_t a, uint64_t b, uint64_t seed) { return fmix(fmix(a ^ seed) ^ b); }
  static uint64_t seed() {
    static const uint64_t s = [] {
      try {
        std::random_device r;
        return (uint64_t{r()} << 32) ^ r();
      } catch (const std::exception&) {  // no entropy source: the clock will do
        return fmix(
            static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
      }
    }();
    return s;
  }

 private:
  struct Slot {
    T a, b, value;
    bool used;
  };
  static uint64_t fmix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
  }
  static size_t hash(uint64_t a, uint64_t b) { return static_cast<size_t>(mix(a, b, seed())); }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 64 : 2 * slots_.size());
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.used)
        for (size_t i = hash(s.a, s.b) & mask_;; i = (i + 1) & mask_)
          if (!slots_[i].used) {
            slots_[i] = s;
            break;
          }
  }
  std::vector<Slot> slots_;
  size_t size_ = 0, mask_ = 0;
};

using PairMap = BasicPairMap<uint64_t>;
using PairMap32 = BasicPairMap<uint32_t>;

}  // namespace profpack
