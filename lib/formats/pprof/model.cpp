// The model of a pprof profile, as `go tool pprof` reads one: every sample type an event; a
// function is (name, file, object) — object the file of the mapping of the first location
// whose lines name it; a location's lines (innermost first in the file) are its inline
// frames, so a stack is the samples' locations, outermost first, each spelled out as its
// frames. Self cost goes to the innermost frame of a sample's first location; inclusive cost
// and call arcs count once per sample, as pprof's flat and cum do. Locations without lines are
// one function per mapping, named as pprof's -top names them: `[base name of the mapping's
// file]`, or `<unknown>` without a mapping. Values are int64: negative ones (a
// difference) make the profile signed.

#include <algorithm>
#include <exception>
#include <map>
#include <numeric>
#include <optional>
#include <regex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "error.h"
#include "formats/pprof/data.h"
#include "formats/pprof/ids.h"
#include "formats/pprof/pprof.h"

namespace profpack {

namespace {

// Units per second of a sample type whose unit is time (as pprof's measurement package names
// them), else 0: "samples", "count", "bytes" are not time.
double timeUnitsPerSecond(std::string_view unit) {
  static const std::pair<std::string_view, double> kTime[] = {
      {"nanoseconds", 1e9}, {"nanosecond", 1e9}, {"ns", 1e9},           {"microseconds", 1e6},
      {"microsecond", 1e6}, {"us", 1e6},         {"milliseconds", 1e3}, {"millisecond", 1e3},
      {"ms", 1e3},          {"seconds", 1},      {"second", 1},         {"s", 1}};
  for (const auto& [name, perSecond] : kTime)
    if (unit == name) return perSecond;
  return 0;
}

struct Frame {
  uint64_t function = 0;
  uint64_t line = 0;
};

class PprofSource : public ModelSource {
 public:
  PprofSource(const Profile& profile, const ModelOptions& options)
      : profile_(profile), callEdges_(options.callEdges) {
    // The reader's decoded message where this is the profile's first model since it was read
    // (given back when done, unfiltered), else the IR decoded and checked.
    std::unique_ptr<Profile::Decoded> taken;
    if (options.tags.empty()) taken = profile.takeDecoded();
    if (auto* read = dynamic_cast<DecodedPprof*>(taken.get())) {
      d_ = std::move(read->data);
      fromReader_ = true;
    } else {
      d_ = pprofFromIR(profile);
      checkPprof(d_, "ppk");
    }
    // The base's total is of all its samples, as pprof's is: a tag filter narrows the rows,
    // not what their shares are of. So it is taken before the filter (else when asked for).
    if (!options.tags.empty()) {
      baseTotal_ = baseTotals();
      keepTagged(options.tags);
    }
    ne_ = d_.sampleType.size();
    const IdIndex mappings(d_.mappingId), locations(d_.locationId);
    functionIndex_ = IdIndex(d_.functionId);
    locationMapping_.resize(d_.locationId.size());
    for (size_t l = 0; l < d_.locationId.size(); ++l) {
      const uint64_t m = mappings.find(d_.locationMapping[l]);
      locationMapping_[l] = m == IdIndex::kNone ? -1 : static_cast<int64_t>(m);
    }
    sampleLocation_.resize(d_.sampleLocation.size());
    for (size_t i = 0; i < d_.sampleLocation.size(); ++i)
      sampleLocation_[i] = locations.find(d_.sampleLocation[i]);
    sampleStart_.assign(d_.sampleFrames.size() + 1, 0);
    for (size_t s = 0; s < d_.sampleFrames.size(); ++s)
      sampleStart_[s + 1] = sampleStart_[s] + d_.sampleFrames[s];
    for (int64_t v : d_.sampleValue) signed_ |= v < 0;
    for (int64_t v : d_.lineLine) lines_ |= v != 0;
    for (uint64_t a : d_.locationAddress) addresses_ |= a != 0;
  }

  ~PprofSource() override {
    if (!fromReader_) return;
    auto back = std::make_unique<DecodedPprof>();
    back->data = std::move(d_);
    profile_.returnDecoded(std::move(back));
  }

  uint32_t capabilities() const override {
    uint32_t caps = kCapCallArcs | kCapStacks;
    if (addresses_) caps |= kCapAddresses;
    if (!d_.functionId.empty()) caps |= kCapNames;
    if (lines_) caps |= kCapLines;
    if (signed_) caps |= kCapSigned;
    caps |= kCapLabels;
    return caps;
  }

  void functions(FunctionLayer& out) override {
    for (size_t e = 0; e < ne_; ++e) {
      out.eventNames.emplace_back(d_.strings[d_.sampleType[e]]);
      out.eventLongNames.emplace_back(d_.strings[d_.sampleUnit[e]]);
      out.eventUnitsPerSecond.push_back(timeUnitsPerSecond(d_.strings[d_.sampleUnit[e]]));
    }
    frames(out);
    // Two halves of the samples summed on two threads where there are many, added up in order:
    // the same figures and the same arcs in the same order (first met first) as one pass.
    const size_t n = sampleStart_.size() - 1, nf = out.functions.size();
    std::vector<Sums> parts(n >= kParallelSamples ? 2 : 1);
    if (parts.size() == 2) {
      std::exception_ptr failed;
      std::thread first;
      try {
        first = std::thread([&] {
          try {
            sum(0, n / 2, nf, parts[0]);
          } catch (...) {
            failed = std::current_exception();
          }
        });
      } catch (const std::system_error&) {
        sum(0, n / 2, nf, parts[0]);  // no thread to be had: one after the other
      }
      sum(n / 2, n, nf, parts[1]);
      if (first.joinable()) first.join();
      if (failed) std::rethrow_exception(failed);
    } else {
      sum(0, n, nf, parts[0]);
    }
    std::unordered_map<uint64_t, size_t> edgeOf;  // caller << 32 | callee -> edge
    for (const Sums& p : parts) {
      for (size_t i = 0; i < p.self.size(); ++i) {
        out.self[i] += p.self[i];
        out.inclusive[i] += p.inclusive[i];
      }
      for (size_t a = 0; a < p.arcs.size(); ++a) {
        const auto [caller, callee] = p.arcs[a];
        auto [it, added] = edgeOf.try_emplace(caller << 32 | callee, out.edges.size());
        if (added) out.addEdge(caller, callee, 0);
        uint64_t* c = out.edgeCost(it->second);
        for (size_t e = 0; e < ne_; ++e) c[e] += p.arcCost[a * ne_ + e];
      }
    }
    if (std::vector<uint64_t> base = baseTotal_ ? *baseTotal_ : baseTotals(); !base.empty())
      out.baseTotals = std::move(base);
  }

  // What a run of samples adds up to: per function its self and inclusive cost, and the call
  // arcs in the order the run first meets them, each with its cost.
  struct Sums {
    std::vector<uint64_t> self, inclusive;
    std::vector<std::pair<uint64_t, uint64_t>> arcs;  // (caller, callee)
    std::vector<uint64_t> arcCost;                    // ne_ per arc
  };
  static constexpr size_t kParallelSamples = size_t{1} << 16;

  // Samples [begin, end): a function or arc counts once per sample.
  void sum(size_t begin, size_t end, size_t nf, Sums& out) const {
    out.self.assign(nf * ne_, 0);
    out.inclusive.assign(nf * ne_, 0);
    std::vector<uint64_t> seen(nf, ~uint64_t{0});
    // Per caller, its callees and their arcs: few per caller, so searched in a row (a hash
    // lookup per frame took a third of a large profile's model); a caller with many callees
    // has them in a hash map instead, so the cost stays linear.
    constexpr size_t kRow = 16;
    std::vector<std::vector<std::pair<uint64_t, size_t>>> arcs(nf);
    std::unordered_map<uint64_t, size_t> manyArcs;  // caller << 32 | callee -> arc
    std::vector<uint64_t> arcSeen;
    std::vector<uint64_t> stack;
    for (size_t s = begin; s < end; ++s) {
      const uint64_t* v = reinterpret_cast<const uint64_t*>(d_.sampleValue.data()) + s * ne_;
      expand(s, stack);
      if (stack.empty()) continue;
      const uint64_t leaf = frame_[stack.back()].function;
      for (size_t e = 0; e < ne_; ++e) out.self[leaf * ne_ + e] += v[e];
      for (size_t i = 0; i < stack.size(); ++i) {
        const uint64_t f = frame_[stack[i]].function;
        if (seen[f] != s) {
          seen[f] = s;
          for (size_t e = 0; e < ne_; ++e) out.inclusive[f * ne_ + e] += v[e];
        }
        if (!callEdges_ || i == 0) continue;
        const uint64_t caller = frame_[stack[i - 1]].function;
        size_t arc = out.arcs.size();
        std::vector<std::pair<uint64_t, size_t>>& row = arcs[caller];
        if (row.size() <= kRow) {
          for (const auto& [callee, a] : row)
            if (callee == f) {
              arc = a;
              break;
            }
        } else if (auto it = manyArcs.find(caller << 32 | f); it != manyArcs.end()) {
          arc = it->second;
        }
        if (arc == out.arcs.size()) {
          if (row.size() <= kRow) row.emplace_back(f, arc);
          if (row.size() > kRow) {
            for (const auto& [callee, a] : row) manyArcs.emplace(caller << 32 | callee, a);
            row.resize(kRow + 1);  // marks the caller as kept in manyArcs
            manyArcs.emplace(caller << 32 | f, arc);
          }
          out.arcs.emplace_back(caller, f);
          out.arcCost.resize(out.arcCost.size() + ne_, 0);
          arcSeen.push_back(~uint64_t{0});
        }
        if (arcSeen[arc] == s) continue;
        arcSeen[arc] = s;
        uint64_t* c = out.arcCost.data() + arc * ne_;
        for (size_t e = 0; e < ne_; ++e) c[e] += v[e];
      }
    }
  }

  // pprof's computeTotal: where samples carry pprof::base=true (a difference saved by
  // `go tool pprof -proto -diff_base`, or profpack's), the total is the sum of their values'
  // magnitudes.
  std::vector<uint64_t> baseTotals() const {
    const size_t ne = d_.sampleType.size();
    std::vector<uint64_t> total(ne, 0);
    bool any = false;
    for (size_t s = 0, label = 0; s < d_.sampleLabels.size(); label += d_.sampleLabels[s++]) {
      bool base = false;
      for (uint64_t k = label; k < label + d_.sampleLabels[s]; ++k)
        base |= d_.strings[d_.labelKey[k]] == "pprof::base" && d_.strings[d_.labelStr[k]] == "true";
      if (!base) continue;
      any = true;
      for (size_t e = 0; e < ne; ++e) {
        const int64_t v = d_.sampleValue[s * ne + e];
        total[e] += v < 0 ? ~static_cast<uint64_t>(v) + 1 : static_cast<uint64_t>(v);
      }
    }
    if (!any) total.clear();
    return total;
  }

  void locations(LocationLayer& out) override {
    for (size_t m = 0; m < d_.mappingId.size(); ++m)
      out.mappings.push_back({d_.mappingStart[m], d_.mappingLimit[m], d_.mappingOffset[m],
                              std::string(d_.strings[d_.mappingFile[m]])});
    const size_t nl = d_.locationId.size();
    std::vector<uint64_t> order(nl);
    std::iota(order.begin(), order.end(), 0);
    auto key = [&](uint64_t l) {
      const Frame& f = frame_[frameStart_[l + 1] - 1];
      return std::tuple(locationMapping_[l], d_.locationAddress[l], f.function, f.line);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](uint64_t a, uint64_t b) { return key(a) < key(b); });
    rank_.assign(nl, 0);
    for (size_t i = 0; i < nl; ++i) rank_[order[i]] = i;
    std::vector<uint64_t> self(nl * ne_, 0);
    for (size_t s = 0; s + 1 < sampleStart_.size(); ++s) {
      if (sampleStart_[s] == sampleStart_[s + 1]) continue;
      const uint64_t* v = reinterpret_cast<const uint64_t*>(d_.sampleValue.data()) + s * ne_;
      const uint64_t l = sampleLocation_[sampleStart_[s]];
      for (size_t e = 0; e < ne_; ++e) self[l * ne_ + e] += v[e];
    }
    bool inlined = false;
    for (size_t l = 0; l < nl; ++l) inlined |= frameStart_[l + 1] - frameStart_[l] > 1;
    if (inlined) out.inlineStart.push_back(0);
    for (uint64_t l : order) {
      const Frame& f = frame_[frameStart_[l + 1] - 1];
      out.locations.push_back(
          {d_.locationAddress[l], locationMapping_[l], static_cast<int64_t>(f.function), f.line});
      out.self.insert(out.self.end(), self.begin() + l * ne_, self.begin() + (l + 1) * ne_);
      if (!inlined) continue;
      for (uint64_t k = frameStart_[l]; k < frameStart_[l + 1]; ++k)
        out.inlined.push_back({static_cast<int64_t>(frame_[k].function), frame_[k].line});
      out.inlineStart.push_back(out.inlined.size());
    }
  }

  void stacks(StackLayer& out) override {
    if (rank_.empty() && !d_.locationId.empty()) {
      LocationLayer unused;
      locations(unused);
    }
    // One entry per distinct sequence of locations: samples are found by a hash of their
    // locations and compared in place (a string key per sample copied and hashed every
    // location again, and rehashing moved them: most of a 1 M-sample profile's stack layer).
    auto locationsOf = [&](size_t s) {
      return std::span<const uint64_t>(sampleLocation_.data() + sampleStart_[s],
                                       sampleLocation_.data() + sampleStart_[s + 1]);
    };
    auto hashOf = [&](size_t s) {
      uint64_t h = 0x9e3779b97f4a7c15ull;
      for (uint64_t x : locationsOf(s)) h = (h ^ x) * 0xff51afd7ed558ccdull;
      return static_cast<size_t>(h ^ (h >> 29));
    };
    auto same = [&](size_t a, size_t b) {
      const auto la = locationsOf(a), lb = locationsOf(b);
      return std::equal(la.begin(), la.end(), lb.begin(), lb.end());
    };
    std::unordered_map<size_t, size_t, decltype(hashOf), decltype(same)> index(
        sampleStart_.size(), hashOf, same);  // first sample of a stack -> the stack
    for (size_t s = 0; s + 1 < sampleStart_.size(); ++s) {
      const uint64_t* v = reinterpret_cast<const uint64_t*>(d_.sampleValue.data()) + s * ne_;
      auto [it, added] = index.try_emplace(s, out.stacks());
      if (added) {
        for (uint64_t i = sampleStart_[s + 1]; i-- > sampleStart_[s];) {
          const uint64_t l = sampleLocation_[i];
          for (uint64_t k = frameStart_[l]; k < frameStart_[l + 1]; ++k) {
            out.frames.push_back(frame_[k].function);
            out.locations.push_back(rank_[l]);
          }
        }
        out.start.push_back(out.frames.size());
        out.values.resize(out.values.size() + ne_, 0);
      }
      uint64_t* c = out.values.data() + it->second * ne_;
      for (size_t e = 0; e < ne_; ++e) c[e] += v[e];
    }
  }

  void functionLines(FunctionLineLayer& out) override {
    std::map<std::pair<uint64_t, uint64_t>, size_t> rows;
    leafLines([&](const Frame& f, const uint64_t* v) {
      auto [it, added] = rows.try_emplace({f.function, f.line}, 0);
      if (added) it->second = rows.size() - 1;
      (void)v;
    });
    std::vector<size_t> rank(rows.size());
    size_t r = 0;
    for (auto& [k, i] : rows) {
      out.rows.push_back({k.first, k.second});
      rank[i] = r++;
    }
    out.self.assign(rows.size() * ne_, 0);
    leafLines([&](const Frame& f, const uint64_t* v) {
      const size_t row = rank[rows.at({f.function, f.line})];
      for (size_t e = 0; e < ne_; ++e) out.self[row * ne_ + e] += v[e];
    });
  }

  void lines(std::unordered_map<std::string, std::vector<LineCost>>& out) override {
    FunctionLineLayer fl;
    functionLines(fl);
    std::map<std::pair<std::string, uint64_t>, std::vector<uint64_t>> byLine;
    for (size_t r = 0; r < fl.rows.size(); ++r) {
      if (fl.rows[r].line == 0) continue;
      auto& c = byLine[{rows_[fl.rows[r].function].file, fl.rows[r].line}];
      c.resize(ne_, 0);
      for (size_t e = 0; e < ne_; ++e) c[e] += fl.self[r * ne_ + e];
    }
    for (auto& [k, c] : byLine) out[k.first].push_back({k.second, std::move(c)});
  }

  Summary summary() override {
    Summary s;
    s.records = d_.sampleFrames.size();
    s.functions = d_.functionId.size();
    s.objects = d_.mappingId.size();
    std::vector<bool> files(d_.strings.size(), false);
    for (uint64_t f : d_.functionFile)
      if (f != 0 && !files[f]) {
        files[f] = true;
        ++s.files;
      }
    const size_t strings = profile_.strings().size();
    s.strings = strings > 0 ? strings - 1 : 0;
    return s;
  }

 private:
  // Leaves only the samples whose labels match every (key, pattern) of `tags`.
  void keepTagged(const std::vector<std::pair<std::string, std::string>>& tags) {
    std::vector<std::regex> patterns;
    for (const auto& [key, pattern] : tags) {
      try {
        patterns.emplace_back(pattern, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        throw Error(Status::invalidArgument, "pprof",
                    "tag " + key + "=" + pattern + ": not a regular expression: " + e.what());
      }
    }
    PprofData kept;
    const size_t types = d_.sampleType.size();
    for (size_t s = 0, at = 0, label = 0; s < d_.sampleFrames.size(); ++s) {
      const uint64_t n = d_.sampleFrames[s], nl = d_.sampleLabels[s];
      bool all = true;
      for (size_t t = 0; t < tags.size() && all; ++t) {
        bool any = false;
        for (uint64_t k = label; k < label + nl && !any; ++k) {
          if (d_.strings[d_.labelKey[k]] != tags[t].first) continue;
          const std::string value = d_.labelStr[k] != 0 ? std::string(d_.strings[d_.labelStr[k]])
                                                        : std::to_string(d_.labelNum[k]);
          any = std::regex_search(value, patterns[t]);
        }
        all = any;
      }
      if (all) {
        kept.sampleFrames.push_back(n);
        kept.sampleLocation.insert(kept.sampleLocation.end(), d_.sampleLocation.begin() + at,
                                   d_.sampleLocation.begin() + at + n);
        kept.sampleValue.insert(kept.sampleValue.end(), d_.sampleValue.begin() + s * types,
                                d_.sampleValue.begin() + (s + 1) * types);
        kept.sampleLabels.push_back(nl);
        for (uint64_t k = label; k < label + nl; ++k) {
          kept.labelKey.push_back(d_.labelKey[k]);
          kept.labelStr.push_back(d_.labelStr[k]);
          kept.labelNum.push_back(d_.labelNum[k]);
          kept.labelUnit.push_back(d_.labelUnit[k]);
        }
      }
      at += n;
      label += nl;
    }
    d_.sampleFrames = std::move(kept.sampleFrames);
    d_.sampleLocation = std::move(kept.sampleLocation);
    d_.sampleValue = std::move(kept.sampleValue);
    // The labels stay aligned with the samples kept.
    d_.sampleLabels = std::move(kept.sampleLabels);
    d_.labelKey = std::move(kept.labelKey);
    d_.labelStr = std::move(kept.labelStr);
    d_.labelNum = std::move(kept.labelNum);
    d_.labelUnit = std::move(kept.labelUnit);
  }

  // Model functions, and every location's frames, outermost first.
  void frames(FunctionLayer& out) {
    const size_t nl = d_.locationId.size();
    std::vector<int64_t> ofFunction(d_.functionId.size(), -1);
    // A function is its name, system name, file, object and first line: two of one name and
    // file that start on different lines (V8's anonymous functions of one script), or that the
    // profile tells apart by their system names (profpack's writer, for functions of one line:
    // minified code), stay two.
    std::map<std::tuple<std::string, std::string, std::string, std::string, uint64_t>, uint64_t>
        byKey;
    auto add = [&](std::string_view name, std::string_view file, std::string_view object,
                   uint64_t startLine, std::string_view systemName = {}) {
      auto [it, added] = byKey.try_emplace({std::string(name), std::string(systemName),
                                            std::string(file), std::string(object), startLine},
                                           0);
      if (added) {
        it->second =
            out.addFunction({std::string(name), std::string(file), std::string(object), startLine});
        rows_.push_back(out.functions.back());
      }
      return it->second;
    };
    frameStart_.assign(nl + 1, 0);
    for (size_t l = 0, k = 0; l < nl; ++l) {
      const int64_t m = locationMapping_[l];
      const std::string_view object = m >= 0 ? d_.strings[d_.mappingFile[m]] : "";
      const uint64_t n = d_.locationLines[l];
      if (n == 0) {
        // As pprof names an unsymbolized location once addresses are aggregated away.
        const size_t slash = object.rfind('/');
        const std::string name =
            object.empty()
                ? "<unknown>"
                : "[" + std::string(slash == object.npos ? object : object.substr(slash + 1)) + "]";
        frame_.push_back({add(name, "", object, 0), 0});
      }
      // The file's lines are innermost first.
      for (uint64_t i = n; i-- > 0;) {
        const uint64_t fi = functionIndex_.find(d_.lineFunction[k + i]);
        if (ofFunction[fi] < 0) {
          const int64_t start = d_.functionStartLine[fi];
          ofFunction[fi] = static_cast<int64_t>(add(
              d_.strings[d_.functionName[fi]], d_.strings[d_.functionFile[fi]], object,
              start > 0 ? static_cast<uint64_t>(start) : 0, d_.strings[d_.functionSystemName[fi]]));
        }
        const int64_t line = d_.lineLine[k + i];
        frame_.push_back(
            {static_cast<uint64_t>(ofFunction[fi]), line > 0 ? static_cast<uint64_t>(line) : 0});
      }
      k += n;
      frameStart_[l + 1] = frame_.size();
    }
    // Functions no location names still count (pprof lists them): a row without cost.
    for (size_t fi = 0; fi < ofFunction.size(); ++fi)
      if (ofFunction[fi] < 0)
        add(d_.strings[d_.functionName[fi]], d_.strings[d_.functionFile[fi]], "",
            d_.functionStartLine[fi] > 0 ? static_cast<uint64_t>(d_.functionStartLine[fi]) : 0,
            d_.strings[d_.functionSystemName[fi]]);
  }

  // The frames of sample s, outermost first, as indexes into frame_.
  void expand(size_t s, std::vector<uint64_t>& stack) const {
    stack.clear();
    for (uint64_t i = sampleStart_[s + 1]; i-- > sampleStart_[s];) {
      const uint64_t l = sampleLocation_[i];
      for (uint64_t k = frameStart_[l]; k < frameStart_[l + 1]; ++k) stack.push_back(k);
    }
  }

  // f(innermost frame of the sample's leaf location, values) per sample with a location.
  template <class F>
  void leafLines(F f) {
    if (frameStart_.empty()) {
      FunctionLayer unused;
      unused.eventNames.resize(ne_);
      frames(unused);
    }
    for (size_t s = 0; s + 1 < sampleStart_.size(); ++s) {
      if (sampleStart_[s] == sampleStart_[s + 1]) continue;
      const uint64_t l = sampleLocation_[sampleStart_[s]];
      f(frame_[frameStart_[l + 1] - 1],
        reinterpret_cast<const uint64_t*>(d_.sampleValue.data()) + s * ne_);
    }
  }

  const Profile& profile_;
  const bool callEdges_;
  bool fromReader_ = false;  // d_ came from the reader (takeDecoded): given back at the end
  PprofData d_;
  size_t ne_ = 0;
  // Per event, where samples carry pprof::base=true: taken before a tag filter (none: later).
  std::optional<std::vector<uint64_t>> baseTotal_;
  bool signed_ = false, lines_ = false, addresses_ = false;
  IdIndex functionIndex_;
  std::vector<int64_t> locationMapping_;  // per location: mapping index, -1 for none
  std::vector<uint64_t> sampleLocation_;  // per sample frame: location index
  std::vector<uint64_t> sampleStart_;     // per sample: first of sampleLocation_
  std::vector<Frame> frame_;              // every location's frames, outermost first
  std::vector<uint64_t> frameStart_;      // per location: first of frame_ (locations + 1)
  std::vector<FunctionRow> rows_;         // the model's functions
  std::vector<uint64_t> rank_;            // per location: its index in the locations layer
};

}  // namespace

std::unique_ptr<ModelSource> pprofModel(const Profile& profile, const ModelOptions& options) {
  return std::make_unique<PprofSource>(profile, options);
}

}  // namespace profpack
