#include <zstd.h>

#include <cstring>
#include <string>

#include "fuzz_common.h"

namespace {

// The .ppk container around a flat Cap'n Proto message (see lib/container/ppk.h): magic,
// the IR revision, a reserved word, the message size and the zstd frame's size, then the frame.
std::string wrapMessage(const uint8_t* data, size_t size) {
  std::string message(reinterpret_cast<const char*>(data), size);
  message.resize((size + 7) / 8 * 8, '\0');  // whole words
  std::string frame(ZSTD_compressBound(message.size()), '\0');
  const size_t n = ZSTD_compress(frame.data(), frame.size(), message.data(), message.size(), 1);
  if (ZSTD_isError(n)) return {};
  frame.resize(n);
  std::string out("\x89PPK\r\n\x1a\n", 8);
  auto put = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  };
  put(2, 4);  // kPpkVersion
  put(0, 4);
  put(message.size(), 8);
  put(frame.size(), 8);
  return out + frame;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A .ppk can hold any IR: besides the .ppk round trip, the profile's own writer must cope
  // with whatever the container accepted (an error is fine, a crash is not).
  if (size >= 8 && std::memcmp(data, "\x89PPK", 4) == 0)
    return fuzz::roundTrip(data, size, PROFPACK_FORMAT_PPK, /*alsoWriteSourceFormat=*/true);
  // Anything else is taken as the flat message inside a .ppk: mutations of a compressed,
  // checksummed frame rarely get past zstd, mutations of the message reach every IR decoder.
  if (size == 0 || size > (1u << 20)) return 0;
  const std::string ppk = wrapMessage(data, size);
  if (ppk.empty()) return 0;
  return fuzz::roundTrip(reinterpret_cast<const uint8_t*>(ppk.data()), ppk.size(),
                         PROFPACK_FORMAT_PPK, /*alsoWriteSourceFormat=*/true);
}
