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

#include "model/model.h"
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

// Converts the instruction addresses of a profile's model (its locations layer) into a DCPI
// profile with one image per object (the locations' mapping paths; locations in no mapping, or
// in one without a path, form one image without a `path` line), images ordered by object name.
// Each image holds the self costs of the chosen event, summed per 4-byte slot (address rounded
// down to a multiple of 4); `tstart` is the lowest slot, runs of adjacent slots form one chunk
// (addresses present with cost 0 keep a 0 count). Required header lines: see
// DcpiConvertOptions; `image` is the FNV-1a 64-bit hash of the object name, `tsize` the bytes
// from tstart to the end of the last slot; the header is padded with spaces so the binary part
// is 4-byte aligned. A cost above 2^32-1 in one slot, or an image spanning more than 4 GiB, is
// Status::limit. A model without addresses or without events is Status::unsupported.
std::unique_ptr<Profile> dcpiFromModel(const Model& model, const DcpiConvertOptions& options);

// Writes one image of a DCPI profile as a DCPI file, byte for byte as read. As a .dcpi file
// holds one image, a profile with several images needs `image`: the image's `path` header
// value or its index ("0", "1", ...); without it the error (Status::invalidArgument) lists the
// images.
std::string writeDcpi(const Profile& profile, const std::string& image = "");
// Writes a profile of another format, by its model (dcpiFromModel with default options).
std::string writeDcpi(const Model& model, const std::string& image = "");

// One image decoded and validated (Status::malformed for an IR that breaks the ImageHistogram
// invariants).
struct DcpiImage {
  uint64_t textStart = 0;
  std::vector<uint64_t> offset, number;  // per chunk
  std::vector<uint64_t> firstCount;      // per chunk: index of its first count in `counts`
  std::vector<uint64_t> counts;          // all counts, in file order
  uint32_t footerAddresses = 0, footerSamples = 0;
  std::string event, path;  // `event` and `path` header values ("" if absent)
  uint64_t period = 0;      // `period`: the events one sample stands for (0 if unreadable)
};
DcpiImage decodeDcpiImage(ir::ImageHistogram::Reader image);

struct DcpiAddressSamples {
  uint64_t address;  // tstart + offset + 4*i
  uint64_t samples;
};
// Every address of the image with a nonzero count, in address order.
std::vector<DcpiAddressSamples> dcpiSamplesByAddress(const DcpiImage& image);

}  // namespace profpack
