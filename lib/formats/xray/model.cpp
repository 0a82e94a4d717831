// The model of an XRay trace: functions are function ids (named from the instrumented binary
// when one is given); one event "ticks" (TSC ticks, with the file's cycle frequency); self and
// inclusive time and call counts from the reconstructed stacks (account.h); arcs with call
// counts and the callee's time; threads are the trace's (pid, thread id) pairs.

#include "formats/xray/model.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "error.h"
#include "formats/xray/account.h"
#include "ir/column.h"

namespace profpack {

namespace {

class XraySource : public ModelSource {
 public:
  XraySource(const Profile& profile, const ModelOptions& options)
      : profile_(profile), thread_(options.thread), binary_(options.binary), cache_(options.cache) {
    if (!options.binary.empty()) names_ = xrayFunctionNames(options.binary);
  }

  uint32_t capabilities() const override {
    return kCapCallArcs | kCapCallCounts | kCapStacks | kCapTimeline | kCapThreads |
           kCapFunctionIds | (names_.empty() ? 0u : static_cast<uint32_t>(kCapNames));
  }

  void functions(FunctionLayer& out) override {
    // One accounting of the whole trace, shared by the models of one task: a model per thread
    // takes its thread's figures from it rather than accounting the whole trace again.
    auto make = [&] { return accountXray(profile_, nullptr, /*orderStatistics=*/false); };
    const std::shared_ptr<const XrayAccount> shared =
        cache_ ? cache_->get<XrayAccount>("xray account", make)
               : std::make_shared<const XrayAccount>(make());
    const XrayAccount& account = *shared;
    origin_ = account.firstEntry;  // of every thread's calls, also with a thread selected
    auto list = [&] {
      std::vector<ThreadRow> rows;
      rows.reserve(account.threads.size());
      for (const XrayThreadAccount& t : account.threads) rows.push_back({t.pid, t.threadId, {}, {}});
      return rows;
    };
    if (cache_)  // one list for every thread's model
      out.sharedThreads = cache_->get<std::vector<ThreadRow>>("xray threads", list);
    else
      out.threads = list();
    if (thread_ >= static_cast<long>(account.threads.size()))
      throw Error(Status::invalidArgument, "",
                  "thread index " + std::to_string(thread_) + " out of range: the trace has " +
                      std::to_string(account.threads.size()) + " threads");
    const size_t t = static_cast<size_t>(thread_);
    const std::vector<XrayFunctionStats>& stats =
        thread_ < 0 ? account.functions : account.threads[t].functions;
    const std::vector<XrayCallEdge>& calls = thread_ < 0 ? account.edges : account.threads[t].edges;
    out.eventNames = {"ticks"};
    if (account.cycleFrequency > 0 && account.cycleFrequency < 1e15)
      out.unitsPerSecond = account.cycleFrequency;
    // The frequency comes from the file: print it without converting an arbitrary double.
    char hz[64];
    std::snprintf(hz, sizeof hz, "%.0f", account.cycleFrequency);
    out.eventLongNames = {std::string("TSC ticks (") + hz + " per second)"};
    auto fn = [&](uint32_t id) {
      auto [it, inserted] = index_.try_emplace(id, out.functions.size());
      if (inserted) {
        std::string name = id < names_.size() && !names_[id].empty()
                               ? names_[id]
                               : "function " + std::to_string(id);
        out.addFunction({std::move(name), "", ""});
      }
      return it->second;
    };
    for (const XrayFunctionStats& f : stats) {
      if (f.calls == 0 && f.inclusiveTicks == 0 && f.selfTicks == 0) continue;
      const uint64_t i = fn(f.functionId);
      out.self[i] = f.selfTicks;
      out.inclusive[i] = f.inclusiveTicks;
      out.calls.resize(out.functions.size(), 0);
      out.calls[i] = f.calls;
    }
    for (const XrayCallEdge& e : calls) {
      if (e.caller == 0) {  // a call at the bottom of a stack has no caller
        out.rootCalls.push_back({fn(e.callee), e.calls, {e.ticks}});
        continue;
      }
      const uint64_t caller = fn(e.caller), callee = fn(e.callee);
      out.edgeCost(out.addEdge(caller, callee, e.calls))[0] = e.ticks;
    }
    // Functions on a stack still open at the end of a trace cut short have no figures, but the
    // stacks and the timeline name them: add them too.
    if (thread_ >= 0) {
      for (uint32_t id : account.threads[t].unfinished) fn(id);
    } else {
      std::set<uint32_t> unfinished;
      for (const XrayThreadAccount& k : account.threads)
        unfinished.insert(k.unfinished.begin(), k.unfinished.end());
      for (uint32_t id : unfinished) fn(id);
    }
    self_ = out.self;
  }

  // One location per function: its id (kCapFunctionIds), in the binary given, if any.
  void locations(LocationLayer& out) override {
    Mapping m;
    m.path = binary_;
    m.linkTime = true;
    m.functionIds = true;
    out.mappings.push_back(std::move(m));
    std::vector<std::pair<uint32_t, uint64_t>> ids(index_.begin(), index_.end());
    std::sort(ids.begin(), ids.end());
    for (const auto& [id, f] : ids) {
      out.locations.push_back({id, 0, static_cast<int64_t>(f), 0});
      out.self.push_back(self_.size() > f ? self_[f] : 0);
    }
  }

  // Each distinct stack of function ids, with the self ticks of the calls made with it: the
  // calling contexts of the selected thread's calls, spelled out in the order first entered.
  void stacks(StackLayer& out) override {
    struct Collect : XrayCallVisitor {
      long thread;
      XrayContexts tree;
      std::vector<uint64_t> self;   // by context
      std::vector<uint8_t> called;  // by context: a call of the selected thread ended there
      XrayContexts* contexts() override { return &tree; }
      bool figures() const override { return false; }
      // The frames the stacks spell out, counted as they come: a recursion n calls deep
      // spells out n^2 / 2, and the accounting stops at the limit rather than going on
      // adding contexts.
      uint64_t frames = 0, stacks = 0, deepest = 0;
      void call(const XrayCall& c) override {
        if (thread >= 0 && c.thread != static_cast<uint32_t>(thread)) return;
        if (c.context >= self.size()) {
          self.resize(tree.fid.size(), 0);
          called.resize(tree.fid.size(), 0);
        }
        self[c.context] += c.selfTicks;
        if (called[c.context]) return;
        called[c.context] = 1;
        const uint64_t depth = c.stack->size();
        frames += depth;
        ++stacks;
        deepest = std::max(deepest, depth);
        if (frames > kMaxStackFrames)
          throw Error(Status::limit, "xray",
                      "the trace's call stacks hold more than " + std::to_string(kMaxStackFrames) +
                          " frames in all (the limit for writing out whole stacks), " +
                          std::to_string(frames) + " in the first " + std::to_string(stacks) +
                          " distinct stacks, up to " + std::to_string(deepest) +
                          " calls deep; the call graph, top functions and timeline do not "
                          "need them");
      }
    } collect;
    collect.thread = thread_;
    accountXray(profile_, &collect, /*orderStatistics=*/false);
    const XrayContexts& tree = collect.tree;
    std::vector<uint64_t> depth(collect.called.size());
    for (size_t c = 0; c < depth.size(); ++c) {
      const uint64_t p = tree.parent[c];
      depth[c] = p == XrayContexts::kNone ? 1 : depth[p] + 1;
    }
    const uint64_t frames = collect.frames, stacks = collect.stacks;
    out.frames.reserve(frames);
    out.start.reserve(stacks + 1);
    out.values.reserve(stacks);
    for (size_t c = 0; c < depth.size(); ++c) {
      if (!collect.called[c]) continue;
      const size_t end = out.frames.size() + depth[c];
      out.frames.resize(end);
      size_t i = end;
      for (uint64_t k = c; k != XrayContexts::kNone; k = tree.parent[k])
        out.frames[--i] = index_.at(tree.fid[k]);
      out.start.push_back(end);
      out.values.push_back(collect.self[c]);
    }
  }

  uint64_t timelineOrigin() override { return origin_; }

  // Each completed call as it ends; its depth is its stack's, less one.
  void spans(SpanSink& sink) override {
    struct Stream : XrayCallVisitor {
      long thread;
      const std::unordered_map<uint32_t, uint64_t>* index;
      SpanSink* sink;
      bool figures() const override { return false; }
      void call(const XrayCall& c) override {
        if (thread >= 0 && c.thread != static_cast<uint32_t>(thread)) return;
        const uint32_t depth = static_cast<uint32_t>(c.stack->size() - 1);
        sink->span(
            {c.thread, depth, index->at(c.stack->back()), c.entry, std::max(c.entry, c.exit)});
      }
    } stream;
    stream.thread = thread_;
    stream.index = &index_;
    stream.sink = &sink;
    accountXray(profile_, &stream, /*orderStatistics=*/false);
  }

  Summary summary() override {
    Summary s;
    auto root = profile_.root();
    s.formatVersion = root.getFormatVersion().cStr();
    const size_t strings = profile_.strings().size();
    s.strings = strings > 0 ? strings - 1 : 0;
    // Records: every record of the trace; functions: distinct function ids.
    if (!root.hasTrace()) return s;
    if (root.getTrace().getMode() == ir::Trace::Mode::FDR) {
      // The code column a window at a time: function records have an even code, the kind in
      // bits 1-3 and the function id above.
      auto recs = root.getTrace().getRecords();
      ColumnCursor code(recs.getCode());
      std::unordered_set<uint32_t> fns;
      uint64_t window[4096];
      for (uint64_t left = code.size(); left > 0;) {
        const size_t w = static_cast<size_t>(std::min<uint64_t>(left, 4096));
        code.read(window, w);
        left -= w;
        for (size_t i = 0; i < w; ++i)
          if (!(window[i] & 1) && window[i] <= 0xffffffffu && ((window[i] >> 1) & 7) < 4)
            fns.insert(static_cast<uint32_t>(window[i] >> 4));
      }
      code.finish();
      s.records = code.size();
      s.functions = fns.size();
      return s;
    }
    XrayTrace x = decodeXray(profile_);
    s.records = x.records.size();
    std::unordered_set<uint32_t> fns;
    for (const XrayRecord& r : x.records)
      if (xrayIsFunction(r.type) || r.type == kXrayBasicArgument) fns.insert(r.functionId);
    s.functions = fns.size();
    return s;
  }

 private:
  const Profile& profile_;
  long thread_;
  std::string binary_;
  std::shared_ptr<ModelCache> cache_;
  std::vector<std::string> names_;
  std::vector<uint64_t> self_;                    // per function, as the function layer has it
  std::unordered_map<uint32_t, uint64_t> index_;  // function id -> function
  uint64_t origin_ = 0;                           // the earliest entry of a completed call
};

}  // namespace

std::unique_ptr<ModelSource> xrayModel(const Profile& profile, const ModelOptions& options) {
  return std::make_unique<XraySource>(profile, options);
}

}  // namespace profpack
