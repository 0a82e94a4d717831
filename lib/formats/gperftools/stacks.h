// Figures over the call-chain samples of a gperftools profile (StackSamples), for its model:
// self and inclusive samples per address, and call edges. Repeated records of one
// chain add up; a record counts once towards an address's (or mapping's, or call edge's)
// inclusive figure even if the chain passes through it several times (recursion).
//
// Addresses are shown as object+offset ("/usr/lib/libc.so.6+0x2a1f4", the offset being the
// file offset: address - mapping start + mapping offset) when a mapping with a path holds
// them, else as a plain hex address ("0x7f0012345678").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "profile.h"

namespace profpack {

struct AddressSamples {
  uint64_t address = 0;
  uint32_t id = 0;         // the address's number in its StackTree (see chainSamples)
  std::string location;    // object+offset or hex address
  int64_t mapping = -1;    // index into parseMappings(stacks), -1 if no mapping holds it
  std::string object;      // that mapping's path, "" if none
  uint64_t self = 0;       // samples with this address as the innermost PC
  uint64_t inclusive = 0;  // samples with this address anywhere in the chain
};

// Every address that occurs in a chain; sorted by self, then inclusive (both descending),
// then address.
std::vector<AddressSamples> samplesByAddress(const Profile& profile);
// A call edge, its ends as the numbers of their addresses in one StackTree (AddressSamples::id).
struct CallEdgeSamples {
  uint32_t caller = 0, callee = 0;
  uint64_t samples = 0;  // samples whose chain has this call edge (once per record)
};

// Every distinct chain that records end with, and their samples summed: `frames` holds the
// chains one after another, each outermost frame first, as the numbers of their addresses
// (AddressSamples::id); chain c is frames[start[c], start[c + 1]).
struct ChainSamples {
  std::vector<uint32_t> frames;
  std::vector<uint64_t> start{0}, samples;
};

// The figures above from one decoding of the chain tree (the free functions each decode it
// anew). The addresses are numbered 0, 1, ... in the order the tree first has them.
class StackTree {
 public:
  explicit StackTree(const Profile& profile);
  ~StackTree();
  StackTree(const StackTree&) = delete;
  StackTree& operator=(const StackTree&) = delete;
  std::vector<AddressSamples> samplesByAddress() const;
  // The same rows in the same order, each made when `each` takes it: no vector of them is held
  // (for a 50 MB profile of 67,000 addresses it was 6 MB of the model's peak).
  void forEachAddress(const std::function<void(AddressSamples&)>& each) const;
  // Every call edge with samples, in order of first appearance in the tree. Linear in the tree.
  std::vector<CallEdgeSamples> callEdges() const;
  ChainSamples chainSamples() const;
  // Nodes of the tree (distinct call-chain suffixes).
  size_t nodes() const;
  // Distinct addresses in its chains (the rows of samplesByAddress).
  size_t addressCount() const;
  // Where this tree is the reader's (Profile::takeDecoded), hands it back to the profile for a
  // later StackTree of it to start from, and returns true: this one is then no longer usable.
  // Else (a tree decoded from the IR, dearer to make again) returns false and keeps it.
  bool giveBack();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace profpack
