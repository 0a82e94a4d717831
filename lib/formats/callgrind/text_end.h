// How a text profile of the Callgrind family ends: a cut last line, a missing closing line.
// The readers load what is complete and warn (or, strict, fail) with the byte offset.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "error.h"
#include "profile.h"

namespace profpack {

// The length of the input's complete lines: up to and including its last newline. A last line
// without one may have been cut (valgrind ends every line with one): it is still loaded, as a
// hand-written file may simply lack the newline, but its figures may be partial.
inline uint64_t completeLines(std::span<const uint8_t> data) {
  if (data.empty() || data.back() == '\n') return data.size();
  const void* nl = memrchr(data.data(), '\n', data.size());
  return nl ? static_cast<uint64_t>(static_cast<const uint8_t*>(nl) - data.data()) + 1 : 0;
}

// 1-based number of the line that starts at `offset` (counted only on the error path).
inline uint64_t lineAt(std::span<const uint8_t> data, uint64_t offset) {
  uint64_t line = 1;
  for (uint64_t i = 0; i < offset && i < data.size(); ++i) line += data[i] == '\n';
  return line;
}

// A truncation at `offset`: with `strict` an error, else a warning on `profile` (when given).
inline void truncated(const char* format, std::span<const uint8_t> data, uint64_t offset,
                      const std::string& what, bool strict, Profile* profile) {
  if (strict) fail(format, offset, lineAt(data, offset), what);
  if (profile) profile->warnings().push_back("byte offset " + std::to_string(offset) + ": " + what);
}

inline const char* kCutLine =
    "the last line ends without a newline: the file may have been cut there, and that line's "
    "figures may be partial";

}  // namespace profpack
