// The IR's symbol section (lib/ir/profile.capnp, Symbols) decoded: per looked-up address of a
// mapping, its inline chain of (function, file, line) frames. Read by the model of a
// symbolized profile (source.cpp) and by the names kept for a merge (memory.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "profile.capnp.h"
#include "util/pairmap.h"

namespace profpack {

// An address looked up: of a mapping of the locations layer; a caller's frame (a return
// address) was looked up at address - 1.
struct SymbolKey {
  int64_t mapping;
  uint64_t address;
  bool returnAddress;
  bool operator<(const SymbolKey& o) const {
    if (mapping != o.mapping) return mapping < o.mapping;
    if (address != o.address) return address < o.address;
    return returnAddress < o.returnAddress;
  }
  bool operator==(const SymbolKey& o) const {
    return mapping == o.mapping && address == o.address && returnAddress == o.returnAddress;
  }
};

// Per key looked up, (first frame, frame count) of its chain, in the order they were set. The
// model of a symbolized profile finds one per location: open addressing (util/pairmap.h, seeded,
// so a file's addresses cannot pick colliding slots), where std::unordered_map's node per
// entry and division per lookup were 5 % of reading and folding a recording of a g++ compile.
class SymbolEntries {
 public:
  using Span = std::pair<uint64_t, uint64_t>;
  const Span* find(const SymbolKey& k) const {
    const uint64_t* i = index_.find(k.address, slot(k));
    return i ? &spans_[*i] : nullptr;
  }
  // Sets the key's span (a key set twice keeps the later).
  void set(const SymbolKey& k, Span s) {
    bool added = false;
    const uint64_t i = index_.findOrInsert(k.address, slot(k), spans_.size(), added);
    if (!added) {
      spans_[i] = s;
      return;
    }
    keys_.push_back(k);
    spans_.push_back(s);
  }
  size_t size() const { return keys_.size(); }
  const SymbolKey& key(size_t i) const { return keys_[i]; }
  const Span& span(size_t i) const { return spans_[i]; }

 private:
  static uint64_t slot(const SymbolKey& k) {
    return static_cast<uint64_t>(k.mapping) << 1 | (k.returnAddress ? 1 : 0);
  }
  PairMap index_;
  std::vector<SymbolKey> keys_;
  std::vector<Span> spans_;
};

// The symbol section, decoded and checked: throws Status::malformed on columns that disagree.
struct SymbolTable {
  struct Frame {
    uint64_t function, file, line;  // name indexes, and the line (0 if unknown)
    uint64_t declaration;           // SymbolFrame::declaration
  };
  std::vector<std::string> names;  // names[0] is ""
  std::vector<Frame> frames;
  std::vector<uint64_t> loadBias;  // per mapping (0 where it went unsymbolized)
  SymbolEntries entries;           // -> (first frame, frame count), innermost first

  SymbolTable() = default;
  explicit SymbolTable(ir::Symbols::Reader s);
};

}  // namespace profpack
