// Callgrind files that are parts of one run: valgrind's --separate-threads=yes writes a file per
// thread (callgrind.out.PID-01, -02, ...), each a whole Callgrind file; --combine-dumps=yes
// writes the same parts one after another in one file. Several files are read as that one
// file, so that each thread keeps its part (and `thread:`), as KCachegrind loads them.

#include <string>

#include "error.h"
#include "formats/callgrind/callgrind.h"

namespace profpack {

std::unique_ptr<Profile> readCallgrindParts(std::span<const std::span<const uint8_t>> files,
                                            const ReadOptions& options) {
  std::string joined;
  for (std::span<const uint8_t> f : files) {
    joined.append(reinterpret_cast<const char*>(f.data()), f.size());
    if (!joined.empty() && joined.back() != '\n') joined += '\n';
  }
  return readCallgrind({reinterpret_cast<const uint8_t*>(joined.data()), joined.size()}, options);
}

}  // namespace profpack
