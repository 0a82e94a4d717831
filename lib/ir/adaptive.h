// Column encoding `adaptive`: integers coded bit by bit with an adaptive binary range coder.
//
// zstd over varints spends at least a bit on every byte and learns nothing about the bits of a
// number; for the small, high-entropy integer columns of stack samples (node ids, address
// differences, counts) an adaptive model of each value's bit length and leading bits codes
// 12% smaller (python3 profile: columns 65.2 -> 57.5 KB). It is much slower than varints, so
// only short columns use it (kAdaptiveMaxValues).
//
// A value v is coded as its bit length n = bit_width(v) (0..64) in 7 bits, then the n - 1 bits
// below its leading one, most significant first. Each decision has its own adaptive
// probability: the bits of n by the bits of n before them; the first three bits below the
// leading one by (n, the bits before them); the others by (n, position). A probability is a
// 16-bit estimate that the decision is 0, starting at 1/2; the k-th outcome in its context moves
// it 1/(k+1) of the way towards that outcome, from the 31st on 1/32 of the way (the coder uses
// its top 12 bits, kept within 1..4095). The range coder is the carry-propagating kind with a
// 32-bit range, normalised a byte at a time; the leading byte it would always write as 0 is
// left out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace profpack {

// ColumnWriter codes an ADAPTIVE column of more values than this as VARINT instead, and a
// reader refuses an ADAPTIVE column of more (which bounds its decoding work). The coder
// makes about 10-25 binary decisions a value at ~3.5 ns each (a serial dependency per
// decision), which would halve the parse speed of a 200 MB profile; up to this size it costs a
// few milliseconds.
inline constexpr uint64_t kAdaptiveMaxValues = uint64_t{1} << 16;

// At most this many values per byte of a chunk: the encoder pads a chunk that would hold more
// (with zero bytes, which the container's zstd then all but removes), so that a decoder can
// bound the values, and the memory they take, by the bytes it was given.
inline constexpr uint64_t kAdaptiveValuesPerByte = 32;

// Appends the coded bytes of values[0, n) (padded as above) to `out`.
void encodeAdaptive(const uint64_t* values, size_t n, std::vector<uint8_t>& out);

// Decodes n values from [p, e) and appends them to `out` as unsigned LEB128 varints. Returns
// false if the data ends before the n values do, or decodes a bit length over 64 (bytes after
// the n values are padding and ignored).
bool decodeAdaptiveAsVarints(const uint8_t* p, const uint8_t* e, uint64_t n,
                             std::vector<uint8_t>& out);

}  // namespace profpack
