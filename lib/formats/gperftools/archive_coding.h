// How a gperftools CPU profile is kept in a .ppka archive (lib/formats/registry_archive.cpp):
// the file as its writer writes it, coded so that profiles of one program taken in different
// runs share bytes. Under address-space randomization every run loads each object at another
// address, so the same code has other PCs and the mapped-objects text other numbers in every
// line. The coding writes each PC that a mapping holds as the index of the mapping's path
// among the distinct paths and its offset in that file, and each mapped-objects line's
// START-END as START's distance from the END before it and the length. The records' stacks
// and their counts go in two streams, each alike from profile to profile, the frames as 4
// bytes where they can. Only 8-byte little-endian files are coded.
//
//   byte 0       coding version, 2
//   bytes 1-8    number of slots (u64 little-endian): the header, the records, the trailer
//   then         the header's slots as in the file
//   varint       number of records R, the trailer (0, 1, 0) with them
//   R stacks     depth (varint), then each frame as u32 little-endian: (index of the object
//                + 1) << 24 | offset where the index is below 254 and the offset below 16 MiB,
//                else 0xffffffff and the PC as u64
//   R counts     varints
//   then the mapped-objects text with its START-END ranges coded (varints: 7 bits a byte, low
//   first, the high bit set on all but the last byte)
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace profpack {

// The coding of `file`, or nothing where it is no 8-byte little-endian profile or its coding
// would not decode to it byte for byte.
std::optional<std::string> gperftoolsArchiveCode(std::string_view file);
// The file of a coding; Status::malformed (with the byte offset in `coded`) for bytes that are
// no coding of a file: a slot count past the end, records that overrun it, a PC in an object
// no mapping holds.
std::string gperftoolsArchiveDecode(std::string_view coded);

}  // namespace profpack
