// The frames of a .ppka segment (lib/archive/archive.cpp): zstd frames with a segment's
// dictionary, and the choice of that dictionary.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "archive/archive.h"

namespace profpack::archive {

// One zstd frame of `data` at `level`, with `dict` (raw content or a trained dictionary).
std::string compress(const std::string& data, int level, const std::string& dict);
// Decompresses the frame at file `offset` into exactly `rawSize` bytes (Status::malformed
// where it does not).
std::string decompress(const std::string& frame, uint64_t rawSize, const std::string& dict,
                       uint64_t offset);

struct Built {
  std::string blob;  // the segment's bytes
  ArchiveSegment segment;
  std::vector<std::pair<uint64_t, uint64_t>> frames;  // offset in blob, size
  std::vector<bool> inDictionary;  // per member: no frame, its bytes at frames[i].first in dict
};

// The segment of `raws` for an archive of `revision`: the smallest of no dictionary,
// `previous` (another segment's, not stored again; segment.dictSegment ~0 says so), a
// dictionary trained on the members, and the members' own bytes as one (revision 3: with the
// members it holds whole kept in it, no frame).
Built buildSegment(const std::vector<std::string>& raws, const std::string& previous, int level,
                   uint32_t revision);

}  // namespace profpack::archive
