// LLVM XRay trace writer. Same mode and version as the input: the file byte for byte (header,
// metadata payloads with their garbage, buffer tails and an incomplete final record are all in
// the IR). Another FDR version: the records converted (BufferExtents / EndOfBuffer / Pid added
// or dropped, custom event layouts changed, TSC deltas recomputed, TSCWrap added where a delta
// no longer fits); buffer tails and an incomplete final record are dropped. FDR -> basic mode:
// one 32-byte record per function record and per call argument. Basic mode -> FDR: one buffer
// per thread (writeBasicAsFdr).

#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "error.h"
#include "formats/xray/xray.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "xray";

void put16(std::string& s, uint16_t v) { s.append(reinterpret_cast<const char*>(&v), 2); }
void put32(std::string& s, uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }
void put64(std::string& s, uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }
void patch(std::string& s, size_t at, const void* v, size_t n) { std::memcpy(s.data() + at, v, n); }

// Appends an FDR metadata record of `kind` with its 15 payload bytes from `payload`, or zeros
// for the caller to patch; returns the payload's offset in `out`.
size_t putMetadata(std::string& out, uint8_t kind, const uint8_t* payload = nullptr) {
  out.push_back(static_cast<char>((kind << 1) | 1));
  if (payload)
    out.append(reinterpret_cast<const char*>(payload), 15);
  else
    out.append(15, '\0');
  return out.size() - 15;
}

// Appends an FDR function record of `r` with its TSC as `delta` from the one before.
void putFunction(std::string& out, const XrayRecord& r, uint32_t delta) {
  put32(out, (r.functionId << 4) | (uint32_t{r.type} << 1));
  put32(out, delta);
}
void putBytes(std::string& s, std::span<const uint8_t> b) {
  s.append(reinterpret_cast<const char*>(b.data()), b.size());
}

std::string header(const XrayTrace& x, bool fdr, uint16_t version) {
  std::string h(reinterpret_cast<const char*>(x.header.data()), 32);
  uint16_t type = fdr ? 1 : 0;
  patch(h, 0, &version, 2);
  patch(h, 2, &type, 2);
  if (fdr && !x.fdr) {
    uint64_t size = 0, zero = 0;
    patch(h, 16, &size, 8);
    patch(h, 24, &zero, 8);
  }
  return h;
}

// FDR with the input's own version: the file as read.
std::string writeSameFdr(const XrayTrace& x) {
  std::string out;
  out.reserve(x.records.size() * 9 + x.eventData.size() + 64);
  putBytes(out, x.header);
  for (const XrayBuffer& b : x.buffers) {
    uint64_t base = 0;
    for (uint64_t i = b.firstRecord; i < b.firstRecord + b.recordCount; ++i) {
      const XrayRecord& r = x.records[i];
      if (xrayIsFunction(r.type)) {
        uint64_t delta = r.tsc - base;
        if (delta > 0xffffffffu)
          throw Error(Status::malformed, "ppk",
                      "XRay trace: TSC of record " + std::to_string(i) +
                          " is not reachable with a 32-bit delta");
        put32(out, (r.functionId << 4) | (uint32_t{r.type} << 1));
        put32(out, static_cast<uint32_t>(delta));
        base = r.tsc;
        continue;
      }
      out.push_back(static_cast<char>(((r.type - kXrayMetadata) << 1) | 1));
      out.append(reinterpret_cast<const char*>(x.meta(r)), 15);
      if (r.type == kXrayNewCpu || r.type == kXrayTscWrap ||
          (r.type == kXrayCustomEvent && x.version >= 5) || r.type == kXrayTypedEvent)
        base = r.tsc;
      if (r.eventSize) putBytes(out, x.eventData.subspan(r.eventOffset, r.eventSize));
    }
    putBytes(out, b.tail);
  }
  putBytes(out, x.trailing);
  return out;
}

// FDR of another version than the input's.
std::string writeOtherFdr(const XrayTrace& x, uint16_t v) {
  std::string out = header(x, true, v);
  for (const XrayBuffer& b : x.buffers) {
    const size_t extentsAt = v >= 2 ? putMetadata(out, 7) : std::string::npos;
    uint64_t base = 0;
    uint16_t cpu = 0;
    auto meta = [&](uint8_t kind, const uint8_t* payload) {
      return putMetadata(out, kind, payload);
    };
    auto wrapIfNeeded = [&](uint64_t tsc, uint64_t limit) {
      if (tsc - base > limit) {
        size_t at = meta(3, nullptr);
        patch(out, at, &tsc, 8);
        base = tsc;
      }
    };
    for (uint64_t i = b.firstRecord; i < b.firstRecord + b.recordCount; ++i) {
      const XrayRecord& r = x.records[i];
      if (xrayIsFunction(r.type)) {
        wrapIfNeeded(r.tsc, 0xffffffffu);
        putFunction(out, r, static_cast<uint32_t>(r.tsc - base));
        base = r.tsc;
        continue;
      }
      const uint8_t* m = x.meta(r);
      switch (r.type) {
        case kXrayBufferExtents: break;  // written above for v2+
        case kXrayEndOfBuffer: break;    // written below for v1
        case kXrayPid:
          if (v >= 3) meta(9, m);
          break;
        case kXrayWallClock:
          meta(4, m);
          if (v >= 3 && x.version < 3) meta(9, nullptr);  // v3+ expects a Pid record here
          break;
        case kXrayNewCpu:
          cpu = static_cast<uint16_t>(m[0] | m[1] << 8);
          meta(2, m);
          base = r.tsc;
          break;
        case kXrayTscWrap:
          meta(3, m);
          base = r.tsc;
          break;
        case kXrayCustomEvent: {
          int32_t size = static_cast<int32_t>(r.eventSize);
          if (v >= 5) {
            if (r.tsc - base > 0x7fffffffu) wrapIfNeeded(r.tsc, 0);
            int32_t delta = static_cast<int32_t>(r.tsc - base);
            size_t at = meta(5, m);
            patch(out, at, &size, 4);
            patch(out, at + 4, &delta, 4);
            base = r.tsc;
          } else {
            size_t at = meta(5, m);
            patch(out, at, &size, 4);
            patch(out, at + 4, &r.tsc, 8);
            if (v == 4) patch(out, at + 12, &cpu, 2);
          }
          putBytes(out, x.eventData.subspan(r.eventOffset, r.eventSize));
          break;
        }
        case kXrayTypedEvent: {
          if (r.tsc - base > 0x7fffffffu) wrapIfNeeded(r.tsc, 0);
          int32_t delta = static_cast<int32_t>(r.tsc - base);
          size_t at = meta(8, m);
          patch(out, at + 4, &delta, 4);
          base = r.tsc;
          putBytes(out, x.eventData.subspan(r.eventOffset, r.eventSize));
          break;
        }
        default: meta(static_cast<uint8_t>(r.type - kXrayMetadata), m); break;
      }
    }
    if (v == 1) meta(1, nullptr);
    if (extentsAt != std::string::npos) {
      const uint64_t extents = out.size() - extentsAt - 15;
      patch(out, extentsAt, &extents, 8);
    }
  }
  return out;
}

// A basic-mode trace as FDR version v: one buffer per (process, thread), in order of first
// appearance, holding that thread's records in file order: BufferExtents (v2+), NewBuffer,
// WallClockTime (zero: basic mode has no wall clock), Pid (v3+), NewCPUId, then the function
// records with 32-bit TSC deltas, a NewCPUId where the CPU changes, a TSCWrap where a delta
// would not fit, a CallArgument after each argument record, and EndOfBuffer (v1).
std::string writeBasicAsFdr(const XrayTrace& x, uint16_t v) {
  std::string out = header(x, true, v);
  std::vector<std::pair<uint64_t, std::vector<size_t>>> threads;  // (pid << 32 | tid, records)
  std::unordered_map<uint64_t, size_t> index;
  for (size_t i = 0; i < x.records.size(); ++i) {
    const XrayRecord& r = x.records[i];
    if (!xrayIsFunction(r.type) && r.type != kXrayBasicArgument) continue;
    const uint64_t key = uint64_t{r.pid} << 32 | r.threadId;
    auto [it, inserted] = index.try_emplace(key, threads.size());
    if (inserted) threads.push_back({key, {}});
    threads[it->second].second.push_back(i);
  }
  for (const auto& [key, records] : threads) {
    auto meta = [&](uint8_t kind) { return putMetadata(out, kind); };
    size_t extentsAt = v >= 2 ? meta(7) : std::string::npos;
    const auto tid = static_cast<int32_t>(key & 0xffffffffu);
    patch(out, meta(0), &tid, 4);
    meta(4);
    if (v >= 3) {
      const auto pid = static_cast<int32_t>(key >> 32);
      patch(out, meta(9), &pid, 4);
    }
    uint64_t base = 0;
    int cpu = -1;
    for (size_t i : records) {
      const XrayRecord& r = x.records[i];
      if (r.type == kXrayBasicArgument) {
        const uint64_t arg = x.argument(r);
        patch(out, meta(6), &arg, 8);
        continue;
      }
      if (r.cpu != cpu || r.tsc - base > 0xffffffffu) {
        const bool newCpu = r.cpu != cpu;
        const size_t at = meta(newCpu ? 2 : 3);
        if (newCpu) {
          patch(out, at, &r.cpu, 2);
          patch(out, at + 2, &r.tsc, 8);
        } else {
          patch(out, at, &r.tsc, 8);
        }
        cpu = r.cpu;
        base = r.tsc;
      }
      putFunction(out, r, static_cast<uint32_t>(r.tsc - base));
      base = r.tsc;
    }
    if (v == 1) meta(1);
    if (extentsAt != std::string::npos) {
      const uint64_t extents = out.size() - extentsAt - 15;
      patch(out, extentsAt, &extents, 8);
    }
  }
  return out;
}

std::string writeBasic(const XrayTrace& x, uint16_t v) {
  std::string out = x.fdr ? header(x, false, v) : header(x, false, v);
  if (x.fdr) {
    // Bytes 16-31 of a basic header carry no meaning; the FDR buffer size is not kept there.
    std::memset(out.data() + 16, 0, 16);
  }
  out.reserve(32 + x.records.size() * 32);
  size_t pk = 0, pb = 0;
  uint32_t lastArgFunction = 0;
  for (size_t i = 0; i < x.records.size(); ++i) {
    const XrayRecord& r = x.records[i];
    size_t at = out.size();
    bool isArg = r.type == kXrayBasicArgument || r.type == kXrayCallArgument;
    if (xrayIsFunction(r.type)) {
      put16(out, 0);
      out.push_back(static_cast<char>(r.cpu));
      out.push_back(static_cast<char>(r.type));
      put32(out, r.functionId);
      put64(out, r.tsc);
      put32(out, r.threadId);
      put32(out, r.pid);
      put64(out, 0);
      if (r.type == kXrayEnterArg) lastArgFunction = r.functionId;
    } else if (isArg) {
      put16(out, 1);
      put16(out, 0);
      put32(out, r.type == kXrayBasicArgument ? r.functionId : lastArgFunction);
      put32(out, r.threadId);
      put32(out, r.pid);
      put64(out, x.argument(r));
      put64(out, 0);
    } else {
      continue;  // FDR metadata has no basic-mode counterpart
    }
    if (!x.fdr && pk < x.paddedRecords.size() && x.paddedRecords[pk] == i) {
      if (isArg) {
        patch(out, at + 2, x.paddingBytes.data() + pb, 2);
        patch(out, at + 24, x.paddingBytes.data() + pb + 2, 8);
        pb += 10;
      } else {
        patch(out, at + 24, x.paddingBytes.data() + pb, 8);
        pb += 8;
      }
      ++pk;
    }
  }
  if (!x.fdr && v == x.version) putBytes(out, x.trailing);
  return out;
}

}  // namespace

std::string writeXray(const Profile& profile, const XrayWriteOptions& options) {
  XrayTrace x = decodeXray(profile);
  bool fdr = options.mode < 0 ? x.fdr : options.mode == 1;
  int v = options.version;
  if (v == 0) v = fdr == x.fdr ? x.version : (fdr ? 5 : 3);
  if (fdr && (v < 1 || v > 5))
    throw Error(Status::invalidArgument, kFmt,
                "FDR version " + std::to_string(v) + " cannot be written (1 to 5)");
  if (!fdr && (v < 1 || v > 3))
    throw Error(Status::invalidArgument, kFmt,
                "basic-mode version " + std::to_string(v) + " cannot be written (1 to 3)");
  if (!fdr) return writeBasic(x, static_cast<uint16_t>(v));
  if (!x.fdr) return writeBasicAsFdr(x, static_cast<uint16_t>(v));
  if (v == x.version) return writeSameFdr(x);
  return writeOtherFdr(x, static_cast<uint16_t>(v));
}

}  // namespace profpack
