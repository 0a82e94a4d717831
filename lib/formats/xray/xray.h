// LLVM XRay traces: the decoded view of the IR that writers and queries use, the names of
// function ids from an instrumented binary, and the writer's options.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "profile.h"

namespace profpack {

// Record types of the decoded view (XrayRecord::type).
enum XrayRecordType : uint8_t {
  kXrayEnter = 0,
  kXrayExit = 1,
  kXrayTailExit = 2,
  kXrayEnterArg = 3,
  kXrayMetadata = 16,  // 16 + metadata kind (FDR)
  kXrayNewBuffer = 16,
  kXrayEndOfBuffer = 17,
  kXrayNewCpu = 18,
  kXrayTscWrap = 19,
  kXrayWallClock = 20,
  kXrayCustomEvent = 21,
  kXrayCallArgument = 22,
  kXrayBufferExtents = 23,
  kXrayTypedEvent = 24,
  kXrayPid = 25,
  kXrayBasicArgument = 32,  // basic mode argument record
};

inline bool xrayIsFunction(uint8_t type) { return type < 4; }

// One record with everything the reference reader derives for it.
struct XrayRecord {
  uint8_t type = 0;
  uint16_t cpu = 0;
  uint32_t functionId = 0;  // function and basic argument records
  uint32_t threadId = 0;
  uint32_t pid = 0;
  uint32_t buffer = 0;       // FDR: index into XrayTrace::buffers
  uint64_t tsc = 0;          // absolute
  uint64_t meta = 0;         // FDR metadata: index of its 15 payload bytes; basic arg: argument
  uint64_t eventOffset = 0;  // custom/typed events: payload offset in eventData
  uint32_t eventSize = 0;
};

struct XrayBuffer {
  uint64_t fileOffset = 0, firstRecord = 0, recordCount = 0;
  uint32_t threadId = 0, pid = 0;
  uint64_t wallSeconds = 0;
  uint32_t wallSubSecond = 0;
  uint64_t firstTsc = 0;
  std::span<const uint8_t> tail;
};

// The IR trace decoded into per-record structs (memory: ~48 bytes a record).
struct XrayTrace {
  bool fdr = true;
  uint16_t version = 0;
  uint32_t flags = 0;
  uint64_t cycleFrequency = 0;
  uint64_t bufferSize = 0;
  std::span<const uint8_t> header;    // 32 bytes
  std::vector<XrayRecord> records;    // file order
  std::vector<XrayBuffer> buffers;    // FDR, file order
  std::vector<uint32_t> threadOrder;  // FDR: buffer indices by thread, in time order
  std::span<const uint8_t> metaBytes, eventData, trailing, paddingBytes;
  std::vector<uint64_t> paddedRecords;
  // The payload bytes (15) of a metadata record.
  const uint8_t* meta(const XrayRecord& r) const { return metaBytes.data() + r.meta * 15; }
  // CallArgument / basic argument value.
  uint64_t argument(const XrayRecord& r) const;
};

// Decodes (and validates) the trace of a profile read from XRay. Throws profpack::Error.
// True if `data` starts with an XRay file header (basic or FDR mode).
bool isXray(std::span<const uint8_t> data);
// `strict` makes a truncated trace an error instead of a warning.
std::unique_ptr<Profile> readXray(std::span<const uint8_t> data, bool strict);

XrayTrace decodeXray(const Profile& profile);

// Writer options: mode -1 keeps the input's mode; version 0 keeps the input's version (or
// picks FDR 5 / basic 3 when the mode changes).
struct XrayWriteOptions {
  int mode = -1;  // 0 basic, 1 FDR
  int version = 0;
};
std::string writeXray(const Profile& profile, const XrayWriteOptions& options);

// Function names of an instrumented binary: entry i is the name of function id i (entry 0 is
// empty; ids count from 1 in xray_instr_map order). Unnamed ids get "" . Throws
// profpack::Error (Status::io or malformed) when the file cannot be read as an ELF object with
// an xray_instr_map section.
std::vector<std::string> xrayFunctionNames(const std::string& binaryPath);
// The entry address of each function id of an instrumented binary (index = id; entry 0 is 0),
// from its xray_instr_map; errors as xrayFunctionNames.
std::vector<uint64_t> xrayFunctionEntries(const std::string& binaryPath);

}  // namespace profpack
