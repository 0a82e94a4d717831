// The checks pprof makes of a decoded profile, and the IR's pprof section (ir::Pprof) written
// from and read back into PprofData.

#include <algorithm>
#include <string>
#include <unordered_map>

#include "error.h"
#include "formats/pprof/data.h"
#include "formats/pprof/ids.h"
#include "ir/column.h"

namespace profpack {

namespace {

using Enc = ir::Column::Encoding;

uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t unzigzag(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

std::vector<uint64_t> zigzags(const std::vector<int64_t>& v) {
  std::vector<uint64_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = zigzag(v[i]);
  return out;
}
std::vector<int64_t> unzigzags(const std::vector<uint64_t>& v) {
  std::vector<int64_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = unzigzag(v[i]);
  return out;
}

uint64_t at(const std::vector<uint64_t>& offsets, size_t i) {
  return i < offsets.size() ? offsets[i] : kUnknown;
}

// Every string field of `d`, to `f(index)`.
template <class F>
void forEachString(const PprofData& d, F f) {
  for (const auto* v :
       {&d.sampleType, &d.sampleUnit, &d.labelKey, &d.labelStr, &d.labelUnit, &d.mappingFile,
        &d.mappingBuildId, &d.functionName, &d.functionSystemName, &d.functionFile, &d.comments})
    for (uint64_t s : *v) f(s);
  for (uint64_t s :
       {d.dropFrames, d.keepFrames, d.periodType, d.periodUnit, d.defaultSampleType, d.docUrl})
    f(s);
}

IdIndex uniqueIds(const std::vector<uint64_t>& ids, const std::vector<uint64_t>& offsets,
                  const char* what, const char* format) {
  IdIndex index(ids);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == 0)
      throw Error(Status::malformed, format, std::string(what) + " with the reserved id 0",
                  at(offsets, i));
    if (index.find(ids[i]) != i)
      throw Error(Status::malformed, format,
                  std::string("two ") + what + "s with id " + std::to_string(ids[i]),
                  at(offsets, i));
  }
  return index;
}

// Residual codings of the IR (lib/ir/profile.capnp, Pprof): each value against what the
// values before it predict. All arithmetic wraps modulo 2^64.
std::vector<uint64_t> lineResiduals(const std::vector<uint64_t>& function,
                                    const std::vector<int64_t>& line) {
  std::unordered_map<uint64_t, int64_t> last;
  std::vector<uint64_t> out(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    int64_t& r = last[function[i]];
    out[i] =
        zigzag(static_cast<int64_t>(static_cast<uint64_t>(line[i]) - static_cast<uint64_t>(r)));
    r = line[i];
  }
  return out;
}
std::vector<int64_t> linesFromResiduals(const std::vector<uint64_t>& function,
                                        const std::vector<uint64_t>& residual) {
  if (function.size() != residual.size())
    throw Error(Status::malformed, "ppk", "pprof line columns disagree in length");
  std::unordered_map<uint64_t, int64_t> last;
  std::vector<int64_t> out(residual.size());
  for (size_t i = 0; i < residual.size(); ++i) {
    int64_t& r = last[function[i]];
    r = static_cast<int64_t>(static_cast<uint64_t>(r) +
                             static_cast<uint64_t>(unzigzag(residual[i])));
    out[i] = r;
  }
  return out;
}

// Addresses (encode: residuals of d.locationAddress; decode: d.locationAddress from the
// residuals in `values`, given the lines).
std::vector<uint64_t> addressResiduals(PprofData& d, bool encode,
                                       std::vector<uint64_t> values = {}) {
  std::unordered_map<uint64_t, uint64_t> last;  // innermost function id -> address
  std::vector<uint64_t> out(encode ? d.locationAddress.size() : values.size());
  uint64_t prev = 0;
  for (size_t l = 0, k = 0; l < out.size(); ++l) {
    const uint64_t n = l < d.locationLines.size() ? d.locationLines[l] : 0;
    k += n;
    uint64_t* r = &prev;
    if (n > 0 && k <= d.lineFunction.size()) {
      auto [it, added] = last.try_emplace(d.lineFunction[k - 1], prev);
      r = &it->second;
    }
    const uint64_t a =
        encode ? d.locationAddress[l] : *r + static_cast<uint64_t>(unzigzag(values[l]));
    out[l] = encode ? zigzag(static_cast<int64_t>(a - *r)) : a;
    *r = a;
    prev = a;
  }
  return out;
}
std::vector<uint64_t> addressResiduals(const PprofData& d, bool encode) {
  return addressResiduals(const_cast<PprofData&>(d), encode, {});
}

// Long columns of irregular values (sample values, stacks, addresses) are range-coded: for
// flate-cpu.pb.gz (15 KB) the .ppk is 7% smaller. Short ones stay varints, where the range
// coder's padding would cost more than it saves (tests/data/pprof/go-cpu.pb.gz: 2% larger).
constexpr size_t kAdaptiveValues = 512;
Enc irregular(size_t values) { return values >= kAdaptiveValues ? Enc::ADAPTIVE : Enc::VARINT; }

// Stacks: each less the outermost ids it shares with the one before; the rest outermost first,
// each id coded against its caller's last callee and the largest id so far.
void encodeStacks(const PprofData& d, ir::Pprof::Builder b) {
  bool plain = false;
  for (uint64_t id : d.sampleLocation) plain |= id >= ~uint64_t{0} - 1;
  std::vector<uint64_t> shared, count, rest;
  std::unordered_map<uint64_t, uint64_t> callee;
  uint64_t most = 0;
  for (size_t s = 0, at = 0, prevAt = 0, prevN = 0; s < d.sampleFrames.size(); ++s) {
    const size_t n = d.sampleFrames[s];
    const uint64_t* ids = d.sampleLocation.data() + at;  // leaf first
    size_t k = 0;
    while (k < n && k < prevN && ids[n - 1 - k] == d.sampleLocation[prevAt + prevN - 1 - k]) ++k;
    shared.push_back(k);
    count.push_back(n - k);
    uint64_t caller = k > 0 ? ids[n - k] : 0;
    for (size_t i = n - k; i-- > 0;) {
      const uint64_t id = ids[i];
      uint64_t& c = callee[caller];
      rest.push_back(plain ? id : id == c && c != 0 ? 0 : id == most + 1 ? 1 : id + 2);
      c = id;
      most = std::max(most, id);
      caller = id;
    }
    prevAt = at;
    prevN = n;
    at += n;
  }
  b.setPlainStacks(plain);
  encodeColumn(b.initSampleShared(), shared, irregular(shared.size()));
  encodeColumn(b.initSampleFrames(), count, irregular(count.size()));
  encodeColumn(b.initSampleLocation(), rest, irregular(rest.size()));
}

void decodeStacks(ir::Pprof::Reader b, PprofData& d) {
  const std::vector<uint64_t> shared = decodeColumn(b.getSampleShared()),
                              count = decodeColumn(b.getSampleFrames()),
                              rest = decodeColumn(b.getSampleLocation());
  if (shared.size() != count.size())
    throw Error(Status::malformed, "ppk", "pprof sample columns disagree in length");
  const bool plain = b.getPlainStacks();
  std::unordered_map<uint64_t, uint64_t> callee;
  uint64_t most = 0;
  std::vector<uint64_t> outer;  // one stack, outermost first
  for (size_t s = 0, r = 0, prevAt = 0, prevN = 0; s < shared.size(); ++s) {
    const uint64_t k = shared[s], n = count[s];
    if (k > prevN || n > rest.size() - r)
      throw Error(Status::malformed, "ppk",
                  "pprof sample " + std::to_string(s) + ": its stack disagrees with the columns");
    outer.clear();
    for (uint64_t i = 0; i < k; ++i) outer.push_back(d.sampleLocation[prevAt + prevN - 1 - i]);
    uint64_t caller = k > 0 ? outer.back() : 0;
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t v = rest[r + i];
      uint64_t& c = callee[caller];
      const uint64_t id = plain ? v : v == 0 ? c : v == 1 ? most + 1 : v - 2;
      outer.push_back(id);
      c = id;
      most = std::max(most, id);
      caller = id;
    }
    r += n;
    prevAt = d.sampleLocation.size();
    prevN = outer.size();
    d.sampleLocation.insert(d.sampleLocation.end(), outer.rbegin(), outer.rend());
    d.sampleFrames.push_back(outer.size());
  }
}

}  // namespace

void checkPprof(const PprofData& d, const char* format) {
  if (d.strings.empty())
    throw Error(Status::malformed, format, "no string table (string_table[0] must be '')", 0);
  uint64_t most = 0;
  forEachString(d, [&](uint64_t s) { most = std::max(most, s); });
  if (most >= d.strings.size())
    throw Error(Status::malformed, format,
                "string index " + std::to_string(most) + " out of range: the string table has " +
                    std::to_string(d.strings.size()) + " strings",
                d.maxString == most ? d.maxStringAt : kUnknown);
  const size_t types = d.sampleType.size(), samples = d.sampleFrames.size();
  if (types == 0 && samples != 0)
    throw Error(Status::malformed, format, "samples but no sample types", at(d.sampleAt, 0));
  for (size_t s = 0; s < d.sampleValues.size(); ++s)
    if (d.sampleValues[s] != types)
      throw Error(Status::malformed, format,
                  "sample " + std::to_string(s) + " has " + std::to_string(d.sampleValues[s]) +
                      " values for " + std::to_string(types) + " sample types",
                  at(d.sampleAt, s));
  if (d.sampleValue.size() != samples * types || d.sampleLabels.size() != samples)
    throw Error(Status::malformed, format, "sample values or labels disagree with the samples");
  uint64_t frames = 0, labels = 0, lines = 0;
  for (uint64_t n : d.sampleFrames) frames += n;
  for (uint64_t n : d.sampleLabels) labels += n;
  for (uint64_t n : d.locationLines) lines += n;
  if (frames != d.sampleLocation.size() || labels != d.labelKey.size() ||
      d.labelStr.size() != labels || d.labelNum.size() != labels || d.labelUnit.size() != labels ||
      lines != d.lineFunction.size() || d.lineLine.size() != lines || d.lineColumn.size() != lines)
    throw Error(Status::malformed, format, "pprof columns disagree in length");
  const size_t nm = d.mappingId.size(), nl = d.locationId.size(), nf = d.functionId.size();
  for (const auto* v : {&d.mappingStart, &d.mappingLimit, &d.mappingOffset, &d.mappingFile,
                        &d.mappingBuildId, &d.mappingFlags})
    if (v->size() != nm) throw Error(Status::malformed, format, "mapping columns disagree");
  for (const auto* v :
       {&d.locationMapping, &d.locationAddress, &d.locationLines, &d.locationFolded})
    if (v->size() != nl) throw Error(Status::malformed, format, "location columns disagree");
  for (const auto* v : {&d.functionName, &d.functionSystemName, &d.functionFile})
    if (v->size() != nf) throw Error(Status::malformed, format, "function columns disagree");
  if (d.functionStartLine.size() != nf)
    throw Error(Status::malformed, format, "function columns disagree");
  uniqueIds(d.mappingId, d.mappingAt, "mapping", format);
  const IdIndex functions = uniqueIds(d.functionId, d.functionAt, "function", format);
  const IdIndex locations = uniqueIds(d.locationId, d.locationAt, "location", format);
  // A location's mapping id that names no mapping is no mapping, as in Go's decoder; a line
  // needs its function, a sample its locations.
  for (size_t l = 0, k = 0; l < nl; ++l)
    for (uint64_t i = 0; i < d.locationLines[l]; ++i, ++k)
      if (functions.find(d.lineFunction[k]) == IdIndex::kNone)
        throw Error(Status::malformed, format,
                    "location " + std::to_string(d.locationId[l]) + " has a line of function " +
                        std::to_string(d.lineFunction[k]) + ", which no function has",
                    at(d.locationAt, l));
  for (size_t s = 0, k = 0; s < samples; ++s)
    for (uint64_t i = 0; i < d.sampleFrames[s]; ++i, ++k)
      if (locations.find(d.sampleLocation[k]) == IdIndex::kNone)
        throw Error(Status::malformed, format,
                    "sample " + std::to_string(s) + " has location id " +
                        std::to_string(d.sampleLocation[k]) + ", which no location has",
                    at(d.sampleAt, s));
}

void buildPprofIR(const PprofData& d, const std::vector<uint64_t>& str, ir::Pprof::Builder b) {
  auto strs = [&](const std::vector<uint64_t>& v) {
    std::vector<uint64_t> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = str[v[i]];
    return out;
  };
  b.setGzipped(d.gzipped);
  encodeColumn(b.initSampleType(), strs(d.sampleType));
  encodeColumn(b.initSampleUnit(), strs(d.sampleUnit));
  encodeStacks(d, b);
  // Values type by type.
  const size_t types = d.sampleType.size(), samples = d.sampleFrames.size();
  std::vector<uint64_t> values(d.sampleValue.size());
  for (size_t s = 0; s < samples; ++s)
    for (size_t t = 0; t < types; ++t)
      values[t * samples + s] = zigzag(d.sampleValue[s * types + t]);
  encodeColumn(b.initSampleValue(), values, irregular(values.size()));
  encodeColumn(b.initSampleLabels(), d.sampleLabels, Enc::VARINT_RUNS);
  encodeColumn(b.initLabelKey(), strs(d.labelKey), Enc::VARINT_RUNS);
  encodeColumn(b.initLabelStr(), strs(d.labelStr));
  encodeColumn(b.initLabelNum(), zigzags(d.labelNum));
  encodeColumn(b.initLabelUnit(), strs(d.labelUnit), Enc::VARINT_RUNS);
  encodeColumn(b.initMappingId(), d.mappingId, Enc::ZIGZAG_DELTA_RUNS);
  encodeColumn(b.initMappingStart(), d.mappingStart, Enc::ZIGZAG_DELTA);
  encodeColumn(b.initMappingLimit(), d.mappingLimit, Enc::ZIGZAG_DELTA);
  encodeColumn(b.initMappingOffset(), d.mappingOffset);
  encodeColumn(b.initMappingFile(), strs(d.mappingFile));
  encodeColumn(b.initMappingBuildId(), strs(d.mappingBuildId));
  encodeColumn(b.initMappingFlags(), d.mappingFlags, Enc::VARINT_RUNS);
  encodeColumn(b.initLocationId(), d.locationId, Enc::ZIGZAG_DELTA_RUNS);
  encodeColumn(b.initLocationMapping(), d.locationMapping, Enc::VARINT_RUNS);
  encodeColumn(b.initLocationAddress(), addressResiduals(d, true),
               irregular(d.locationAddress.size()));
  encodeColumn(b.initLocationLines(), d.locationLines, Enc::VARINT_RUNS);
  encodeColumn(b.initLocationFolded(), d.locationFolded, Enc::VARINT_RUNS);
  encodeColumn(b.initLineFunction(), d.lineFunction, Enc::ZIGZAG_DELTA);
  encodeColumn(b.initLineLine(), lineResiduals(d.lineFunction, d.lineLine));
  encodeColumn(b.initLineColumn(), zigzags(d.lineColumn), Enc::VARINT_RUNS);
  encodeColumn(b.initFunctionId(), d.functionId, Enc::ZIGZAG_DELTA_RUNS);
  encodeColumn(b.initFunctionName(), strs(d.functionName));
  std::vector<uint64_t> system = strs(d.functionSystemName);
  for (size_t i = 0; i < system.size(); ++i)
    system[i] = d.functionSystemName[i] == d.functionName[i] ? 0 : system[i] + 1;
  encodeColumn(b.initFunctionSystemName(), system);
  encodeColumn(b.initFunctionFile(), strs(d.functionFile));
  encodeColumn(b.initFunctionStartLine(), zigzags(d.functionStartLine));
  b.setDropFrames(str[d.dropFrames]);
  b.setKeepFrames(str[d.keepFrames]);
  b.setTimeNanos(d.timeNanos);
  b.setDurationNanos(d.durationNanos);
  b.setPeriodType(str[d.periodType]);
  b.setPeriodUnit(str[d.periodUnit]);
  b.setHasPeriodType(d.hasPeriodType);
  b.setPeriod(d.period);
  encodeColumn(b.initComments(), strs(d.comments));
  b.setDefaultSampleType(str[d.defaultSampleType]);
  b.setDocUrl(str[d.docUrl]);
}

PprofData pprofFromIR(const Profile& profile) {
  const ir::Pprof::Reader b = profile.root().getPprof();
  PprofData d;
  const StringTableReader& table = profile.strings();
  d.strings.reserve(table.size());
  for (uint64_t i = 0; i < table.size(); ++i) d.strings.push_back(table.get(i));
  if (d.strings.empty()) d.strings.emplace_back();
  d.gzipped = b.getGzipped();
  d.sampleType = decodeColumn(b.getSampleType());
  d.sampleUnit = decodeColumn(b.getSampleUnit());
  decodeStacks(b, d);
  const std::vector<uint64_t> values = decodeColumn(b.getSampleValue());
  const size_t types = b.getSampleType().getCount(), samples = d.sampleFrames.size();
  if (types == 0 || values.size() != types * samples)
    d.sampleValue = unzigzags(values);  // checkPprof refuses it
  else
    for (size_t s = 0; s < samples; ++s)
      for (size_t t = 0; t < types; ++t) d.sampleValue.push_back(unzigzag(values[t * samples + s]));
  d.sampleLabels = decodeColumn(b.getSampleLabels());
  d.labelKey = decodeColumn(b.getLabelKey());
  d.labelStr = decodeColumn(b.getLabelStr());
  d.labelNum = unzigzags(decodeColumn(b.getLabelNum()));
  d.labelUnit = decodeColumn(b.getLabelUnit());
  d.mappingId = decodeColumn(b.getMappingId());
  d.mappingStart = decodeColumn(b.getMappingStart());
  d.mappingLimit = decodeColumn(b.getMappingLimit());
  d.mappingOffset = decodeColumn(b.getMappingOffset());
  d.mappingFile = decodeColumn(b.getMappingFile());
  d.mappingBuildId = decodeColumn(b.getMappingBuildId());
  d.mappingFlags = decodeColumn(b.getMappingFlags());
  d.locationId = decodeColumn(b.getLocationId());
  d.locationMapping = decodeColumn(b.getLocationMapping());
  d.locationLines = decodeColumn(b.getLocationLines());
  d.locationFolded = decodeColumn(b.getLocationFolded());
  d.lineFunction = decodeColumn(b.getLineFunction());
  d.lineLine = linesFromResiduals(d.lineFunction, decodeColumn(b.getLineLine()));
  d.lineColumn = unzigzags(decodeColumn(b.getLineColumn()));
  d.functionId = decodeColumn(b.getFunctionId());
  d.functionName = decodeColumn(b.getFunctionName());
  d.functionSystemName = decodeColumn(b.getFunctionSystemName());
  if (d.functionSystemName.size() != d.functionName.size())
    throw Error(Status::malformed, "ppk", "pprof function columns disagree in length");
  for (size_t i = 0; i < d.functionSystemName.size(); ++i)
    d.functionSystemName[i] =
        d.functionSystemName[i] == 0 ? d.functionName[i] : d.functionSystemName[i] - 1;
  d.functionFile = decodeColumn(b.getFunctionFile());
  d.functionStartLine = unzigzags(decodeColumn(b.getFunctionStartLine()));
  d.dropFrames = b.getDropFrames();
  d.keepFrames = b.getKeepFrames();
  d.timeNanos = b.getTimeNanos();
  d.durationNanos = b.getDurationNanos();
  d.periodType = b.getPeriodType();
  d.periodUnit = b.getPeriodUnit();
  d.hasPeriodType = b.getHasPeriodType();
  d.period = b.getPeriod();
  d.comments = decodeColumn(b.getComments());
  d.defaultSampleType = b.getDefaultSampleType();
  d.docUrl = b.getDocUrl();
  d.locationAddress = addressResiduals(d, false, decodeColumn(b.getLocationAddress()));
  if (d.sampleUnit.size() != types)
    throw Error(Status::malformed, "ppk", "pprof sample type and unit columns disagree");
  // Values per sample: as many as the sample types, where the columns agree (checkPprof
  // refuses the rest).
  if (types != 0 && d.sampleValue.size() == d.sampleFrames.size() * types)
    d.sampleValues.assign(d.sampleFrames.size(), types);
  else
    d.sampleValues.assign(d.sampleFrames.size(), 0);
  return d;
}

}  // namespace profpack
