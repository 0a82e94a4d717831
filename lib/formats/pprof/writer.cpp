#include <string>
#include <unordered_map>
#include <vector>

#include "error.h"
#include "formats/pprof/pprof.h"
#include "util/gzip.h"

namespace profpack {

namespace {

// Protocol buffer wire format, the few pieces profile.proto needs.
void varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>(v | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
void tag(std::string& out, unsigned field, unsigned wire) { varint(out, field << 3 | wire); }
void uintField(std::string& out, unsigned field, uint64_t v) {
  if (v == 0) return;  // proto3: defaults are not written
  tag(out, field, 0);
  varint(out, v);
}
void bytesField(std::string& out, unsigned field, std::string_view bytes) {
  tag(out, field, 2);
  varint(out, bytes.size());
  out.append(bytes);
}
size_t varintSize(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}
void packed(std::string& out, unsigned field, const std::vector<uint64_t>& values) {
  if (values.empty()) return;
  size_t size = 0;
  for (uint64_t v : values) size += varintSize(v);
  tag(out, field, 2);
  varint(out, size);
  for (uint64_t v : values) varint(out, v);
}

class Strings {
 public:
  Strings() { index(""); }
  uint64_t index(const std::string& s) {
    auto [it, added] = ids_.try_emplace(s, table_.size());
    if (added) table_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& table() const { return table_; }

 private:
  std::unordered_map<std::string, uint64_t> ids_;
  std::vector<std::string> table_;
};

// zlib's level 2, not its default 6: a 1.2 MB profile.proto of 40,000 stacks compresses on one
// core in 13 ms instead of 53 (level 4: 20 ms), for 15% more bytes than level 6 (level 4: 9%).
// Go's runtime/pprof writes its own profiles at level 1. A profile kept for later is better
// kept as .ppk.
constexpr int kGzipLevel = 2;

}  // namespace

std::string writePprof(const Model& m) {
  const size_t ne = m.events();
  if (ne == 0)
    throw Error(Status::unsupported, "pprof", m.sourceFormat() + " holds no cost events");
  if (uint64_t{m.functions()} > (uint64_t{1} << 31) / 2)
    throw Error(Status::limit, "pprof", "too many functions for one profile.proto");
  Strings strings;
  // The message goes to gzip as it is made: its chunks are compressed meanwhile (see flush).
  GzipStream gz(kGzipLevel);
  std::string msg;
  auto flush = [&] {
    if (msg.size() < kGzipChunk / 4) return;
    gz.append(msg);
    msg.clear();
  };
  // Sample types: every event; a sampled profile also its CPU time, a timed one its
  // nanoseconds (pprof's conventions for gperftools' "samples"/"cpu").
  const uint64_t period = m.samplePeriodNanos();
  const double perSecond = m.unitsPerSecond();
  const bool addTime = period > 0 || perSecond > 0;
  auto valueType = [&](unsigned field, const std::string& type, const std::string& unit) {
    std::string vt;
    uintField(vt, 1, strings.index(type));
    uintField(vt, 2, strings.index(unit));
    bytesField(msg, field, vt);
  };
  for (size_t e = 0; e < ne; ++e)
    valueType(1, m.eventNames()[e],
              period > 0      ? "count"
              : perSecond > 0 ? m.eventNames()[e]
                              : "count");
  if (addTime) valueType(1, period > 0 ? "cpu" : "time", "nanoseconds");
  // pprof's values are int64: a time beyond that (or a corrupt .ppk's) is capped; a
  // difference's negative costs give negative times.
  const bool isSigned = m.has(kCapSigned);
  auto nanos = [&](uint64_t v) -> uint64_t {
    const bool negative = isSigned && static_cast<int64_t>(v) < 0;
    const uint64_t magnitude = negative ? ~v + 1 : v;
    const long double x = period > 0 ? static_cast<long double>(magnitude) * period
                                     : static_cast<long double>(magnitude) * 1e9L / perSecond;
    const uint64_t r = x >= 9.2e18L ? INT64_MAX : static_cast<uint64_t>(x + 0.5L);
    return negative ? ~r + 1 : r;
  };

  // Mappings and locations.
  const bool addresses = m.has(kCapAddresses);
  std::vector<uint64_t> locationOfFunction(m.functions(), 0);  // location id per function
  struct Loc {
    uint64_t address = 0, mapping = 0, function = 0, line = 0;
    // Where the model has inline frames there: locations().inlined[first, first + frames),
    // outermost first (frames 0: the one function and line above).
    uint64_t first = 0, frames = 0;
    bool callSite = false;
  };
  std::vector<Loc> locations;
  std::vector<uint64_t> locationSelf;  // per location, ne values: for one-frame samples
  std::string mappings;
  if (addresses) {
    const LocationLayer& at = m.locations();
    for (size_t i = 0; i < at.mappings.size(); ++i) {
      const Mapping& map = at.mappings[i];
      std::string mp;
      uintField(mp, 1, i + 1);
      uintField(mp, 2, map.start);
      uintField(mp, 3, map.limit);
      uintField(mp, 4, map.offset);
      uintField(mp, 5, strings.index(map.path));
      // What symbolization would not add: names (and lines) where the model has them.
      uintField(mp, 7, m.has(kCapNames) ? 1 : 0);
      uintField(mp, 8, m.has(kCapNames) ? 1 : 0);
      uintField(mp, 9, m.has(kCapNames) && m.has(kCapLines) ? 1 : 0);
      bytesField(mappings, 3, mp);
    }
    for (size_t l = 0; l < at.locations.size(); ++l) {
      const Location& loc = at.locations[l];
      const bool known = loc.function >= 0 && static_cast<uint64_t>(loc.function) < m.functions();
      const bool mapped =
          loc.mapping >= 0 && static_cast<uint64_t>(loc.mapping) < at.mappings.size();
      Loc add{loc.address, mapped ? static_cast<uint64_t>(loc.mapping) + 1 : 0,
              known ? static_cast<uint64_t>(loc.function) + 1 : 0, loc.line};
      add.callSite = loc.callSite;
      if (!at.inlineStart.empty() && at.frames(l) > 1) {
        add.first = at.inlineStart[l];
        add.frames = at.frames(l);
      }
      locations.push_back(add);
      if (known && !loc.callSite && locationOfFunction[loc.function] == 0)
        locationOfFunction[loc.function] = locations.size();
      locationSelf.insert(locationSelf.end(), at.self.begin() + l * ne,
                          at.self.begin() + (l + 1) * ne);
    }
  }
  // Without addresses, sources with lines (Callgrind, Cachegrind) get a location per
  // (function, line) with its self cost, so that pprof's -lines and -list see them.
  if (!addresses && !m.has(kCapStacks) && m.has(kCapLines)) {
    const FunctionLineLayer& fl = m.functionLines();
    for (size_t r = 0; r < fl.rows.size(); ++r) {
      locations.push_back({0, 0, fl.rows[r].function + 1, fl.rows[r].line});
      if (locationOfFunction[fl.rows[r].function] == 0)
        locationOfFunction[fl.rows[r].function] = locations.size();
      locationSelf.insert(locationSelf.end(), fl.self.begin() + r * ne,
                          fl.self.begin() + (r + 1) * ne);
    }
  }
  // Functions at no address or line get a location of their own (XRay, Callgrind without
  // instr or line).
  for (size_t f = 0; f < m.functions(); ++f) {
    if (locationOfFunction[f] != 0) continue;
    locations.push_back({0, 0, f + 1, 0});
    locationOfFunction[f] = locations.size();
    if (!m.has(kCapStacks) && !addresses)
      for (size_t e = 0; e < ne; ++e) locationSelf.push_back(m.self(f, e));
  }
  // Names are functions only where the model has them (not bare addresses).
  const bool named = m.has(kCapNames) || !addresses;

  // Samples. Location ids are numbered in order of first use, as pprof numbers them: the
  // frequent frames of the first samples get one-byte ids, which makes a stack profile about
  // a third smaller before compression (and its compression as much faster).
  std::vector<uint64_t> idOf;  // per location index + 1: its id, 0 = not used yet
  std::vector<uint32_t> byId;  // per id - 1: the location's index
  auto renumber = [&](std::vector<uint64_t>& ids) {
    if (idOf.size() <= locations.size()) idOf.resize(locations.size() + 1, 0);
    for (uint64_t& id : ids) {
      uint64_t& to = idOf[id];
      if (to == 0) {
        byId.push_back(static_cast<uint32_t>(id - 1));
        to = byId.size();
      }
      id = to;
    }
  };
  std::string s;            // one sample
  std::vector<uint64_t> v;  // its values
  auto sample = [&](std::vector<uint64_t>& leafFirst, const uint64_t* values) {
    bool any = false;
    for (size_t e = 0; e < ne; ++e) any |= values[e] != 0;
    if (!any) return;
    renumber(leafFirst);
    s.clear();
    packed(s, 1, leafFirst);
    v.assign(values, values + ne);
    if (addTime) v.push_back(nanos(values[0]));
    packed(s, 2, v);
    bytesField(msg, 2, s);
    flush();
  };
  std::vector<uint64_t> ids;
  // Sampled stacks of return addresses (gperftools): a caller's frame is the address after its
  // call instruction. pprof's own conversion of these files moves every frame but the leaf
  // back by one byte, into the call instruction, so that symbolization names the calling line;
  // the same is done here (a location of its own for each such address), so the two agree.
  const bool returnAddresses = period > 0 && addresses;
  // Per location id: the id of its address - 1, 0 until a frame needs it.
  std::vector<uint64_t> callSite(returnAddresses ? locations.size() + 1 : 0, 0);
  auto caller = [&](uint64_t id) {
    if (!returnAddresses) return id;
    if (locations[id - 1].address == 0) return id;  // no address: nothing to move
    uint64_t& site = callSite[id];
    if (site == 0) {
      Loc adjusted = locations[id - 1];
      adjusted.address -= 1;
      // Unnamed, a frame is symbolized at its own address; named (a symbolized profile), it
      // keeps the function the stack has there.
      if (!m.has(kCapNames)) adjusted.function = 0;
      locations.push_back(adjusted);
      site = locations.size();
    }
    return site;
  };
  if (m.has(kCapStacks)) {
    const StackLayer& st = m.stacks();
    // Where the model says which location each frame is at (its call sites are callers'
    // frames already), a location's inline chain is as many frames of the stack.
    const bool frameLocations =
        addresses && !st.locations.empty() && st.locations.size() == st.frames.size();
    const LocationLayer* at = frameLocations ? &m.locations() : nullptr;
    for (size_t s = 0; s < st.stacks(); ++s) {
      ids.clear();
      const uint64_t b = st.start[s];
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
        const uint64_t id = locationOfFunction[st.frames[i - 1]];
        ids.push_back(i == st.start[s + 1] ? id : caller(id));
        --i;
      }
      sample(ids, st.values.data() + s * ne);
    }
  } else {
    for (size_t l = 0; l < locationSelf.size() / ne; ++l) {
      ids.assign(1, l + 1);
      sample(ids, locationSelf.data() + l * ne);
    }
  }
  msg += mappings;
  // Locations no sample uses (no self cost, only ever a caller) are kept, after the others;
  // call sites that no frame is at are left out.
  idOf.resize(locations.size() + 1, 0);
  for (size_t l = 0; l < locations.size(); ++l)
    if (idOf[l + 1] == 0 && !locations[l].callSite) byId.push_back(static_cast<uint32_t>(l));
  // Every location has a mapping, as pprof's own profiles do (consumers expect one): those the
  // model has none for get one per object their function names (its path, no address range).
  uint64_t mappingCount = addresses ? m.locations().mappings.size() : 0;
  std::unordered_map<std::string, uint64_t> objectMapping;
  auto mappingOf = [&](const Loc& loc) {
    if (loc.mapping != 0) return loc.mapping;
    const std::string& object = loc.function != 0 ? m.function(loc.function - 1).object : "";
    auto [it, added] = objectMapping.try_emplace(object, mappingCount + 1);
    if (added) {
      ++mappingCount;
      std::string mp;
      uintField(mp, 1, it->second);
      uintField(mp, 5, strings.index(object));
      // Its locations carry their functions (and lines) where names are written at all.
      uintField(mp, 7, named ? 1 : 0);
      uintField(mp, 8, named ? 1 : 0);
      uintField(mp, 9, named && m.has(kCapLines) ? 1 : 0);
      bytesField(msg, 3, mp);
    }
    return it->second;
  };
  const std::vector<InlineFrame>* inlined = addresses ? &m.locations().inlined : nullptr;
  auto lineOf = [&](std::string& lp, int64_t function, uint64_t line) {
    if (function < 0 || static_cast<uint64_t>(function) >= m.functions()) return;
    std::string lm;
    uintField(lm, 1, static_cast<uint64_t>(function) + 1);
    uintField(lm, 2, line);
    bytesField(lp, 4, lm);
  };
  for (size_t k = 0; k < byId.size(); ++k) {
    const Loc& loc = locations[byId[k]];
    std::string lp;
    uintField(lp, 1, k + 1);
    uintField(lp, 2, mappingOf(loc));
    uintField(lp, 3, loc.address);
    if (named && loc.frames > 1 && inlined && loc.first + loc.frames <= inlined->size()) {
      // Innermost first, as pprof writes inline frames.
      for (uint64_t i = loc.first + loc.frames; i-- > loc.first;)
        lineOf(lp, (*inlined)[i].function, (*inlined)[i].line);
    } else if (named && loc.function != 0) {
      lineOf(lp, static_cast<int64_t>(loc.function - 1), loc.line);
    }
    bytesField(msg, 4, lp);
    flush();
  }
  if (named)
    for (size_t f = 0; f < m.functions(); ++f) {
      const FunctionRow& row = m.function(f);
      std::string fp;
      uintField(fp, 1, f + 1);
      uintField(fp, 2, strings.index(row.name));
      uintField(fp, 3, strings.index(row.name));
      uintField(fp, 4, strings.index(row.file));
      bytesField(msg, 5, fp);
      flush();
    }
  if (period > 0) {
    std::string pt;
    uintField(pt, 1, strings.index("cpu"));
    uintField(pt, 2, strings.index("nanoseconds"));
    bytesField(msg, 11, pt);
    uintField(msg, 12, period);
  } else {
    // A sampled event (DCPI's): each sample stands for `period` occurrences of the first
    // event whose period the source says.
    for (size_t e = 0; e < ne; ++e)
      if (m.eventPeriod(e) > 0) {
        std::string pt;
        uintField(pt, 1, strings.index(m.eventNames()[e]));
        uintField(pt, 2, strings.index("count"));
        bytesField(msg, 11, pt);
        uintField(msg, 12, m.eventPeriod(e));
        break;
      }
  }
  // The type pprof shows by default: the time where there is one (its own default, the last
  // type), else the first event.
  if (!addTime) uintField(msg, 14, strings.index(m.eventNames()[0]));
  for (const std::string& s : strings.table()) {
    bytesField(msg, 6, s);
    flush();
  }
  gz.append(msg);
  return gz.finish();
}

}  // namespace profpack
