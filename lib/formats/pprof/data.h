// pprof's profile.proto as the reader decodes it and the IR (ir::Pprof) stores it: one vector
// per field, in file order. What the decoder, the IR coding, the writer and the model share.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profile.h"

namespace profpack {

struct PprofData {
  // String fields are indexes into `strings` (0: ""): the file's string_table while it is
  // decoded, Profile.strings once in the IR.
  std::vector<std::string_view> strings;
  bool gzipped = false;

  std::vector<uint64_t> sampleType, sampleUnit;  // per sample type
  std::vector<uint64_t> sampleFrames;            // per sample: location ids
  std::vector<uint64_t> sampleLocation;          // all samples' location ids, leaf first
  std::vector<int64_t> sampleValue;              // all samples' values
  std::vector<uint64_t> sampleValues;            // per sample: how many values (decoding only)
  std::vector<uint64_t> sampleLabels;            // per sample: labels
  std::vector<uint64_t> labelKey, labelStr, labelUnit;
  std::vector<int64_t> labelNum;

  std::vector<uint64_t> mappingId, mappingStart, mappingLimit, mappingOffset, mappingFile,
      mappingBuildId, mappingFlags;

  std::vector<uint64_t> locationId, locationMapping, locationAddress, locationLines, locationFolded;
  std::vector<uint64_t> lineFunction;
  std::vector<int64_t> lineLine, lineColumn;

  std::vector<uint64_t> functionId, functionName, functionSystemName, functionFile;
  std::vector<int64_t> functionStartLine;

  uint64_t dropFrames = 0, keepFrames = 0;
  int64_t timeNanos = 0, durationNanos = 0;
  uint64_t periodType = 0, periodUnit = 0;
  bool hasPeriodType = false;
  int64_t period = 0;
  std::vector<uint64_t> comments;
  uint64_t defaultSampleType = 0, docUrl = 0;

  // Byte offsets for messages (decoding only; empty for an IR): where each sample, location
  // and mapping/function message starts; the largest string index and where it is.
  std::vector<uint64_t> sampleAt, locationAt, mappingAt, functionAt;
  uint64_t maxString = 0, maxStringAt = 0;
};

// The reader's PprofData in the IR's terms (string fields index Profile.strings, `strings`
// views the profile's table, no byte offsets), checked: what pprofFromIR would decode, kept
// with the profile (Profile::keepDecoded) for its model.
struct DecodedPprof : Profile::Decoded {
  PprofData data;
};

inline constexpr uint64_t kPprofHasFunctions = 1, kPprofHasFilenames = 2, kPprofHasLineNumbers = 4,
                          kPprofHasInlineFrames = 8;

// Decodes a profile.proto message (not gzipped) into `out`, its strings pointing into `data`.
// Status::malformed with the byte offset (`where` names the bytes in the message:
// "byte offset" counts from the message's start) for what Go's decoder refuses.
void decodePprofMessage(std::span<const uint8_t> data, PprofData& out);

// What pprof refuses once the message is decoded: a string index out of range, a sample
// whose value count differs from the sample types, a sample location or a line function that
// no entry has, an id 0 or one used twice. Positions from the *At vectors where set;
// `format` names the format in the error ("pprof", or "ppk" for an IR).
void checkPprof(const PprofData& d, const char* format);

// The IR's pprof section decoded, strings from `profile`'s table. Not checked: checkPprof.
PprofData pprofFromIR(const Profile& profile);

// The profile.proto message of `d` (strings from d.strings; ids as stored), not compressed.
std::string encodePprofMessage(const PprofData& d);

}  // namespace profpack
