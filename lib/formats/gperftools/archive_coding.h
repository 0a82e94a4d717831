// How a gperftools CPU profile is kept in a .ppka archive (lib/formats/registry_archive.cpp):
// the file as its writer writes it, coded so that profiles of one program taken in different
// runs share bytes. Under address-space randomization every run loads each object at another
// address, so the same code has other PCs and the mapped-objects text other numbers in every
// line. The coding keeps the file's slots in place but writes each PC that a mapping holds as
// (index of the mapping's path among the distinct paths + 1) << 48 | its offset in that
// file, and each mapped-objects line's START-END as START's distance from the END before it
// and the length. Only 8-byte little-endian files are coded.
//
//   byte 0       coding version, 1
//   bytes 1-8    number of slots (u64 little-endian): the header, the records, the trailer
//   then those slots, then the mapped-objects text with its START-END ranges coded
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
