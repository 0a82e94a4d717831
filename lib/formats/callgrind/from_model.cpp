// Callgrind text written from a profile's model, for a profile of another format: what
// KCachegrind, callgrind_annotate and gprof2dot read. One part per thread where the profile
// has threads (each part's figures from that thread's model), else one part. Functions are
// named in full (no compressed ids); `ob=` and `fl=` give each function's object and file, and
// `cob=`/`cfi=` a callee's where they differ from the caller's. Where the model has instruction
// addresses each function's costs stand at its address (`positions: instr`), else at line 0.
// Call counts are the model's; where the source does not count calls (samples), calls= is the
// number of samples with the arc on their stack (callgrind_annotate takes calls=0 for no call,
// and adds the call's cost to the caller's own).
// Calls at the bottom of a stack (XRay) are written as calls from a function "(root)" with no
// cost of its own. Multi-part files carry no totals:, so that readers which sum parts compute
// them.

#include <algorithm>
#include <unordered_map>

#include "error.h"
#include "formats/callgrind/callgrind.h"
#include "formats/callgrind/common.h"
#include "util/text.h"

namespace profpack {

namespace {

class ModelWriter {
 public:
  ModelWriter(Sink& sink) : sink_(sink) {}

  void part(const Model& m, const ThreadRow* thread, size_t index, bool totals) {
    if (m.events() == 0)
      throw Error(Status::unsupported, callgrind::kFmt,
                  m.sourceFormat() + " holds no cost events to write as Callgrind");
    const bool instr = m.has(kCapAddresses);
    const bool isSigned = m.has(kCapSigned);
    const bool counted = m.has(kCapCallCounts);
    std::unordered_map<uint64_t, uint64_t> address;  // function -> its address
    if (instr) {
      const LocationLayer& at = m.locations();
      for (const Location& l : at.locations)
        if (l.function >= 0) address.try_emplace(static_cast<uint64_t>(l.function), l.address);
    }
    out_ += "# callgrind format\nversion: 1\ncreator: profpack (from " + m.sourceFormat() + ")\n";
    first_ = true;  // every part starts with no ob= in effect
    if (thread) {
      out_ += "pid: " + std::to_string(thread->pid) + "\npart: " + std::to_string(index + 1) +
              "\nthread: " + std::to_string(thread->threadId) + "\n";
    }
    for (const auto& [key, value] : m.description())
      if (key == "desc" || key == "cmd") out_ += key + ": " + value + "\n";
    out_ += instr ? "positions: instr\n" : "positions: line\n";
    // Without addresses, each function's costs stand on its lines where the model has them.
    const bool lines = !instr && m.has(kCapLines);
    std::vector<size_t> firstLine;  // function -> its first row of functionLines()
    if (lines) {
      const FunctionLineLayer& fl = m.functionLines();
      firstLine.assign(m.functions() + 1, fl.rows.size());
      for (size_t r = fl.rows.size(); r-- > 0;) firstLine[fl.rows[r].function] = r;
      for (size_t f = m.functions(); f-- > 0;)
        firstLine[f] = std::min(firstLine[f], firstLine[f + 1]);
    }
    for (size_t e = 0; e < m.events(); ++e)
      if (!m.eventLongNames()[e].empty())
        out_ += "event: " + m.eventNames()[e] + " : " + m.eventLongNames()[e] + "\n";
    out_ += "events:";
    for (const std::string& e : m.eventNames()) out_ += ' ' + e;
    out_ += "\n\n";
    auto position = [&](uint64_t f) {
      if (!instr) {
        out_ += '0';
        return;
      }
      auto it = address.find(f);
      appendHex(out_, it == address.end() ? 0 : it->second);
    };
    auto costs = [&](const uint64_t* values) {
      for (size_t e = 0; e < m.events(); ++e) {
        out_ += ' ';
        appendCost(out_, values[e], isSigned);
      }
      out_ += '\n';
    };
    std::vector<std::vector<const CallEdge*>> callees(m.functions());
    for (const CallEdge& e : m.edges()) callees[e.caller].push_back(&e);
    std::vector<uint64_t> self(m.events());
    for (size_t f = 0; f < m.functions(); ++f) {
      bool any = !callees[f].empty();
      for (size_t e = 0; e < m.events(); ++e) any |= (self[e] = m.self(f, e)) != 0;
      if (!any) continue;
      const FunctionRow& fn = m.function(f);
      if (fn.object != object_ || first_) out_ += "ob=" + fn.object + "\n";
      object_ = fn.object;
      first_ = false;
      out_ += "fl=" + (fn.file.empty() ? "???" : fn.file) + "\nfn=" + fn.name + "\n";
      if (lines) {
        const FunctionLineLayer& fl = m.functionLines();
        for (size_t r = firstLine[f]; r < firstLine[f + 1]; ++r) {
          appendDecimal(out_, fl.rows[r].line);
          costs(fl.self.data() + r * m.events());
        }
      } else {
        position(f);
        costs(self.data());
      }
      for (const CallEdge* c : callees[f]) {
        const FunctionRow& callee = m.function(c->callee);
        if (callee.object != fn.object) out_ += "cob=" + callee.object + "\n";
        if (callee.file != fn.file)
          out_ += "cfi=" + (callee.file.empty() ? "???" : callee.file) + "\n";
        out_ += "cfn=" + callee.name + "\ncalls=";
        appendCost(out_, counted ? c->calls : std::max<uint64_t>(1, c->inclusive[0]), isSigned);
        out_ += ' ';
        position(c->callee);
        out_ += '\n';
        position(f);
        costs(c->inclusive);
      }
      flushIfFull(out_, sink_);
    }
    if (!m.rootCalls().empty()) {
      // The calls at the bottom of a stack, from a function of their own, so that calls=
      // adds up to every completed call (valgrind names its own such caller "(below main)").
      const FunctionRow root{"(root)", "", object_};
      out_ += "fl=???\nfn=" + root.name + "\n";
      std::fill(self.begin(), self.end(), 0);
      position(UINT64_MAX);
      costs(self.data());
      for (const FunctionLayer::RootCall& c : m.rootCalls()) {
        const FunctionRow& callee = m.function(c.function);
        if (callee.object != root.object) out_ += "cob=" + callee.object + "\n";
        if (!callee.file.empty()) out_ += "cfi=" + callee.file + "\n";
        out_ += "cfn=" + callee.name + "\ncalls=";
        appendCost(out_, c.calls, isSigned);
        out_ += ' ';
        position(c.function);
        out_ += '\n';
        position(UINT64_MAX);
        std::vector<uint64_t> inclusive(c.inclusive);
        inclusive.resize(m.events(), 0);
        costs(inclusive.data());
      }
    }
    if (totals) {
      out_ += "totals:";
      for (size_t e = 0; e < m.events(); ++e) {
        out_ += ' ';
        appendCost(out_, m.total(e), isSigned);
      }
      out_ += '\n';
    }
    sink_.write(out_);
    out_.clear();
  }

 private:
  Sink& sink_;
  std::string out_;
  std::string object_;  // the ob= in effect
  bool first_ = true;
};

}  // namespace

void writeCallgrindModel(const Model& model, const ModelFor& perThread, Sink& out) {
  ModelWriter w(out);
  const std::vector<ThreadRow>& threads = model.threads();
  if (threads.size() < 2) return w.part(model, threads.empty() ? nullptr : &threads[0], 0, true);
  for (size_t t = 0; t < threads.size(); ++t)
    w.part(*perThread(static_cast<long>(t)), &threads[t], t, false);
}

}  // namespace profpack
