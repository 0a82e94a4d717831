// The IR's symbol section (lib/ir/profile.capnp, Symbols) decoded: per looked-up address of a
// mapping, its inline chain of (function, file, line) frames. Read by the model of a
// symbolized profile (source.cpp) and by the names kept for a merge (memory.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profile.capnp.h"

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

struct SymbolKeyHash {
  size_t operator()(const SymbolKey& k) const {
    uint64_t h = k.address * 0x9E3779B97F4A7C15ull;
    h ^= static_cast<uint64_t>(k.mapping) * 0xC2B2AE3D27D4EB4Full + (k.returnAddress ? 1 : 0);
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// The symbol section, decoded and checked: throws Status::malformed on columns that disagree.
struct SymbolTable {
  struct Frame {
    uint64_t function, file, line;  // name indexes, and the line (0 if unknown)
  };
  std::vector<std::string> names;  // names[0] is ""
  std::vector<Frame> frames;
  std::vector<uint64_t> loadBias;  // per mapping (0 where it went unsymbolized)
  // -> (first frame, frame count), innermost first
  std::unordered_map<SymbolKey, std::pair<uint64_t, uint64_t>, SymbolKeyHash> entries;

  SymbolTable() = default;
  explicit SymbolTable(ir::Symbols::Reader s);
};

}  // namespace profpack
