// perf record -z's compressed records (compressed.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "formats/perf/records.h"

namespace profpack::perf {

// HEADER_COMPRESSED, the feature a file of compressed records has.
inline constexpr unsigned kFeatureCompressed = 27;
// The most the records may grow by when decompressed, times their compressed size: perf's own
// records compress by a factor near ten; a stream that grows more is refused before it takes
// memory a thousand times the file's size.
inline constexpr uint64_t kMaxExpansion = 1000;

// Whether the records in [begin, end) hold a PERF_RECORD_COMPRESSED one (a walk over their
// headers: for pipe mode, whose stream has no header to say so).
bool holdsCompressed(std::span<const uint8_t> d, uint64_t begin, uint64_t end);

// The records in [begin, end) with each PERF_RECORD_COMPRESSED replaced by what its payload
// decompresses to, in order: the records as perf read them from its buffers. Throws
// Status::malformed (the offset of the record at fault) on records that run past `end`, a zstd
// error, or output beyond kMaxExpansion times the compressed bytes. A record cut short at the
// stream's end is the reader's to find (perf never ends the stream's frame).
// `unfinished` (perf record stopped before its end): a record cut by `end` is copied as it is,
// for the reader to report, and ends the expansion.
std::vector<uint8_t> expandCompressed(std::span<const uint8_t> d, uint64_t begin, uint64_t end,
                                      bool unfinished = false);

}  // namespace profpack::perf
