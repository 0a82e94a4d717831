// The model of a perf.data recording: a function per frame (an instruction address in one
// process's mapping, kernel frames in the kernel's), named by its hex address until the profile
// is symbolized; events `samples` (what `perf report -n` counts) then each perf event's summed
// period; self = the innermost frame of each sample, inclusive = every distinct frame of its
// stack, arcs from adjacent frames (once per sample); one thread per (pid, tid, comm).

#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>

#include "error.h"
#include "formats/perf/perf.h"
#include "formats/perf/records.h"
#include "ir/column.h"
#include "util/pairmap.h"
#include "util/text.h"

namespace profpack {

namespace {

using perf::kSampleTime;

const std::string kKernelObject = "[kernel.kallsyms]";

// The frames in the locations layer's order, (mapping, address): byRank lists them so, rank
// gives each frame its place.
void rankFrames(const std::vector<uint64_t>& mapping, const std::vector<uint64_t>& address,
                std::vector<uint64_t>& byRank, std::vector<uint64_t>& rank) {
  byRank.resize(address.size());
  for (size_t i = 0; i < byRank.size(); ++i) byRank[i] = i;
  std::sort(byRank.begin(), byRank.end(), [&](uint64_t a, uint64_t b) {
    return mapping[a] != mapping[b] ? mapping[a] < mapping[b] : address[a] < address[b];
  });
  rank.resize(address.size());
  for (size_t i = 0; i < byRank.size(); ++i) rank[byRank[i]] = i;
}

class PerfSource : public ModelSource {
 public:
  PerfSource(const Profile& profile, const ModelOptions& options)
      : pd_(profile.partialRoot().getPerf()),  // never deferred (a symbol section may be)
        thread_(options.thread),
        callEdges_(options.callEdges),
        cache_(options.cache) {
    auto events = pd_.getEvents();
    for (unsigned e = 0; e < events.size(); ++e)
      if (!(events[e].getType() == kSoftwareEvent && events[e].getConfig() == kDummyEvent))
        kept_.push_back(e);
  }

  uint32_t capabilities() const override {
    return kCapCallArcs | kCapAddresses | kCapStacks | kCapThreads |
           (pd_.hasFrameName() ? uint32_t{kCapNames} : 0u) |
           (timed() ? uint32_t{kCapTimeline} : 0u);
  }

  bool takesAddressLayers() const override { return true; }

  void functions(FunctionLayer& out) override {
    // Naming's model of the addresses read these layers of the whole profile already
    // (withSymbolsOf): the first model after it takes them, where it wants the same (its
    // functions without call edges: the named model's inner source, for a folded or pprof
    // writer). Else they are dropped here, as they were with that model.
    if (cache_) {
      std::shared_ptr<Model::Layers> l = cache_->take<Model::Layers>(kAddressLayers);
      if (l && thread_ < 0 && !callEdges_) {
        out = std::move(l->functions);
        stashedLocations_ = std::move(l->locations);
        stashedStacks_ = std::move(l->stacks);
        return;
      }
    }
    decode();
    const size_t events = eventCount();
    out.eventNames.push_back("samples");
    out.eventLongNames.push_back("samples");
    for (unsigned k : kept_) {
      const std::string name = pd_.getEvents()[k].getName().cStr();
      out.eventNames.push_back(name);
      out.eventLongNames.push_back(name + " (summed period)");
    }
    if (perEventSamples())
      for (unsigned k : kept_) {
        const std::string name = pd_.getEvents()[k].getName().cStr();
        out.eventNames.push_back(name + "_samples");
        out.eventLongNames.push_back("samples of " + name);
      }
    if (timed()) out.timelineUnitsPerSecond = 1e9;  // sample times are perf_clock nanoseconds
    for (auto f : pd_.getFeatures())                // hostname, osrelease, arch, nrcpus, cmdline
      out.description.emplace_back(f.getKey().cStr(), f.getValue().cStr());
    auto list = [&] {
      std::vector<ThreadRow> rows;
      rows.reserve(pd_.getThreads().size());
      for (auto t : pd_.getThreads())
        rows.push_back({static_cast<uint32_t>(t.getPid()), static_cast<uint32_t>(t.getTid()),
                        t.getComm().cStr(), {}});
      return rows;
    };
    if (cache_)  // one list for every thread's model: a model per thread costs no copy of it
      out.sharedThreads = cache_->get<std::vector<ThreadRow>>("perf threads", list);
    else
      out.threads = list();
    // Functions are made once for every thread's model (Columns); a thread's model has those of
    // its own stacks only (decode()), so that a model per thread costs its thread's share.
    if (thread_ < 0) {
      out.functions = cols_->functions;
    } else {
      out.functions.reserve(ownFunctions_.size());
      for (uint64_t g : ownFunctions_) out.functions.push_back(cols_->functions[g]);
    }
    out.self.assign(out.functions.size() * events, 0);
    out.inclusive.assign(out.functions.size() * events, 0);
    std::vector<uint64_t> stamp(out.functions.size(), ~uint64_t{0});
    PairMap edgeOf;  // (caller, callee) -> edge
    std::vector<uint64_t> edgeStamp;
    for (size_t s = 0; s + 1 < start_.size(); ++s) {
      const uint64_t* v = values_.data() + s * events;
      if (v[0] == 0) continue;
      const uint64_t b = start_[s], e = start_[s + 1];
      for (size_t k = 0; k < events; ++k) out.self[funcOf_[frames_[b]] * events + k] += v[k];
      for (uint64_t i = b; i < e; ++i) {
        const uint64_t f = funcOf_[frames_[i]];
        if (stamp[f] != s) {
          stamp[f] = s;
          for (size_t k = 0; k < events; ++k) out.inclusive[f * events + k] += v[k];
        }
        if (!callEdges_ || i + 1 >= e) continue;
        const uint64_t caller = funcOf_[frames_[i + 1]];
        bool fresh;
        const uint64_t edge = edgeOf.findOrInsert(caller, f, out.edges.size(), fresh);
        if (fresh) {
          out.addEdge(caller, f, 0);
          edgeStamp.push_back(~uint64_t{0});
        }
        if (edgeStamp[edge] != s) {
          edgeStamp[edge] = s;
          uint64_t* c = out.edgeCost(edge);
          for (size_t k = 0; k < events; ++k) c[k] += v[k];
        }
      }
    }
  }

  void locations(LocationLayer& out) override {
    if (stashedLocations_) {  // functions() took naming's layers: this is one of them
      out = std::move(*stashedLocations_);
      stashedLocations_.reset();
      return;
    }
    decode();
    for (auto m : pd_.getMappings()) {
      Mapping& k = out.mappings.emplace_back(Mapping{
          m.getStart(), m.getStart() + m.getLength(), m.getPgoff(), m.getPath().cStr()});
      // Symbolization then takes only the binary the recording saw (MMAP2, build-id feature).
      const auto id = m.getBuildId();
      k.buildId.assign(reinterpret_cast<const char*>(id.begin()), id.size());
      k.pid = m.getPid();
    }
    // The program: the first mapping whose file's name is its process's comm (the kernel keeps
    // the first 15 bytes of the executable's name), a file-backed one.
    std::map<int64_t, std::string> commOf;
    for (auto t : pd_.getThreads())
      if (t.getPid() == t.getTid()) commOf.try_emplace(t.getPid(), t.getComm().cStr());
    for (Mapping& k : out.mappings) {
      const auto comm = commOf.find(k.pid);
      if (comm == commOf.end() || comm->second.empty() || k.path.empty() || k.path[0] != '/')
        continue;
      const std::string base = k.path.substr(k.path.rfind('/') + 1);
      if (base.substr(0, 15) == comm->second) {
        k.program = true;
        break;
      }
    }
    const size_t events = eventCount();
    const std::vector<uint64_t>& self = selfPerFrame(events);
    out.framesPlaced = true;  // stacks() places each frame (a user frame under kernel ones)
    out.locations.reserve(out.locations.size() + 2 * byRank_.size());
    out.self.reserve(out.self.size() + 2 * byRank_.size() * events);
    for (bool site : {false, true})
      for (uint64_t f : byRank_) {
        Location l{site && address_[f] ? address_[f] - 1 : address_[f],
                   static_cast<int64_t>(mapping_[f]) - 1,
                   funcOf_[f] == kNone ? -1 : static_cast<int64_t>(funcOf_[f]), 0};
        l.callSite = site;
        out.locations.push_back(l);
        if (site)
          out.self.insert(out.self.end(), events, 0);
        else
          out.self.insert(out.self.end(), self.begin() + f * events,
                          self.begin() + (f + 1) * events);
      }
  }

  void stacks(StackLayer& out) override {
    if (stashedStacks_) {  // as locations()
      out = std::move(*stashedStacks_);
      stashedStacks_.reset();
      return;
    }
    decode();
    // Locations are 32-bit indexes in the layer: each address and its call site.
    if (2 * address_.size() > UINT32_MAX)
      throw Error(Status::limit, "perf", "too many distinct addresses for a stack layer");
    const std::span<const uint64_t> order = rank_;
    const size_t events = eventCount();
    std::vector<uint64_t> outOf(start_.size(), ~uint64_t{0});  // per stack: its index in out
    for (size_t s = 0; s + 1 < start_.size(); ++s) {
      const uint64_t* v = values_.data() + s * events;
      if (v[0] == 0) continue;
      outOf[s] = out.stacks();
      for (uint64_t i = start_[s + 1]; i-- > start_[s];) {
        const uint64_t f = frames_[i];
        out.frames.push_back(funcOf_[f]);
        // A caller's frame is at a return address (its call site), but for the innermost user
        // frame under kernel ones: the address the kernel entry (a fault, an interrupt, a
        // system call) left user code at, itself. Its call site may be in another function.
        const bool exact = i == start_[s] || (kernel_[frames_[i - 1]] && !kernel_[f]);
        out.locations.push_back(order[f] + (exact ? 0 : address_.size()));
      }
      out.start.push_back(out.frames.size());
      out.values.insert(out.values.end(), v, v + events);
    }
    if (thread_ >= 0) return;
    // The model of every thread: the samples of each thread, per stack (Columns::rows).
    for (size_t t = 0; t + 1 < cols_->rows.size(); ++t) {
      const std::vector<uint64_t>& rows = cols_->rows[t];
      for (size_t r = 0; r + events < rows.size(); r += 1 + events) {
        if (rows[r] >= outOf.size() || outOf[rows[r]] == ~uint64_t{0}) continue;
        out.threadValues.push_back(outOf[rows[r]]);
        out.threadValues.push_back(t);
        out.threadValues.insert(out.threadValues.end(), rows.begin() + r + 1,
                                rows.begin() + r + 1 + events);
      }
    }
  }

  uint64_t timelineOrigin() override {
    ColumnCursor time(pd_.getSampleTime());
    uint64_t first = ~uint64_t{0};
    for (uint64_t i = 0; i < time.size(); ++i) first = std::min(first, time.next());
    return first == ~uint64_t{0} ? 0 : first;
  }

  // Per thread, each sample a slice from its time to the thread's next sample (the last: one
  // sampling period), every frame of its stack a span, innermost first.
  void spans(SpanSink& sink) override;

  Summary summary() override {
    Summary s;
    s.formatVersion = pd_.getPipeMode() ? "pipe" : "file";
    s.records = pd_.getSampleStack().getCount();
    s.objects = pd_.getMappings().size();
    s.functions = pd_.getFrameAddress().getCount();
    return s;
  }

 private:
  // What the models of one task share (ModelCache): the frame and stack columns, and per
  // thread the samples summed per stack, (stack, figure per event) rows. A model per thread (a
  // folded or Callgrind writer's) then costs its thread's stacks, not a pass over every sample.
  struct Columns {
    std::vector<uint64_t> address, mapping, kernel, frames, start;
    std::vector<std::vector<uint64_t>> rows;  // per thread; the last: all threads
    std::vector<FunctionRow> functions;       // frames of one name share one
    std::vector<uint64_t> funcOf;             // per frame: its function
    std::vector<uint64_t> rank, byRank;       // the frames in (mapping, address) order
  };
  void functionsOf(Columns& c) const {
    auto maps = pd_.getMappings();
    auto names = pd_.getFrameName();
    // The object of each mapping once (frames: index + 1; 0 is no mapping).
    // The kernel's mapping ("[kernel.kallsyms]_text") by the name perf gives it.
    std::vector<std::string> objects{"[unknown]"};
    for (auto m : maps) {
      const std::string_view path = m.getPath().cStr();
      objects.emplace_back(path.starts_with(kKernelObject) ? std::string_view(kKernelObject)
                                                           : path);
    }
    c.funcOf.resize(c.address.size());
    c.functions.reserve(names.size() ? 0 : c.address.size());
    if (names.size() == 0) {  // addresses only (perf.data): a function per frame
      for (size_t f = 0; f < c.address.size(); ++f) {
        c.funcOf[f] = f;
        c.functions.push_back({hexString(c.address[f]), "",
                               c.kernel[f] && !c.mapping[f] ? kKernelObject : objects[c.mapping[f]],
                               0, true});
      }
    } else {  // named frames (perf script text): frames of one (name, object) share one
      std::map<std::pair<std::string, std::string>, uint64_t> named;
      for (size_t f = 0; f < c.address.size(); ++f) {
        const std::string& object =
            c.kernel[f] && !c.mapping[f] ? kKernelObject : objects[c.mapping[f]];
        const bool symbol = f < names.size() && names[static_cast<unsigned>(f)].size();
        std::string name =
            symbol ? std::string(names[static_cast<unsigned>(f)].cStr()) : hexString(c.address[f]);
        const bool unnamed = !symbol || name == "[unknown]";  // as perf script prints it
        auto [it, fresh] = named.try_emplace({name, object}, c.functions.size());
        if (fresh) c.functions.push_back({std::move(name), "", object, 0, unnamed});
        c.funcOf[f] = it->second;
      }
    }
    rankFrames(c.mapping, c.address, c.byRank, c.rank);
  }
  Columns readColumns() const {
    Columns c;
    c.address = decodeColumn(pd_.getFrameAddress());
    c.mapping = decodeColumn(pd_.getFrameMapping());
    c.kernel = decodeColumn(pd_.getFrameKernel());
    const std::vector<uint64_t> lengths = decodeColumn(pd_.getStackLength());
    c.frames = decodeColumn(pd_.getStackFrames());
    const size_t nf = c.address.size(), nm = pd_.getMappings().size();
    if (c.mapping.size() != nf || c.kernel.size() != nf)
      throw Error(Status::malformed, "ppk", "perf: frame columns of different lengths");
    for (uint64_t m : c.mapping)
      if (m > nm) throw Error(Status::malformed, "ppk", "perf: frame of a mapping out of range");
    for (uint64_t f : c.frames)
      if (f >= nf) throw Error(Status::malformed, "ppk", "perf: stack of a frame out of range");
    c.start.assign(1, 0);
    for (uint64_t n : lengths) {
      if (n == 0 || n > c.frames.size() - c.start.back())
        throw Error(Status::malformed, "ppk", "perf: stack lengths disagree with its frames");
      c.start.push_back(c.start.back() + n);
    }
    if (c.start.back() != c.frames.size())
      throw Error(Status::malformed, "ppk", "perf: stack lengths disagree with its frames");
    const size_t perf = pd_.getEvents().size(), events = eventCount(), stacks = lengths.size();
    // Per recorded event, where its period and its samples go among the model's events (0:
    // nowhere; `samples`, 0, counts every sample).
    std::vector<size_t> periodAt(perf, 0), countAt(perf, 0);
    for (size_t j = 0; j < kept_.size(); ++j) {
      periodAt[kept_[j]] = 1 + j;
      if (perEventSamples()) countAt[kept_[j]] = 1 + kept_.size() + j;
    }
    const size_t threads = pd_.getThreads().size();
    ColumnCursor thread(pd_.getSampleThread()), event(pd_.getSampleEvent()),
        period(pd_.getSamplePeriod()), stack(pd_.getSampleStack());
    const uint64_t n = stack.size();
    if (thread.size() != n || event.size() != n || period.size() != n)
      throw Error(Status::malformed, "ppk", "perf: sample columns of different lengths");
    c.rows.resize(threads + 1);
    PairMap rowOf;  // (thread, stack) -> row
    std::vector<uint64_t> all(stacks * events, 0);
    // The columns are decoded a block at a time: a value at a time, the cursor's call and
    // its state kept in memory cost most of this loop.
    constexpr size_t kBlock = 1024;
    uint64_t ts[kBlock], es[kBlock], ps[kBlock], ss[kBlock];
    for (uint64_t done = 0; done < n;) {
      const size_t m = static_cast<size_t>(std::min<uint64_t>(kBlock, n - done));
      thread.read(ts, m);
      event.read(es, m);
      period.read(ps, m);
      stack.read(ss, m);
      done += m;
      for (size_t i = 0; i < m; ++i) {
        const uint64_t t = ts[i], e = es[i], p = ps[i], s = ss[i];
        if (s >= stacks || e >= perf || t >= threads)
          throw Error(Status::malformed, "ppk",
                      "perf: sample of a stack, event or thread out of range");
        all[s * events] += 1;
        if (periodAt[e]) all[s * events + periodAt[e]] += p;
        if (countAt[e]) all[s * events + countAt[e]] += 1;
        std::vector<uint64_t>& rows = c.rows[t];
        bool fresh;
        const uint64_t row = rowOf.findOrInsert(t, s, rows.size(), fresh);
        if (fresh) {
          rows.push_back(s);
          rows.resize(rows.size() + events, 0);
        }
        rows[row + 1] += 1;
        if (periodAt[e]) rows[row + 1 + periodAt[e]] += p;
        if (countAt[e]) rows[row + 1 + countAt[e]] += 1;
      }
    }
    for (size_t s = 0; s < stacks; ++s)
      if (all[s * events] != 0) {
        c.rows[threads].push_back(s);
        c.rows[threads].insert(c.rows[threads].end(), all.begin() + s * events,
                               all.begin() + (s + 1) * events);
      }
    functionsOf(c);
    return c;
  }

  // Frames, stacks and the figures per stack: the whole profile's, or a thread's own, renumbered
  // (its model then costs its own stacks and frames, not the profile's: a recording of a build
  // has thousands of short threads).
  void decode() {
    if (decoded_) return;
    decoded_ = true;
    auto make = [&] { return readColumns(); };
    cols_ = cache_ ? cache_->get<Columns>("perf columns", make)
                   : std::make_shared<const Columns>(make());
    const Columns* c = cols_.get();
    const size_t events = eventCount(), stacks = c->start.size() - 1;
    const size_t threads = pd_.getThreads().size();
    if (thread_ < 0) {
      address_ = c->address;
      mapping_ = c->mapping;
      kernel_ = c->kernel;
      frames_ = c->frames;
      start_ = c->start;
      funcOf_ = c->funcOf;
      rank_ = c->rank;
      byRank_ = c->byRank;
      values_.assign(stacks * events, 0);
      const std::vector<uint64_t>& rows = c->rows[threads];
      for (size_t r = 0; r < rows.size(); r += 1 + events)
        std::copy(rows.begin() + r + 1, rows.begin() + r + 1 + events,
                  values_.begin() + rows[r] * events);
      return;
    }
    Own& o = own_;
    o.start.assign(1, 0);
    if (static_cast<uint64_t>(thread_) < threads) {
      const std::vector<uint64_t>& rows = c->rows[thread_];
      std::vector<std::pair<uint64_t, size_t>> mine;  // (stack, its row), in stack order
      for (size_t r = 0; r < rows.size(); r += 1 + events) mine.emplace_back(rows[r], r);
      std::sort(mine.begin(), mine.end());
      std::unordered_map<uint64_t, uint64_t> frameOf, functionOf;  // global -> own
      for (const auto& [s, r] : mine) {
        for (uint64_t i = c->start[s]; i < c->start[s + 1]; ++i) {
          const uint64_t g = c->frames[i];
          auto [f, fresh] = frameOf.try_emplace(g, o.address.size());
          if (fresh) {
            o.address.push_back(c->address[g]);
            o.mapping.push_back(c->mapping[g]);
            o.kernel.push_back(c->kernel[g]);
            auto [fn, newFunction] = functionOf.try_emplace(c->funcOf[g], ownFunctions_.size());
            if (newFunction) ownFunctions_.push_back(c->funcOf[g]);
            o.funcOf.push_back(fn->second);
          }
          o.frames.push_back(f->second);
        }
        o.start.push_back(o.frames.size());
        o.stackOf.push_back(s);
        values_.insert(values_.end(), rows.begin() + r + 1, rows.begin() + r + 1 + events);
      }
    }
    rankFrames(o.mapping, o.address, o.byRank, o.rank);
    address_ = o.address;
    mapping_ = o.mapping;
    kernel_ = o.kernel;
    frames_ = o.frames;
    start_ = o.start;
    funcOf_ = o.funcOf;
    rank_ = o.rank;
    byRank_ = o.byRank;
  }
  // The model's events: `samples` (every event's), each recorded event's summed period, and
  // where it has more than one, each one's samples (what `perf report -n` shows per event;
  // `samples` alone would add, say, cpu-clock's and page-faults'). Not perf's dummy events,
  // which `perf record -a` adds to carry its mmap and comm records: they never sample, and
  // perf report does not show them.
  bool perEventSamples() const { return kept_.size() > 1; }
  size_t eventCount() const { return 1 + kept_.size() * (perEventSamples() ? 2 : 1); }
  // Whether the samples have times (perf.data's sample_type TIME; `perf script` text with its
  // time field).
  bool timed() const {
    for (auto e : pd_.getEvents())
      if (e.getSampleType() & kSampleTime) return true;
    return false;
  }
  // How long a thread's last sample lasts: its period where the event counts nanoseconds
  // (cpu-clock, task-clock), else one period of the sampling frequency, else the gap before it.
  uint64_t lastDuration(uint64_t event, uint64_t period, uint64_t gap) const {
    auto events = pd_.getEvents();
    if (event < events.size()) {
      auto e = events[static_cast<unsigned>(event)];
      const std::string_view name = e.getName().cStr();
      if (name == "cpu-clock" || name == "task-clock") return period;
      if (e.getFreq() && e.getSamplePeriod() > 0) return 1000000000 / e.getSamplePeriod();
    }
    return gap;
  }
  // Self figures per frame and event (the locations layer's), on first use.
  const std::vector<uint64_t>& selfPerFrame(size_t events) {
    if (selfOf_.empty() && !address_.empty()) {
      selfOf_.assign(address_.size() * events, 0);
      for (size_t s = 0; s + 1 < start_.size(); ++s)
        for (size_t e = 0; e < events; ++e)
          selfOf_[frames_[start_[s]] * events + e] += values_[s * events + e];
    }
    return selfOf_;
  }
  static constexpr uint32_t kSoftwareEvent = 1;  // PERF_TYPE_SOFTWARE
  static constexpr uint64_t kDummyEvent = 9;     // PERF_COUNT_SW_DUMMY
  ir::PerfData::Reader pd_;
  std::vector<unsigned> kept_;  // the recorded events the model has, in their order
  long thread_;
  bool callEdges_;
  std::shared_ptr<ModelCache> cache_;
  std::shared_ptr<const Columns> cols_;
  // Naming's model's layers, taken by functions() for locations() and stacks().
  std::optional<LocationLayer> stashedLocations_;
  std::optional<StackLayer> stashedStacks_;
  bool decoded_ = false;
  // The frames and stacks of this model: the shared columns (cols_), or a thread's own (own_);
  // per frame its function and its place in the locations layer's (mapping, address) order.
  std::span<const uint64_t> address_, mapping_, kernel_, frames_, start_, funcOf_, rank_, byRank_;
  struct Own {
    std::vector<uint64_t> address, mapping, kernel, frames, start, funcOf, rank, byRank;
    std::vector<uint64_t> stackOf;  // per own stack: the profile's
  } own_;
  std::vector<uint64_t> ownFunctions_;  // a thread's model: per function, the profile's
  std::vector<uint64_t> values_, selfOf_;
  static constexpr uint64_t kNone = ~uint64_t{0};
};

void PerfSource::spans(SpanSink& sink) {
  decode();
  const std::vector<uint64_t> time = decodeColumn(pd_.getSampleTime());
  const std::vector<uint64_t> thread = decodeColumn(pd_.getSampleThread());
  const std::vector<uint64_t> event = decodeColumn(pd_.getSampleEvent());
  const std::vector<uint64_t> period = decodeColumn(pd_.getSamplePeriod());
  const std::vector<uint64_t> stack = decodeColumn(pd_.getSampleStack());
  const size_t n = stack.size(), threads = pd_.getThreads().size();
  if (time.size() != n)
    throw Error(Status::malformed, "ppk", "perf: sample columns of different lengths");
  // In time order, as perf script sorts them (a .ppk's are; `perf script --no-sort` text's may
  // not be).
  std::vector<uint64_t> order;
  if (!std::is_sorted(time.begin(), time.end())) {
    order.resize(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint64_t a, uint64_t b) { return time[a] < time[b]; });
  }
  // A thread's model has its own stacks: the profile's stack -> the model's.
  std::unordered_map<uint64_t, uint64_t> ownStack;
  for (size_t s = 0; thread_ >= 0 && s < own_.stackOf.size(); ++s) ownStack[own_.stackOf[s]] = s;
  uint64_t emitted = 0;
  auto emit = [&](uint64_t i, uint64_t end) {
    uint64_t s = stack[i];
    if (thread_ >= 0) {
      auto it = ownStack.find(s);
      if (it == ownStack.end()) return;  // a sample of a stack of no figures (none is made)
      s = it->second;
    }
    const uint64_t b = start_[s], e = start_[s + 1];
    // Many samples of one deep stack make more spans than a .ppk has bytes: bounded as the
    // stacks layer is.
    if ((emitted += e - b) > kMaxStackFrames)
      throw Error(Status::limit, "",
                  "the samples' timeline holds more than " + std::to_string(kMaxStackFrames) +
                      " spans (a frame of a sample's stack each)");
    for (uint64_t k = b; k < e; ++k)
      sink.span({static_cast<uint32_t>(thread[i]), static_cast<uint32_t>(e - 1 - k),
                 funcOf_[frames_[k]], time[i], std::max(end, time[i])});
  };
  // A thread of the system is one timeline, whatever its comm (an exec renames it: two threads
  // of the model).
  std::map<std::pair<int32_t, int32_t>, uint64_t> idOf;
  std::vector<uint64_t> line(threads);
  for (unsigned t = 0; t < threads; ++t) {
    auto row = pd_.getThreads()[t];
    line[t] = idOf.try_emplace({row.getPid(), row.getTid()}, idOf.size()).first->second;
  }
  auto wanted = [&](uint64_t i) {
    return thread_ < 0 || thread[i] == static_cast<uint64_t>(thread_);
  };
  std::vector<uint64_t> pending(idOf.size(), ~uint64_t{0}), gap(idOf.size(), 0);
  for (size_t k = 0; k < n; ++k) {
    const uint64_t i = order.empty() ? k : order[k];
    if (thread[i] >= threads)
      throw Error(Status::malformed, "ppk", "perf: sample of a thread out of range");
    const uint64_t l = line[thread[i]];
    if (pending[l] != ~uint64_t{0}) {
      gap[l] = time[i] - time[pending[l]];
      if (wanted(pending[l])) emit(pending[l], time[i]);
    }
    pending[l] = i;
  }
  for (size_t l = 0; l < pending.size(); ++l)
    if (const uint64_t i = pending[l]; i != ~uint64_t{0} && wanted(i))
      emit(i, time[i] + lastDuration(event[i], period[i], gap[l]));
}

}  // namespace

std::unique_ptr<ModelSource> perfModel(const Profile& profile, const ModelOptions& options) {
  return std::make_unique<PerfSource>(profile, options);
}

}  // namespace profpack
