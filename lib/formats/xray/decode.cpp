// Decodes the IR of an XRay trace into per-record structs, validating every index so that a
// corrupt .ppk cannot make a writer or query read out of bounds.

#include <cstring>

#include "error.h"
#include "formats/xray/xray.h"
#include "util/bytes.h"

namespace profpack {

namespace {
[[noreturn]] void corrupt(const std::string& what) {
  throw Error(Status::malformed, "ppk", "XRay trace: " + what);
}
std::span<const uint8_t> bytes(capnp::Data::Reader d) { return {d.begin(), d.size()}; }
}  // namespace

uint64_t XrayTrace::argument(const XrayRecord& r) const {
  if (r.type == kXrayBasicArgument) return r.meta;
  return rd64(meta(r));
}

namespace {

// FDR mode: the buffers, which must partition the records, and each record's thread, process
// and CPU from the metadata records before it in its buffer.
void decodeFdr(ir::Trace::Reader t, const std::vector<uint64_t>& code,
               const std::vector<uint64_t>& tsc, XrayTrace& x) {
  auto recs = t.getRecords();
  const uint64_t n = recs.getCount();
  if (tsc.size() != n) corrupt("tsc column does not have one value per record");
  x.metaBytes = bytes(recs.getMetaBytes());
  x.eventData = bytes(recs.getEventData());
  auto bl = t.getBuffers();
  x.buffers.resize(bl.size());
  uint64_t next = 0;
  for (unsigned i = 0; i < bl.size(); ++i) {
    auto b = bl[i];
    XrayBuffer& o = x.buffers[i];
    o.fileOffset = b.getFileOffset();
    o.firstRecord = b.getFirstRecord();
    o.recordCount = b.getRecordCount();
    o.threadId = b.getThreadId();
    o.pid = b.getPid();
    o.wallSeconds = b.getWallSeconds();
    o.wallSubSecond = b.getWallSubSecond();
    o.firstTsc = b.getFirstTsc();
    o.tail = bytes(b.getTail());
    if (o.firstRecord != next || o.recordCount > n - next)
      corrupt("buffers do not partition the records");
    next += o.recordCount;
  }
  if (next != n) corrupt("buffers do not cover every record");
  for (uint32_t v : t.getThreadOrder()) {
    if (v >= x.buffers.size()) corrupt("thread order names a buffer that does not exist");
    x.threadOrder.push_back(v);
  }
  uint64_t metaIndex = 0, eventOff = 0;
  const uint64_t metaCount = x.metaBytes.size() / 15;
  for (size_t bi = 0; bi < x.buffers.size(); ++bi) {
    const XrayBuffer& b = x.buffers[bi];
    uint16_t cpu = 0;
    uint32_t tid = 0, pid = 0;
    for (uint64_t i = b.firstRecord; i < b.firstRecord + b.recordCount; ++i) {
      XrayRecord& r = x.records[i];
      r.buffer = static_cast<uint32_t>(bi);
      r.tsc = tsc[i];
      const uint64_t c = code[i];
      if (!(c & 1)) {
        if (c > 0xffffffffu) corrupt("function record code out of range");
        r.type = static_cast<uint8_t>((c >> 1) & 7);
        if (r.type > 3) corrupt("function record kind out of range");
        r.functionId = static_cast<uint32_t>(c >> 4);
      } else {
        if (c > 19) corrupt("metadata record kind out of range");
        r.type = static_cast<uint8_t>(kXrayMetadata + (c >> 1));
        if (metaIndex >= metaCount) corrupt("metadata payloads missing");
        r.meta = metaIndex++;
        const uint8_t* m = x.meta(r);
        switch (r.type) {
          case kXrayNewBuffer: tid = rd32(m); break;
          case kXrayPid: pid = rd32(m); break;
          case kXrayNewCpu: cpu = static_cast<uint16_t>(m[0] | m[1] << 8); break;
          case kXrayCustomEvent:
          case kXrayTypedEvent: {
            uint32_t size = rd32(m);
            if (size > x.eventData.size() - eventOff) corrupt("event payloads missing");
            r.eventOffset = eventOff;
            r.eventSize = size;
            eventOff += size;
            break;
          }
          default: break;
        }
      }
      r.cpu = cpu;
      r.threadId = tid;
      r.pid = pid;
    }
  }
  if (metaIndex != metaCount || x.metaBytes.size() % 15 != 0)
    corrupt("metadata payload bytes do not match the metadata records");
  if (eventOff != x.eventData.size()) corrupt("event payload bytes left over");
}

// Basic mode: the per-record columns, and the padding kept after some records.
void decodeBasic(ir::Trace::Records::Reader recs, const std::vector<uint64_t>& code,
                 const std::vector<uint64_t>& tsc, XrayTrace& x) {
  const uint64_t n = recs.getCount();
  std::vector<uint64_t> fid = decodeColumn(recs.getFunctionId());
  std::vector<uint64_t> cpu = decodeColumn(recs.getCpu());
  std::vector<uint64_t> tid = decodeColumn(recs.getThreadId());
  std::vector<uint64_t> pid = decodeColumn(recs.getPid());
  std::vector<uint64_t> arg = decodeColumn(recs.getArgument());
  x.paddedRecords = decodeColumn(recs.getPaddedRecords());
  x.paddingBytes = bytes(recs.getPaddingBytes());
  if (fid.size() != n || tid.size() != n || pid.size() != n)
    corrupt("basic-mode columns do not have one value per record");
  uint64_t fi = 0, ai = 0;
  for (uint64_t i = 0; i < n; ++i) {
    XrayRecord& r = x.records[i];
    const uint64_t c = code[i];
    r.functionId = static_cast<uint32_t>(fid[i]);
    r.threadId = static_cast<uint32_t>(tid[i]);
    r.pid = static_cast<uint32_t>(pid[i]);
    if (c <= 3) {
      if (fi >= tsc.size() || fi >= cpu.size()) corrupt("basic-mode function columns short");
      r.type = static_cast<uint8_t>(c);
      r.tsc = tsc[fi];
      r.cpu = static_cast<uint16_t>(cpu[fi] & 0xff);
      ++fi;
    } else if (c == 0x100) {
      if (ai >= arg.size()) corrupt("basic-mode argument column short");
      r.type = kXrayBasicArgument;
      r.meta = arg[ai++];
    } else {
      corrupt("basic-mode record code out of range");
    }
  }
  if (fi != tsc.size() || ai != arg.size()) corrupt("basic-mode columns have extra values");
  uint64_t need = 0, prev = 0;
  for (size_t k = 0; k < x.paddedRecords.size(); ++k) {
    uint64_t i = x.paddedRecords[k];
    if (i >= n || (k > 0 && i <= prev)) corrupt("padded record index out of order");
    prev = i;
    need += x.records[i].type == kXrayBasicArgument ? 10 : 8;
  }
  if (need != x.paddingBytes.size()) corrupt("padding bytes do not match padded records");
}

}  // namespace

XrayTrace decodeXray(const Profile& profile) {
  auto root = profile.root();
  if (root.getFormat() != ir::Format::XRAY || !root.hasTrace())
    throw Error(Status::unsupported, "xray", "the profile holds no XRay trace");
  auto t = root.getTrace();
  XrayTrace x;
  x.fdr = t.getMode() == ir::Trace::Mode::FDR;
  x.version = t.getVersion();
  x.flags = t.getFlags();
  x.cycleFrequency = t.getCycleFrequency();
  x.bufferSize = t.getBufferSize();
  x.header = bytes(t.getHeaderBytes());
  if (x.header.size() != 32) corrupt("header is not 32 bytes");
  x.trailing = bytes(t.getTrailingBytes());
  auto recs = t.getRecords();
  const uint64_t n = recs.getCount();
  std::vector<uint64_t> code = decodeColumn(recs.getCode());
  std::vector<uint64_t> tsc = decodeColumn(recs.getTsc());
  if (code.size() != n) corrupt("record count does not match the code column");
  x.records.resize(n);
  if (x.fdr)
    decodeFdr(t, code, tsc, x);
  else
    decodeBasic(recs, code, tsc, x);
  return x;
}

}  // namespace profpack
