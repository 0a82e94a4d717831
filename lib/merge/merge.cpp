#include "merge/merge.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "error.h"
#include "formats/registry.h"

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

// Sums one model after another into the layers of a MemorySource.
class Merger {
 public:
  explicit Merger(const Model& first) : events_(first.eventNames()) {
    src_.caps =
        first.capabilities() & (kCapCallArcs | kCapCallCounts | kCapLines | kCapStacks | kCapNames);
    FunctionLayer& f = src_.functionLayer;
    f.eventNames = first.eventNames();
    f.eventLongNames = first.eventLongNames();
    f.unitsPerSecond = first.unitsPerSecond();
    f.samplePeriodNanos = first.samplePeriodNanos();
    f.description = first.description();
  }

  // The index of each of the model's events among the merge's; throws where they differ.
  std::vector<size_t> eventMap(const Model& m, const std::string& name,
                               const std::string& firstName) const {
    std::vector<std::string> missing, extra;
    std::vector<size_t> map(m.events());
    for (size_t e = 0; e < m.events(); ++e) {
      auto it = std::find(events_.begin(), events_.end(), m.eventNames()[e]);
      if (it == events_.end())
        extra.push_back(m.eventNames()[e]);
      else
        map[e] = static_cast<size_t>(it - events_.begin());
    }
    for (const std::string& e : events_)
      if (m.eventIndex(e) < 0) missing.push_back(e);
    if (!missing.empty() || !extra.empty() || m.events() != events_.size())
      throw Error(
          Status::invalidArgument, "",
          "cannot merge profiles with different events: " + name +
              (extra.empty() ? "" : " has " + joined(extra) + ", which " + firstName + " lacks") +
              (extra.empty() || missing.empty() ? "" : ", and") +
              (missing.empty() ? ""
                               : " lacks " + joined(missing) + ", which " + firstName + " has"));
    return map;
  }

  void add(const Model& m, const std::vector<size_t>& ev) {
    src_.caps &= m.capabilities();
    FunctionLayer& f = src_.functionLayer;
    const size_t ne = events_.size();
    if (f.unitsPerSecond != m.unitsPerSecond()) f.unitsPerSecond = 0;
    if (f.samplePeriodNanos != m.samplePeriodNanos()) f.samplePeriodNanos = 0;
    std::vector<uint64_t> fn(m.functions());
    for (size_t i = 0; i < m.functions(); ++i) {
      const FunctionRow& row = m.function(i);
      auto [it, added] = functions_.try_emplace({row.object, row.file, row.name}, 0);
      if (added) {
        it->second = f.addFunction(row);
        f.calls.resize(f.functions.size(), 0);
      }
      fn[i] = it->second;
      for (size_t e = 0; e < m.events(); ++e) {
        f.self[fn[i] * ne + ev[e]] += m.self(i, e);
        f.inclusive[fn[i] * ne + ev[e]] += m.inclusive(i, e);
      }
      f.calls[fn[i]] += m.calls(i);
    }
    for (const CallEdge& e : m.edges()) {
      auto [it, added] = edges_.try_emplace({fn[e.caller], fn[e.callee]}, f.edges.size());
      if (added) f.addEdge(fn[e.caller], fn[e.callee], 0);
      f.edges[it->second].calls += e.calls;
      for (size_t k = 0; k < m.events(); ++k) f.edgeCost(it->second)[ev[k]] += e.inclusive[k];
    }
    for (const FunctionLayer::RootCall& r : m.rootCalls()) {
      auto [it, added] = roots_.try_emplace(fn[r.function], f.rootCalls.size());
      if (added) f.rootCalls.push_back({fn[r.function], 0, std::vector<uint64_t>(ne, 0)});
      f.rootCalls[it->second].calls += r.calls;
      for (size_t k = 0; k < r.inclusive.size() && k < m.events(); ++k)
        f.rootCalls[it->second].inclusive[ev[k]] += r.inclusive[k];
    }
    if (src_.caps & kCapLines) {
      const FunctionLineLayer& fl = m.functionLines();
      for (size_t r = 0; r < fl.rows.size(); ++r) {
        std::vector<uint64_t>& cost = functionLines_[{fn[fl.rows[r].function], fl.rows[r].line}];
        cost.resize(ne, 0);
        for (size_t k = 0; k < m.events(); ++k) cost[ev[k]] += fl.self[r * m.events() + k];
        const FunctionRow& row = f.functions[fn[fl.rows[r].function]];
        std::vector<uint64_t>& line = lines_[row.file][fl.rows[r].line];
        line.resize(ne, 0);
        for (size_t k = 0; k < m.events(); ++k) line[ev[k]] += fl.self[r * m.events() + k];
      }
    }
    if (src_.caps & kCapStacks) {
      const StackLayer& st = m.stacks();
      std::vector<uint64_t> key;
      for (size_t s = 0; s < st.stacks(); ++s) {
        key.clear();
        for (uint64_t i = st.start[s]; i < st.start[s + 1]; ++i) key.push_back(fn[st.frames[i]]);
        std::vector<uint64_t>& v = stacks_[key];
        v.resize(ne, 0);
        for (size_t k = 0; k < m.events(); ++k) v[ev[k]] += st.values[s * m.events() + k];
      }
    }
    const Summary& sum = m.summary();
    src_.summaryLayer.parts += sum.parts;
    src_.summaryLayer.records += sum.records;
    ++inputs_;
  }

  std::unique_ptr<Model> finish(const std::string& sourceFormat) {
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
    if (src_.caps & kCapStacks) {
      for (auto& [frames, values] : stacks_) {
        src_.stackLayer.frames.insert(src_.stackLayer.frames.end(), frames.begin(), frames.end());
        src_.stackLayer.start.push_back(src_.stackLayer.frames.size());
        src_.stackLayer.values.insert(src_.stackLayer.values.end(), values.begin(), values.end());
      }
    }
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
  std::vector<std::string> events_;
  MemorySource src_;
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> functions_;
  std::map<std::pair<uint64_t, uint64_t>, size_t> edges_;
  std::map<uint64_t, size_t> roots_;
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> functionLines_;
  std::map<std::string, std::map<uint64_t, std::vector<uint64_t>>> lines_;
  std::map<std::vector<uint64_t>, std::vector<uint64_t>> stacks_;
  size_t inputs_ = 0;
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

std::unique_ptr<Model> mergeModels(std::span<const MergeInput> inputs) {
  if (inputs.empty()) throw Error(Status::invalidArgument, "", "merge needs at least one profile");
  std::unique_ptr<Merger> merger;
  std::string sourceFormat;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const MergeInput& in = inputs[i];
    if (!in.profile) throw Error(Status::invalidArgument, "", inputName(in, i) + " is null");
    std::unique_ptr<Model> m = forInput(in, i, [&] { return buildModel(*in.profile, {}); });
    if (!merger) {
      merger = std::make_unique<Merger>(*m);
      sourceFormat = m->sourceFormat();
    } else if (sourceFormat != m->sourceFormat()) {
      sourceFormat = "a merge of several formats";
    }
    const std::vector<size_t> ev = merger->eventMap(*m, inputName(in, i), inputName(inputs[0], 0));
    forInput(in, i, [&] { merger->add(*m, ev); });
  }
  return merger->finish(sourceFormat);
}

std::unique_ptr<Profile> mergeProfiles(std::span<const MergeInput> inputs) {
  if (inputs.empty()) throw Error(Status::invalidArgument, "", "merge needs at least one profile");
  std::vector<const Profile*> profiles;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].profile)
      throw Error(Status::invalidArgument, "", inputName(inputs[i], i) + " is null");
    profiles.push_back(inputs[i].profile);
  }
  if (std::unique_ptr<Profile> merged = mergeInFormat(profiles)) return merged;
  return profileFromModel(*mergeModels(inputs), mergedFormat(profiles));
}

}  // namespace profpack
