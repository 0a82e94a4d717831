#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "error.h"
#include "formats/pprof/pprof.h"
#include "formats/pprof/program.h"
#include "formats/pprof/values.h"
#include "formats/pprof/wire.h"
#include "util/gzip.h"
#include "util/text.h"
#include "util/tuple_hash.h"

namespace profpack {

namespace {

using namespace pprofwire;

// libdeflate's level 1, gzip's best speed, as Go's runtime/pprof writes its own profiles: a
// 50 MB gperftools profile's 5 MB profile.proto compresses in 57% of the instructions of
// zlib's level 2 (used before), to 1.2% more bytes (2.4% fewer than zlib's level 1). A profile
// kept for later is better kept as .ppk.
constexpr int kGzipLevel = 1;

// One writing of a model as profile.proto, in steps; each appends its fields to the message in
// the order pprof's own profiles have them (and the string table numbers strings in the order the
// steps use them).
class PprofWriter {
 public:
  explicit PprofWriter(const Model& m)
      : m_(m),
        ne_(m.events()),
        period_(m.samplePeriodNanos()),
        perSecond_(m.unitsPerSecond()),
        addTime_(period_ > 0 || perSecond_ > 0),
        isSigned_(m.has(kCapSigned)),
        addresses_(m.has(kCapAddresses)),
        // Names are functions only where the model has them (not bare addresses).
        named_(m.has(kCapNames) || !addresses_),
        gz_(kGzipLevel) {}

  std::string write() {
    sampleTypes();
    collectLocations();
    samples();
    msg_ += mappings_;
    keepUnusedLocations();
    programMappingFirst();
    writeLocations();
    writeFunctions();
    writePeriod();
    // The type pprof shows by default: the time where there is one (its own default, the last
    // type), else the first event.
    if (!addTime_) uintField(msg_, 14, strings_.index(m_.eventNames()[0]));
    for (const std::string& s : strings_.table()) {
      bytesField(msg_, 6, s);
      flush();
    }
    gz_.append(msg_);
    return gz_.finish();
  }

 private:
  // 32 bytes (56 with 64-bit fields): a profile's locations, and for return addresses as many
  // again, were 6 MB of a 50 MB gperftools profile's peak. Numbers of mappings, functions and
  // inline frames fit 32 bits (checked in addressLocations).
  struct Loc {
    Loc() = default;
    Loc(uint64_t address_, uint64_t mapping_, uint64_t function_, uint64_t line_)
        : address(address_),
          line(line_),
          mapping(static_cast<uint32_t>(mapping_)),
          function(static_cast<uint32_t>(function_)) {}
    uint64_t address = 0, line = 0;
    uint32_t mapping = 0, function = 0;  // 1-based; 0: none
    // Where the model has inline frames there: locations().inlined[first, first + frames),
    // outermost first (frames 0: the one function and line above).
    uint32_t first = 0;
    uint32_t frames : 31 = 0;
    uint32_t callSite : 1 = 0;
  };

  // The message goes to gzip as it is made: its chunks are compressed meanwhile.
  void flush() {
    if (msg_.size() < kGzipChunk / 4) return;
    gz_.append(msg_);
    msg_.clear();
  }

  void valueType(unsigned field, const std::string& type, const std::string& unit) {
    std::string vt;
    uintField(vt, 1, strings_.index(type));
    uintField(vt, 2, strings_.index(unit));
    bytesField(msg_, field, vt);
  }

  // Sample types: every event; a sampled profile also its CPU time, a timed one its
  // nanoseconds (pprof's conventions for gperftools' "samples"/"cpu"). A timed profile's time
  // event (its first) has the unit pprof scales where its units are one (seconds, milli-,
  // micro-, nanoseconds; else, XRay's ticks, its own name), its other events are counts.
  void sampleTypes() {
    for (size_t e = 0; e < ne_; ++e)
      valueType(1, m_.eventNames()[e],
                period_ > 0 || perSecond_ <= 0    ? "count"
                : e == 0                          ? timeUnit(m_.eventNames()[0])
                : m_.eventNames()[e] == "samples" ? "count"
                                                  : m_.eventNames()[e]);
    if (addTime_) valueType(1, period_ > 0 ? "cpu" : "time", "nanoseconds");
  }
  std::string timeUnit(const std::string& name) const { return timeUnitName(perSecond_, name); }
  uint64_t nanos(uint64_t v) const { return nanosOf(v, isSigned_, period_, perSecond_); }

  // Mappings and locations.
  void collectLocations() {
    locationOfFunction_.assign(m_.functions(), 0);
    if (addresses_) addressLocations();
    // Without addresses, sources with lines (Callgrind, Cachegrind) get a location per
    // (function, line) with its self cost, so that pprof's -lines and -list see them.
    if (!addresses_ && !m_.has(kCapStacks) && m_.has(kCapLines)) {
      const FunctionLineLayer& fl = m_.functionLines();
      for (size_t r = 0; r < fl.rows.size(); ++r) {
        locations_.push_back({0, 0, fl.rows[r].function + 1, fl.rows[r].line});
        if (locationOfFunction_[fl.rows[r].function] == 0)
          locationOfFunction_[fl.rows[r].function] = locations_.size();
        locationSelf_.insert(locationSelf_.end(), fl.self.begin() + r * ne_,
                             fl.self.begin() + (r + 1) * ne_);
      }
    }
    // Functions at no address or line get a location of their own (XRay, Callgrind without
    // instr or line).
    for (size_t f = 0; f < m_.functions(); ++f) {
      if (locationOfFunction_[f] != 0) continue;
      locations_.push_back({0, 0, f + 1, 0});
      locationOfFunction_[f] = locations_.size();
      if (!m_.has(kCapStacks) && !addresses_)
        for (size_t e = 0; e < ne_; ++e) locationSelf_.push_back(m_.self(f, e));
    }
  }

  void addressLocations() {
    const LocationLayer& at = m_.locations();
    if (m_.functions() >= UINT32_MAX || at.mappings.size() >= UINT32_MAX ||
        at.locations.size() >= INT32_MAX || at.inlined.size() >= UINT32_MAX)
      throw Error(Status::limit, "pprof",
                  "more than 2^31 locations, or 2^32 functions or mappings");
    // The program's mapping first, where the model knows it: pprof takes the first mapping for
    // the main binary (`File:`), which was perf's first mapping, ld.so. The ids stay in order.
    std::vector<size_t> order(at.mappings.size());
    std::iota(order.begin(), order.end(), 0);
    // Where the model marks none, the one the profile's command names (Callgrind's `cmd:`,
    // with `positions: instr`).
    size_t program = static_cast<size_t>(std::find_if(at.mappings.begin(), at.mappings.end(),
                                                      [](const Mapping& m) { return m.program; }) -
                                         at.mappings.begin());
    if (program == at.mappings.size())
      program = programObject(commandPath(m_.description()), at.mappings.size(),
                              [&](size_t i) -> const std::string& { return at.mappings[i].path; });
    if (program < at.mappings.size())
      std::rotate(order.begin(), order.begin() + program, order.begin() + program + 1);
    for (size_t i : order) {
      const Mapping& map = at.mappings[i];
      std::string mp;
      uintField(mp, 1, i + 1);
      uintField(mp, 2, map.start);
      uintField(mp, 3, map.limit);
      uintField(mp, 4, map.offset);
      uintField(mp, 5, strings_.index(map.path));
      // The build id as pprof's own profiles and perf_data_converter write it: hex digits.
      if (!map.buildId.empty()) uintField(mp, 6, strings_.index(hexBytes(map.buildId)));
      // What symbolization would not add: names (and lines) where the model has them.
      uintField(mp, 7, m_.has(kCapNames) ? 1 : 0);
      uintField(mp, 8, m_.has(kCapNames) ? 1 : 0);
      uintField(mp, 9, m_.has(kCapNames) && m_.has(kCapLines) ? 1 : 0);
      bytesField(mappings_, 3, mp);
    }
    locations_.reserve(locations_.size() + at.locations.size());  // no copy while growing
    locationSelf_.reserve(locationSelf_.size() + at.self.size());
    for (size_t l = 0; l < at.locations.size(); ++l) {
      const Location& loc = at.locations[l];
      const bool known = loc.function >= 0 && static_cast<uint64_t>(loc.function) < m_.functions();
      const bool mapped =
          loc.mapping >= 0 && static_cast<uint64_t>(loc.mapping) < at.mappings.size();
      Loc add{loc.address, mapped ? static_cast<uint64_t>(loc.mapping) + 1 : 0,
              known ? static_cast<uint64_t>(loc.function) + 1 : 0, loc.line};
      add.callSite = loc.callSite;
      if (!at.inlineStart.empty() && at.frames(l) > 1) {
        add.first = static_cast<uint32_t>(at.inlineStart[l]);
        add.frames = static_cast<uint32_t>(std::min<uint64_t>(at.frames(l), INT32_MAX));
      }
      locations_.push_back(add);
      if (known && !loc.callSite && locationOfFunction_[loc.function] == 0)
        locationOfFunction_[loc.function] = locations_.size();
      locationSelf_.insert(locationSelf_.end(), at.self.begin() + l * ne_,
                           at.self.begin() + (l + 1) * ne_);
    }
  }

  // `thread`: an index into the model's threads, whose pid, tid and comm label the sample (as
  // perf_data_converter's labels name them); -1 for none.
  //
  // Location ids are numbered in order of first use, as pprof numbers them: the frequent
  // frames of the first samples get one-byte ids, which makes a stack profile about a third
  // smaller before compression (and its compression as much faster).
  //
  // The sample's fields are encoded into sampleBytes_ through a pointer, its location ids
  // renumbered on the way, and go to the message with their length in front: a stack profile's
  // samples are most of its message (2.5 million frames for a 50 MB gperftools profile), and
  // appending them a byte at a time, counting each packed field's bytes in a pass of its own,
  // was a third of the pprof writer's time.
  void sample(std::span<const uint64_t> leafFirst, const uint64_t* values, int64_t thread = -1) {
    sampleOf<false>(
        leafFirst.size(), [leafFirst](size_t k) { return leafFirst[k]; }, values, thread);
  }

  // sample() of the frames [b, e) of `locations` (a stack layer's), leaf (e - 1) first, each
  // location l as id l + 1, read from the layer as they are encoded (stackIds() copied them
  // out first, a sixth of the writer's instructions for a gperftools profile). False, with
  // nothing written and no id given out, if a frame is at no location (`known` or above) or
  // the sample has no value: stackIds() and sample() do as they do for those.
  bool frameSample(const uint32_t* locations, uint64_t b, uint64_t e, uint64_t known,
                   const uint64_t* values) {
    return sampleOf<true>(
        e - b,
        [locations, e, known](size_t k) -> uint64_t {
          const uint64_t l = locations[e - 1 - k];
          return l < known ? l + 1 : 0;
        },
        values, -1);
  }

  // sample() of the `count` ids idAt(0), idAt(1), ...; with kPartial, an id 0 stops it (none
  // given out, false), as does a sample without values.
  template <bool kPartial, class IdAt>
  bool sampleOf(size_t count, const IdAt& idAt, const uint64_t* values, int64_t thread) {
    bool any = false;
    for (size_t e = 0; e < ne_; ++e) any |= values[e] != 0;
    if (!any) return !kPartial;
    if (idOf_.size() <= locations_.size()) idOf_.resize(locations_.size() + 1, 0);
    // Room for the ids' varints (10 bytes at most each) with their field's tag and length
    // (1 + 10), and the values' likewise: the values are written after the ids, whose length
    // is known only once they are written, so they go behind the largest the ids could take.
    // The room is kept from sample to sample (resizing a string zeroes what it adds).
    const size_t nv = ne_ + (addTime_ ? 1 : 0);
    const size_t idsRoom = count == 0 ? 0 : 11 + 10 * count;
    if (scratch_.size() < idsRoom + 11 + 10 * nv) scratch_.resize(idsRoom + 11 + 10 * nv);
    char* const start = scratch_.data();
    char* p = start;
    if (count != 0) {
      // The ids' bytes start past their tag and the longest length varint; moved down after.
      char* ids = start + 11;
      char* q = ids;
      const size_t given = byId_.size();
      for (size_t k = 0; k < count; ++k) {
        const uint64_t id = idAt(k);
        if (kPartial && id == 0) {  // the ids this sample gave out are taken back
          for (size_t i = given; i < byId_.size(); ++i) idOf_[byId_[i] + 1] = 0;
          byId_.resize(given);
          return false;
        }
        uint64_t& to = idOf_[id];
        if (to == 0) {
          byId_.push_back(static_cast<uint32_t>(id - 1));
          to = byId_.size();
        }
        q = putVarint(q, to);
      }
      const size_t n = static_cast<size_t>(q - ids);
      p = putVarint(p, 1 << 3 | 2);
      p = putVarint(p, n);
      std::memmove(p, ids, n);
      p += n;
    }
    {
      char* vals = start + idsRoom + 11;
      char* q = vals;
      for (size_t e = 0; e < ne_; ++e) q = putVarint(q, values[e]);
      if (addTime_) q = putVarint(q, nanos(values[0]));
      const size_t n = static_cast<size_t>(q - vals);
      p = putVarint(p, 2 << 3 | 2);
      p = putVarint(p, n);
      std::memmove(p, vals, n);
      p += n;
    }
    std::string_view bytes(start, static_cast<size_t>(p - start));
    if (thread >= 0) {
      sampleBytes_.assign(bytes);
      const ThreadRow& t = m_.threads()[static_cast<size_t>(thread)];
      // An unknown id gets no label (a number would be taken for a process).
      if (t.pid != kUnknownId) label("pid", "", t.pid);
      if (t.threadId != kUnknownId) label("tid", "", t.threadId);
      if (!t.process.empty()) label("comm", t.process, 0);
      bytes = sampleBytes_;
    }
    const size_t at = msg_.size(), n = bytes.size();
    msg_.resize(at + 1 + varintSize(n) + n);
    char* m = msg_.data() + at;
    *m++ = static_cast<char>(2 << 3 | 2);
    m = putVarint(m, n);
    std::memcpy(m, bytes.data(), n);
    flush();
    return true;
  }

  // A label of the sample being made: a string, else a number.
  void label(const std::string& key, const std::string& str, uint64_t num) {
    std::string lb;
    uintField(lb, 1, strings_.index(key));
    if (!str.empty())
      uintField(lb, 2, strings_.index(str));
    else
      uintField(lb, 3, num);
    bytesField(sampleBytes_, 3, lb);
  }

  // Sampled stacks of return addresses (gperftools): a caller's frame is the address after its
  // call instruction. pprof's own conversion of these files moves every frame but the leaf
  // back by one byte, into the call instruction, so that symbolization names the calling line;
  // the same is done here (a location of its own for each such address), so the two agree.
  uint64_t caller(uint64_t id) {
    if (!returnAddresses_) return id;
    if (locations_[id - 1].address == 0) return id;  // no address: nothing to move
    uint64_t& site = callSite_[id];
    if (site == 0) {
      Loc adjusted = locations_[id - 1];
      adjusted.address -= 1;
      // Unnamed, a frame is symbolized at its own address; named (a symbolized profile), it
      // keeps the function the stack has there.
      if (!m_.has(kCapNames)) adjusted.function = 0;
      locations_.push_back(adjusted);
      site = locations_.size();
    }
    return site;
  }

  void samples() {
    returnAddresses_ = period_ > 0 && addresses_;
    // Per location id: the id of its address - 1, 0 until a frame needs it.
    callSite_.assign(returnAddresses_ ? locations_.size() + 1 : 0, 0);
    std::vector<uint64_t> ids;
    if (m_.has(kCapStacks)) {
      stackSamples();
      return;
    }
    for (size_t l = 0; l < locationSelf_.size() / ne_; ++l) {
      ids.assign(1, l + 1);
      sample(ids, locationSelf_.data() + l * ne_);
    }
  }

  void stackSamples() {
    const StackLayer& st = m_.stacks();
    // Where the model says which location each frame is at (its call sites are callers'
    // frames already), a location's inline chain is as many frames of the stack.
    const bool frameLocations = addresses_ && !st.locations.empty() &&
                                (st.locationsOnly() || st.locations.size() == st.frames.size());
    const LocationLayer* at = frameLocations ? &m_.locations() : nullptr;
    std::vector<uint64_t> ids;
    // Where the model splits the stacks' values by thread, one sample per stack and thread.
    const size_t row = 2 + ne_;
    if (!st.threadValues.empty()) {
      for (size_t r = 0; r + row <= st.threadValues.size(); r += row) {
        sample(stackIds(st, at, st.threadValues[r], ids), st.threadValues.data() + r + 2,
               static_cast<int64_t>(st.threadValues[r + 1]));
      }
      return;
    }
    // No location has inline frames (a gperftools profile's): a frame is its location.
    const bool frameIds = at != nullptr && at->inlineStart.empty();
    for (size_t s = 0; s < st.stacks(); ++s) {
      const uint64_t* values = st.values.data() + s * ne_;
      if (frameIds && st.start[s + 1] > st.start[s] &&
          frameSample(st.locations.data(), st.start[s], st.start[s + 1], at->locations.size(),
                      values))
        continue;
      sample(stackIds(st, at, s, ids), values);
    }
  }

  // Stack s as location ids, leaf first, in `ids`.
  std::span<const uint64_t> stackIds(const StackLayer& st, const LocationLayer* at, size_t s,
                                     std::vector<uint64_t>& ids) {
    const bool frameLocations = at != nullptr;
    const uint64_t b = st.start[s];
    if (frameLocations && at->inlineStart.empty()) {
      // No location has inline frames (a gperftools profile's): a frame is its location. `ids`
      // only grows here, its first e - b taken: resized to each stack's depth, it was zeroed
      // afresh for each (18 M of the 1,079 M instructions of a 50 MB gperftools profile).
      const uint64_t e = st.start[s + 1], known = at->locations.size();
      if (ids.size() < e - b) ids.resize(e - b);
      uint64_t* out = ids.data();
      uint64_t i = e;
      for (; i > b && st.locations[i - 1] < known; --i) *out++ = st.locations[i - 1] + 1;
      if (i == b) return {ids.data(), e - b};
      // a frame at no location: as below
    }
    ids.clear();
    for (uint64_t i = st.start[s + 1]; i > b;) {
      const uint64_t li = frameLocations ? st.locations[i - 1] : ~uint64_t{0};
      if (frameLocations && li < at->locations.size()) {
        uint64_t n = at->frames(li);
        for (uint64_t k = 1; k < n && n <= i - b; ++k)
          if (st.locations[i - 1 - k] != li) n = 1;
        i -= n <= i - b ? n : 1;
        ids.push_back(li + 1);
        continue;
      }
      if (st.locationsOnly())  // its locations are all the model's
        throw Error(Status::internal, "pprof", "a stack frame at no location of the model");
      const uint64_t id = locationOfFunction_[st.frames[i - 1]];
      ids.push_back(i == st.start[s + 1] ? id : caller(id));
      --i;
    }
    return ids;
  }

  // Locations no sample uses (no self cost, only ever a caller) are kept, after the others;
  // call sites that no frame is at are left out.
  void keepUnusedLocations() {
    idOf_.resize(locations_.size() + 1, 0);
    for (size_t l = 0; l < locations_.size(); ++l)
      if (idOf_[l + 1] == 0 && !locations_[l].callSite) byId_.push_back(static_cast<uint32_t>(l));
    mappingCount_ = addresses_ ? m_.locations().mappings.size() : 0;
  }

  // Every location has a mapping, as pprof's own profiles do (consumers expect one): those the
  // model has none for get one per object their function names (its path, no address range).
  uint64_t mappingOf(const Loc& loc) {
    if (loc.mapping != 0) return loc.mapping;
    return objectMapping(loc.function != 0 ? m_.function(loc.function - 1).object : "");
  }

  // The mapping made for `object`'s locations: made (and written) on first use.
  uint64_t objectMapping(const std::string& object) {
    auto [it, added] = objectMapping_.try_emplace(object, mappingCount_ + 1);
    if (added) {
      ++mappingCount_;
      std::string mp;
      uintField(mp, 1, it->second);
      uintField(mp, 5, strings_.index(object));
      // Its locations carry their functions (and lines) where names are written at all.
      uintField(mp, 7, named_ ? 1 : 0);
      uintField(mp, 8, named_ ? 1 : 0);
      uintField(mp, 9, named_ && m_.has(kCapLines) ? 1 : 0);
      bytesField(msg_, 3, mp);
    }
    return it->second;
  }

  // Without the model's mappings, the program's object gets the first mapping, where the
  // profile names its command: pprof takes the first mapping for the main binary (`File:`),
  // which was the object of the first location written (`File: libm.so.6` for a program
  // Callgrind ran).
  void programMappingFirst() {
    if (addresses_) return;
    const size_t f =
        programObject(commandPath(m_.description()), m_.functions(),
                      [&](size_t i) -> const std::string& { return m_.function(i).object; });
    if (f < m_.functions()) objectMapping(m_.function(f).object);
  }

  void lineOf(std::string& lp, int64_t function, uint64_t line) const {
    if (function < 0 || static_cast<uint64_t>(function) >= m_.functions()) return;
    std::string lm;
    uintField(lm, 1, static_cast<uint64_t>(function) + 1);
    uintField(lm, 2, line);
    bytesField(lp, 4, lm);
  }

  void writeLocations() {
    const std::vector<InlineFrame>* inlined = addresses_ ? &m_.locations().inlined : nullptr;
    for (size_t k = 0; k < byId_.size(); ++k) {
      const Loc& loc = locations_[byId_[k]];
      std::string lp;
      uintField(lp, 1, k + 1);
      uintField(lp, 2, mappingOf(loc));
      uintField(lp, 3, loc.address);
      if (named_ && loc.frames > 1 && inlined &&
          uint64_t{loc.first} + loc.frames <= inlined->size()) {
        // Innermost first, as pprof writes inline frames.
        for (uint64_t i = uint64_t{loc.first} + loc.frames; i-- > loc.first;)
          lineOf(lp, (*inlined)[i].function, (*inlined)[i].line);
      } else if (named_ && loc.function != 0) {
        lineOf(lp, static_cast<int64_t>(loc.function - 1), loc.line);
      }
      bytesField(msg_, 4, lp);
      flush();
    }
  }

  void writeFunctions() {
    if (!named_) return;
    // Functions of one name, file and first line (V8's anonymous functions of one line of
    // minified code, told apart by their columns) get system names of their own, by which a
    // reader keeps them apart ("(anonymous) [7]": the function's id).
    // Counted by hash: nothing depends on their order.
    using Key = std::tuple<std::string_view, std::string_view, uint64_t>;
    std::unordered_map<Key, size_t, TupleHash> same;
    same.reserve(m_.functions());
    for (size_t f = 0; f < m_.functions(); ++f) {
      const FunctionRow& row = m_.function(f);
      ++same[{row.name, row.file, row.line}];
    }
    for (size_t f = 0; f < m_.functions(); ++f) {
      const FunctionRow& row = m_.function(f);
      std::string fp;
      uintField(fp, 1, f + 1);
      uintField(fp, 2, strings_.index(row.name));
      uintField(fp, 3,
                strings_.index(same[{row.name, row.file, row.line}] > 1
                                   ? row.name + " [" + std::to_string(f + 1) + "]"
                                   : row.name));
      uintField(fp, 4, strings_.index(row.file));
      // Where the function starts: two functions of one name and file (V8's anonymous ones)
      // stay two, which pprof would merge by name and file alone.
      if (row.line != 0) uintField(fp, 5, row.line);
      bytesField(msg_, 5, fp);
      flush();
    }
  }

  void periodType(const std::string& type, const std::string& unit, uint64_t period) {
    std::string pt;
    uintField(pt, 1, strings_.index(type));
    uintField(pt, 2, strings_.index(unit));
    bytesField(msg_, 11, pt);
    uintField(msg_, 12, period);
  }

  void writePeriod() {
    if (period_ > 0) {
      periodType("cpu", "nanoseconds", period_);
      return;
    }
    // A sampled event (DCPI's): each sample stands for `period` occurrences of the first
    // event whose period the source says.
    for (size_t e = 0; e < ne_; ++e)
      if (m_.eventPeriod(e) > 0) {
        periodType(m_.eventNames()[e], "count", m_.eventPeriod(e));
        return;
      }
  }

  const Model& m_;
  const size_t ne_;
  const uint64_t period_;
  const double perSecond_;
  const bool addTime_, isSigned_, addresses_, named_;
  Strings strings_;
  GzipStream gz_;
  std::string msg_;
  std::string mappings_;                      // the model's mappings: written after the samples
  std::vector<uint64_t> locationOfFunction_;  // location id per function
  std::vector<Loc> locations_;
  std::vector<uint64_t> locationSelf_;  // per location, ne values: for one-frame samples
  std::vector<uint64_t> idOf_;          // per location index + 1: its id, 0 = not used yet
  std::vector<uint32_t> byId_;          // per id - 1: the location's index
  std::string sampleBytes_;             // one sample with labels
  std::vector<char> scratch_;           // one sample's ids and values, being encoded
  bool returnAddresses_ = false;
  std::vector<uint64_t> callSite_;
  uint64_t mappingCount_ = 0;
  std::unordered_map<std::string, uint64_t> objectMapping_;
};

}  // namespace

std::string writePprof(const Model& m) {
  if (m.events() == 0)
    throw Error(Status::unsupported, "pprof", m.sourceFormat() + " holds no cost events");
  if (uint64_t{m.functions()} > (uint64_t{1} << 31) / 2)
    throw Error(Status::limit, "pprof", "too many functions for one profile.proto");
  return PprofWriter(m).write();
}

}  // namespace profpack
