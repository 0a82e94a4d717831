// gperftools CPU profiles: write options and the decoded form of StackSamples shared by the
// writer, the queries and the summary.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/codec.h"
#include "profile.h"

namespace profpack {

// True if `data` starts like a gperftools CPU profile header (any slot width and byte order).
bool isGperftools(std::span<const uint8_t> data);
// With `deferIR` the stack columns are built when the IR is first asked for (Profile::Deferred);
// the model needs only what the reader keeps (ReadStacks) and the rest of the IR.
std::unique_ptr<Profile> readGperftools(std::span<const uint8_t> data, bool deferIR = false);

struct GperfWriteOptions {
  // Slot width of the output: 4 or 8; 0 keeps the width the profile was read with.
  unsigned slotBytes = 0;
  enum class ByteOrder { asRead, little, big };
  ByteOrder byteOrder = ByteOrder::asRead;
  // Refuse (Status::limit) to write a file of more bytes than this; 0: up to 8 TiB.
  uint64_t maxBytes = 0;
};

// Writes a gperftools profile. With default options the output is byte-identical to the file
// the profile was read from. Throws Status::unsupported if a value (address, count, header
// slot) does not fit the requested slot width, or if the profile is not a gperftools profile.
std::string writeGperftools(const Profile& profile, const GperfWriteOptions& options = {});

// Merges gperftools profiles as pprof does, one at a time: samples summed per identical chain,
// the addresses of later profiles moved to the first one's mappings of the same objects; the
// header, trailer and mapped-objects text are the first's (plus the lines of objects only
// later profiles loaded). Status::invalidArgument for different sampling periods.
std::unique_ptr<FormatMerge> gperftoolsMerge();

// StackSamples with its columns decoded and checked: every parent precedes its child and every
// record names an existing node, so walking a chain always ends at the root.
struct DecodedStacks {
  std::vector<uint32_t> parent;   // parent[i] of node i+1 (0 = root); fewer than 2^32 nodes
  std::vector<uint64_t> address;  // address[i] of node i+1
  std::vector<uint64_t> count;    // per record
  std::vector<uint64_t> node;     // per record: innermost node (>= 1)
  size_t nodes() const { return parent.size(); }
  uint64_t parentOf(uint64_t n) const { return parent[n - 1]; }
  uint64_t addressOf(uint64_t n) const { return address[n - 1]; }
};

// What the reader knows of the tree it stored, handed to the model with the profile
// (Profile::keepDecoded) so that the model need not decode the IR again: the parent and address
// columns of decodeStacks() (`tree`, its records' columns empty), and per node (index n, 0 = the
// root) the samples of the records ending there, summed. The tree is shared: a profile read
// with deferIR builds its IR from the same columns when asked.
struct ReadStacks : Profile::Decoded {
  std::shared_ptr<const DecodedStacks> tree;
  std::vector<uint64_t> samples;
};

// A line of the mapped-objects text that parses as "start-end perms offset dev inode [path]".
// The views point into the text.
struct GperfMapping {
  uint64_t start = 0, limit = 0, offset = 0, inode = 0;
  std::string_view permissions, device, path;
  uint32_t line = 0;  // 0-based index among the text's lines
};

// The lines of a mapped-objects text that parse as mappings, in order.
std::vector<GperfMapping> parseMappings(std::string_view text);
// The same for StackSamples.mapsText (the views point into the message).
std::vector<GperfMapping> parseMappings(ir::StackSamples::Reader stacks);

// Throws profpack::Error (ppk, malformed) if the columns are inconsistent. The records come
// in file order, or with `fileOrder` false in the order they are stored (a sorted tail stays
// sorted: enough for queries, which only add records up, and cheaper).
DecodedStacks decodeStacks(ir::StackSamples::Reader stacks, bool fileOrder = true);

}  // namespace profpack
