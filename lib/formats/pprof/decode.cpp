// profile.proto decoded by hand, field by field as Go's github.com/google/pprof/profile/proto.go
// does (no protobuf library: about the same 300 lines, and no code generator or dependency):
// packed and unpacked repeated fields, unknown fields skipped, a repeated singular field's last
// value kept. Every allocation grows with bytes actually read, never with a length a field
// declares.

#include <string>

#include "error.h"
#include "formats/pprof/data.h"
#include "util/bytes.h"

namespace profpack {

namespace {

[[noreturn]] void bad(uint64_t at, const std::string& what) {
  throw Error(Status::malformed, "pprof", what, at);
}

// One field of a message: its number, wire type, and value (a varint/fixed, or bytes).
struct Field {
  uint64_t number = 0;
  unsigned wire = 0;
  uint64_t value = 0;
  const uint8_t* data = nullptr;
  size_t size = 0;
  uint64_t at = 0;  // offset of its tag in the message
};

class Reader {
 public:
  Reader(const uint8_t* base, const uint8_t* p, const uint8_t* end)
      : base_(base), p_(p), end_(end) {}
  bool done() const { return p_ >= end_; }
  uint64_t offset() const { return static_cast<uint64_t>(p_ - base_); }

  uint64_t varint() {
    uint64_t v = 0;
    for (unsigned i = 0;; ++i) {
      if (i >= 10 || p_ + i >= end_) bad(offset(), "bad varint (truncated or over 10 bytes)");
      v |= static_cast<uint64_t>(p_[i] & 0x7f) << (7 * i);
      if (!(p_[i] & 0x80)) {
        p_ += i + 1;
        return v;
      }
    }
  }

  Field field() {
    Field f;
    f.at = offset();
    const uint64_t key = varint();
    f.number = key >> 3;
    f.wire = static_cast<unsigned>(key & 7);
    switch (f.wire) {
      case 0: f.value = varint(); break;
      case 1:
        if (end_ - p_ < 8) bad(offset(), "fixed64 field cut short");
        f.value = rd64(p_);
        p_ += 8;
        break;
      case 2: {
        const uint64_t n = varint();
        if (n > static_cast<uint64_t>(end_ - p_))
          bad(f.at, "field " + std::to_string(f.number) + " declares " + std::to_string(n) +
                        " bytes, " + std::to_string(end_ - p_) + " are left");
        f.data = p_;
        f.size = static_cast<size_t>(n);
        p_ += n;
        break;
      }
      case 5:
        if (end_ - p_ < 4) bad(offset(), "fixed32 field cut short");
        f.value = rd32(p_);
        p_ += 4;
        break;
      default: bad(f.at, "unknown wire type " + std::to_string(f.wire));
    }
    return f;
  }
  Reader sub(const Field& f) const { return Reader(base_, f.data, f.data + f.size); }

 private:
  const uint8_t* base_;
  const uint8_t* p_;
  const uint8_t* end_;
};

void need(const Field& f, unsigned wire) {
  if (f.wire != wire)
    bad(f.at, "field " + std::to_string(f.number) + " has wire type " + std::to_string(f.wire) +
                  ", expected " + std::to_string(wire));
}

// A repeated integer field, packed (wire type 2) or one value (wire type 0).
template <class T, class Add>
void repeated(const Reader& r, const Field& f, Add add) {
  if (f.wire == 2) {
    Reader p = r.sub(f);
    while (!p.done()) add(static_cast<T>(p.varint()));
    return;
  }
  need(f, 0);
  add(static_cast<T>(f.value));
}

class Decoder {
 public:
  explicit Decoder(PprofData& d) : d_(d) {}

  uint64_t str(const Field& f) {
    need(f, 0);
    if (f.value > d_.maxString) {
      d_.maxString = f.value;
      d_.maxStringAt = f.at;
    }
    return f.value;
  }
  int64_t i64(const Field& f) {
    need(f, 0);
    return static_cast<int64_t>(f.value);
  }

  void valueType(const Reader& r, const Field& f, uint64_t& type, uint64_t& unit) {
    need(f, 2);
    type = unit = 0;
    for (Reader m = r.sub(f); !m.done();) {
      const Field g = m.field();
      if (g.number == 1) type = str(g);
      if (g.number == 2) unit = str(g);
    }
  }

  void label(const Reader& r, const Field& f) {
    need(f, 2);
    uint64_t key = 0, s = 0, unit = 0;
    int64_t num = 0;
    for (Reader m = r.sub(f); !m.done();) {
      const Field g = m.field();
      if (g.number == 1) key = str(g);
      if (g.number == 2) s = str(g);
      if (g.number == 3) num = i64(g);
      if (g.number == 4) unit = str(g);
    }
    d_.labelKey.push_back(key);
    d_.labelStr.push_back(s);
    d_.labelNum.push_back(num);
    d_.labelUnit.push_back(unit);
  }

  void sample(const Reader& r, const Field& f) {
    need(f, 2);
    d_.sampleAt.push_back(f.at);
    const size_t locations = d_.sampleLocation.size(), values = d_.sampleValue.size(),
                 labels = d_.labelKey.size();
    for (Reader m = r.sub(f); !m.done();) {
      const Field g = m.field();
      if (g.number == 1)
        repeated<uint64_t>(m, g, [&](uint64_t v) { d_.sampleLocation.push_back(v); });
      else if (g.number == 2)
        repeated<int64_t>(m, g, [&](int64_t v) { d_.sampleValue.push_back(v); });
      else if (g.number == 3)
        label(m, g);
    }
    d_.sampleFrames.push_back(d_.sampleLocation.size() - locations);
    d_.sampleValues.push_back(d_.sampleValue.size() - values);
    d_.sampleLabels.push_back(d_.labelKey.size() - labels);
  }

  void mapping(const Reader& r, const Field& f) {
    need(f, 2);
    d_.mappingAt.push_back(f.at);
    uint64_t v[7] = {};  // id, start, limit, offset, file, build id, flags
    for (Reader m = r.sub(f); !m.done();) {
      const Field g = m.field();
      if (g.number >= 1 && g.number <= 4) {
        need(g, 0);
        v[g.number - 1] = g.value;
      } else if (g.number == 5 || g.number == 6) {
        v[g.number - 1] = str(g);
      } else if (g.number >= 7 && g.number <= 10) {
        need(g, 0);
        const uint64_t bit = uint64_t{1} << (g.number - 7);
        v[6] = g.value != 0 ? v[6] | bit : v[6] & ~bit;
      }
    }
    d_.mappingId.push_back(v[0]);
    d_.mappingStart.push_back(v[1]);
    d_.mappingLimit.push_back(v[2]);
    d_.mappingOffset.push_back(v[3]);
    d_.mappingFile.push_back(v[4]);
    d_.mappingBuildId.push_back(v[5]);
    d_.mappingFlags.push_back(v[6]);
  }

  void line(const Reader& r, const Field& f) {
    need(f, 2);
    uint64_t function = 0;
    int64_t line = 0, column = 0;
    for (Reader m = r.sub(f); !m.done();) {
      const Field g = m.field();
      if (g.number == 1) {
        need(g, 0);
        function = g.value;
      }
      if (g.number == 2) line = i64(g);
      if (g.number == 3) column = i64(g);
    }
    d_.lineFunction.push_back(function);
    d_.lineLine.push_back(line);
    d_.lineColumn.push_back(column);
  }

  void location(const Reader& r, const Field& f) {
    need(f, 2);
    d_.locationAt.push_back(f.at);
    uint64_t id = 0, mapping = 0, address = 0, folded = 0;
    const size_t lines = d_.lineFunction.size();
    for (Reader m = r.sub(f); !m.done();) {
      const Field g = m.field();
      if (g.number == 4) {
        line(m, g);
        continue;
      }
      if (g.number < 1 || g.number > 5) continue;
      need(g, 0);
      if (g.number == 1) id = g.value;
      if (g.number == 2) mapping = g.value;
      if (g.number == 3) address = g.value;
      if (g.number == 5) folded = g.value != 0;
    }
    d_.locationId.push_back(id);
    d_.locationMapping.push_back(mapping);
    d_.locationAddress.push_back(address);
    d_.locationLines.push_back(d_.lineFunction.size() - lines);
    d_.locationFolded.push_back(folded);
  }

  void function(const Reader& r, const Field& f) {
    need(f, 2);
    d_.functionAt.push_back(f.at);
    uint64_t id = 0, name = 0, system = 0, file = 0;
    int64_t start = 0;
    for (Reader m = r.sub(f); !m.done();) {
      const Field g = m.field();
      if (g.number == 1) {
        need(g, 0);
        id = g.value;
      }
      if (g.number == 2) name = str(g);
      if (g.number == 3) system = str(g);
      if (g.number == 4) file = str(g);
      if (g.number == 5) start = i64(g);
    }
    d_.functionId.push_back(id);
    d_.functionName.push_back(name);
    d_.functionSystemName.push_back(system);
    d_.functionFile.push_back(file);
    d_.functionStartLine.push_back(start);
  }

  void profile(Reader r) {
    std::vector<std::string_view>& strings = d_.strings;
    while (!r.done()) {
      const Field f = r.field();
      switch (f.number) {
        case 1:
          d_.sampleType.push_back(0);
          d_.sampleUnit.push_back(0);
          valueType(r, f, d_.sampleType.back(), d_.sampleUnit.back());
          break;
        case 2: sample(r, f); break;
        case 3: mapping(r, f); break;
        case 4: location(r, f); break;
        case 5: function(r, f); break;
        case 6:
          need(f, 2);
          if (strings.empty() && f.size != 0) bad(f.at, "string_table[0] must be ''");
          strings.emplace_back(reinterpret_cast<const char*>(f.data), f.size);
          break;
        case 7: d_.dropFrames = str(f); break;
        case 8: d_.keepFrames = str(f); break;
        case 9:
          // Go refuses a second time_nanos: two profiles concatenated.
          if (d_.timeNanos != 0) bad(f.at, "time_nanos given twice (concatenated profiles)");
          d_.timeNanos = i64(f);
          break;
        case 10: d_.durationNanos = i64(f); break;
        case 11:
          d_.hasPeriodType = true;
          valueType(r, f, d_.periodType, d_.periodUnit);
          break;
        case 12: d_.period = i64(f); break;
        case 13:
          repeated<uint64_t>(r, f, [&](uint64_t v) {
            if (v > d_.maxString) {
              d_.maxString = v;
              d_.maxStringAt = f.at;
            }
            d_.comments.push_back(v);
          });
          break;
        case 14: d_.defaultSampleType = str(f); break;
        case 15: d_.docUrl = str(f); break;
        default: break;  // unknown fields are skipped, as by Go's decoder
      }
    }
  }

 private:
  PprofData& d_;
};

}  // namespace

void decodePprofMessage(std::span<const uint8_t> data, PprofData& out) {
  Decoder(out).profile(Reader(data.data(), data.data(), data.data() + data.size()));
}

}  // namespace profpack
