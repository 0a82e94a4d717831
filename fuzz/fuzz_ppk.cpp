#include <zstd.h>

#include <cstring>
#include <string>

#include "fuzz_common.h"

namespace {

// Appends v's low `bytes` bytes, little-endian.
void putLe(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

// The input as a flat message of whole words (zero-padded), its size into `words`, and its zstd
// frame (level 1); "" where zstd fails.
std::string compressMessage(const uint8_t* data, size_t size, uint64_t& words) {
  std::string message(reinterpret_cast<const char*>(data), size);
  message.resize((size + 7) / 8 * 8, '\0');
  words = message.size();
  std::string frame(ZSTD_compressBound(message.size()), '\0');
  const size_t n = ZSTD_compress(frame.data(), frame.size(), message.data(), message.size(), 1);
  if (ZSTD_isError(n)) return {};
  frame.resize(n);
  return frame;
}

// The .ppk container around a flat Cap'n Proto message (see lib/container/ppk.h): magic,
// the IR revision, a reserved word, the message size and the zstd frame's size, then the frame.
std::string wrapMessage(const uint8_t* data, size_t size) {
  uint64_t messageBytes = 0;
  const std::string frame = compressMessage(data, size, messageBytes);
  if (frame.empty()) return {};
  std::string out("\x89PPK\r\n\x1a\n", 8);
  putLe(out, 2, 4);  // kPpkVersion
  putLe(out, 0, 4);
  putLe(out, messageBytes, 8);
  putLe(out, frame.size(), 8);
  return out + frame;
}

// A small Callgrind profile (two functions, a call), whose .ppk the stored-layer inputs go
// beside: read and written through the C ABI once.
const std::string& baseIR() {
  static const std::string ppk = [] {
    static const char text[] =
        "events: Ir\nfl=a.c\nfn=main\n1 10\ncfn=work\ncalls=2 5\n2 30\nfn=work\n5 30\n";
    std::string out;
    profpack_profile* p = nullptr;
    if (profpack_read_memory(text, sizeof text - 1, nullptr, &p) != PROFPACK_OK) return out;
    void* bytes = nullptr;
    size_t n = 0;
    if (profpack_write_memory(p, PROFPACK_FORMAT_PPK, nullptr, &bytes, &n) == PROFPACK_OK)
      out.assign(static_cast<const char*>(bytes), n);
    profpack_free(bytes);
    profpack_profile_free(p);
    return out;
  }();
  return ppk;
}

// The .ppk of baseIR() followed by `message` as its stored function layer (lib/model/stored.h:
// a zstd skippable frame 0x184D2A5B holding "PPKM", 0, the message size, the message's zstd
// frame), the header's size field mended. Mutations of the message reach the layer's checks
// and the IR left compressed behind it, which a checksummed frame would hide from them.
std::string withLayer(const uint8_t* data, size_t size) {
  uint64_t messageBytes = 0;
  const std::string frame = compressMessage(data, size, messageBytes);
  if (frame.empty() || baseIR().size() < 32) return {};
  std::string out = baseIR();
  putLe(out, 0x184D2A5B, 4);
  putLe(out, 16 + frame.size(), 4);
  out += "PPKM";
  putLe(out, 0, 4);
  putLe(out, messageBytes, 8);
  out += frame;
  const uint64_t after = out.size() - 32;
  for (int i = 0; i < 8; ++i) out[24 + i] = static_cast<char>(after >> (8 * i));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A .ppk can hold any IR: besides the .ppk round trip, the profile's own writer must cope
  // with whatever the container accepted (an error is fine, a crash is not).
  if (size >= 8 && std::memcmp(data, "\x89PPK", 4) == 0)
    return fuzz::roundTrip(data, size, PROFPACK_FORMAT_PPK, /*alsoWriteSourceFormat=*/true);
  // "PPKM" and a stored function layer's message: beside a small profile's IR.
  if (size >= 4 && std::memcmp(data, "PPKM", 4) == 0) {
    if (size > (1u << 20)) return 0;
    const std::string ppk = withLayer(data + 4, size - 4);
    if (ppk.empty()) return 0;
    return fuzz::roundTrip(reinterpret_cast<const uint8_t*>(ppk.data()), ppk.size(),
                           PROFPACK_FORMAT_PPK, /*alsoWriteSourceFormat=*/true);
  }
  // Anything else is taken as the flat message inside a .ppk: mutations of a compressed,
  // checksummed frame rarely get past zstd, mutations of the message reach every IR decoder.
  if (size == 0 || size > (1u << 20)) return 0;
  const std::string ppk = wrapMessage(data, size);
  if (ppk.empty()) return 0;
  return fuzz::roundTrip(reinterpret_cast<const uint8_t*>(ppk.data()), ppk.size(),
                         PROFPACK_FORMAT_PPK, /*alsoWriteSourceFormat=*/true);
}
