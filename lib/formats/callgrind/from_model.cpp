// Callgrind text written from a profile's model, for a profile of another format: what
// KCachegrind, callgrind_annotate and gprof2dot read. One part per thread where the profile
// has threads (each part's figures from that thread's model), else one part. Functions are
// named in full (no compressed ids); `ob=` and `fl=` give each function's object and file, and
// `cob=`/`cfi=` a callee's where they differ from the caller's. Where the model has instruction
// addresses each function's costs stand at its addresses, object-relative (`positions: instr`,
// with lines `instr line`), else on its lines; what they leave at its first one (or line 0).
// Call counts are the model's; where the source does not count calls (samples), calls= is the
// number of samples with the arc on their stack (its event "samples"), and 1 where the model
// counts no samples either (a heap profile's objects and bytes are no calls); never 0:
// callgrind_annotate takes calls=0 for no call, and adds the call's cost to the caller's own.
// Calls at the bottom of a stack (XRay) are written as calls from a function "(root)" with no
// cost of its own. Multi-part files carry no totals:, so that readers which sum parts compute
// them.

#include <algorithm>
#include <functional>
#include <set>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "error.h"
#include "formats/callgrind/callgrind.h"
#include "formats/callgrind/common.h"
#include "formats/callgrind/model.h"
#include "util/pairmap.h"
#include "util/text.h"
#include "util/tuple_hash.h"

namespace profpack {

namespace {

class ModelWriter {
 public:
  ModelWriter(Sink& sink) : sink_(sink) {}

  // The file's header, once (valgrind's own multi-part files repeat it per part, which
  // callgrind_annotate reports as malformed lines and where gprof2dot stops reading).
  // `thread`: the one thread of a single-part file, if any. Positions and events are the
  // whole model's: every thread's model has the same capabilities and events. `summary`: the
  // whole model's totals as `summary:` (for a file of several parts, which carry no `totals:`;
  // without it callgrind_annotate --inclusive=yes sums inclusive costs into its total).
  void header(const Model& m, const ThreadRow* thread, bool summary) {
    if (m.events() == 0)
      throw Error(Status::unsupported, callgrind::kFmt,
                  m.sourceFormat() + " holds no cost events to write as Callgrind");
    instr_ = m.has(kCapAddresses);
    lines_ = m.has(kCapLines);
    out_ += "# callgrind format\nversion: 1\ncreator: profpack (from " + m.sourceFormat() + ")\n";
    if (thread) {
      out_ += "pid: " + std::to_string(shownId(thread->pid)) +
              "\npart: 1\nthread: " + std::to_string(shownId(thread->threadId)) + "\n";
    }
    // desc lines, then cmd: the order cg_annotate reads.
    for (const auto& [key, value] : m.description())
      if (key == "desc") out_ += "desc: " + value + "\n";
    if (std::string base = baseTotalsDesc(m); !base.empty()) out_ += "desc: " + base + "\n";
    for (const auto& [key, value] : m.description())
      if (key == "cmd") out_ += "cmd: " + value + "\n";
    out_ +=
        instr_ ? (lines_ ? "positions: instr line\n" : "positions: instr\n") : "positions: line\n";
    for (size_t e = 0; e < m.events(); ++e)
      if (!m.eventLongNames()[e].empty())
        out_ += "event: " + m.eventNames()[e] + " : " + m.eventLongNames()[e] + "\n";
    out_ += "events:";
    for (const std::string& e : m.eventNames()) out_ += ' ' + e;
    out_ += "\n";
    if (summary) {
      out_ += "summary:";
      for (size_t e = 0; e < m.events(); ++e) {
        out_ += ' ';
        appendCost(out_, m.total(e), m.has(kCapSigned));
      }
      out_ += '\n';
    }
  }

  // A part's thread, as a comment: `pid:`/`part:`/`thread:` after the first `events:` are
  // malformed to callgrind_annotate, and gprof2dot sums every part into one profile anyway.
  void partComment(const ThreadRow& thread, size_t index) {
    out_ += "\n# part " + std::to_string(index + 1) + ": pid " +
            std::to_string(shownId(thread.pid)) + ", thread " +
            std::to_string(shownId(thread.threadId)) + "\n";
  }

  void part(const Model& m, bool totals) {
    m_ = &m;
    ne_ = m.events();
    isSigned_ = m.has(kCapSigned);
    counted_ = m.has(kCapCallCounts);
    samplesEvent_ = m.eventIndex("samples");
    first_ = true;  // every part starts with no ob= in effect
    // Without addresses, each function's costs stand on its lines where the model has them.
    partLines_ = !instr_ && lines_;
    locationsByFunction();
    linesByFunction();
    callSites();
    distinctNames();
    out_ += '\n';
    std::vector<std::vector<const CallEdge*>> callees(m.functions());
    for (const CallEdge& e : m.edges()) callees[e.caller].push_back(&e);
    self_.resize(ne_);
    for (size_t f = 0; f < m.functions(); ++f) function(f, callees[f]);
    if (!m.rootCalls().empty()) rootCalls();
    if (totals) {
      out_ += "totals:";
      for (size_t e = 0; e < ne_; ++e) {
        out_ += ' ';
        appendCost(out_, m.total(e), isSigned_);
      }
      out_ += '\n';
    }
    sink_.write(out_);
    out_.clear();
  }

 private:
  // Where the model has addresses: each function's locations with self cost, at the object's
  // own address (less the mapping's load bias, as valgrind writes them) and line.
  struct At {
    uint64_t address = 0, line = 0;
    const uint64_t* self = nullptr;
  };

  // The load bias of a location's mapping (0: none), which its address is written without.
  static uint64_t loadBias(const LocationLayer& layer, const Location& l) {
    return l.mapping >= 0 && static_cast<size_t>(l.mapping) < layer.mappings.size()
               ? layer.mappings[static_cast<size_t>(l.mapping)].loadBias
               : 0;
  }

  // Function f's are at_[atStart_[f], atStart_[f + 1]), in the layer's order: one array, not a
  // vector per function (57,000 of them, each allocated twice, for a gperftools profile).
  void locationsByFunction() {
    const Model& m = *m_;
    at_.clear();
    atStart_.clear();
    if (!instr_) return;
    atStart_.assign(m.functions() + 1, 0);
    const LocationLayer& layer = m.locations();
    auto known = [&](const Location& l) {
      return l.function >= 0 && static_cast<size_t>(l.function) < m.functions();
    };
    for (const Location& l : layer.locations)
      if (known(l)) ++atStart_[static_cast<size_t>(l.function) + 1];
    for (size_t f = 0; f < m.functions(); ++f) atStart_[f + 1] += atStart_[f];
    at_.resize(atStart_.back());
    std::vector<size_t> fill(atStart_.begin(), atStart_.end() - 1);
    for (size_t i = 0; i < layer.locations.size(); ++i) {
      const Location& l = layer.locations[i];
      if (!known(l)) continue;
      at_[fill[static_cast<size_t>(l.function)]++] = {
          l.address - loadBias(layer, l), lines_ ? l.line : 0, layer.self.data() + i * ne_};
    }
  }
  std::span<const At> atOf(uint64_t f) const {
    return {at_.data() + atStart_[f], at_.data() + atStart_[f + 1]};
  }

  // firstLine_: function -> its first row of functionLines() (where the part writes lines).
  void linesByFunction() {
    firstLine_.clear();
    if (!partLines_) return;
    const Model& m = *m_;
    const FunctionLineLayer& fl = m.functionLines();
    firstLine_.assign(m.functions() + 1, fl.rows.size());
    for (size_t r = fl.rows.size(); r-- > 0;) firstLine_[fl.rows[r].function] = r;
    for (size_t f = m.functions(); f-- > 0;)
      firstLine_[f] = std::min(firstLine_[f], firstLine_[f + 1]);
  }

  // Callgrind knows a function by its object, file and name: functions of the model that share
  // all three (V8's "(anonymous)" functions of one script) would be one, calling itself. Those
  // get their first line after the name ("(anonymous) [line 4]"), or where that does not tell
  // them apart their number in the model.
  void distinctNames() {
    const Model& m = *m_;
    renamed_.clear();
    // A name with a line break (a trace's event name can hold any text) would end its line and
    // make the rest a line of its own: a cost, a fn=, a summary:.
    // (One pass over each name: find_first_of calls memchr for each of its characters.)
    for (size_t f = 0; f < m.functions(); ++f) {
      const std::string& name = m.function(f).name;
      if (std::any_of(name.begin(), name.end(), [](char c) { return c == '\r' || c == '\n'; }))
        renamed_.emplace(f, withoutLineBreaks(name));
    }
    // Counted by hash (nothing here depends on their order): a tree of 57,000 names that
    // share their object's path in front was a third of this writer's time.
    using Key = std::tuple<std::string_view, std::string_view, std::string_view>;
    std::unordered_map<Key, size_t, TupleHash> seen;
    seen.reserve(m.functions());
    std::vector<const size_t*> count(m.functions());  // each function's, in `seen`
    for (size_t f = 0; f < m.functions(); ++f) {
      const FunctionRow& r = m.function(f);
      size_t& n = seen[{r.object, r.file, r.name}];
      ++n;
      count[f] = &n;
    }
    std::set<std::string> taken;
    for (size_t f = 0; f < m.functions(); ++f) {
      const FunctionRow& r = m.function(f);
      if (*count[f] < 2) continue;
      std::string name = r.name + " [line " + std::to_string(r.line) + "]";
      if (r.line == 0 || !taken.insert(r.object + '\0' + r.file + '\0' + name).second)
        name = r.name + " [" + std::to_string(f + 1) + "]";
      renamed_.insert_or_assign(f, withoutLineBreaks(name));
    }
  }
  const std::string& nameOf(uint64_t f) const {
    if (renamed_.empty()) return m_->function(f).name;
    auto it = renamed_.find(f);
    return it != renamed_.end() ? it->second : m_->function(f).name;
  }

  // Where the calls of each arc are made, for a model of named functions with stacks whose
  // frames stand at locations (pprof, gperftools and perf once named): a caller's frame is at
  // its call site, so a function that calls another from two lines has its calls on those
  // lines, not all at its first one. Each stack's values go once to each arc in it, at the
  // arc's outermost site in that stack (so the sites add up to the arc's cost). Unnamed
  // functions are one address each: their position is the site already.
  void callSites() {
    sites_.clear();
    siteStart_.clear();
    siteCost_.clear();
    const Model& m = *m_;
    if (counted_ || !m.has(kCapStacks) || !m.has(kCapNames) || !(instr_ || partLines_)) return;
    const StackLayer& st = m.stacks();
    if (st.frames.empty() || st.locations.size() != st.frames.size()) return;
    const LocationLayer& layer = m.locations();
    const std::vector<CallEdge>& edges = m.edges();
    PairMap edgeOf;  // (caller, callee) -> edge
    for (size_t e = 0; e < edges.size(); ++e) {
      bool fresh;
      edgeOf.findOrInsert(edges[e].caller, edges[e].callee, e, fresh);
    }
    // A site is the caller frame's location and its place in that location's inline chain,
    // with the caller and the callee: one lookup a frame.
    struct Row {
      uint64_t edge, location;
      uint32_t place;
      bool counted;  // some stack's values are in it
    };
    PairMap rowOf;  // (location << 32 | callee, caller << 16 | place) -> row
    std::vector<Row> rows;
    std::vector<uint64_t> cost, edgeStamp(edges.size(), ~uint64_t{0});
    for (size_t s = 0; s < st.stacks(); ++s) {
      const uint64_t b = st.start[s], e = st.start[s + 1];
      const uint64_t* v = st.values.data() + s * ne_;
      uint64_t runStart = b;  // where the run of frames at one location (its chain) starts
      for (uint64_t k = b; k + 1 < e; ++k) {
        const uint32_t li = st.locations[k];
        if (k > b && li != st.locations[k - 1]) runStart = k;
        if (li >= layer.locations.size()) return;  // not a location of the layer: no sites
        // The caller's frame in its location's chain (a run of frames at one location is that
        // chain, repeated where recursion calls from one place).
        const uint64_t chain = layer.frames(li);
        const uint64_t place = std::min<uint64_t>(chain > 1 ? (k - runStart) % chain : 0, 0xffff);
        const uint32_t caller = st.frames[k], callee = st.frames[k + 1];
        bool fresh;
        uint64_t& r = rowOf.findOrInsert(uint64_t{li} << 32 | callee,
                                         uint64_t{caller} << 16 | place, rows.size(), fresh);
        if (fresh) {
          const uint64_t* edge = edgeOf.find(caller, callee);
          if (!edge) return;  // every adjacent pair is an arc of the model: else no sites
          rows.push_back({*edge, li, static_cast<uint32_t>(place), false});
          cost.insert(cost.end(), ne_, 0);
        }
        Row& row = rows[r];
        if (edgeStamp[row.edge] == s) continue;  // counted at an outer site of this stack
        edgeStamp[row.edge] = s;
        row.counted = true;
        uint64_t* c = cost.data() + r * ne_;
        for (size_t i = 0; i < ne_; ++i) c[i] += v[i];
      }
    }
    // Rows grouped by edge, each edge's sites in order of address and line.
    std::vector<uint64_t> order;  // the rows some stack counted
    for (size_t r = 0; r < rows.size(); ++r)
      if (rows[r].counted) order.push_back(r);
    std::vector<At> at(rows.size());
    for (size_t r = 0; r < at.size(); ++r) {
      const Location& l = layer.locations[rows[r].location];
      uint64_t line = l.line;
      if (layer.frames(rows[r].location) > 1)
        line = layer.inlined[layer.inlineStart[rows[r].location] + rows[r].place].line;
      at[r] = {instr_ ? l.address - loadBias(layer, l) : 0, lines_ ? line : 0, nullptr};
    }
    std::sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
      return std::tie(rows[a].edge, at[a].address, at[a].line, a) <
             std::tie(rows[b].edge, at[b].address, at[b].line, b);
    });
    siteStart_.assign(edges.size() + 1, 0);
    for (uint64_t r : order) ++siteStart_[rows[r].edge + 1];
    for (size_t e = 0; e < edges.size(); ++e) siteStart_[e + 1] += siteStart_[e];
    sites_.reserve(order.size());
    siteCost_.reserve(order.size() * ne_);
    for (uint64_t r : order) {
      sites_.push_back(at[r]);
      siteCost_.insert(siteCost_.end(), cost.begin() + r * ne_, cost.begin() + (r + 1) * ne_);
    }
  }

  void positionAt(uint64_t address, uint64_t line) {
    if (instr_) {
      appendHex(out_, address);
      if (lines_) {
        out_ += ' ';
        appendDecimal(out_, line);
      }
    } else {
      appendDecimal(out_, line);
    }
  }

  // A function's position: its first location, else its first line with cost (0: none).
  void position(uint64_t f) {
    if (f >= m_->functions()) return positionAt(0, 0);
    if (instr_)
      return atOf(f).empty() ? positionAt(0, 0) : positionAt(atOf(f)[0].address, atOf(f)[0].line);
    if (partLines_ && firstLine_[f] < firstLine_[f + 1])
      return positionAt(0, m_->functionLines().rows[firstLine_[f]].line);
    positionAt(0, 0);
  }

  void costs(const uint64_t* values) {
    for (size_t e = 0; e < ne_; ++e) {
      out_ += ' ';
      appendCost(out_, values[e], isSigned_);
    }
    out_ += '\n';
  }

  static std::string_view fileName(const FunctionRow& r) {
    return r.file.empty() ? std::string_view("???") : std::string_view(r.file);
  }
  // A line "KEYvalue", the value's line breaks as blanks.
  void line(const char* key, std::string_view value) {
    out_ += key;
    appendWithoutLineBreaks(out_, value);
    out_ += '\n';
  }

  // Function f, if it has cost or calls: its names, its self cost, and its calls.
  void function(size_t f, const std::vector<const CallEdge*>& callees) {
    const Model& m = *m_;
    bool any = !callees.empty();
    for (size_t e = 0; e < ne_; ++e) any |= (self_[e] = m.self(f, e)) != 0;
    if (!any) return;
    const FunctionRow& fn = m.function(f);
    // The lines are appended piece by piece: a string of their own for each (the name with its
    // line breaks replaced, then each "+") was most of this writer's allocations.
    if (fn.object != object_ || first_) {
      line("ob=", fn.object);
      object_ = fn.object;
    }
    first_ = false;
    line("fl=", fileName(fn));
    out_ += "fn=";
    out_ += nameOf(f);
    out_ += '\n';
    selfCost(f);
    for (const CallEdge* c : callees) {
      const FunctionRow& callee = m.function(c->callee);
      auto target = [&] {  // the callee, before each calls= line
        if (callee.object != fn.object) line("cob=", callee.object);
        if (callee.file != fn.file) line("cfi=", fileName(callee));
        out_ += "cfn=";
        out_ += nameOf(c->callee);
      };
      const size_t edge = static_cast<size_t>(c - m.edges().data());
      if (!siteStart_.empty() && siteStart_[edge] < siteStart_[edge + 1]) {
        // Each call site with its share: a stack counted once per arc, at its outermost site.
        for (size_t r = siteStart_[edge]; r < siteStart_[edge + 1]; ++r) {
          const uint64_t* v = siteCost_.data() + r * ne_;
          target();
          out_ += "\ncalls=";
          appendCost(out_, samplesEvent_ < 0 ? 1 : std::max<uint64_t>(1, v[samplesEvent_]),
                     isSigned_);
          out_ += ' ';
          position(c->callee);
          out_ += '\n';
          positionAt(sites_[r].address, sites_[r].line);
          costs(v);
        }
        continue;
      }
      target();
      out_ += "\ncalls=";
      appendCost(out_,
                 counted_            ? c->calls
                 : samplesEvent_ < 0 ? 1
                                     : std::max<uint64_t>(1, c->inclusive[samplesEvent_]),
                 isSigned_);
      out_ += ' ';
      position(c->callee);
      out_ += '\n';
      position(f);
      costs(c->inclusive);
    }
    flushIfFull(out_, sink_);
  }

  // The self cost (self_) of function f on its lines or addresses, and what they leave (a
  // source's lines need not cover every address) at the function's position.
  void selfCost(size_t f) {
    rest_ = self_;
    auto place = [&](const uint64_t* values) {
      bool nonzero = false;
      for (size_t e = 0; e < ne_; ++e) {
        nonzero |= values[e] != 0;
        rest_[e] -= values[e];  // modulo 2^64: signed costs subtract the same
      }
      return nonzero;
    };
    if (partLines_) {
      const FunctionLineLayer& fl = m_->functionLines();
      for (size_t r = firstLine_[f]; r < firstLine_[f + 1]; ++r) {
        if (!place(fl.self.data() + r * ne_)) continue;
        positionAt(0, fl.rows[r].line);
        costs(fl.self.data() + r * ne_);
      }
    } else if (instr_) {
      for (const At& a : atOf(f)) {
        if (!place(a.self)) continue;
        positionAt(a.address, a.line);
        costs(a.self);
      }
    }
    if (std::any_of(rest_.begin(), rest_.end(), [](uint64_t v) { return v != 0; })) {
      position(f);
      costs(rest_.data());
    }
  }

  // The calls at the bottom of a stack, from a function of their own, so that calls= adds up
  // to every completed call (valgrind names its own such caller "(below main)").
  void rootCalls() {
    const FunctionRow root{"(root)", "", object_};
    out_ += "fl=???\nfn=" + root.name + "\n";
    std::fill(self_.begin(), self_.end(), 0);
    position(UINT64_MAX);
    costs(self_.data());
    for (const FunctionLayer::RootCall& c : m_->rootCalls()) {
      const FunctionRow& callee = m_->function(c.function);
      if (callee.object != root.object) line("cob=", callee.object);
      if (!callee.file.empty()) line("cfi=", callee.file);
      out_ += "cfn=" + nameOf(c.function) + "\ncalls=";
      appendCost(out_, c.calls, isSigned_);
      out_ += ' ';
      position(c.function);
      out_ += '\n';
      position(UINT64_MAX);
      std::vector<uint64_t> inclusive(c.inclusive);
      inclusive.resize(ne_, 0);
      costs(inclusive.data());
    }
  }

  Sink& sink_;
  std::string out_;
  std::string object_;  // the ob= in effect
  bool first_ = true;
  bool instr_ = false, lines_ = false;  // the header's positions
  // The part being written.
  const Model* m_ = nullptr;
  size_t ne_ = 0;  // events
  bool isSigned_ = false, counted_ = false;
  long samplesEvent_ = -1;  // the model's sample count, if it has one
  bool partLines_ = false;  // costs on lines (the model has lines but no addresses)
  std::vector<At> at_;
  std::vector<size_t> atStart_;
  std::vector<size_t> firstLine_;
  // Call sites (callSites()): edge e's are sites_[siteStart_[e], siteStart_[e + 1]), each with
  // its costs in siteCost_ (ne_ a site); empty where the part writes each call at its caller.
  std::vector<At> sites_;
  std::vector<uint64_t> siteStart_, siteCost_;
  std::unordered_map<uint64_t, std::string> renamed_;  // distinctNames(): function -> name
  std::vector<uint64_t> self_, rest_;
};

}  // namespace

void writeCallgrindModel(const Model& model, const ModelFor& perThread, Sink& out) {
  ModelWriter w(out);
  const std::vector<ThreadRow>& threads = model.threads();
  if (threads.size() < 2) {
    w.header(model, threads.empty() ? nullptr : &threads[0], false);
    return w.part(model, true);
  }
  w.header(model, nullptr, true);
  for (size_t t = 0; t < threads.size(); ++t) {
    w.partComment(threads[t], t);
    w.part(*perThread(static_cast<long>(t)), false);
  }
}

}  // namespace profpack
