// pprof profiles merged as Go's profile.Merge merges them (`go tool pprof -proto A B`):
// mappings of one object (size, file offset, build id or file) become one, the later ones'
// addresses moved onto the first one's; functions and locations equal in content become one;
// samples with the same locations and labels add up; times and durations as Go combines them
// (earliest time, summed durations, largest period, comments once each). The sample types must
// be the same.

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "error.h"
#include "formats/pprof/data.h"
#include "formats/pprof/ids.h"
#include "formats/pprof/pprof.h"
#include "ir/column.h"

namespace profpack {

void buildPprofIR(const PprofData& d, const std::vector<uint64_t>& str, ir::Pprof::Builder b);

namespace {

class PprofMerge : public FormatMerge {
 public:
  void add(const Profile& profile) override {
    const PprofData d = pprofFromIR(profile);
    checkPprof(d, "ppk");
    auto s = [&](uint64_t i) { return std::string(d.strings[i]); };
    header(d, s);
    // Mappings, functions, locations: each to its merged id (0: not yet), as the samples
    // reach them (Go's merge keeps only what a sample uses).
    std::vector<uint64_t> mapping(d.mappingId.size(), 0), function(d.functionId.size(), 0),
        location(d.locationId.size(), 0);
    std::vector<int64_t> shift(d.mappingId.size(), 0);
    auto mapMapping = [&](size_t m) {
      if (mapping[m] != 0) return;
      const std::string object = d.mappingBuildId[m] ? s(d.mappingBuildId[m]) : s(d.mappingFile[m]);
      auto [it, added] = mappings_.try_emplace(
          std::tuple(d.mappingLimit[m] - d.mappingStart[m], d.mappingOffset[m], object),
          out_.mappingId.size());
      if (added) {
        out_.mappingId.push_back(it->second + 1);
        out_.mappingStart.push_back(d.mappingStart[m]);
        out_.mappingLimit.push_back(d.mappingLimit[m]);
        out_.mappingOffset.push_back(d.mappingOffset[m]);
        out_.mappingFile.push_back(str(s(d.mappingFile[m])));
        out_.mappingBuildId.push_back(str(s(d.mappingBuildId[m])));
        out_.mappingFlags.push_back(d.mappingFlags[m]);
      }
      mapping[m] = it->second + 1;
      shift[m] = static_cast<int64_t>(out_.mappingStart[it->second] - d.mappingStart[m]);
    };
    auto mapFunction = [&](size_t f) {
      if (function[f] != 0) return function[f];
      auto [it, added] =
          functions_.try_emplace(std::tuple(s(d.functionName[f]), s(d.functionSystemName[f]),
                                            s(d.functionFile[f]), d.functionStartLine[f]),
                                 out_.functionId.size() + 1);
      if (added) {
        out_.functionId.push_back(it->second);
        out_.functionName.push_back(str(s(d.functionName[f])));
        out_.functionSystemName.push_back(str(s(d.functionSystemName[f])));
        out_.functionFile.push_back(str(s(d.functionFile[f])));
        out_.functionStartLine.push_back(d.functionStartLine[f]);
      }
      return function[f] = it->second;
    };
    const IdIndex mappingIndex(d.mappingId), functionIndex(d.functionId);
    std::vector<uint64_t> firstLine(d.locationId.size() + 1, 0);
    for (size_t l = 0; l < d.locationId.size(); ++l)
      firstLine[l + 1] = firstLine[l] + d.locationLines[l];
    auto mapLocation = [&](size_t l) {
      if (location[l] != 0) return location[l];
      const uint64_t m = mappingIndex.find(d.locationMapping[l]);
      if (m != IdIndex::kNone) mapMapping(m);
      std::vector<int64_t> key{
          m == IdIndex::kNone ? 0 : static_cast<int64_t>(mapping[m]),
          static_cast<int64_t>(d.locationAddress[l] + (m == IdIndex::kNone ? 0 : shift[m])),
          static_cast<int64_t>(d.locationFolded[l])};
      for (uint64_t k = firstLine[l]; k < firstLine[l + 1]; ++k) {
        key.push_back(static_cast<int64_t>(mapFunction(functionIndex.find(d.lineFunction[k]))));
        key.push_back(d.lineLine[k]);
        key.push_back(d.lineColumn[k]);
      }
      auto [it, added] = locations_.try_emplace(key, out_.locationId.size() + 1);
      if (added) {
        out_.locationId.push_back(it->second);
        out_.locationMapping.push_back(static_cast<uint64_t>(key[0]));
        out_.locationAddress.push_back(static_cast<uint64_t>(key[1]));
        out_.locationFolded.push_back(d.locationFolded[l]);
        out_.locationLines.push_back(d.locationLines[l]);
        for (size_t i = 3; i < key.size(); i += 3) {
          out_.lineFunction.push_back(static_cast<uint64_t>(key[i]));
          out_.lineLine.push_back(key[i + 1]);
          out_.lineColumn.push_back(key[i + 2]);
        }
      }
      return location[l] = it->second;
    };
    samples(d, s, mapLocation);
  }

  // As `go tool pprof -diff_base` adds the base: every sample labelled pprof::base=true (a
  // label of that key it had replaced), its values times -1; the totals pprof shows
  // percentages of are those samples'.
  bool takesBase() const override { return true; }
  void addBase(const Profile& profile) override {
    base_ = true;
    try {
      add(profile);
    } catch (...) {
      base_ = false;
      throw;
    }
    base_ = false;
  }

  std::unique_ptr<Profile> finish() override {
    // Samples in the order first seen, values summed.
    for (const Sample& x : samples_) {
      out_.sampleFrames.push_back(x.locations.size());
      out_.sampleLocation.insert(out_.sampleLocation.end(), x.locations.begin(), x.locations.end());
      out_.sampleValue.insert(out_.sampleValue.end(), x.values.begin(), x.values.end());
      out_.sampleLabels.push_back(x.labels.size());
      for (const auto& [key, s, num, unit] : x.labels) {
        out_.labelKey.push_back(key);
        out_.labelStr.push_back(s);
        out_.labelNum.push_back(num);
        out_.labelUnit.push_back(unit);
      }
    }
    out_.gzipped = true;
    std::vector<bool> used(strings_.size(), true);
    const std::vector<uint64_t> remap = strings_.sortAndCompact(used);
    auto msg = newMessage();
    auto root = msg->getRoot<ir::Profile>();
    root.setFormat(ir::Format::PPROF);
    strings_.build(root.initStrings());
    // Every string field holds an interner index: buildPprofIR maps it through remap.
    buildPprofIR(out_, remap, root.initPprof());
    return std::make_unique<Profile>(std::move(msg));
  }

 private:
  using Label = std::tuple<uint64_t, uint64_t, int64_t, uint64_t>;  // merged string indexes
  struct Sample {
    std::vector<uint64_t> locations;
    std::vector<Label> labels;
    std::vector<int64_t> values;
  };

  uint64_t str(const std::string& s) { return s.empty() ? 0 : strings_.intern(s); }

  template <class S>
  void header(const PprofData& d, S s) {
    std::vector<std::pair<std::string, std::string>> types;
    for (size_t t = 0; t < d.sampleType.size(); ++t)
      types.emplace_back(s(d.sampleType[t]), s(d.sampleUnit[t]));
    if (inputs_++ == 0) {
      types_ = types;
      for (const auto& [type, unit] : types) {
        out_.sampleType.push_back(str(type));
        out_.sampleUnit.push_back(str(unit));
      }
      out_.hasPeriodType = d.hasPeriodType;
      out_.periodType = str(s(d.periodType));
      out_.periodUnit = str(s(d.periodUnit));
      out_.docUrl = str(s(d.docUrl));
    } else if (types != types_) {
      throw Error(Status::invalidArgument, "pprof",
                  "the profiles have different sample types: pprof merges only profiles of the "
                  "same sample types");
    }
    if (out_.timeNanos == 0 || d.timeNanos < out_.timeNanos) out_.timeNanos = d.timeNanos;
    out_.durationNanos += d.durationNanos;
    if (out_.period == 0 || out_.period < d.period) out_.period = d.period;
    for (uint64_t c : d.comments)
      if (comments_.insert(s(c)).second) out_.comments.push_back(str(s(c)));
    if (out_.defaultSampleType == 0) out_.defaultSampleType = str(s(d.defaultSampleType));
  }

  template <class S, class L>
  void samples(const PprofData& d, S s, L location) {
    const IdIndex locationIndex(d.locationId);
    const size_t types = d.sampleType.size();
    for (size_t i = 0, at = 0, label = 0; i < d.sampleFrames.size(); ++i) {
      Sample x;
      for (uint64_t k = 0; k < d.sampleFrames[i]; ++k)
        x.locations.push_back(location(locationIndex.find(d.sampleLocation[at + k])));
      for (uint64_t k = 0; k < d.sampleLabels[i]; ++k, ++label)
        if (!base_ || s(d.labelKey[label]) != kBaseLabel)
          x.labels.emplace_back(str(s(d.labelKey[label])), str(s(d.labelStr[label])),
                                d.labelNum[label], str(s(d.labelUnit[label])));
      if (base_) x.labels.emplace_back(str(kBaseLabel), str("true"), 0, 0);
      at += d.sampleFrames[i];
      std::vector<Label> sorted = x.labels;
      std::sort(sorted.begin(), sorted.end());
      auto [it, added] = sampleIndex_.try_emplace(std::pair(x.locations, sorted), samples_.size());
      // Two's complement: a value negated or summed wraps as Go's int64 does.
      auto value = [&](size_t t) {
        const uint64_t v = static_cast<uint64_t>(d.sampleValue[i * types + t]);
        return base_ ? ~v + 1 : v;
      };
      if (added) {
        for (size_t t = 0; t < types; ++t) x.values.push_back(static_cast<int64_t>(value(t)));
        samples_.push_back(std::move(x));
        continue;
      }
      std::vector<int64_t>& v = samples_[it->second].values;
      for (size_t t = 0; t < types; ++t)
        v[t] = static_cast<int64_t>(static_cast<uint64_t>(v[t]) + value(t));
    }
  }

  static constexpr const char* kBaseLabel = "pprof::base";
  bool base_ = false;  // the profile being added is a difference's base
  PprofData out_;
  StringInterner strings_;
  size_t inputs_ = 0;
  std::vector<std::pair<std::string, std::string>> types_;
  std::set<std::string> comments_;
  std::map<std::tuple<uint64_t, uint64_t, std::string>, uint64_t> mappings_;
  std::map<std::tuple<std::string, std::string, std::string, int64_t>, uint64_t> functions_;
  std::map<std::vector<int64_t>, uint64_t> locations_;
  std::map<std::pair<std::vector<uint64_t>, std::vector<Label>>, size_t> sampleIndex_;
  std::vector<Sample> samples_;
};

}  // namespace

std::unique_ptr<FormatMerge> pprofMerge() { return std::make_unique<PprofMerge>(); }

}  // namespace profpack
