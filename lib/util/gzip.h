// gzip (RFC 1952) compression with zlib, in chunks compressed side by side.
#pragma once

#include <string>
#include <string_view>

namespace profpack {

// The gzip member of `in` at zlib level `level` (1..9). An input of at least two chunks
// (kGzipChunk bytes each, the last one shorter) is cut into chunks that are compressed on up to
// `threads` threads (0: one per core), as pigz does: each chunk is a run of raw deflate blocks
// primed with the 32 KiB before it, ended by a sync flush (the last by the final block), and
// the CRC-32s are combined. The output depends on the input and level only, never on the number
// of threads. Throws Error(internal) if zlib fails.
std::string gzipCompress(std::string_view in, int level, unsigned threads = 0);

inline constexpr size_t kGzipChunk = size_t{256} << 10;

}  // namespace profpack
