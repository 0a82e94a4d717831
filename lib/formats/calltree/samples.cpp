// The model of a CallTree of samples (collapsed stacks, V8 CPU profiles): a function per frame;
// each sample's cost is on its node, its stack the path from the node to the root. Self cost is
// the samples' at a node of the function; inclusive cost and arcs count a stack once however
// often recursion repeats a function or arc in it (one walk of the tree, keeping count of the
// functions and arcs on the path). Timed samples (V8) also give a timeline: a frame's span
// lasts while consecutive samples keep its node on their stacks.

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "error.h"
#include "formats/calltree/calltree.h"
#include "formats/calltree/sources.h"
#include "util/pairmap.h"

namespace profpack {

namespace {

class SampleSource : public ModelSource {
 public:
  SampleSource(const Profile& profile, CallTreeData data)
      : profile_(profile), d_(std::move(data)), timed_(d_.timeUnitsPerSecond > 0) {}

  uint32_t capabilities() const override {
    bool lines = !d_.lineNode.empty();
    for (const CallTreeData::Frame& f : d_.frames) lines |= f.line > 0 && !f.file.empty();
    return kCapStacks | kCapCallArcs | kCapNames | (lines ? uint32_t{kCapLines} : 0u) |
           (timed_ ? uint32_t{kCapTimeline} : 0u);
  }

  void functions(FunctionLayer& out) override {
    if (timed_) {
      out.eventNames = {"time", "samples"};
      out.eventLongNames = {"time (" + unitName(d_.timeUnitsPerSecond) + ")", "samples"};
      out.unitsPerSecond = static_cast<double>(d_.timeUnitsPerSecond);
      out.eventUnitsPerSecond = {out.unitsPerSecond, 0};  // samples are a count
      out.threads = {ThreadRow{}};
    } else {
      out.eventNames = {"samples"};
    }
    ne_ = out.eventNames.size();
    for (const CallTreeData::Frame& f : d_.frames) out.addFunction({f.name, f.file, "", f.line});
    nodeCosts();
    const size_t nodes = d_.nodeParent.size() + 1;  // index 0: the root
    // Subtree totals: a parent's index is below its child's.
    std::vector<uint64_t> subtree = self_;
    for (size_t n = nodes; n-- > 1;) {
      const uint64_t p = d_.nodeParent[n - 1];
      for (size_t e = 0; e < ne_; ++e) subtree[p * ne_ + e] += subtree[n * ne_ + e];
    }
    for (size_t n = 1; n < nodes; ++n)
      for (size_t e = 0; e < ne_; ++e) out.self[frame(n) * ne_ + e] += self_[n * ne_ + e];
    // Depth-first over the tree: a function (an arc) is counted where it first occurs on a
    // path.
    std::vector<uint64_t> childStart(nodes + 1, 0), children(nodes);
    for (size_t n = 1; n < nodes; ++n) ++childStart[d_.nodeParent[n - 1] + 1];
    for (size_t n = 0; n < nodes; ++n) childStart[n + 1] += childStart[n];
    std::vector<uint64_t> fill(childStart.begin(), childStart.end() - 1);
    for (size_t n = 1; n < nodes; ++n) children[fill[d_.nodeParent[n - 1]]++] = n;
    std::vector<uint64_t> active(d_.frames.size(), 0);
    PairMap edgeOf;
    std::vector<uint64_t> edgeActive;
    struct Visit {
      uint64_t node, next;  // next: index into children of the next child to visit
      uint64_t edge;        // the arc from its parent (~0: none)
    };
    std::vector<Visit> stack{{0, childStart[0], ~uint64_t{0}}};
    while (!stack.empty()) {
      Visit& v = stack.back();
      if (v.next == childStart[v.node + 1]) {
        if (v.node != 0) {
          --active[frame(v.node)];
          if (v.edge != ~uint64_t{0}) --edgeActive[v.edge];
        }
        stack.pop_back();
        continue;
      }
      const uint64_t c = children[v.next++], f = frame(c);
      if (active[f]++ == 0)
        for (size_t e = 0; e < ne_; ++e) out.inclusive[f * ne_ + e] += subtree[c * ne_ + e];
      uint64_t edge = ~uint64_t{0};
      if (v.node != 0) {
        bool added = false;
        uint64_t& k = edgeOf.findOrInsert(frame(v.node), f, out.edges.size(), added);
        if (added) {
          out.addEdge(frame(v.node), f, 0);
          edgeActive.push_back(0);
        }
        edge = k;
        if (edgeActive[edge]++ == 0)
          for (size_t e = 0; e < ne_; ++e) out.edgeCost(edge)[e] += subtree[c * ne_ + e];
      }
      stack.push_back({c, childStart[c], edge});
    }
  }

  void lines(std::unordered_map<std::string, std::vector<LineCost>>& out) override {
    std::map<std::pair<std::string, uint64_t>, std::vector<uint64_t>> sums;
    forEachLine([&](uint64_t f, uint64_t line, const uint64_t* cost) {
      if (d_.frames[f].file.empty()) return;
      auto& v = sums[{d_.frames[f].file, line}];
      v.resize(ne_, 0);
      for (size_t e = 0; e < ne_; ++e) v[e] += cost[e];
    });
    for (auto& [key, cost] : sums) out[key.first].push_back({key.second, std::move(cost)});
  }

  void functionLines(FunctionLineLayer& out) override {
    std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> sums;
    forEachLine([&](uint64_t f, uint64_t line, const uint64_t* cost) {
      auto& v = sums[{f, line}];
      v.resize(ne_, 0);
      for (size_t e = 0; e < ne_; ++e) v[e] += cost[e];
    });
    for (auto& [key, cost] : sums) {
      out.rows.push_back({key.first, key.second});
      out.self.insert(out.self.end(), cost.begin(), cost.end());
    }
  }

  // Each node with cost, in the order samples first reached it.
  void stacks(StackLayer& out) override {
    std::vector<uint64_t> depth(d_.nodeParent.size() + 1, 0);
    for (size_t n = 1; n < depth.size(); ++n) depth[n] = depth[d_.nodeParent[n - 1]] + 1;
    uint64_t frames = 0;
    for (uint64_t n : firstSeen_) frames += depth[n];
    if (frames > kMaxStackFrames)
      throw Error(Status::limit, "",
                  "the profile's call stacks hold " + std::to_string(frames) +
                      " frames in all, more than the " + std::to_string(kMaxStackFrames) +
                      " that whole stacks are written out for");
    out.frames.reserve(frames);
    for (uint64_t n : firstSeen_) {
      const size_t end = out.frames.size() + depth[n];
      out.frames.resize(end);
      size_t i = end;
      for (uint64_t k = n; k != 0; k = d_.nodeParent[k - 1]) out.frames[--i] = frame(k);
      out.start.push_back(end);
      out.values.insert(out.values.end(), self_.begin() + n * ne_, self_.begin() + (n + 1) * ne_);
    }
  }

  uint64_t timelineOrigin() override {
    if (order_.empty()) return 0;
    return static_cast<uint64_t>(std::min(d_.startTime, time(order_[0])));
  }

  // Spans from consecutive samples: a node's span begins with the first of a run of samples
  // whose stacks hold it and ends when a sample's stack leaves it (callees before callers).
  void spans(SpanSink& sink) override {
    if (!timed_) return;
    std::vector<uint32_t> depth(d_.nodeParent.size() + 1, 0);
    for (size_t n = 1; n < depth.size(); ++n) depth[n] = depth[d_.nodeParent[n - 1]] + 1;
    std::vector<int64_t> opened(depth.size(), 0);
    const int64_t origin = static_cast<int64_t>(timelineOrigin());
    auto at = [&](int64_t t) { return static_cast<uint64_t>(std::max(t, origin)); };
    uint64_t prev = 0, emitted = 0;
    // Samples alternating between two deep stacks make a span per frame per sample: more than
    // the input's size, so bounded as the stacks layer is.
    auto close = [&](uint64_t from, uint64_t to, int64_t t) {
      for (uint64_t k = from; k != to; k = d_.nodeParent[k - 1]) {
        if (++emitted > kMaxStackFrames)
          throw Error(Status::limit, "",
                      "the samples' timeline holds more than " + std::to_string(kMaxStackFrames) +
                          " spans (runs of a frame on consecutive samples' stacks)");
        sink.span({0, depth[k] - 1, frame(k), at(opened[k]), std::max(at(opened[k]), at(t))});
      }
    };
    int64_t t = 0;
    for (size_t k = 0; k < order_.size(); ++k) {
      const uint64_t i = order_[k], n = d_.sampleNode[i];
      t = k == 0 ? std::min(time(i), d_.startTime) : time(i);
      uint64_t a = prev, b = n;  // their deepest common node
      while (depth[a] > depth[b]) a = d_.nodeParent[a - 1];
      while (depth[b] > depth[a]) b = d_.nodeParent[b - 1];
      while (a != b) a = d_.nodeParent[a - 1], b = d_.nodeParent[b - 1];
      close(prev, a, t);
      for (uint64_t c = n; c != a; c = d_.nodeParent[c - 1]) opened[c] = t;
      prev = n;
      t += static_cast<int64_t>(duration_[i]);
    }
    close(prev, 0, t);
  }

  Summary summary() override {
    Summary s;
    s.formatVersion = profile_.root().getFormatVersion().cStr();
    const size_t strings = profile_.strings().size();
    s.strings = strings > 0 ? strings - 1 : 0;
    s.records = d_.sampleNode.empty() ? d_.nodeParent.size() : d_.sampleNode.size();
    s.functions = d_.frames.size();
    std::unordered_map<std::string_view, int> files;
    for (const CallTreeData::Frame& f : d_.frames)
      if (!f.file.empty()) files.emplace(f.file, 0);
    s.files = files.size();
    return s;
  }

 private:
  uint64_t frame(uint64_t node) const { return d_.nodeFrame[node - 1]; }
  int64_t time(uint64_t sample) const { return static_cast<int64_t>(d_.sampleTime[sample]); }

  // Per node (0: the root), the cost of the samples at it; the order samples first reach the
  // nodes; and, timed, each sample's duration: to the next sample in time, the last to the
  // profile's end, the first from the profile's start.
  void nodeCosts() {
    const size_t nodes = d_.nodeParent.size() + 1;
    self_.assign(nodes * ne_, 0);
    std::vector<uint8_t> seen(nodes, 0);
    const size_t samples = d_.sampleNode.size();
    if (timed_ && d_.sampleTime.size() == samples) {
      order_.resize(samples);
      std::iota(order_.begin(), order_.end(), 0);
      bool sorted = true;
      for (size_t i = 1; i < samples && sorted; ++i) sorted = time(i - 1) <= time(i);
      if (!sorted)  // V8 may record a sample out of order: take them in time order
        std::stable_sort(order_.begin(), order_.end(),
                         [&](uint64_t a, uint64_t b) { return time(a) < time(b); });
      duration_.assign(samples, 0);
      for (size_t k = 0; k < samples; ++k) {
        const int64_t next = k + 1 < samples ? time(order_[k + 1]) : d_.endTime;
        const int64_t t = time(order_[k]);
        duration_[order_[k]] =
            next > t ? static_cast<uint64_t>(next) - static_cast<uint64_t>(t) : 0;
      }
      // The first sample also takes the time from the profile's start to it, so that the
      // samples' times add up to endTime - startTime, as DevTools' totals do.
      if (samples > 0 && d_.startTime < time(order_[0]))
        duration_[order_[0]] +=
            static_cast<uint64_t>(time(order_[0])) - static_cast<uint64_t>(d_.startTime);
    }
    for (size_t i = 0; i < samples; ++i) {
      const uint64_t n = d_.sampleNode[i];
      uint64_t* v = &self_[n * ne_];
      if (timed_) {
        v[0] += duration_.empty() ? 0 : duration_[i];
        v[1] += 1;
      } else {
        v[0] += d_.sampleCount.empty() ? 1 : d_.sampleCount[i];
      }
      if (n != 0 && !seen[n]) {
        seen[n] = 1;
        firstSeen_.push_back(n);
      }
    }
    // Without samples (an older V8 profile), each node's hitCount.
    if (samples == 0 && !d_.nodeHits.empty())
      for (size_t n = 1; n < nodes; ++n)
        if (d_.nodeHits[n - 1] > 0) {
          self_[n * ne_ + ne_ - 1] = d_.nodeHits[n - 1];
          firstSeen_.push_back(n);
        }
  }

  // f(function, line, cost per event) for each part of a node's self cost that has a line: the
  // node's line ticks (V8 positionTicks; the time split as the ticks are), else the line where
  // its function starts.
  template <class F>
  void forEachLine(F f) {
    const size_t nodes = d_.nodeParent.size() + 1;
    std::vector<uint64_t> tickSum(nodes, 0);
    for (size_t i = 0; i < d_.lineNode.size(); ++i) tickSum[d_.lineNode[i]] += d_.lineTicks[i];
    std::vector<uint64_t> cost(ne_), timeLeft(nodes, 0), ticksLeft = tickSum;
    if (timed_)
      for (size_t n = 0; n < nodes; ++n) timeLeft[n] = self_[n * ne_];
    for (size_t i = 0; i < d_.lineNode.size(); ++i) {
      const uint64_t n = d_.lineNode[i], ticks = d_.lineTicks[i];
      if (ticks == 0) continue;
      if (timed_) {
        // The time of the node in proportion to the ticks; the last entry takes the rest.
        const unsigned __int128 share =
            static_cast<unsigned __int128>(timeLeft[n]) * ticks / ticksLeft[n];
        cost[0] = static_cast<uint64_t>(share);
        timeLeft[n] -= cost[0];
        ticksLeft[n] -= ticks;
        cost[1] = ticks;
      } else {
        cost[0] = ticks;
      }
      f(frame(n), d_.lineNumber[i], cost.data());
    }
    for (size_t n = 1; n < nodes; ++n) {
      const uint64_t line = d_.frames[frame(n)].line;
      if (tickSum[n] > 0 || line == 0) continue;
      bool any = false;
      for (size_t e = 0; e < ne_; ++e) any |= self_[n * ne_ + e] != 0;
      if (any) f(frame(n), line, &self_[n * ne_]);
    }
  }

  const Profile& profile_;
  CallTreeData d_;
  bool timed_;
  size_t ne_ = 1;
  std::vector<uint64_t> self_;       // per node (0: the root) x events
  std::vector<uint64_t> firstSeen_;  // nodes in the order samples first reach them
  std::vector<uint64_t> order_;      // timed: samples in time order
  std::vector<uint64_t> duration_;   // timed: per sample
};

}  // namespace

std::string unitName(uint64_t unitsPerSecond) {
  switch (unitsPerSecond) {
    case 1: return "seconds";
    case 1000: return "milliseconds";
    case 1000000: return "microseconds";
    case 1000000000: return "nanoseconds";
    default: return "1/" + std::to_string(unitsPerSecond) + " seconds";
  }
}

std::unique_ptr<ModelSource> sampleModel(const Profile& profile, CallTreeData data) {
  return std::make_unique<SampleSource>(profile, std::move(data));
}

std::unique_ptr<ModelSource> callTreeModel(const Profile& profile, const ModelOptions& options) {
  CallTreeData d = decodeCallTree(profile);
  // Spans (a trace, also an empty one), else samples.
  if (!d.spanThread.empty() || !d.threads.empty() ||
      profile.root().getFormat() == ir::Format::TRACE_EVENT)
    return spanModel(profile, std::move(d), options);
  return sampleModel(profile, std::move(d));
}

}  // namespace profpack
