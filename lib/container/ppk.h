// The .ppk container: a 32-byte header, then one zstd frame holding the flat Cap'n Proto
// message of an ir::Profile.
//
//   bytes  0-7   magic "\x89PPK\r\n\x1a\n"
//   bytes  8-11  IR revision (u32 little-endian), currently 2: the revision of the codings the
//                message uses. The schema only grows (lib/ir/profile.capnp); the revision goes up
//                when a stored coding changes meaning, and a reader refuses revisions other than
//                its own with Status::unsupported. Revision 1 was profpack's pre-release
//                (0.1.0) IR, whose older gperftools and cost-table codings this build no
//                longer reads.
//   bytes 12-15  flags (u32), 0
//   bytes 16-23  size of the decompressed message in bytes (u64), a multiple of 8
//   bytes 24-31  size of the zstd frame that follows (u64)
//   bytes 32-    the zstd frame, with its content size recorded and its checksum on; where the
//                IR is large, then a zstd skippable frame (magic 0x184D2A5B) holding what a
//                model computed of it (lib/model/stored.h):
//                  bytes 0-3   "PPKM"
//                  bytes 4-7   0
//                  bytes 8-15  size of the decompressed stored::Model message (u64)
//                  bytes 16-   its zstd frame, content size recorded, checksum on
//                Bytes 24-31 count the skippable frame too. zstd skips such frames, so a
//                reader that knows nothing of it (every build before it) reads the IR alone;
//                so does a build that did not compute it (stored::Model.computedBy).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "profile.h"

namespace profpack {

inline constexpr uint32_t kPpkVersion = 2;  // the IR revision
inline constexpr size_t kPpkHeaderSize = 32;
inline constexpr uint64_t kDefaultMaxPpkMessage = uint64_t{4} << 30;  // 4 GiB

bool isPpk(std::span<const uint8_t> data);

// Compresses the profile at zstd `level` (1-22) into a complete .ppk image. Where
// `storedModel` is given, it is called once the IR is compressed; what it returns (a flat
// stored::Model message, or "" for none) is stored after the IR.
std::string encodePpk(const Profile& profile, int level,
                      const std::function<std::string()>& storedModel = {});

// Opens a .ppk image. Refuses (Status::limit) a message declared larger than `maxMessageBytes`
// before allocating anything; every other defect is Status::malformed with its byte offset.
std::unique_ptr<Profile> decodePpk(std::span<const uint8_t> data, uint64_t maxMessageBytes);

// A profile of a decompressed IR message (the archive's members), checked as decodePpk checks
// it; a defect is Status::malformed at `offset` of `container`.
std::unique_ptr<Profile> profileFromMessage(kj::Array<capnp::word> words, uint64_t offset,
                                            const char* container);

}  // namespace profpack
