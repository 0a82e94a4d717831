// DCPI profiles (dcpiformat(4), binary data of major version 0): reader, writer, conversion
// from per-instruction costs, and queries over the IR's ImageHistogram.
//
// Address interpretation (docs/formats.md, "DCPI"): the i-th count of a chunk with offset `o`
// belongs to the instruction at tstart + o + 4*i (Alpha instructions are 4 bytes).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "profile.h"

namespace profpack {

// True if `data` starts with a DCPI header (a `version pdb-...` line among its first lines).
bool isDcpi(std::span<const uint8_t> data);

// Reads one DCPI profile. Header major version 1 is refused with Status::unsupported (its
// binary layout is undocumented); every malformed input is Status::malformed with its byte
// offset (and line number in the header).
std::unique_ptr<Profile> readDcpi(std::span<const uint8_t> data);

// Header values used when a DCPI image is made from another format's costs.
struct DcpiConvertOptions {
  std::string event;                 // event whose costs become the counts ("" = the first)
  std::string version = "pdb-0.7";   // `version` line
  std::string epoch = "7001010000";  // `epoch` (YYMMDDHHMM, UTC); default: the Unix epoch
  std::string platform = "unknown";  // `platform`
  uint64_t period = 1;               // `period`: every event is counted, so 1
  uint64_t cpuspeed = 0;             // `cpuspeed` in MHz; 0 = not known
};

// Converts a Callgrind/Cachegrind-family profile whose positionKinds include `instr` into a DCPI
// profile with one image per object (the `object` of the cost rows' contexts; rows without an
// object form one image without a `path` line), images ordered by object name. Each image holds
// the self costs (cost rows; call rows carry inclusive costs and are skipped) of the chosen
// event, summed per 4-byte slot (address rounded down to a multiple of 4); `tstart` is the
// lowest slot, runs of adjacent slots form one chunk (slots present with cost 0 keep a 0
// count). Required header lines: see DcpiConvertOptions; `image` is the FNV-1a 64-bit hash of
// the object name, `tsize` the bytes from tstart to the end of the last slot; the header is
// padded with spaces so the binary part is 4-byte aligned. A cost above 2^32-1 in one slot, or
// an image spanning more than 4 GiB, is Status::limit. A profile without `instr` positions or
// without events is Status::unsupported.
std::unique_ptr<Profile> dcpiFromCosts(const Profile& profile, const DcpiConvertOptions& options);

// Writes one image as a DCPI file. A DCPI profile read from a file is rewritten byte for byte.
// A profile of another format is converted first (dcpiFromCosts with default options). As a
// .dcpi file holds one image, a profile with several images needs `image`: the image's `path`
// header value or its index ("0", "1", ...); without it the error (Status::invalidArgument)
// lists the images. writeDcpiImages returns every image instead.
std::string writeDcpi(const Profile& profile, const std::string& image = "");

struct DcpiFile {
  std::string path;  // the image's `path` header value ("" if none)
  std::string bytes;
};
std::vector<DcpiFile> writeDcpiImages(const Profile& profile);

// --- Queries over a DCPI profile (Status::invalidArgument if it has no images or `image` is out
// of range; Status::malformed for an IR that breaks the ImageHistogram invariants).

// One image decoded and validated.
struct DcpiImage {
  uint64_t textStart = 0;
  std::vector<uint64_t> offset, number;  // per chunk
  std::vector<uint64_t> firstCount;      // per chunk: index of its first count in `counts`
  std::vector<uint64_t> counts;          // all counts, in file order
  uint32_t footerAddresses = 0, footerSamples = 0;
  std::string event, path;  // `event` and `path` header values ("" if absent)
};
DcpiImage decodeDcpiImage(ir::ImageHistogram::Reader image);

struct DcpiAddressSamples {
  uint64_t address;  // tstart + offset + 4*i
  uint64_t samples;
};
// Every address with a nonzero count (or every address when `withZeros`), in address order.
std::vector<DcpiAddressSamples> dcpiSamplesByAddress(const Profile& profile, size_t image = 0,
                                                     bool withZeros = false);
// The addresses with the most samples, most first (ties: lower address first), at most `n`.
std::vector<DcpiAddressSamples> dcpiTopAddresses(const Profile& profile, size_t n,
                                                 size_t image = 0);

struct DcpiChunkSamples {
  uint64_t offset;     // as written
  uint64_t address;    // tstart + offset
  uint64_t number;     // counts in the chunk
  uint64_t samples;    // sum of its counts (64-bit, no wrap-around)
  uint64_t addresses;  // counts that are nonzero
};
std::vector<DcpiChunkSamples> dcpiSamplesByChunk(const Profile& profile, size_t image = 0);

struct DcpiTotals {
  uint64_t chunks = 0;
  uint64_t addresses = 0;             // counts stored (addresses covered by chunks)
  uint64_t addressesWithSamples = 0;  // nonzero counts
  uint64_t samples = 0;               // sum of all counts (64-bit, no wrap-around)
};
DcpiTotals dcpiTotals(const Profile& profile, size_t image = 0);

}  // namespace profpack
