#include "merge/merge.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <tuple>
#include <vector>

#include "error.h"
#include "formats/registry.h"
#include "symbolize/symbolize.h"
#include "util/text.h"

namespace profpack {

namespace {

std::string inputName(const MergeInput& in, size_t i) {
  return "input " + std::to_string(i + 1) + (in.name.empty() ? "" : " (" + in.name + ")");
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " ") + n;
  return out.empty() ? "(none)" : out;
}

// Stacks summed by their frames, in order of first appearance: each distinct stack's frames are
// kept once and found again through a hash of them. (A tree map keyed by the frame vectors
// compared them lexicographically log n times a stack.)
class StackSums {
 public:
  explicit StackSums(size_t events) : events_(events) {}
  // The values (one per event) of the stack of `frames`, zero if it is new.
  uint64_t* values(const std::vector<uint64_t>& frames) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ frames.size();
    for (uint64_t f : frames) h = (h ^ f) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    if (2 * (hash_.size() + 1) > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    size_t i = h & mask;
    for (; slots_[i] != 0; i = (i + 1) & mask) {
      const uint64_t k = slots_[i] - 1;
      if (hash_[k] == h && start_[k + 1] - start_[k] == frames.size() &&
          std::equal(frames.begin(), frames.end(), frames_.begin() + start_[k]))
        return &values_[k * events_];
    }
    slots_[i] = hash_.size() + 1;
    hash_.push_back(h);
    frames_.insert(frames_.end(), frames.begin(), frames.end());
    start_.push_back(frames_.size());
    values_.resize(values_.size() + events_, 0);
    return &values_[(hash_.size() - 1) * events_];
  }
  void moveTo(StackLayer& out) {
    out.frames = std::move(frames_);
    out.start = std::move(start_);
    out.values = std::move(values_);
  }

 private:
  void grow() {
    std::vector<uint64_t> slots(std::max<size_t>(64, 2 * slots_.size()), 0);
    const size_t mask = slots.size() - 1;
    for (uint64_t k = 0; k < hash_.size(); ++k) {
      size_t i = hash_[k] & mask;
      while (slots[i] != 0) i = (i + 1) & mask;
      slots[i] = k + 1;
    }
    slots_.swap(slots);
  }
  size_t events_;
  std::vector<uint32_t> frames_;
  std::vector<uint64_t> start_{0}, values_, hash_;           // hash_: per stack
  std::vector<uint64_t> slots_;                              // stack index + 1; 0: empty
};

// Sums one model after another into the layers of a MemorySource.
class Merger {
 public:
  // `stacks`: the merge sums the stacks too (else their layer is neither read nor made).
  // `verb`: what the user asked for ("merge", "diff"), for messages.
  Merger(const Model& first, const EventRenames& renames, bool stacks, const char* verb = "merge")
      : renames_(renames), verb_(verb), events_(renamed(first, "input 1")) {
    const uint32_t keep = kCapCallArcs | kCapCallCounts | kCapLines | kCapNames;
    src_.caps = first.capabilities() & (stacks ? keep | kCapStacks : keep);
    FunctionLayer& f = src_.functionLayer;
    f.eventNames = events_;
    f.eventLongNames = first.eventLongNames();
    f.unitsPerSecond = first.unitsPerSecond();
    for (size_t e = 0; e < first.events(); ++e)
      f.eventUnitsPerSecond.push_back(first.eventUnitsPerSecond(e));
    f.samplePeriodNanos = first.samplePeriodNanos();
    f.description = first.description();
  }

  // The index of each of the model's events among the merge's; throws where they differ.
  std::vector<size_t> eventMap(const Model& m, const std::string& name,
                               const std::string& firstName) const {
    std::vector<std::string> missing, extra;
    const std::vector<std::string> names = renamed(m, name);
    std::vector<size_t> map(m.events());
    for (size_t e = 0; e < m.events(); ++e) {
      auto it = std::find(events_.begin(), events_.end(), names[e]);
      if (it == events_.end())
        extra.push_back(names[e]);
      else
        map[e] = static_cast<size_t>(it - events_.begin());
    }
    for (const std::string& e : events_)
      if (std::find(names.begin(), names.end(), e) == names.end()) missing.push_back(e);
    if (!missing.empty() || !extra.empty() || m.events() != events_.size())
      throw Error(
          Status::invalidArgument, "",
          std::string("cannot ") + verb_ + " profiles with different events: " + name +
              (extra.empty() ? "" : " has " + joined(extra) + ", which " + firstName + " lacks") +
              (extra.empty() || missing.empty() ? "" : ", and") +
              (missing.empty() ? ""
                               : " lacks " + joined(missing) + ", which " + firstName + " has"));
    return map;
  }

  // m's event names after the renames; two that end up the same are refused.
  std::vector<std::string> renamed(const Model& m, const std::string& name) const {
    std::vector<std::string> out;
    for (const std::string& e : m.eventNames()) {
      auto it = renames_.find(e);
      std::string n = it == renames_.end() ? e : it->second;
      if (std::find(out.begin(), out.end(), n) != out.end())
        throw Error(Status::invalidArgument, "",
                    name + " would have two events named " + n + " after the event renames");
      out.push_back(std::move(n));
    }
    return out;
  }

  // Adds m's figures (with `negate`, subtracts them), its names rewritten by `rewrites`.
  void add(const Model& m, const std::vector<size_t>& ev, bool negate = false,
           const DiffOptions* rewrites = nullptr) {
    src_.caps &= m.capabilities() | kCapSigned;
    signed_ |= negate || m.has(kCapSigned);
    auto sgn = [negate](uint64_t v) { return negate ? ~v + 1 : v; };
    FunctionLayer& f = src_.functionLayer;
    const size_t ne = events_.size();
    if (f.unitsPerSecond != m.unitsPerSecond()) f.unitsPerSecond = 0;
    for (size_t e = 0; e < m.events(); ++e)  // an event that is time in every input stays so
      if (f.eventUnitsPerSecond[ev[e]] != m.eventUnitsPerSecond(e))
        f.eventUnitsPerSecond[ev[e]] = 0;
    if (f.samplePeriodNanos != m.samplePeriodNanos()) f.samplePeriodNanos = 0;
    std::vector<uint64_t> fn(m.functions());
    for (size_t i = 0; i < m.functions(); ++i) {
      FunctionRow row = m.function(i);
      if (rewrites) {
        for (const NameRewrite& r : rewrites->modFilename) row.file = r.apply(row.file);
        for (const NameRewrite& r : rewrites->modFuncname) row.name = r.apply(row.name);
      }
      auto [it, added] = functions_.try_emplace({row.object, row.file, row.name}, 0);
      if (added) {
        it->second = f.addFunction(row);
        f.calls.resize(f.functions.size(), 0);
      }
      fn[i] = it->second;
      for (size_t e = 0; e < m.events(); ++e) {
        f.self[fn[i] * ne + ev[e]] += sgn(m.self(i, e));
        f.inclusive[fn[i] * ne + ev[e]] += sgn(m.inclusive(i, e));
      }
      f.calls[fn[i]] += sgn(m.calls(i));
    }
    for (const CallEdge& e : m.edges()) {
      auto [it, added] = edges_.try_emplace({fn[e.caller], fn[e.callee]}, f.edges.size());
      if (added) f.addEdge(fn[e.caller], fn[e.callee], 0);
      f.edges[it->second].calls += sgn(e.calls);
      for (size_t k = 0; k < m.events(); ++k) f.edgeCost(it->second)[ev[k]] += sgn(e.inclusive[k]);
    }
    for (const FunctionLayer::RootCall& r : m.rootCalls()) {
      auto [it, added] = roots_.try_emplace(fn[r.function], f.rootCalls.size());
      if (added) f.rootCalls.push_back({fn[r.function], 0, std::vector<uint64_t>(ne, 0)});
      f.rootCalls[it->second].calls += sgn(r.calls);
      for (size_t k = 0; k < r.inclusive.size() && k < m.events(); ++k)
        f.rootCalls[it->second].inclusive[ev[k]] += sgn(r.inclusive[k]);
    }
    if (src_.caps & kCapLines) {
      const FunctionLineLayer& fl = m.functionLines();
      for (size_t r = 0; r < fl.rows.size(); ++r) {
        std::vector<uint64_t>& cost = functionLines_[{fn[fl.rows[r].function], fl.rows[r].line}];
        cost.resize(ne, 0);
        for (size_t k = 0; k < m.events(); ++k) cost[ev[k]] += sgn(fl.self[r * m.events() + k]);
        const FunctionRow& row = f.functions[fn[fl.rows[r].function]];
        std::vector<uint64_t>& line = lines_[row.file][fl.rows[r].line];
        line.resize(ne, 0);
        for (size_t k = 0; k < m.events(); ++k) line[ev[k]] += sgn(fl.self[r * m.events() + k]);
      }
    }
    if (src_.caps & kCapStacks) {
      const StackLayer& st = m.stacks();
      std::vector<uint64_t> key;
      for (size_t s = 0; s < st.stacks(); ++s) {
        key.clear();
        for (uint64_t i = st.start[s]; i < st.start[s + 1]; ++i) key.push_back(fn[st.frames[i]]);
        uint64_t* v = stacks_.values(key);
        for (size_t k = 0; k < m.events(); ++k) v[ev[k]] += sgn(st.values[s * m.events() + k]);
      }
    }
    const Summary& sum = m.summary();
    src_.summaryLayer.parts += sum.parts;
    src_.summaryLayer.records += sum.records;
    ++inputs_;
  }

  // A difference: the base's total of each event, the sum of its functions' self costs'
  // magnitudes (as pprof's -diff_base takes the base's samples), which shares of the
  // difference are of.
  void baseTotals(const Model& base, const std::vector<size_t>& ev) {
    std::vector<uint64_t>& total = src_.functionLayer.baseTotals;
    total.assign(events_.size(), 0);
    const bool isSigned = base.has(kCapSigned);
    for (uint64_t f = 0; f < base.functions(); ++f)
      for (size_t e = 0; e < base.events(); ++e) {
        const uint64_t v = base.self(f, e);
        total[ev[e]] += isSigned && static_cast<int64_t>(v) < 0 ? 0 - v : v;
      }
  }

  void describe(std::vector<std::pair<std::string, std::string>> description) {
    src_.functionLayer.description = std::move(description);
  }

  std::unique_ptr<Model> finish(const std::string& sourceFormat) {
    if (signed_) src_.caps |= kCapSigned;
    FunctionLayer& f = src_.functionLayer;
    const size_t ne = events_.size();
    if (src_.caps & kCapLines) {
      for (auto& [key, cost] : functionLines_) {
        src_.functionLineLayer.rows.push_back({key.first, key.second});
        src_.functionLineLayer.self.insert(src_.functionLineLayer.self.end(), cost.begin(),
                                           cost.end());
      }
      for (auto& [file, byLine] : lines_) {
        std::vector<LineCost>& out = src_.lineLayer[file];
        for (auto& [line, cost] : byLine) out.push_back({line, std::move(cost)});
      }
    }
    if (src_.caps & kCapStacks) stacks_.moveTo(src_.stackLayer);
    Summary& s = src_.summaryLayer;
    s.formatVersion = "merge of " + std::to_string(inputs_) + " profiles";
    s.functions = f.functions.size();
    std::set<std::string_view> files, objects;
    for (const FunctionRow& row : f.functions) {
      if (!row.file.empty()) files.insert(row.file);
      if (!row.object.empty()) objects.insert(row.object);
    }
    s.files = files.size();
    s.objects = objects.size();
    (void)ne;
    return std::make_unique<Model>(std::make_unique<MemorySource>(std::move(src_)), sourceFormat);
  }

 private:
  EventRenames renames_;
  const char* verb_;
  std::vector<std::string> events_;
  MemorySource src_;
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> functions_;
  std::map<std::pair<uint64_t, uint64_t>, size_t> edges_;
  std::map<uint64_t, size_t> roots_;
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> functionLines_;
  std::map<std::string, std::map<uint64_t, std::vector<uint64_t>>> lines_;
  StackSums stacks_{events_.size()};
  size_t inputs_ = 0;
  bool signed_ = false;
};

// Runs f, naming input i in any error it raises.
template <class F>
auto forInput(const MergeInput& in, size_t i, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(e.status(), e.format(), inputName(in, i) + ": " + e.message(), e.offset(),
                e.line());
  }
}

}  // namespace

std::unique_ptr<Model> mergeModels(std::span<const MergeInput> inputs,
                                   const EventRenames& renames) {
  if (inputs.empty()) throw Error(Status::invalidArgument, "", "merge needs at least one profile");
  std::unique_ptr<Merger> merger;
  std::string sourceFormat;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const MergeInput& in = inputs[i];
    if (!in.profile) throw Error(Status::invalidArgument, "", inputName(in, i) + " is null");
    std::unique_ptr<Model> m = forInput(in, i, [&] { return buildModel(*in.profile, {}); });
    if (!merger) {
      merger = std::make_unique<Merger>(*m, renames, /*stacks=*/true);
      sourceFormat = m->sourceFormat();
    } else if (sourceFormat != m->sourceFormat()) {
      sourceFormat = "a merge of several formats";
    }
    const std::vector<size_t> ev = merger->eventMap(*m, inputName(in, i), inputName(inputs[0], 0));
    forInput(in, i, [&] { merger->add(*m, ev); });
  }
  return merger->finish(sourceFormat);
}

struct MergeStream::State {
  EventRenames renames;
  size_t inputs = 0;
  std::string firstName;
  FormatId firstFormat = FormatId::unknown;
  FormatId keptAs = mixedFormat();
  std::unique_ptr<FormatMerge> native;  // the format's own merge, where it has one
  std::unique_ptr<Merger> merger;       // else the model's
  std::string sourceFormat;
  // A format's own merge keeps addresses, not names: the names of symbolized inputs, to name
  // the merge's addresses with (the model's merge keeps the names themselves).
  SymbolMemory names;
};

MergeStream::MergeStream(EventRenames renames) : s_(std::make_unique<State>()) {
  s_->renames = std::move(renames);
}
MergeStream::~MergeStream() = default;

void MergeStream::add(const MergeInput& in) {
  State& s = *s_;
  const size_t i = s.inputs;
  if (!in.profile) throw Error(Status::invalidArgument, "", inputName(in, i) + " is null");
  const Profile& p = *in.profile;
  bool mixed = false;
  if (i == 0) {
    s.firstName = inputName(in, 0);
    s.firstFormat = formatOf(p);
    s.keptAs = mergedFormat(p);
    s.native = formatMerge(p);
  } else if (formatOf(p) != s.firstFormat) {
    if (s.native)
      throw Error(Status::invalidArgument, "",
                  "cannot merge profiles of different events: " + inputName(in, i) + " is " +
                      formatName(formatOf(p)) + ", " + s.firstName + " " +
                      formatName(s.firstFormat) + ", whose merge takes " +
                      formatName(s.firstFormat) + " profiles only");
    mixed = true;
  }
  if (s.native) {
    forInput(in, i, [&] {
      s.native->add(p);
      s.names.add(p);
    });
    ++s.inputs;
    return;
  }
  std::unique_ptr<Model> m = forInput(in, i, [&] { return buildModel(p, {}); });
  if (!s.merger) {
    // Kept as the first input's merge format or, once formats mix, as mixedFormat().
    s.merger = std::make_unique<Merger>(*m, s.renames,
                                        keepsStacks(s.keptAs) || keepsStacks(mixedFormat()));
    s.sourceFormat = m->sourceFormat();
  } else if (s.sourceFormat != m->sourceFormat()) {
    s.sourceFormat = "a merge of several formats";
  }
  const std::vector<size_t> ev = s.merger->eventMap(*m, inputName(in, i), s.firstName);
  forInput(in, i, [&] { s.merger->add(*m, ev); });
  if (mixed) s.keptAs = mixedFormat();
  ++s.inputs;
}

std::unique_ptr<Profile> MergeStream::finish() {
  State& s = *s_;
  if (s.inputs == 0) throw Error(Status::invalidArgument, "", "merge needs at least one profile");
  if (s.native) return s.names.apply(s.native->finish());
  return profileFromModel(*s.merger->finish(s.sourceFormat), s.keptAs);
}

std::unique_ptr<Profile> mergeProfiles(std::span<const MergeInput> inputs,
                                       const EventRenames& renames) {
  MergeStream stream(renames);
  for (const MergeInput& in : inputs) stream.add(in);
  return stream.finish();
}

NameRewrite::NameRewrite(const std::string& e) {
  auto bad = [&](const std::string& why) {
    return Error(
        Status::invalidArgument, "",
        "a name rewrite is s/REGEX/REPLACEMENT/ (optionally ending in g): '" + e + "' " + why);
  };
  if (e.size() < 4 || e[0] != 's') throw bad("does not start with s and a delimiter");
  const char d = e[1];
  // The two fields, up to unescaped delimiters; "\<delimiter>" stands for the delimiter, as
  // in Perl (cg_diff's expressions are Perl's).
  std::string field[2];
  size_t at = 2;
  for (std::string& f : field) {
    for (;; ++at) {
      if (at >= e.size()) throw bad("lacks its closing delimiter");
      if (e[at] == '\\' && at + 1 < e.size() && e[at + 1] == d) {
        f += d;
        ++at;
      } else if (e[at] == d) {
        ++at;
        break;
      } else {
        f += e[at];
      }
    }
  }
  const std::string flags = e.substr(at);
  if (flags != "" && flags != "g") throw bad("has flags other than g");
  try {
    regex_ = std::make_shared<std::regex>(field[0]);
  } catch (const std::regex_error& x) {
    throw bad("has a bad regular expression: " + std::string(x.what()));
  }
  replacement_ = field[1];
  global_ = flags == "g";
}

std::string NameRewrite::apply(const std::string& name) const {
  const auto& re = *static_cast<const std::regex*>(regex_.get());
  return std::regex_replace(
      name, re, replacement_,
      global_ ? std::regex_constants::format_default : std::regex_constants::format_first_only);
}

namespace {

// Both inputs' models (input 1 the base), each error naming its input.
struct DiffInputs {
  MergeInput in[2];
  std::unique_ptr<Model> models[2];
  DiffInputs(const MergeInput& base, const MergeInput& current) : in{base, current} {
    for (size_t i = 0; i < 2; ++i) {
      if (!in[i].profile)
        throw Error(Status::invalidArgument, "", inputName(in[i], i) + " is null");
      models[i] = forInput(in[i], i, [&] { return buildModel(*in[i].profile, {}); });
    }
  }
};

std::unique_ptr<Model> diffOf(const DiffInputs& d, const DiffOptions& options, FormatId kept,
                              bool stacks) {
  const MergeInput* in = d.in;
  const std::unique_ptr<Model>* models = d.models;
  Merger merger(*models[1], options.eventRenames, stacks, "diff");
  const std::vector<size_t> same =
      merger.eventMap(*models[1], inputName(in[1], 1), inputName(in[1], 1));
  const std::vector<size_t> ev =
      merger.eventMap(*models[0], inputName(in[0], 0), inputName(in[1], 1));
  merger.add(*models[1], same, false, &options);
  merger.add(*models[0], ev, true, &options);
  merger.baseTotals(*models[0], ev);
  // What the kept format says of the two inputs, where it says something (else the merge
  // keeps the current profile's description).
  HeaderPairs header = differenceHeader(kept, *models[0], in[0].name, *models[1], in[1].name);
  if (!header.empty()) merger.describe(std::move(header));
  return merger.finish(models[0]->sourceFormat() == models[1]->sourceFormat()
                           ? models[1]->sourceFormat()
                           : "a difference of two formats");
}

// The difference as the kept format's own merge makes it (pprof, as `go tool pprof
// -diff_base`): NEW, then BASE negated with its samples marked as the base's, each input as a
// profile of that format (its model written as one where it is of another). Null where the
// format's merge keeps no base, or where names or events are rewritten (the model's
// difference does that).
std::unique_ptr<Profile> ownDiff(const DiffInputs& d, const DiffOptions& options, FormatId kept) {
  std::unique_ptr<FormatMerge> own = formatMerge(kept);
  if (!own || !own->takesBase() || !options.modFilename.empty() || !options.modFuncname.empty() ||
      !options.eventRenames.empty())
    return nullptr;
  // The events, checked as the model's difference checks them (its message says "diff").
  Merger(*d.models[1], {}, false, "diff")
      .eventMap(*d.models[0], inputName(d.in[0], 0), inputName(d.in[1], 1));
  std::unique_ptr<Profile> as[2];
  for (size_t i = 0; i < 2; ++i)
    if (formatOf(*d.in[i].profile) != kept)
      as[i] = forInput(d.in[i], i, [&] { return profileFromModel(*d.models[i], kept); });
  auto profile = [&](size_t i) -> const Profile& { return as[i] ? *as[i] : *d.in[i].profile; };
  forInput(d.in[1], 1, [&] { own->add(profile(1)); });
  forInput(d.in[0], 0, [&] { own->addBase(profile(0)); });
  return own->finish();
}

}  // namespace

std::unique_ptr<Model> diffModels(const MergeInput& base, const MergeInput& current,
                                  const DiffOptions& options) {
  return diffOf(DiffInputs(base, current), options, FormatId::unknown, /*stacks=*/true);
}

std::unique_ptr<Profile> diffProfiles(const MergeInput& base, const MergeInput& current,
                                      const DiffOptions& options) {
  if (!base.profile || !current.profile)
    throw Error(Status::invalidArgument, "", "diff needs two profiles");
  const DiffInputs d(base, current);
  const FormatId kept = differenceFormat(*base.profile, *current.profile,
                                         d.models[0]->capabilities() & d.models[1]->capabilities());
  if (std::unique_ptr<Profile> p = ownDiff(d, options, kept)) return p;
  return profileFromModel(*diffOf(d, options, kept, keepsStacks(kept)), kept);
}

}  // namespace profpack
