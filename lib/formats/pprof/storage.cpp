// The checks pprof makes of a decoded profile, and the IR's pprof section (ir::Pprof) written
// from and read back into PprofData.

#include <algorithm>
#include <string>

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
  encodeColumn(b.initSampleFrames(), d.sampleFrames, Enc::VARINT_RUNS);
  encodeColumn(b.initSampleLocation(), d.sampleLocation);
  encodeColumn(b.initSampleValue(), zigzags(d.sampleValue));
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
  encodeColumn(b.initLocationAddress(), d.locationAddress, Enc::ZIGZAG_DELTA);
  encodeColumn(b.initLocationLines(), d.locationLines, Enc::VARINT_RUNS);
  encodeColumn(b.initLocationFolded(), d.locationFolded, Enc::VARINT_RUNS);
  encodeColumn(b.initLineFunction(), d.lineFunction, Enc::ZIGZAG_DELTA);
  encodeColumn(b.initLineLine(), zigzags(d.lineLine));
  encodeColumn(b.initLineColumn(), zigzags(d.lineColumn), Enc::VARINT_RUNS);
  encodeColumn(b.initFunctionId(), d.functionId, Enc::ZIGZAG_DELTA_RUNS);
  encodeColumn(b.initFunctionName(), strs(d.functionName));
  encodeColumn(b.initFunctionSystemName(), strs(d.functionSystemName));
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
  d.sampleFrames = decodeColumn(b.getSampleFrames());
  d.sampleLocation = decodeColumn(b.getSampleLocation());
  d.sampleValue = unzigzags(decodeColumn(b.getSampleValue()));
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
  d.locationAddress = decodeColumn(b.getLocationAddress());
  d.locationLines = decodeColumn(b.getLocationLines());
  d.locationFolded = decodeColumn(b.getLocationFolded());
  d.lineFunction = decodeColumn(b.getLineFunction());
  d.lineLine = unzigzags(decodeColumn(b.getLineLine()));
  d.lineColumn = unzigzags(decodeColumn(b.getLineColumn()));
  d.functionId = decodeColumn(b.getFunctionId());
  d.functionName = decodeColumn(b.getFunctionName());
  d.functionSystemName = decodeColumn(b.getFunctionSystemName());
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
  const uint64_t types = d.sampleType.size();
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
