// A pprof profile written back from the IR: the message encoded field by field in the order
// and with the default-omission of Go's encoder, its string table numbered in order of first
// use (only the strings a field uses), gzipped as the file was.

#include <string>

#include "error.h"
#include "formats/pprof/data.h"
#include "formats/pprof/pprof.h"
#include "util/gzip.h"

namespace profpack {

namespace {

class Encoder {
 public:
  explicit Encoder(const PprofData& d) : d_(d), index_(d.strings.size(), 0) { table_.push_back(0); }

  void varint(std::string& out, uint64_t v) {
    while (v >= 0x80) {
      out += static_cast<char>(v | 0x80);
      v >>= 7;
    }
    out += static_cast<char>(v);
  }
  void tag(std::string& out, unsigned field, unsigned wire) { varint(out, field << 3 | wire); }
  void opt(std::string& out, unsigned field, uint64_t v) {
    if (v == 0) return;
    tag(out, field, 0);
    varint(out, v);
  }
  void bytes(std::string& out, unsigned field, std::string_view b) {
    tag(out, field, 2);
    varint(out, b.size());
    out.append(b);
  }
  template <class T>
  void packed(std::string& out, unsigned field, const T* v, size_t n) {
    if (n == 0) return;
    scratch_.clear();
    for (size_t i = 0; i < n; ++i) varint(scratch_, static_cast<uint64_t>(v[i]));
    bytes(out, field, scratch_);
  }
  // The written index of string s, numbered in order of first use.
  uint64_t str(uint64_t s) {
    if (s == 0) return 0;
    if (index_[s] == 0) {
      index_[s] = table_.size();
      table_.push_back(s);
    }
    return index_[s];
  }
  void valueType(std::string& out, unsigned field, uint64_t type, uint64_t unit) {
    std::string vt;
    opt(vt, 1, str(type));
    opt(vt, 2, str(unit));
    bytes(out, field, vt);
  }

  void samples(std::string& out) {
    const size_t types = d_.sampleType.size();
    size_t loc = 0, label = 0;
    std::string s, l;
    for (size_t i = 0; i < d_.sampleFrames.size(); ++i) {
      s.clear();
      packed(s, 1, d_.sampleLocation.data() + loc, d_.sampleFrames[i]);
      loc += d_.sampleFrames[i];
      packed(s, 2, d_.sampleValue.data() + i * types, types);
      for (uint64_t k = 0; k < d_.sampleLabels[i]; ++k, ++label) {
        l.clear();
        opt(l, 1, str(d_.labelKey[label]));
        opt(l, 2, str(d_.labelStr[label]));
        opt(l, 3, static_cast<uint64_t>(d_.labelNum[label]));
        opt(l, 4, str(d_.labelUnit[label]));
        bytes(s, 3, l);
      }
      bytes(out, 2, s);
    }
  }

  void mappings(std::string& out) {
    std::string m;
    for (size_t i = 0; i < d_.mappingId.size(); ++i) {
      m.clear();
      opt(m, 1, d_.mappingId[i]);
      opt(m, 2, d_.mappingStart[i]);
      opt(m, 3, d_.mappingLimit[i]);
      opt(m, 4, d_.mappingOffset[i]);
      opt(m, 5, str(d_.mappingFile[i]));
      opt(m, 6, str(d_.mappingBuildId[i]));
      for (unsigned b = 0; b < 4; ++b) opt(m, 7 + b, d_.mappingFlags[i] >> b & 1);
      bytes(out, 3, m);
    }
  }

  void locations(std::string& out) {
    std::string m, ln;
    size_t line = 0;
    for (size_t i = 0; i < d_.locationId.size(); ++i) {
      m.clear();
      opt(m, 1, d_.locationId[i]);
      opt(m, 2, d_.locationMapping[i]);
      opt(m, 3, d_.locationAddress[i]);
      for (uint64_t k = 0; k < d_.locationLines[i]; ++k, ++line) {
        ln.clear();
        opt(ln, 1, d_.lineFunction[line]);
        opt(ln, 2, static_cast<uint64_t>(d_.lineLine[line]));
        opt(ln, 3, static_cast<uint64_t>(d_.lineColumn[line]));
        bytes(m, 4, ln);
      }
      opt(m, 5, d_.locationFolded[i]);
      bytes(out, 4, m);
    }
  }

  void functions(std::string& out) {
    std::string m;
    for (size_t i = 0; i < d_.functionId.size(); ++i) {
      m.clear();
      opt(m, 1, d_.functionId[i]);
      opt(m, 2, str(d_.functionName[i]));
      opt(m, 3, str(d_.functionSystemName[i]));
      opt(m, 4, str(d_.functionFile[i]));
      opt(m, 5, static_cast<uint64_t>(d_.functionStartLine[i]));
      bytes(out, 5, m);
    }
  }

  std::string message() {
    std::string out;
    for (size_t i = 0; i < d_.sampleType.size(); ++i)
      valueType(out, 1, d_.sampleType[i], d_.sampleUnit[i]);
    samples(out);
    mappings(out);
    locations(out);
    functions(out);
    // The scalars' strings are numbered before the table is written.
    std::string tail;
    opt(tail, 7, str(d_.dropFrames));
    opt(tail, 8, str(d_.keepFrames));
    opt(tail, 9, static_cast<uint64_t>(d_.timeNanos));
    opt(tail, 10, static_cast<uint64_t>(d_.durationNanos));
    if (d_.hasPeriodType) valueType(tail, 11, d_.periodType, d_.periodUnit);
    opt(tail, 12, static_cast<uint64_t>(d_.period));
    std::vector<uint64_t> comments;
    for (uint64_t c : d_.comments) comments.push_back(str(c));
    packed(tail, 13, comments.data(), comments.size());
    opt(tail, 14, str(d_.defaultSampleType));
    opt(tail, 15, str(d_.docUrl));
    for (uint64_t s : table_) bytes(out, 6, d_.strings[s]);
    return out + tail;
  }

 private:
  const PprofData& d_;
  std::vector<uint64_t> index_;  // per string of d_: its written index (0: not yet)
  std::vector<uint64_t> table_;  // the written table: indexes into d_.strings
  std::string scratch_;
};

}  // namespace

std::string encodePprofMessage(const PprofData& d) { return Encoder(d).message(); }

std::string writePprofIR(const Profile& profile) {
  const PprofData d = pprofFromIR(profile);
  checkPprof(d, "ppk");
  std::string msg = encodePprofMessage(d);
  // Go's runtime/pprof writes at gzip's best speed; so does this.
  return d.gzipped ? gzipCompress(msg, 1) : msg;
}

}  // namespace profpack
