// perf.data into the IR (lib/ir/profile.capnp, PerfData): the recording's events, threads,
// used mappings, distinct frames and stacks, and one row per sample in time order.

#include <algorithm>
#include <cstring>

#include "error.h"
#include "formats/perf/perf.h"
#include "formats/perf/records.h"
#include "ir/column.h"

namespace profpack {

bool isPerfData(std::span<const uint8_t> data) {
  return data.size() >= 16 && std::memcmp(data.data(), "PERFILE2", 8) == 0;
}

std::vector<Mapping> perfBinariesAhead(std::span<const uint8_t> data) {
  // A recording's samples are in tens of files; a table of more is no help ahead (a hostile
  // one could list any number): naming opens files as their samples need them instead.
  constexpr size_t kMaxTable = 256;
  std::vector<Mapping> out;
  try {
    const auto table = perf::buildIdTable(data);
    if (table.size() > kMaxTable) return {};
    for (auto& [path, id] : table) {
      Mapping m;
      m.path = path;
      m.buildId = id;
      out.push_back(std::move(m));
    }
  } catch (const Error&) {
    return {};  // the reading that follows says what is wrong
  }
  // The table's order is a hash table's: give them in one order, whatever the library.
  std::sort(out.begin(), out.end(), [](const Mapping& a, const Mapping& b) {
    return a.path != b.path ? a.path < b.path : a.buildId < b.buildId;
  });
  return out;
}

namespace perf {

void SampleColumns::drain() {
  // Emptied first: should a column's growth fail, a later push() still stays in the buffer
  // (the recording is thrown away with the error anyway).
  const size_t n = waiting_;
  waiting_ = 0;
  uint64_t v[kBlock] = {};  // zeroed only for GCC, which cannot tell that just v[0, n) is read
  auto column = [&](ColumnWriter& out, uint64_t Sample::*field) {
    for (size_t i = 0; i < n; ++i) v[i] = pending_[i].*field;
    out.pushMany(v, n);
  };
  column(time_, &Sample::time);
  column(thread_, &Sample::thread);
  column(event_, &Sample::event);
  column(period_, &Sample::period);
  column(stack_, &Sample::stack);
  column(cpu_, &Sample::cpu);
}

void SampleColumns::build(ir::PerfData::Builder out) {
  drain();
  time_.build(out.initSampleTime());
  thread_.build(out.initSampleThread());
  event_.build(out.initSampleEvent());
  period_.build(out.initSamplePeriod());
  stack_.build(out.initSampleStack());
  cpu_.build(out.initSampleCpu());
}

}  // namespace perf

std::unique_ptr<Profile> readPerfData(std::span<const uint8_t> data) {
  return buildPerfIR(perf::parseRecording(data), ir::Format::PERF, nullptr);
}

std::unique_ptr<Profile> buildPerfIR(perf::Recording r, ir::Format format,
                                     const std::vector<std::string>* names) {
  using Enc = ir::Column::Encoding;
  auto message = newMessage(r.samples.size() * 8 + r.stackFrames.size() * 2);
  auto root = message->getRoot<ir::Profile>();
  root.setFormat(format);
  root.setFormatVersion(names ? "" : r.pipe ? "PERFILE2 pipe" : "PERFILE2");
  StringInterner strings;
  strings.build(root.initStrings());
  auto pd = root.initPerf();
  pd.setPipeMode(r.pipe);
  auto events = pd.initEvents(static_cast<unsigned>(r.attrs.size()));
  for (unsigned i = 0; i < r.attrs.size(); ++i) {
    const perf::Attr& a = r.attrs[i];
    auto e = events[i];
    e.setName(a.name);
    e.setType(a.type);
    e.setConfig(a.config);
    e.setSampleType(a.sampleType);
    e.setSamplePeriod(a.period);
    e.setFreq(a.freq);
    // --call-graph dwarf (PERF_SAMPLE_STACK_USER with a callchain): the user callers are in
    // copies of the stack, for perf to unwind with the registers copied too; not done here.
    if ((a.sampleType & perf::kSampleStackUser) && (a.sampleType & perf::kSampleCallchain))
      r.warnings.push_back("perf: event " + a.name +
                           " was recorded with --call-graph dwarf: its user stacks are the "
                           "sampled addresses only (the callers are in copies of the stack, "
                           "which profpack does not unwind); record with -g or --call-graph lbr "
                           "for whole stacks");
  }
  auto features = pd.initFeatures(static_cast<unsigned>(r.features.size()));
  for (unsigned i = 0; i < r.features.size(); ++i) {
    features[i].setKey(r.features[i].first);
    features[i].setValue(r.features[i].second);
    features[i].setText(r.features[i].first + ": " + r.features[i].second);
  }
  auto threads = pd.initThreads(static_cast<unsigned>(r.threads.size()));
  for (unsigned i = 0; i < r.threads.size(); ++i) {
    threads[i].setPid(r.threads[i].pid);
    threads[i].setTid(r.threads[i].tid);
    threads[i].setComm(r.threads[i].comm);
  }
  auto maps = pd.initMappings(static_cast<unsigned>(r.mappings.size()));
  for (unsigned i = 0; i < r.mappings.size(); ++i) {
    const perf::MappingRec& m = r.mappings[i];
    maps[i].setPid(m.pid);
    maps[i].setStart(m.start);
    maps[i].setLength(m.length);
    maps[i].setPgoff(m.pgoff);
    maps[i].setPath(m.path);
    maps[i].setBuildId(
        kj::arrayPtr(reinterpret_cast<const kj::byte*>(m.buildId.data()), m.buildId.size()));
  }
  encodeColumn(pd.initFrameAddress(), r.frameAddress, Enc::ZIGZAG_DELTA);
  encodeColumn(pd.initFrameMapping(), r.frameMapping, Enc::VARINT);
  encodeColumn(pd.initFrameKernel(), r.frameKernel, Enc::VARINT_RUNS);
  encodeColumn(pd.initStackLength(), r.stackLength, Enc::VARINT);
  encodeColumn(pd.initStackFrames(), r.stackFrames, Enc::VARINT);
  r.samples.build(pd);
  pd.setLost(r.lost);
  if (names) {
    auto out = pd.initFrameName(static_cast<unsigned>(names->size()));
    for (unsigned i = 0; i < names->size(); ++i) out.set(i, (*names)[i]);
  }
  auto profile = std::make_unique<Profile>(std::move(message));
  for (std::string& w : r.warnings) profile->warnings().push_back(std::move(w));
  return profile;
}

}  // namespace profpack
