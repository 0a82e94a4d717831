// The format-neutral profile model: what every query, cross-format writer and the C ABI read,
// whatever the profile's format. A format fills it through a ModelSource (its own code under
// lib/formats/<name>/, reached through the registry); nothing here knows a format.
//
// The model is built in layers, each on first use, so a query pays only for what it reads:
// - functions (always): events, threads, functions with self and inclusive cost per event,
//   completed-call counts, call arcs with call counts and inclusive cost;
// - lines: self cost per source line, per file; and per (function, line), for writers that
//   keep lines apart by function;
// - locations: instruction addresses with their mapping (object), function, line (and the
//   functions inlined there, where known) and self cost per event;
// - stacks: whole call stacks (functions, outermost first, and where known the location of
//   each frame) with the cost spent with that stack innermost, one entry per distinct stack;
// - timeline: per thread, every completed call as a span of time, streamed (never held whole:
//   a long trace has millions).
// A profile's capabilities say which of these it holds at all.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace profpack {

// What a profile's source holds; a layer it lacks is empty.
enum Capability : uint32_t {
  kCapCallArcs = 1u << 0,    // caller -> callee arcs with inclusive costs
  kCapCallCounts = 1u << 1,  // how often each arc and function was called
  kCapLines = 1u << 2,       // self cost per source line
  kCapAddresses = 1u << 3,   // self cost per instruction address (the locations layer)
  kCapStacks = 1u << 4,      // whole call stacks per sample
  kCapTimeline = 1u << 5,    // when each call began and ended, per thread
  kCapThreads = 1u << 6,     // figures per thread
  kCapNames = 1u << 7,       // functions have names (not only addresses or ids)
  kCapSigned = 1u << 8,      // costs and call counts are two's-complement int64 (a difference)
  // Functions are ids that a binary maps to entry addresses (XRay): the locations layer holds
  // one location per function, its id as the address, in a mapping marked functionIds.
  kCapFunctionIds = 1u << 9,
  kCapLabels = 1u << 10,  // samples carry key/value labels (ModelOptions::tags filters them)
};

// What the models of one profile built for one task share (the whole profile's and each
// thread's model of one write): a source keeps here what each of them would otherwise compute
// anew from the whole profile, so that a model per thread costs that thread's share, not the
// profile's. Keys are the sources' own (one key, one type).
class ModelCache {
 public:
  // The value kept under `key`, made by `make()` on first use.
  template <class T, class Make>
  std::shared_ptr<const T> get(const std::string& key, Make&& make) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) it = entries_.emplace(key, std::make_shared<const T>(make())).first;
    return std::static_pointer_cast<const T>(it->second);
  }
  // A value left for one later model to take whole (stash) or never (null from take): the
  // layers naming's model of the addresses read, which the named model's source would make
  // again (Model::releaseLayers).
  template <class T>
  void stash(const std::string& key, T value) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    stashed_[key] = std::make_shared<T>(std::move(value));
  }
  template <class T>
  std::shared_ptr<T> take(const std::string& key) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    auto it = stashed_.find(key);
    if (it == stashed_.end()) return nullptr;
    std::shared_ptr<T> out = std::static_pointer_cast<T>(std::move(it->second));
    stashed_.erase(it);
    return out;
  }

 private:
  std::recursive_mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const void>> entries_;
  std::unordered_map<std::string, std::shared_ptr<void>> stashed_;
};

// ModelCache::stash's key of naming's model of a profile's addresses, its Model::Layers: the
// first model of the named profile may take them (a perf recording's source does).
inline const std::string kAddressLayers = "address model layers";

// What to build the model for.
struct ModelOptions {
  long thread = -1;     // restrict every figure to thread `thread` of threads() (-1: all)
  std::string binary;   // the program the profile was taken of, to name functions ("": none)
  // Pass the format's source through the profile's Profile::sourceWrap (names from its symbol
  // section), where it has one.
  bool symbols = true;
  // False: whoever reads the model reads no call edges (a writer of pprof or folded stacks),
  // so a source may leave them out and spend the time elsewhere.
  bool callEdges = true;
  // False: whoever reads the model's stacks reads their frames' locations only (a writer of
  // pprof), so a source with locations may leave StackLayer::frames empty.
  bool stackFrames = true;
  // Shared by the models of one task (null: each model computes everything itself).
  std::shared_ptr<ModelCache> cache;
  // Only the samples with, for each (key, pattern), a label `key` whose value the regular
  // expression `pattern` matches somewhere (ECMAScript), as pprof's -tagfocus key=pattern.
  // Status::unsupported for a profile without labels (kCapLabels).
  std::vector<std::pair<std::string, std::string>> tags;
};

struct FunctionRow {
  std::string name;    // function name (or address / id where the format has no names)
  std::string file;    // source file ("" if unknown)
  std::string object;  // ELF object / mapping ("" if unknown)
  uint64_t line = 0;   // where the function starts in `file`, where known (0 if unknown)
  // No symbol names it: `name` is its address, or what the source printed in place of a
  // symbol (perf script's "[unknown]"). Set by sources whose text form marks such frames.
  bool unnamed = false;
};

struct CallEdge {
  uint64_t caller = 0;                  // function index
  uint64_t callee = 0;                  // function index
  uint64_t calls = 0;                   // call count (0 where the format does not count calls)
  const uint64_t* inclusive = nullptr;  // inclusive cost of the calls, one per event (owned by
                                        // the model: one array for all edges)
};

struct LineCost {
  uint64_t line = 0;
  std::vector<uint64_t> cost;  // self cost per event
};

struct ThreadRow {
  uint32_t pid = 0, threadId = 0;  // kUnknownId where the source does not say
  std::string process;  // the process's name where the source records it (perf's comm)
  std::string name;     // the thread's name where the source records it (a trace's thread_name)
};

// A pid or thread id the source does not know: perf's -1 (its records hold ids as 32 bits;
// `perf script -F -tid` prints none), kept as those 32 bits.
constexpr uint32_t kUnknownId = UINT32_MAX;

// An id as text and JSON show it: signed, as perf prints it, so that an unknown one is -1.
inline int64_t shownId(uint32_t id) { return id == kUnknownId ? -1 : int64_t{id}; }

// Whole-profile counts, as `profpack info` shows them.
struct Summary {
  std::string formatVersion;
  uint64_t parts = 0;
  uint64_t records = 0;    // the format's records: cost rows, samples, trace records, chunks
  uint64_t functions = 0;  // distinct function names (or ids)
  uint64_t files = 0;      // distinct source file names
  uint64_t objects = 0;    // distinct objects (ELF objects, mappings, images)
  uint64_t strings = 0;    // interned strings
};

// The function layer, as a source fills it.
struct FunctionLayer {
  std::vector<std::string> eventNames, eventLongNames;
  double unitsPerSecond = 0;       // event units per second where the event is time, else 0
  // Where events differ (a V8 profile's time and sample count, pprof's sample types): per
  // event, its units per second where it is time, else 0. Empty: every event is as the
  // profile (unitsPerSecond, else samplePeriodNanos).
  std::vector<double> eventUnitsPerSecond;
  uint64_t samplePeriodNanos = 0;  // sampled profiles: the CPU time one sample stands for
  // Units per second of the timeline's spans where they are not the events' (a sampled
  // profile's events are counts and periods, its spans timestamps); 0: unitsPerSecond.
  double timelineUnitsPerSecond = 0;
  // Sampled events (DCPI): per event, the occurrences of the event one sample stands for;
  // shorter than the events, or 0, where unknown.
  std::vector<uint64_t> eventPeriods;
  // A difference NEW - BASE that records its base's samples: per event, the base's total (the
  // sum of their magnitudes, as pprof's -diff_base takes it), which shares of the difference
  // are of. Empty where the profile is no such difference.
  std::vector<uint64_t> baseTotals;
  std::vector<ThreadRow> threads;
  // Where set, the thread list in place of `threads`, one list that the models of one task
  // share (ModelCache): each thread's model lists every thread.
  std::shared_ptr<const std::vector<ThreadRow>> sharedThreads;
  std::vector<FunctionRow> functions;
  std::vector<uint64_t> self, inclusive;  // functions x events, row-major
  std::vector<uint64_t> calls;            // per function; may be shorter (missing: 0)
  std::vector<CallEdge> edges;
  std::vector<uint64_t> edgeCosts;  // events values per edge, in edge order
  // Calls made at the bottom of a stack, which have no caller (XRay: each thread's outermost
  // calls): per function called so, how often and their inclusive cost per event. Empty where
  // the source has no such calls or does not count calls.
  struct RootCall {
    uint64_t function = 0;
    uint64_t calls = 0;
    std::vector<uint64_t> inclusive;
  };
  std::vector<RootCall> rootCalls;
  // Set by a source that leaves edges, edgeCosts and rootCalls to ModelSource::edges(), which
  // the model calls when they are first read (a stored layer: lib/model/stored.h).
  bool edgesLater = false;
  // What the source says of the run, as `key: value` lines (Cachegrind/Callgrind `desc:` and
  // `cmd:`), in file order; writers of formats with such lines carry them over.
  std::vector<std::pair<std::string, std::string>> description;

  size_t events() const { return eventNames.size(); }
  // Appends a function with zero costs; returns its index.
  uint64_t addFunction(FunctionRow row);
  // Appends an edge with zero costs; returns its index. Its costs are edgeCost(index).
  size_t addEdge(uint64_t caller, uint64_t callee, uint64_t calls);
  uint64_t* edgeCost(size_t edge) { return edgeCosts.data() + edge * events(); }
};

struct Mapping {
  uint64_t start = 0, limit = 0, offset = 0;  // all 0 where the source has no address range
  std::string path;                           // the object's file ("" if unknown)
  bool linkTime = false;  // its addresses are the object's link-time addresses (no load bias)
  // Where known (a symbolized mapping), what the object was loaded at beyond its link-time
  // addresses: address - loadBias is the object's own address (objdump's, addr2line's). 0 where
  // linkTime or unknown.
  uint64_t loadBias = 0;
  bool functionIds = false;  // its "addresses" are function ids (kCapFunctionIds)
  // The object's GNU build id as the profile records it (raw bytes; "" where it records none):
  // symbolization takes only a file with this build id.
  std::string buildId = {};
  // The process it is mapped in, where the source records it (perf.data; -1 else): a JIT's
  // anonymous code is named from that process's /tmp/perf-PID.map.
  int64_t pid = -1;
  // The program of the profile, where the source can tell (perf: the mapping its process's comm
  // names): the pprof writer puts it first, where pprof looks for the main binary.
  bool program = false;
};

struct Location {
  uint64_t address = 0;
  int64_t mapping = -1;   // index into LocationLayer::mappings, -1 if none holds it
  int64_t function = -1;  // index into the function layer, -1 if unknown
  uint64_t line = 0;      // source line, 0 if unknown
  // A caller's frame of the stacks layer: the call instruction before a return address
  // (`address` is the return address - 1, where symbolization names the calling line). No
  // sample is at it, so it has no self cost; such locations follow all the others.
  bool callSite = false;
};

// One frame of what a location stands for where code was inlined there.
struct InlineFrame {
  int64_t function = -1;  // index into the function layer, -1 if unknown
  uint64_t line = 0;      // the line of `function` the address is at (0 if unknown)
};

// The locations layer: every instruction address with self cost, in ascending (mapping,
// address) order (then function and line: a source whose functions share addresses, such as
// Callgrind's recursion contexts `f'2`, has one entry per (mapping, address, function, line)),
// then the call sites of the stacks layer's frames, where the source has them.
struct LocationLayer {
  std::vector<Mapping> mappings;
  std::vector<Location> locations;
  std::vector<uint64_t> self;  // locations x events, row-major
  // Where the source knows what was inlined at an address (a symbolized profile): location l
  // is the frames inlined[inlineStart[l], inlineStart[l + 1]), outermost first (the function
  // the address is in, then each function inlined into it; the last is l's function and
  // line). Empty: every location is one frame, its function and line.
  std::vector<InlineFrame> inlined;
  std::vector<uint64_t> inlineStart;  // empty, or locations + 1
  // The stack layer's frames say where each is: a caller's frame at a return address has a
  // call-site location, and a frame at any other location is at that address itself, wherever
  // it is in its stack (perf: the user frame a kernel entry interrupted, under kernel frames).
  // False: a location only callers' frames have is a return address.
  bool framesPlaced = false;
  // The frames of location l (1 where there is no inline chain).
  uint64_t frames(size_t l) const {
    return l + 1 < inlineStart.size() ? inlineStart[l + 1] - inlineStart[l] : 1;
  }
};

// Self cost per (function, source line), for sources with lines: rows ascending by function,
// then line.
struct FunctionLineLayer {
  struct Row {
    uint64_t function = 0;  // index into the function layer
    uint64_t line = 0;
  };
  std::vector<Row> rows;
  std::vector<uint64_t> self;  // rows x events, row-major
};

// The stacks layer: one entry per distinct stack, spelled out. A source whose stacks are
// implicit (a trace's nested calls) could otherwise turn a small input into a layer quadratic
// in its size; it refuses (Status::limit) to spell out more than kMaxStackFrames frames.
inline constexpr uint64_t kMaxStackFrames = uint64_t{1} << 26;  // 512 MiB of frames
struct StackLayer {
  // 32-bit indexes: a layer can hold hundreds of millions of frames, and no model has 2^32
  // functions or locations (each costs far more than 16 GiB would hold).
  // Function indexes, each stack outermost first, concatenated. Empty where the model was
  // built with ModelOptions::stackFrames false and its source has locations: then `locations`
  // holds the stacks alone (each frame's function is its location's).
  std::vector<uint32_t> frames;
  // Where the source has addresses: per frame, the location it is at (an index into
  // LocationLayer::locations; a caller's frame is at a call-site location). A location with
  // an inline chain of n frames stands for n consecutive frames, its chain, each naming it.
  // Empty where the source has no locations for its frames.
  std::vector<uint32_t> locations;
  std::vector<uint64_t> start{0};  // stack s is frames[start[s], start[s + 1]): stacks + 1
  std::vector<uint64_t> values;    // stacks x events: the cost spent with this stack innermost
  // Where the source records each sample's thread (perf): `values` again, split by thread, as
  // rows of 2 + events numbers: the stack, the thread (an index into Model::threads()), its
  // values. Empty otherwise (and in a model of one thread). pprof output labels samples by it.
  std::vector<uint64_t> threadValues;
  size_t stacks() const { return start.size() - 1; }
  // Whether the stacks are held as their locations alone (frames left out: ModelOptions::
  // stackFrames false), which only readers of locations can take.
  bool locationsOnly() const { return frames.empty() && start.back() > 0; }
};

// Adds what the stacks give the functions they name: each stack's values to its innermost
// function's self figures, once to the inclusive figures of each function in it, and once to
// each (caller, callee) arc in it (appended where new).
void addStackFigures(const StackLayer& stacks, FunctionLayer& out);

// One completed call.
struct Span {
  uint32_t thread = 0;          // index into threads()
  uint32_t depth = 0;           // 0 for a call at the bottom of its thread's stack
  uint64_t function = 0;        // index into the function layer
  uint64_t begin = 0, end = 0;  // in timeline units (begin <= end; Model::timelineUnitsPerSecond)
};

// Receives the timeline's spans: a thread's in the order its calls ended (a callee before its
// caller), unless the source calls outerFirst() first; the threads' may interleave, as the
// source stores them.
class SpanSink {
 public:
  virtual ~SpanSink() = default;
  // Called before any span by a source whose spans come in an order that already puts the
  // outer of two spans that begin together first (a trace's spans in the order of its file,
  // which nest so): a sink may keep that order as it is.
  virtual void outerFirst() {}
  virtual void span(const Span& span) = 0;
};

// A format's view of one profile; the model asks it for each layer once.
class ModelSource {
 public:
  virtual ~ModelSource() = default;
  virtual uint32_t capabilities() const = 0;
  virtual void functions(FunctionLayer& out) = 0;
  // Where functions() set out.edgesLater: the call edges, their costs and the root calls, into
  // that same layer.
  virtual void edges(FunctionLayer& out) { (void)out; }
  virtual Summary summary() = 0;
  // file name -> its lines with self cost, ascending by line. Sources without lines add none.
  virtual void lines(std::unordered_map<std::string, std::vector<LineCost>>& out) { (void)out; }
  virtual void functionLines(FunctionLineLayer& out) { (void)out; }
  virtual void locations(LocationLayer& out) { (void)out; }
  virtual void stacks(StackLayer& out) { (void)out; }
  // The earliest time in the profile (event units), and its spans (as SpanSink says).
  virtual uint64_t timelineOrigin() { return 0; }
  virtual void spans(SpanSink& sink) { (void)sink; }
  // Whether the first model of this profile named (its functions() after naming) takes this
  // model's layers from the ModelCache (kAddressLayers) rather than make them again.
  virtual bool takesAddressLayers() const { return false; }
};

// A source whose layers are already built (a merged profile's): it hands each one over.
class MemorySource : public ModelSource {
 public:
  uint32_t caps = 0;
  FunctionLayer functionLayer;
  std::unordered_map<std::string, std::vector<LineCost>> lineLayer;
  FunctionLineLayer functionLineLayer;
  StackLayer stackLayer;
  Summary summaryLayer;

  uint32_t capabilities() const override { return caps; }
  void functions(FunctionLayer& out) override { out = std::move(functionLayer); }
  Summary summary() override { return summaryLayer; }
  void lines(std::unordered_map<std::string, std::vector<LineCost>>& out) override {
    out = std::move(lineLayer);
  }
  void functionLines(FunctionLineLayer& out) override { out = std::move(functionLineLayer); }
  void stacks(StackLayer& out) override { out = std::move(stackLayer); }
};

class Model;
// The model of one thread of the same profile (index into threads()), built on demand.
using ModelFor = std::function<std::unique_ptr<Model>(long thread)>;

class Model {
 public:
  // `sourceFormat`: the name of the format the profile was read from, for messages.
  Model(std::unique_ptr<ModelSource> source, std::string sourceFormat);
  Model(const Model&) = delete;  // edges point into the function layer
  Model& operator=(const Model&) = delete;

  const std::string& sourceFormat() const { return sourceFormat_; }
  bool takesAddressLayers() const { return source_->takesAddressLayers(); }
  uint32_t capabilities() const { return capabilities_; }
  bool has(Capability c) const { return (capabilities_ & c) != 0; }

  const std::vector<ThreadRow>& threads() const {
    return f_.sharedThreads ? *f_.sharedThreads : f_.threads;
  }
  size_t events() const { return f_.eventNames.size(); }
  const std::vector<std::string>& eventNames() const { return f_.eventNames; }
  const std::vector<std::string>& eventLongNames() const { return f_.eventLongNames; }
  // Index of an event by short name, or -1.
  long eventIndex(std::string_view name) const;
  double unitsPerSecond() const { return f_.unitsPerSecond; }
  // Sampled profiles: the nanoseconds of CPU time one sample stands for; 0 otherwise.
  uint64_t samplePeriodNanos() const { return f_.samplePeriodNanos; }
  // Sampled events: how many occurrences of event e one sample stands for; 0 where unknown.
  uint64_t eventPeriod(size_t e) const {
    return e < f_.eventPeriods.size() ? f_.eventPeriods[e] : 0;
  }
  // Units per second of event e where it measures time (seconds = cost / this), else 0: its
  // own figure where the source gives one per event, else the profile's (unitsPerSecond, or
  // one sample per sampling period).
  double eventUnitsPerSecond(size_t e) const {
    if (!f_.eventUnitsPerSecond.empty())
      return e < f_.eventUnitsPerSecond.size() ? f_.eventUnitsPerSecond[e] : 0;
    return timeUnitsPerSecond();
  }
  // The profile's units per second where its events are time: unitsPerSecond, else (a sampled
  // profile, each sample standing for the sampling period) from samplePeriodNanos; else 0.
  double timeUnitsPerSecond() const {
    return f_.unitsPerSecond > 0      ? f_.unitsPerSecond
           : f_.samplePeriodNanos > 0 ? 1e9 / static_cast<double>(f_.samplePeriodNanos)
                                      : 0;
  }
  // Units per second of the spans' begin and end (Span): the source's own where it gives one,
  // else unitsPerSecond.
  double timelineUnitsPerSecond() const {
    return f_.timelineUnitsPerSecond > 0 ? f_.timelineUnitsPerSecond : f_.unitsPerSecond;
  }
  uint64_t total(size_t e) const { return totals_[e]; }
  // A difference that records its base: the base's total of event e (FunctionLayer::
  // baseTotals); else 0.
  uint64_t baseTotal(size_t e) const { return e < f_.baseTotals.size() ? f_.baseTotals[e] : 0; }

  size_t functions() const { return f_.functions.size(); }
  const FunctionRow& function(uint64_t f) const { return f_.functions[f]; }
  uint64_t self(uint64_t f, size_t e) const { return f_.self[f * events() + e]; }
  // Inclusive cost: self plus the cost of the calls it made, recursion counted once.
  uint64_t inclusive(uint64_t f, size_t e) const { return f_.inclusive[f * events() + e]; }
  // Completed calls of function f; 0 where the format does not count calls.
  uint64_t calls(uint64_t f) const { return f < f_.calls.size() ? f_.calls[f] : 0; }
  const std::vector<CallEdge>& edges() const {
    edgesNow();
    return f_.edges;
  }
  // Calls without a caller (the bottom of a stack), where the source counts them.
  const std::vector<FunctionLayer::RootCall>& rootCalls() const {
    edgesNow();
    return f_.rootCalls;
  }
  const std::vector<std::pair<std::string, std::string>>& description() const {
    return f_.description;
  }
  std::vector<const CallEdge*> callers(uint64_t f) const;
  std::vector<const CallEdge*> callees(uint64_t f) const;
  // Functions sorted by descending cost of `event` (self or inclusive), ties by name, then file;
  // at most n.
  std::vector<uint64_t> top(size_t event, bool inclusive, size_t n) const;

  // Per-line self cost of one source file, ascending by line. `file` matches a name exactly,
  // else the names sharing the most trailing path components with it (at least the base name).
  std::vector<LineCost> lines(std::string_view file) const;
  // The source files with line costs, one name each (sorted), such that lines() of each gives
  // that file's lines and every line cost of the profile is in one of them.
  std::vector<const std::string*> sourceFileNames() const;
  const FunctionLineLayer& functionLines() const;
  const LocationLayer& locations() const;
  const StackLayer& stacks() const;
  uint64_t timelineOrigin() const;
  void spans(SpanSink& sink) const;  // one pass over the source per call
  const Summary& summary() const;
  // The whole function layer, as the accessors above read it, but for the edges, which are
  // edges() and rootCalls() (to store it: lib/model/stored.h).
  const FunctionLayer& layer() const { return f_; }
  // The function, location and stack layers as the model holds them (read now where they were
  // not), moved out: the model is not read after.
  struct Layers {
    FunctionLayer functions;
    LocationLayer locations;
    StackLayer stacks;
  };
  Layers releaseLayers();

 private:
  const std::unordered_map<std::string, std::vector<LineCost>>& lineIndex() const;
  // The line index's names grouped by file (sourceFiles() in model.cpp says how).
  struct SourceFile {
    const std::string* name;                          // the name it answers to
    std::vector<const std::vector<LineCost>*> names;  // the lines of each of its names
  };
  struct SourceFiles {
    std::vector<SourceFile> files;
    // The index's names, sorted: each resolved ("." and ".." taken out), and each one's file.
    std::vector<std::string> pathOfName;
    std::vector<uint32_t> fileOfName;
  };
  const SourceFiles& sourceFiles() const;
  // The edges where the source left them for later (FunctionLayer::edgesLater).
  void edgesNow() const {
    if (f_.edgesLater) std::call_once(edgesOnce_, [this] { loadEdges(); });
  }
  void loadEdges() const;
  void linkEdges();

  std::unique_ptr<ModelSource> source_;
  std::string sourceFormat_;
  uint32_t capabilities_ = 0;
  FunctionLayer f_;
  std::vector<uint64_t> totals_;
  mutable std::mutex sourceMutex_;  // a source is not thread-safe: one layer built at a time
  mutable std::once_flag edgesOnce_, linesOnce_, functionLinesOnce_, locationsOnce_, stacksOnce_,
      summaryOnce_, sourceFilesOnce_;
  mutable SourceFiles sourceFiles_;
  mutable std::unordered_map<std::string, std::vector<LineCost>> lines_;
  mutable FunctionLineLayer functionLines_;
  mutable LocationLayer locations_;
  mutable StackLayer stacks_;
  mutable Summary summary_;
};

}  // namespace profpack
