// The model of a CallTree of spans (Chrome trace events): a function per frame (event name);
// each thread's spans nest by time into calls: a span that begins before the span below it on
// the thread's stack ends is its callee. Self time is a span's duration less its callees';
// inclusive time counts the outermost span of a function on a stack (recursion once); arcs
// count the calls on them and their time (an arc repeated on a stack once); a call at the bottom
// of a thread's stack is a root call; each distinct stack of functions is one entry of the
// stacks layer with the self time spent in it. The timeline is the spans themselves, in the
// order the file has them.

#include <algorithm>
#include <numeric>
#include <span>

#include "error.h"
#include "formats/calltree/calltree.h"
#include "formats/calltree/sources.h"
#include "util/pairmap.h"

namespace profpack {

namespace {

constexpr uint64_t kNone = ~uint64_t{0};

class SpanSource : public ModelSource {
 public:
  SpanSource(const Profile& profile, CallTreeData data, const ModelOptions& options)
      : profile_(profile), d_(std::move(data)), thread_(options.thread) {}

  uint32_t capabilities() const override {
    return kCapCallArcs | kCapCallCounts | kCapStacks | kCapTimeline | kCapThreads | kCapNames;
  }

  void functions(FunctionLayer& out) override {
    const uint64_t perSecond = d_.timeUnitsPerSecond ? d_.timeUnitsPerSecond : 1000000000u;
    out.eventNames = {"time"};
    out.eventLongNames = {"time (" + unitName(perSecond) + ")"};
    out.unitsPerSecond = static_cast<double>(perSecond);
    out.threads = d_.threads;
    for (const CallTreeData::Frame& f : d_.frames) out.addFunction({f.name, f.file, "", f.line});
    out.calls.assign(d_.frames.size(), 0);
    if (thread_ >= static_cast<long>(d_.threads.size()))
      throw Error(Status::invalidArgument, "",
                  "thread index " + std::to_string(thread_) + " out of range: the trace has " +
                      std::to_string(d_.threads.size()) + " threads");
    const size_t n = d_.spanThread.size();
    origin_ = n ? begin(0) : 0;
    for (size_t s = 1; s < n; ++s) origin_ = std::min(origin_, begin(s));
    depth_.assign(n, 0);
    // The spans of each thread, in file order (a counting sort by thread).
    std::vector<uint64_t> start(d_.threads.size() + 1, 0), byThread(n);
    for (uint64_t t : d_.spanThread) ++start[t + 1];
    for (size_t t = 0; t < d_.threads.size(); ++t) start[t + 1] += start[t];
    std::vector<uint64_t> fill(start.begin(), start.end() - 1);
    for (size_t s = 0; s < n; ++s) byThread[fill[d_.spanThread[s]]++] = s;
    active_.assign(d_.frames.size(), 0);
    rootOf_.assign(d_.frames.size(), kNone);
    for (size_t t = 0; t < d_.threads.size(); ++t)
      nest(out, std::span<uint64_t>(byThread.data() + start[t], start[t + 1] - start[t]),
           thread_ < 0 || static_cast<size_t>(thread_) == t);
  }

  // Each distinct stack of functions with the self time spent in it, in the order first seen.
  void stacks(StackLayer& out) override {
    std::vector<uint64_t> depth(contextFrame_.size());
    uint64_t frames = 0;
    for (size_t c = 0; c < depth.size(); ++c) {
      depth[c] = contextParent_[c] == kNone ? 1 : depth[contextParent_[c]] + 1;
      frames += depth[c];
    }
    if (frames > kMaxStackFrames)
      throw Error(Status::limit, "",
                  "the trace's call stacks hold " + std::to_string(frames) +
                      " frames in all, more than the " + std::to_string(kMaxStackFrames) +
                      " that whole stacks are written out for");
    out.frames.reserve(frames);
    for (size_t c = 0; c < depth.size(); ++c) {
      const size_t end = out.frames.size() + depth[c];
      out.frames.resize(end);
      size_t i = end;
      for (uint64_t k = c; k != kNone; k = contextParent_[k]) out.frames[--i] = contextFrame_[k];
      out.start.push_back(end);
      out.values.push_back(contextSelf_[c]);
    }
  }

  uint64_t timelineOrigin() override { return 0; }

  // In file order, times from the earliest span: outer first where spans begin together, as
  // nest() reads them.
  void spans(SpanSink& sink) override {
    sink.outerFirst();
    for (size_t s = 0; s < d_.spanThread.size(); ++s) {
      const uint32_t t = static_cast<uint32_t>(d_.spanThread[s]);
      if (thread_ >= 0 && t != static_cast<uint64_t>(thread_)) continue;
      const uint64_t b = static_cast<uint64_t>(begin(s)) - static_cast<uint64_t>(origin_);
      sink.span({t, depth_[s], d_.spanFrame[s], b, b + d_.spanDuration[s]});
    }
  }

  Summary summary() override {
    Summary s;
    s.formatVersion = profile_.root().getFormatVersion().cStr();
    const size_t strings = profile_.strings().size();
    s.strings = strings > 0 ? strings - 1 : 0;
    s.records = d_.spanThread.size();
    s.functions = d_.frames.size();
    return s;
  }

 private:
  int64_t begin(uint64_t s) const { return static_cast<int64_t>(d_.spanBegin[s]); }
  int64_t end(uint64_t s) const {
    return static_cast<int64_t>(d_.spanBegin[s] + d_.spanDuration[s]);
  }

  // One thread's spans (file order) nested: sorted by begin, the longer first, and of spans
  // equal in both the earlier in the file outside, as the format's viewers (catapult,
  // Perfetto, speedscope) nest them and as profpack writes them. Figures are added where
  // `counted`.
  void nest(FunctionLayer& out, std::span<uint64_t> spans, bool counted) {
    std::sort(spans.begin(), spans.end(), [&](uint64_t a, uint64_t b) {
      if (begin(a) != begin(b)) return begin(a) < begin(b);
      if (end(a) != end(b)) return end(a) > end(b);
      return a < b;
    });
    struct Open {
      uint64_t span, context, edge, callees;
    };
    std::vector<Open> stack;
    auto exit = [&] {
      const Open o = stack.back();
      stack.pop_back();
      const uint64_t f = d_.spanFrame[o.span], dur = d_.spanDuration[o.span];
      if (stack.size() > 0) stack.back().callees += dur;
      if (!counted) return;
      const uint64_t self = dur > o.callees ? dur - o.callees : 0;
      out.self[f] += self;
      contextSelf_[o.context] += self;
      --active_[f];
      if (o.edge != kNone) --edgeActive_[o.edge];
    };
    for (uint64_t s : spans) {
      while (!stack.empty() && begin(s) >= end(stack.back().span)) exit();
      depth_[s] = static_cast<uint32_t>(std::min<size_t>(stack.size(), UINT32_MAX));
      if (!counted) {
        stack.push_back({s, kNone, kNone, 0});
        continue;
      }
      const uint64_t f = d_.spanFrame[s], dur = d_.spanDuration[s];
      ++out.calls[f];
      if (active_[f]++ == 0) out.inclusive[f] += dur;
      uint64_t edge = kNone;
      const uint64_t parentContext = stack.empty() ? kNone : stack.back().context;
      if (!stack.empty()) {
        bool added = false;
        const uint64_t caller = d_.spanFrame[stack.back().span];
        edge = edgeOf_.findOrInsert(caller, f, out.edges.size(), added);
        if (added) {
          out.addEdge(caller, f, 0);
          edgeActive_.push_back(0);
        }
        ++out.edges[edge].calls;
        if (edgeActive_[edge]++ == 0) out.edgeCost(edge)[0] += dur;
      } else {
        if (rootOf_[f] == kNone) {
          rootOf_[f] = out.rootCalls.size();
          out.rootCalls.push_back({f, 0, {0}});
        }
        ++out.rootCalls[rootOf_[f]].calls;
        out.rootCalls[rootOf_[f]].inclusive[0] += dur;
      }
      bool added = false;
      const uint64_t context =
          contextOf_.findOrInsert(parentContext, f, contextFrame_.size(), added);
      if (added) {
        contextParent_.push_back(parentContext);
        contextFrame_.push_back(f);
        contextSelf_.push_back(0);
      }
      stack.push_back({s, context, edge, 0});
    }
    while (!stack.empty()) exit();
  }

  const Profile& profile_;
  CallTreeData d_;
  long thread_;
  int64_t origin_ = 0;
  std::vector<uint32_t> depth_;   // per span
  std::vector<uint64_t> active_;  // per function: its open spans on the current stack
  std::vector<uint64_t> rootOf_;  // per function: its entry in rootCalls
  PairMap edgeOf_, contextOf_;    // (caller, callee) -> edge; (context, function) -> context
  std::vector<uint64_t> edgeActive_;
  std::vector<uint64_t> contextParent_, contextFrame_, contextSelf_;
};

}  // namespace

std::unique_ptr<ModelSource> spanModel(const Profile& profile, CallTreeData data,
                                       const ModelOptions& options) {
  return std::make_unique<SpanSource>(profile, std::move(data), options);
}

}  // namespace profpack
