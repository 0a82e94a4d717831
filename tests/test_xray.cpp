// XRay reader/writer: corpus round trips, version conversion, truncation, every bad-input
// error, function names from the instrumented binaries, accounting against llvm-xray-14.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <span>
#include <string>

#include "container/ppk.h"
#include "error.h"
#include "formats/registry.h"
#include "formats/xray/account.h"
#include "formats/xray/params.h"
#include "formats/xray/xray.h"
#include "merge/merge.h"
#include "model/model.h"
#include "testlib.h"

using namespace profpack;

namespace {
std::span<const uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
ReadOptions opts(bool strict = false) { return {kDefaultMaxPpkMessage, strict}; }
std::string slurp(const char* rel) { return testlib::slurp(testlib::data(rel)); }

std::unique_ptr<Profile> viaPpk(const Profile& p) {
  std::string ppk = encodePpk(p, 3);
  return decodePpk(bytes(ppk), kDefaultMaxPpkMessage);
}

// Expects reading `data` to fail as malformed XRay at byte `offset`, mentioning `needle`.
void expectError(const std::string& data, uint64_t offset, const std::string& needle,
                 bool strict = false) {
  try {
    readXray(bytes(data), strict);
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::malformed));
    CHECK_EQ(e.format(), std::string("xray"));
    CHECK_EQ(e.offset(), offset);
    CHECK_CONTAINS(e.what(), needle);
    return;
  }
  throw testlib::Failure{"expected an error containing: " + needle};
}

const char* kCorpus[] = {"xray/basic-v3-st.xray",     "xray/fdr-v5-st.xray",
                         "xray/fdr-v5-tailexit.xray", "xray/fdr-v5-typed-truncated.xray",
                         "xray/fdr-v5-manybuf.xray",  "xray/fdr-v5-mt-manybuf.xray"};

// The records llvm-xray prints: function records and events with thread, cpu, tsc, payload.
struct Rec {
  uint8_t type;
  uint32_t fid, tid;
  uint16_t cpu;
  uint64_t tsc, arg;
  std::string data;
  bool operator==(const Rec&) const = default;
};
std::vector<Rec> visible(const XrayTrace& x) {
  std::vector<Rec> out;
  for (const XrayRecord& r : x.records) {
    if (xrayIsFunction(r.type))
      out.push_back({r.type, r.functionId, r.threadId, r.cpu, r.tsc, 0, ""});
    else if (r.type == kXrayCallArgument || r.type == kXrayBasicArgument)
      out.push_back({r.type, 0, r.threadId, 0, 0, x.argument(r), ""});
    else if (r.type == kXrayCustomEvent || r.type == kXrayTypedEvent)
      out.push_back({r.type, 0, r.threadId, r.cpu, r.tsc, 0,
                     std::string(reinterpret_cast<const char*>(x.eventData.data()) + r.eventOffset,
                                 r.eventSize)});
  }
  return out;
}
}  // namespace

TEST(detects_xray) {
  for (const char* f : kCorpus) CHECK(detectFormat(bytes(slurp(f))) == FormatId::xray);
}

TEST(corpus_round_trip_is_byte_identical_and_ir_equal) {
  for (const char* f : kCorpus) {
    std::string in = slurp(f);
    auto p = readProfile(bytes(in), opts());
    CHECK_EQ(std::string(p->root().getFormatVersion().cStr()), std::to_string(in[0] | in[1] << 8));
    auto q = viaPpk(*p);
    CHECK(equalIR(*p, *q));
    std::string out = writeProfile(*q, FormatId::xray, {});
    CHECK_EQ(out.size(), in.size());
    CHECK(out == in);
    // And the rewritten file reads to the same IR.
    auto r = readProfile(bytes(out), opts());
    CHECK(equalIR(*p, *r));
  }
}

TEST(ppk_is_compact) {
  std::string in = slurp("xray/fdr-v5-mt-manybuf.xray");
  auto p = readProfile(bytes(in), opts());
  CHECK(encodePpk(*p, 6).size() * 10 < in.size());
  CHECK(p->flatSize() < in.size() / 2);  // uncompressed IR: < half the trace
}

TEST(fdr_version_conversion_keeps_records) {
  for (const char* f :
       {"xray/fdr-v5-st.xray", "xray/fdr-v5-typed-truncated.xray", "xray/fdr-v5-mt-manybuf.xray"}) {
    auto p = readProfile(bytes(slurp(f)), opts());
    XrayTrace orig = decodeXray(*p);
    for (int v = 1; v <= 5; ++v) {
      WriteOptions wo;
      wo.set(kXrayVersion, v);
      std::string out = writeProfile(*viaPpk(*p), FormatId::xray, wo);
      CHECK_EQ(out[0] | out[1] << 8, v);
      auto q = readProfile(bytes(out), opts(v != 5));  // a converted trace is complete
      CHECK_EQ(std::string(q->root().getFormatVersion().cStr()), std::to_string(v));
      XrayTrace back = decodeXray(*q);
      CHECK(visible(back) == visible(orig));
      CHECK_EQ(back.buffers.size(), orig.buffers.size());
      // And back to version 5.
      wo.set(kXrayVersion, 5);
      std::string again = writeProfile(*q, FormatId::xray, wo);
      CHECK(visible(decodeXray(*readProfile(bytes(again), opts()))) == visible(orig));
    }
  }
}

TEST(fdr_to_basic_mode) {
  auto p = readProfile(bytes(slurp("xray/fdr-v5-st.xray")), opts());
  XrayTrace orig = decodeXray(*p);
  WriteOptions wo;
  wo.set(kXrayMode, 0);
  std::string out = writeProfile(*p, FormatId::xray, wo);
  CHECK_EQ(out[2], 0);
  auto q = readProfile(bytes(out), opts(true));
  XrayTrace b = decodeXray(*q);
  CHECK(!b.fdr);
  std::vector<Rec> want, got;
  for (Rec r : visible(orig))
    if (r.type < 4) want.push_back(r);
  for (Rec r : visible(b))
    if (r.type < 4) got.push_back(r);
  CHECK(want == got);
  // The call argument of with_arg(0) became an argument record.
  uint64_t args = 0;
  for (const XrayRecord& r : b.records) args += r.type == kXrayBasicArgument;
  CHECK_EQ(args, uint64_t{1});
}

// Basic mode written as FDR (one buffer per thread) and back: the same records, for every FDR
// version. (tests/check_xray.sh has llvm-xray read the FDR files.)
TEST(basic_mode_to_fdr_and_back) {
  auto basic = readProfile(bytes(slurp("xray/basic-v3-st.xray")), opts());
  const auto want = visible(decodeXray(*basic));
  for (int v = 1; v <= 5; ++v) {
    WriteOptions wo;
    wo.set(kXrayMode, 1);
    wo.set(kXrayVersion, v);
    auto fdr = readProfile(bytes(writeProfile(*basic, FormatId::xray, wo)), opts());
    XrayTrace f = decodeXray(*fdr);
    CHECK(f.fdr);
    CHECK_EQ(static_cast<int>(f.version), v);
    wo.set(kXrayMode, 0);
    wo.set(kXrayVersion, 3);
    auto back = readProfile(bytes(writeProfile(*fdr, FormatId::xray, wo)), opts());
    CHECK(visible(decodeXray(*back)) == want);
  }
}

TEST(unsupported_and_invalid_write_options) {
  auto basic = readProfile(bytes(slurp("xray/basic-v3-st.xray")), opts());
  WriteOptions wo;
  wo.set(kXrayMode, 0);
  wo.set(kXrayVersion, 4);
  try {
    writeProfile(*basic, FormatId::xray, wo);
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.status() == Status::invalidArgument);
  }
  // Basic mode, other version: the same records.
  wo.set(kXrayVersion, 1);
  std::string out = writeProfile(*basic, FormatId::xray, wo);
  CHECK(visible(decodeXray(*readProfile(bytes(out), opts()))) == visible(decodeXray(*basic)));
}

TEST(truncated_trace_warns_or_fails_in_strict_mode) {
  std::string in = slurp("xray/fdr-v5-typed-truncated.xray");
  auto p = readProfile(bytes(in), opts());
  CHECK_EQ(p->warnings().size(), size_t{1});
  CHECK_CONTAINS(p->warnings()[0], "byte offset 82906");
  CHECK_CONTAINS(p->warnings()[0], "TypedEvent");
  CHECK_EQ(p->root().getTrace().getTruncatedAt(), uint64_t{82906});
  XrayTrace x = decodeXray(*p);
  // Every complete record: 6 buffers of 5 metadata, 10277 function records, 3 arguments,
  // 3 custom and 2 complete typed events.
  uint64_t fn = 0, custom = 0, typed = 0;
  for (const XrayRecord& r : x.records) {
    fn += xrayIsFunction(r.type);
    custom += r.type == kXrayCustomEvent;
    typed += r.type == kXrayTypedEvent;
  }
  CHECK_EQ(fn, uint64_t{5137 + 5137 + 3});
  CHECK_EQ(custom, uint64_t{3});
  CHECK_EQ(typed, uint64_t{2});
  expectError(in, 82906, "truncated", true);
  // Cut inside a function record, and a basic-mode trace cut mid-record.
  expectError(in.substr(0, 204), 200, "function", true);
  std::string basic = slurp("xray/basic-v3-st.xray");
  auto b = readProfile(bytes(basic.substr(0, basic.size() - 5)), opts());
  CHECK_EQ(b->warnings().size(), size_t{1});
  CHECK_CONTAINS(b->warnings()[0], std::to_string(basic.size() - 32));
  expectError(basic.substr(0, basic.size() - 5), basic.size() - 32, "truncated", true);
  // The truncated basic trace also round trips to its bytes.
  CHECK(writeProfile(*viaPpk(*b), FormatId::xray, {}) == basic.substr(0, basic.size() - 5));
}

TEST(bad_inputs) {
  std::string fdr = slurp("xray/fdr-v5-st.xray");
  std::string s = fdr;
  s[0] = 6;
  expectError(s, 0, "unsupported FDR version 6");
  s = fdr;
  s[0] = 0;
  expectError(s, 0, "version 0");
  s = fdr;
  s[48] = (10 << 1) | 1;  // the NewBuffer record becomes metadata kind 10
  expectError(s, 48, "unknown metadata record kind 10");
  s = fdr;
  s[112 + 8 * 3] = (10 << 1) | 1;  // inside the records
  expectError(s, 136, "kind 10");
  s = fdr;
  s[2] = 2;
  expectError(s, 2, "unknown trace type 2");
  expectError(fdr.substr(0, 20), 20, "too short");
  s = fdr;
  s[32] = 0x01;  // not a BufferExtents at the start of the first buffer
  expectError(s, 32, "expected a BufferExtents");
  s = fdr;
  s[48] = (1 << 1) | 1;  // EndOfBuffer in version 5
  expectError(s, 48, "EndOfBuffer");
  s = fdr;
  s[0] = 4;
  // Version 1: the trace must start with NewBuffer.
  s[0] = 1;
  expectError(s, 32, "expected a NewBuffer");
  // FDR function record of kind 5 (found by fuzzing: it was accepted, then refused on decode).
  s = fdr;
  s[112] = static_cast<char>((s[112] & ~0x0e) | (5 << 1));
  expectError(s, 112, "unknown function record kind 5");
  // A custom event with a negative size.
  std::string typed = slurp("xray/fdr-v5-typed-truncated.xray");
  s = typed;
  s[65853 + 4] = static_cast<char>(0x80);
  expectError(s, 65854, "negative");
  // Basic mode: unknown record type and function kind, and version 4.
  std::string basic = slurp("xray/basic-v3-st.xray");
  s = basic;
  s[64] = 7;
  expectError(s, 64, "unknown basic-mode record type 7");
  s = basic;
  s[64 + 3] = 9;
  expectError(s, 67, "unknown function record kind 9");
  s = basic;
  s[0] = 4;
  expectError(s, 0, "basic-mode version 4");
  // A BufferExtents larger than the file: truncation.
  s = fdr;
  s.resize(fdr.size() - 8);
  auto p = readProfile(bytes(s), opts());
  CHECK_EQ(p->warnings().size(), size_t{1});
  expectError(s, s.size(), "declares", true);
  CHECK(writeProfile(*p, FormatId::xray, {}) == s);
}

TEST(function_names_from_binaries) {
  auto names = xrayFunctionNames(testlib::data("xray/st.bin"));
  CHECK_EQ(names.size(), size_t{9});
  CHECK_EQ(names[1], std::string("fib(int)"));
  CHECK_EQ(names[2], std::string("leaf(int)"));
  CHECK_EQ(names[3], std::string("many_calls(int)"));
  CHECK_EQ(names[4], std::string("depth(int)"));
  CHECK_EQ(names[5], std::string("tail_caller(int)"));
  CHECK_EQ(names[6], std::string("with_arg(int)"));
  CHECK_EQ(names[7], std::string("emit_events(int)"));
  CHECK_EQ(names[8], std::string("main"));
  // The typed-event binary that llvm-xray-14 cannot load.
  auto typed = xrayFunctionNames(testlib::data("xray/st_typed.bin"));
  CHECK_EQ(typed[7], std::string("emit_events(int)"));
  CHECK_EQ(typed[8], std::string("main"));
  auto o2 = xrayFunctionNames(testlib::data("xray/st_o2.bin"));
  CHECK_EQ(o2[1], std::string("fib(int)"));
  auto mt = xrayFunctionNames(testlib::data("xray/mt.bin"));
  bool worker = false;
  for (auto& n : mt) worker |= n == "worker(int, int)";
  CHECK(worker);
  try {
    xrayFunctionNames(testlib::data("xray/no-such.bin"));
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.status() == Status::io);
  }
  try {
    xrayFunctionNames(testlib::data("xray/fdr-v5-st.xray"));
    CHECK(false);
  } catch (const Error& e) {
    CHECK_CONTAINS(e.what(), "not an ELF");
  }
}

namespace {
const XrayFunctionStats& fn(const XrayAccount& a, uint32_t id) {
  for (auto& s : a.functions)
    if (s.functionId == id) return s;
  throw testlib::Failure{"no function " + std::to_string(id)};
}
// llvm-xray prints seconds with 7 significant digits.
bool close7(double got, double printed) { return std::abs(got - printed) <= printed * 5e-7; }
}  // namespace

// Figures from `llvm-xray-14 account --format=csv` on the corpus (cycle frequency 1e9, so
// ticks = ns).
TEST(accounting_matches_llvm_xray) {
  auto a = accountXray(*readProfile(bytes(slurp("xray/fdr-v5-st.xray")), opts()));
  CHECK_EQ(fn(a, 1).calls, uint64_t{1973});
  CHECK_EQ(fn(a, 1).sumTicks, uint64_t{4418918});
  CHECK_EQ(fn(a, 1).minTicks, uint64_t{89});
  CHECK_EQ(fn(a, 1).medianTicks, uint64_t{450});
  CHECK_EQ(fn(a, 1).p90Ticks, uint64_t{2695});
  CHECK_EQ(fn(a, 1).p99Ticks, uint64_t{33042});
  CHECK_EQ(fn(a, 1).maxTicks, uint64_t{445592});
  CHECK_EQ(fn(a, 2).calls, uint64_t{1001});
  CHECK_EQ(fn(a, 2).sumTicks, uint64_t{93253});
  CHECK_EQ(fn(a, 3).sumTicks, uint64_t{225341});
  CHECK_EQ(fn(a, 4).calls, uint64_t{51});
  CHECK_EQ(fn(a, 4).sumTicks, uint64_t{243026});
  CHECK_EQ(fn(a, 4).medianTicks, uint64_t{4719});
  CHECK_EQ(fn(a, 7).sumTicks, uint64_t{2445});
  CHECK(std::abs(a.seconds(fn(a, 1).sumTicks) - 4.418918e-03) < 1e-12);
  // Self time of leaf = its whole time (it calls nothing); many_calls' self excludes leaf.
  CHECK_EQ(fn(a, 2).selfTicks, fn(a, 2).sumTicks);
  CHECK(fn(a, 3).selfTicks < fn(a, 3).sumTicks);
  // Recursion: inclusive time counts the outermost fib calls only.
  CHECK(fn(a, 1).inclusiveTicks < fn(a, 1).sumTicks);
  // Callers: many_calls -> leaf 1000 times, tail_caller -> leaf? (tail call: leaf from main)
  bool edge = false;
  for (auto& e : a.edges)
    if (e.caller == 3 && e.callee == 2) edge = e.calls == 1000;
  CHECK(edge);

  auto t = accountXray(*readProfile(bytes(slurp("xray/fdr-v5-tailexit.xray")), opts()));
  CHECK_EQ(fn(t, 1).calls, uint64_t{987});
  CHECK_EQ(fn(t, 1).sumTicks, uint64_t{1578738});
  CHECK_EQ(fn(t, 2).sumTicks, uint64_t{100224});
  CHECK_EQ(fn(t, 6).sumTicks, uint64_t{551});

  auto b = accountXray(*readProfile(bytes(slurp("xray/basic-v3-st.xray")), opts()));
  CHECK_EQ(fn(b, 1).calls, uint64_t{1973});
  CHECK(close7(b.seconds(fn(b, 1).sumTicks), 2.290019e-02));
  CHECK_EQ(fn(b, 1).p99Ticks, uint64_t{196126});
  CHECK(close7(b.seconds(fn(b, 4).sumTicks), 1.506002e-03));
  CHECK(close7(b.seconds(fn(b, 8).sumTicks), 3.776781e-03));
  CHECK_EQ(b.threads.size(), size_t{1});
}

// llvm-xray-14 account fails on these (more than 16 buffers per thread, interleaved threads);
// with buffers ordered by thread and time every exit finds its entry.
TEST(many_buffers_and_threads_are_ordered) {
  for (const char* f : {"xray/fdr-v5-manybuf.xray", "xray/fdr-v5-mt-manybuf.xray"}) {
    auto p = readProfile(bytes(slurp(f)), opts());
    XrayTrace x = decodeXray(*p);
    CHECK(x.buffers.size() > 16);
    CHECK_EQ(x.threadOrder.size(), x.buffers.size());
    for (size_t i = 1; i < x.threadOrder.size(); ++i) {
      const XrayBuffer& a = x.buffers[x.threadOrder[i - 1]];
      const XrayBuffer& b = x.buffers[x.threadOrder[i]];
      if (a.threadId == b.threadId) CHECK(a.firstTsc <= b.firstTsc);
    }
    auto acc = accountXray(x);
    CHECK_EQ(acc.unmatchedExits, uint64_t{0});
  }
  auto mt = accountXray(*readProfile(bytes(slurp("xray/fdr-v5-mt-manybuf.xray")), opts()));
  CHECK_EQ(mt.threads.size(), size_t{4});  // the 4 workers (main is not instrumented)
  uint64_t leafCalls = 0;
  for (auto& s : mt.functions) leafCalls += s.calls;
  CHECK(leafCalls > 8000);
}

TEST(summary) {
  auto p = readProfile(bytes(slurp("xray/fdr-v5-st.xray")), opts());
  Summary s = buildModel(*p, {})->summary();
  CHECK(formatOf(*p) == FormatId::xray);
  CHECK_EQ(s.formatVersion, std::string("5"));
  CHECK_EQ(s.functions, uint64_t{7});  // main was entered before tracing started
  CHECK_EQ(s.records, decodeXray(*p).records.size());
  uint64_t enters = 0, exits = 0, events = 0;
  for (const XrayRecord& r : decodeXray(*p).records) {
    enters += r.type == kXrayEnter || r.type == kXrayEnterArg;
    exits += r.type == kXrayExit || r.type == kXrayTailExit;
    events += r.type == kXrayCustomEvent || r.type == kXrayTypedEvent;
  }
  CHECK_EQ(enters, uint64_t{3029});
  CHECK_EQ(exits, uint64_t{3029});
  CHECK_EQ(events, uint64_t{1});
  auto gModel = buildModel(*p, {});
  const Model& g = *gModel;  // the event that info and the queries report
  CHECK_EQ(g.events(), size_t{1});
  CHECK_EQ(g.eventNames()[0], std::string("ticks"));
}

TEST(corrupt_ppk_trace_is_an_error) {
  auto p = readProfile(bytes(slurp("xray/fdr-v5-st.xray")), opts());
  capnp::MallocMessageBuilder m;
  m.setRoot(p->root());
  auto t = m.getRoot<ir::Profile>().getTrace();
  t.getBuffers()[1].setFirstRecord(3);
  auto copy = std::make_unique<capnp::MallocMessageBuilder>();
  copy->setRoot(m.getRoot<ir::Profile>().asReader());
  Profile bad(std::move(copy));
  try {
    writeProfile(bad, FormatId::xray, {});
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.status() == Status::malformed);
    CHECK_CONTAINS(e.what(), "buffers");
  }
}

// A merge of models sums stacks with the same functions (by name), a difference subtracts them:
// a trace merged with itself has each of its stacks once, with twice the ticks, and its
// difference with itself has them all at zero.
TEST(merged_and_differenced_models_sum_stacks_by_function) {
  for (const char* f : {"xray/fdr-v5-st.xray", "xray/fdr-v5-mt-manybuf.xray"}) {
    auto p = readProfile(bytes(slurp(f)), opts());
    auto m = buildModel(*p, {});
    std::map<std::vector<std::string>, uint64_t> want;  // stack of names -> ticks
    auto stacksOf = [](const Model& x) {
      std::map<std::vector<std::string>, uint64_t> out;
      const StackLayer& st = x.stacks();
      for (size_t s = 0; s < st.stacks(); ++s) {
        std::vector<std::string> names;
        for (uint64_t i = st.start[s]; i < st.start[s + 1]; ++i)
          names.push_back(x.function(st.frames[i]).name);
        out[names] += st.values[s];
      }
      return out;
    };
    want = stacksOf(*m);
    CHECK(want.size() > 10);
    const MergeInput twice[] = {{p.get(), "a"}, {p.get(), "b"}};
    auto merged = mergeModels(twice);
    CHECK(merged->has(kCapStacks));
    CHECK_EQ(merged->stacks().stacks(), want.size());  // each distinct stack once
    const auto got = stacksOf(*merged);
    for (const auto& [names, ticks] : want) CHECK_EQ(got.at(names), 2 * ticks);
    auto diff = diffModels({p.get(), "a"}, {p.get(), "b"});
    CHECK_EQ(diff->stacks().stacks(), want.size());
    for (uint64_t v : diff->stacks().values) CHECK_EQ(v, uint64_t{0});
  }
}

// The model's stacks and timeline against its function figures: the self ticks of the stacks
// ending in a function are its self ticks; its spans are its completed calls, their durations
// (outermost calls only) its inclusive ticks; a thread's spans nest. (In the trace cut short, a
// call that never returned has no span: there the spans below it have no enclosing span.)
TEST(stacks_and_timeline_agree_with_the_function_figures) {
  for (const char* f : {"xray/fdr-v5-st.xray", "xray/fdr-v5-mt-manybuf.xray",
                        "xray/basic-v3-st.xray", "xray/fdr-v5-typed-truncated.xray"}) {
    const bool cut = std::strstr(f, "truncated") != nullptr;
    auto p = readProfile(bytes(slurp(f)), opts());
    const long threads = static_cast<long>(buildModel(*p, {})->threads().size());
    for (long thread = -1; thread < std::min(threads, 3L); ++thread) {
      ModelOptions o;
      o.thread = thread;
      auto m = buildModel(*p, o);
      const StackLayer& st = m->stacks();
      std::vector<uint64_t> self(m->functions(), 0);
      uint64_t sum = 0;
      for (size_t s = 0; s < st.stacks(); ++s) {
        CHECK(st.start[s + 1] > st.start[s]);
        self[st.frames[st.start[s + 1] - 1]] += st.values[s];
        sum += st.values[s];
      }
      CHECK_EQ(sum, m->total(0));
      for (size_t fn = 0; fn < m->functions(); ++fn) CHECK_EQ(self[fn], m->self(fn, 0));
      // The streamed spans: each thread's calls as they end (threads may interleave).
      struct Collect : SpanSink {
        std::vector<Span> spans;
        void span(const Span& s) override { spans.push_back(s); }
      } tl;
      m->spans(tl);
      const uint64_t origin = m->timelineOrigin();
      std::vector<uint64_t> lastEnd;
      for (const Span& sp : tl.spans) {
        if (lastEnd.size() <= sp.thread) lastEnd.resize(sp.thread + 1, 0);
        CHECK(lastEnd[sp.thread] <= sp.end);
        lastEnd[sp.thread] = sp.end;
      }
      std::stable_sort(tl.spans.begin(), tl.spans.end(), [](const Span& a, const Span& b) {
        if (a.thread != b.thread) return a.thread < b.thread;
        if (a.begin != b.begin) return a.begin < b.begin;
        return a.depth < b.depth;
      });
      std::vector<uint64_t> calls(m->functions(), 0), inclusive(m->functions(), 0);
      std::vector<const Span*> open;  // the enclosing spans of the current one
      for (size_t k = 0; k < tl.spans.size(); ++k) {
        const Span& sp = tl.spans[k];
        CHECK(sp.begin >= origin && sp.end >= sp.begin);
        if (thread >= 0) CHECK_EQ(sp.thread, static_cast<uint32_t>(thread));
        if (k > 0 && tl.spans[k - 1].thread != sp.thread) open.clear();
        while (!open.empty() && (open.back()->depth >= sp.depth || open.back()->end < sp.begin))
          open.pop_back();
        if (!cut) CHECK_EQ(open.size(), size_t{sp.depth});  // every enclosing call is a span
        if (!open.empty() && open.back()->depth + 1 == sp.depth)
          CHECK(open.back()->begin <= sp.begin && sp.end <= open.back()->end);
        ++calls[sp.function];
        bool outermost = true;
        for (const Span* o2 : open) outermost &= o2->function != sp.function;
        if (outermost) inclusive[sp.function] += sp.end - sp.begin;
        open.push_back(&sp);
      }
      for (size_t fn = 0; fn < m->functions(); ++fn) {
        CHECK_EQ(calls[fn], m->calls(fn));
        if (!cut) CHECK_EQ(inclusive[fn], m->inclusive(fn, 0));
      }
    }
  }
}

namespace {
// A basic-mode (version 3) trace of one thread: `enters` entries of functions 1, 2, 3, 1, ...
// nested, then `exits` exits of `exitFid` (0: of the open calls, innermost first).
std::string nestedTrace(uint32_t enters, uint32_t exits, int32_t exitFid = 0) {
  std::string out(32, '\0');
  auto put = [&](std::string& at, size_t pos, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) at[pos + i] = static_cast<char>(v >> (8 * i));
  };
  put(out, 0, 3, 2);           // version
  put(out, 4, 3, 4);           // constant, non-stop TSC
  put(out, 8, 1000000000, 8);  // cycle frequency
  uint64_t tsc = 1000;
  auto record = [&](uint8_t kind, int32_t fid) {
    std::string r(32, '\0');
    r[3] = static_cast<char>(kind);
    put(r, 4, static_cast<uint32_t>(fid), 4);
    put(r, 8, tsc += 10, 8);
    put(r, 16, 7, 4);   // thread
    put(r, 20, 42, 4);  // pid
    out += r;
  };
  for (uint32_t i = 0; i < enters; ++i) record(0, static_cast<int32_t>(1 + i % 3));
  for (uint32_t i = 0; i < exits; ++i)
    record(1, exitFid != 0 ? exitFid : static_cast<int32_t>(1 + (enters - 1 - i) % 3));
  return out;
}
}  // namespace

// A recursion n calls deep has n stacks of n^2 / 2 frames in all: they are spelled out up to
// kMaxStackFrames and refused beyond, while every other figure stays available.
TEST(deep_stacks_are_spelled_out_up_to_a_limit) {
  {
    const uint32_t n = 3000;
    auto p = readProfile(bytes(nestedTrace(n, n)), opts());
    auto m = buildModel(*p, {});
    const StackLayer& st = m->stacks();
    CHECK_EQ(st.stacks(), size_t{n});
    CHECK_EQ(st.frames.size(), uint64_t{n} * (n + 1) / 2);
    uint64_t sum = 0;
    std::vector<uint8_t> seenDepth(n + 1, 0);
    for (size_t s = 0; s < st.stacks(); ++s) {
      const uint64_t d = st.start[s + 1] - st.start[s];
      CHECK(d >= 1 && d <= n && !seenDepth[d]);  // distinct stacks
      seenDepth[d] = 1;
      for (uint64_t k = 0; k < d; ++k)  // outermost first: functions 1, 2, 3, 1, ...
        CHECK_EQ(m->function(st.frames[st.start[s] + k]).name,
                 "function " + std::to_string(1 + k % 3));
      sum += st.values[s];
    }
    CHECK_EQ(sum, m->total(0));
  }
  {
    const uint32_t n = 12000;  // 72 M frames
    auto p = readProfile(bytes(nestedTrace(n, n)), opts());
    auto m = buildModel(*p, {});
    CHECK_EQ(m->calls(0) + m->calls(1) + m->calls(2), uint64_t{n});
    try {
      m->stacks();
      throw testlib::Failure{"expected the stack layer to be refused"};
    } catch (const Error& e) {
      CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::limit));
      CHECK_CONTAINS(e.what(), "more than " + std::to_string(kMaxStackFrames) + " frames");
      CHECK_CONTAINS(e.what(), "up to 12000 calls deep");
    }
    // A merge or difference, kept as Callgrind, sums no stacks: it is not refused.
    const MergeInput twice[] = {{p.get(), "a"}, {p.get(), "b"}};
    auto merged = buildModel(*mergeProfiles(twice), {});
    CHECK_EQ(merged->calls(0) + merged->calls(1) + merged->calls(2), uint64_t{2} * n);
    auto diff = buildModel(*diffProfiles(twice[0], twice[1]), {});
    CHECK_EQ(diff->total(0), uint64_t{0});
  }
}

namespace {
// A basic-mode (version 3) trace of thread 7: each (kind, function id, TSC) a record.
struct Call {
  uint8_t kind;  // 0 entry, 1 exit
  uint32_t fid;
  uint64_t tsc;
};
std::string basicTrace(const std::vector<Call>& calls) {
  std::string out(32, '\0');
  auto put = [](std::string& at, size_t pos, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) at[pos + i] = static_cast<char>(v >> (8 * i));
  };
  put(out, 0, 3, 2);           // version
  put(out, 4, 3, 4);           // constant, non-stop TSC
  put(out, 8, 1000000000, 8);  // cycle frequency
  for (const Call& c : calls) {
    std::string r(32, '\0');
    r[3] = static_cast<char>(c.kind);
    put(r, 4, c.fid, 4);
    put(r, 8, c.tsc, 8);
    put(r, 16, 7, 4);   // thread
    put(r, 20, 42, 4);  // pid
    out += r;
  }
  return out;
}
}  // namespace

// Calls that never return: an exception thrown past thrower (3) to catcher (2), a longjmp past
// jumper (6) back into setter (5), each calling leaf (4) before and after. Each such call ends
// where the trace shows its caller resumed (the caller's exit), as `llvm-xray account -d` ends
// it: every tick of the thread is one call's self time once (the time the frames that never
// returned lost their callees' time counted twice in their callers), and the stacks, timeline,
// calls and callees agree.
TEST(calls_that_never_return_end_when_their_caller_returns) {
  const std::vector<Call> trace = {
      {0, 1, 100},                                         // worker
      {0, 2, 110}, {0, 3, 120},                            // catcher, thrower
      {0, 4, 130}, {1, 4, 150}, {0, 4, 170}, {1, 4, 180},  // leaf; throw; leaf in the handler
      {1, 2, 200},                                         // catcher returns
      {0, 5, 210}, {0, 6, 220},                            // setter, jumper
      {0, 4, 230}, {1, 4, 240}, {0, 4, 260}, {1, 4, 265},  // leaf; longjmp; leaf in setter
      {1, 5, 280}, {1, 1, 300}};                           // setter, worker return
  auto p = readProfile(bytes(basicTrace(trace)), opts());
  XrayAccount a = accountXray(*p);
  CHECK_EQ(a.unfinishedEntries, uint64_t{2});
  // llvm-xray-14 account -d: thrower 1 call of 80 ticks, jumper 1 of 60.
  CHECK_EQ(fn(a, 3).calls, uint64_t{1});
  CHECK_EQ(fn(a, 3).sumTicks, uint64_t{80});
  CHECK_EQ(fn(a, 6).calls, uint64_t{1});
  CHECK_EQ(fn(a, 6).sumTicks, uint64_t{60});
  CHECK_EQ(fn(a, 2).sumTicks, uint64_t{90});
  CHECK_EQ(fn(a, 5).sumTicks, uint64_t{70});
  // Self: callers keep only their own time.
  CHECK_EQ(fn(a, 1).selfTicks, uint64_t{40});
  CHECK_EQ(fn(a, 2).selfTicks, uint64_t{10});
  CHECK_EQ(fn(a, 3).selfTicks, uint64_t{50});
  CHECK_EQ(fn(a, 5).selfTicks, uint64_t{10});
  CHECK_EQ(fn(a, 6).selfTicks, uint64_t{45});
  CHECK_EQ(fn(a, 4).selfTicks, uint64_t{45});
  uint64_t self = 0;
  for (const XrayFunctionStats& f : a.functions) self += f.selfTicks;
  CHECK_EQ(self, uint64_t{200});  // worker's 100 to 300
  for (const XrayCallEdge& e : a.edges)
    if (e.caller == 6) CHECK(e.callee == 4 && e.calls == 2 && e.ticks == 15);

  auto m = buildModel(*p, {});
  CHECK_EQ(m->total(0), uint64_t{200});
  const StackLayer& st = m->stacks();
  uint64_t stacked = 0;
  for (size_t s = 0; s < st.stacks(); ++s) stacked += st.values[s];
  CHECK_EQ(stacked, uint64_t{200});
  struct Collect : SpanSink {
    std::vector<Span> spans;
    void span(const Span& s) override { spans.push_back(s); }
  } tl;
  m->spans(tl);
  CHECK_EQ(tl.spans.size(), size_t{9});
  uint64_t top = 0;
  for (const Span& sp : tl.spans) {
    if (sp.depth == 0) top += sp.end - sp.begin;
    if (m->function(sp.function).name == "function 3") CHECK(sp.begin == 120 && sp.end == 200);
    if (m->function(sp.function).name == "function 6") CHECK(sp.begin == 220 && sp.end == 280);
  }
  CHECK_EQ(top, uint64_t{200});
  for (size_t f = 0; f < m->functions(); ++f) {
    if (m->function(f).name == "function 3") CHECK_EQ(m->calls(f), uint64_t{1});
    if (m->function(f).name == "function 6") CHECK_EQ(m->calls(f), uint64_t{1});
  }
}

// Exits of a function that is not on the stack are counted, not searched for frame by frame
// (which took time quadratic in the stack's depth).
TEST(exits_without_entries_below_a_deep_stack) {
  const uint32_t n = 50000;
  auto p = readProfile(bytes(nestedTrace(n, n, 9)), opts());
  XrayAccount a = accountXray(*p, nullptr, false);
  CHECK_EQ(a.unmatchedExits, uint64_t{n});
  CHECK_EQ(a.unfinishedEntries, uint64_t{n});
}

// A thread per 64 bytes, each calling a function with a large id: per-thread state is sized by
// what each thread did, never by a function id (a table by id took 24 GB for this 1.5 MB FDR
// trace).
TEST(many_threads_with_large_function_ids) {
  const uint32_t threads = 16000, fid = 65000;
  std::string basic(32, '\0');
  basic[0] = 3;
  basic[4] = 3;
  for (int i = 0; i < 8; ++i) basic[8 + i] = static_cast<char>(uint64_t{1000000000} >> (8 * i));
  for (uint32_t t = 0; t < threads; ++t)
    for (uint8_t kind : {0, 1}) {
      std::string r(32, '\0');
      r[3] = static_cast<char>(kind);
      for (int i = 0; i < 4; ++i) r[4 + i] = static_cast<char>(fid >> (8 * i));
      const uint64_t tsc = 1000 + 20 * t + 10 * kind;
      for (int i = 0; i < 8; ++i) r[8 + i] = static_cast<char>(tsc >> (8 * i));
      for (int i = 0; i < 4; ++i) r[16 + i] = static_cast<char>((t + 1) >> (8 * i));
      r[20] = 42;
      basic += r;
    }
  auto b = readProfile(bytes(basic), opts());
  WriteOptions wo;
  wo.set(kXrayMode, 1);
  wo.set(kXrayVersion, 5);
  auto fdr = readProfile(bytes(writeProfile(*b, FormatId::xray, wo)), opts());
  for (const Profile* p : {b.get(), fdr.get()}) {
    XrayAccount a = accountXray(*p, nullptr, true);
    CHECK_EQ(a.threads.size(), size_t{threads});
    CHECK_EQ(a.functions.size(), size_t{1});
    CHECK_EQ(a.functions[0].functionId, fid);
    CHECK_EQ(a.functions[0].calls, uint64_t{threads});
    CHECK_EQ(a.functions[0].sumTicks, uint64_t{threads} * 10);
    CHECK_EQ(a.threads[threads - 1].functions[0].calls, uint64_t{1});
  }
}

// A basic-mode trace of `threads` threads, each calling function 1 once; every third thread's
// call makes a call of function 2, every fifth's a call of function 3 that never returns.
std::string manyThreadsTrace(uint32_t threads) {
  std::string out(32, '\0');
  out[0] = 3;
  out[4] = 3;
  for (int i = 0; i < 8; ++i) out[8 + i] = static_cast<char>(uint64_t{1000000000} >> (8 * i));
  uint64_t tsc = 1000;
  auto record = [&](uint32_t thread, uint8_t kind, uint32_t fid) {
    std::string r(32, '\0');
    r[3] = static_cast<char>(kind);
    for (int i = 0; i < 4; ++i) r[4 + i] = static_cast<char>(fid >> (8 * i));
    tsc += 7 + thread % 13;
    for (int i = 0; i < 8; ++i) r[8 + i] = static_cast<char>(tsc >> (8 * i));
    for (int i = 0; i < 4; ++i) r[16 + i] = static_cast<char>((thread + 1) >> (8 * i));
    r[20] = 42;
    out += r;
  };
  for (uint32_t t = 0; t < threads; ++t) {
    record(t, 0, 1);
    if (t % 3 == 0) {
      record(t, 0, 2);
      record(t, 1, 2);
    }
    if (t % 5 == 0)
      record(t, 0, 3);
    else
      record(t, 1, 1);
  }
  return out;
}

// Callgrind is written one part per thread, each from that thread's model: the models of one
// write share the trace's accounting, so a small trace of many threads converts in time linear
// in it (each thread's model accounted the whole trace again: 28 s for 12,000 threads).
TEST(many_threads_convert_to_callgrind_in_linear_time) {
  const uint32_t threads = 12000;
  auto p = readProfile(bytes(manyThreadsTrace(threads)), opts());
  auto m = buildModel(*p, {});
  CHECK_EQ(m->threads().size(), size_t{threads});
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  };
  Clock::time_point t0 = Clock::now();
  const std::string folded = writeProfile(*p, FormatId::folded, {});
  const double foldedSeconds = seconds(t0);
  t0 = Clock::now();
  const std::string cg = writeProfile(*p, FormatId::callgrind, {});
  const double callgrindSeconds = seconds(t0);
  std::printf("  callgrind %.3f s, folded %.3f s\n", callgrindSeconds, foldedSeconds);
  CHECK(callgrindSeconds < 10);  // generous for the sanitizer builds
  // Every thread has its part, and read back, every figure is the trace's.
  size_t parts = 0;
  for (size_t at = cg.find("\n# part "); at != std::string::npos; at = cg.find("\n# part ", at + 1))
    ++parts;
  CHECK_EQ(parts, size_t{threads});
  auto back = buildModel(*readProfile(bytes(cg), opts()), {});
  CHECK_EQ(back->total(0), m->total(0));
  std::map<std::string, std::pair<uint64_t, uint64_t>> want, got;
  for (size_t f = 0; f < m->functions(); ++f)  // a call that never returned has no figures
    if (m->inclusive(f, 0) != 0) want[m->function(f).name] = {m->self(f, 0), m->inclusive(f, 0)};
  for (size_t f = 0; f < back->functions(); ++f)
    if (back->function(f).name != "(root)")
      got[back->function(f).name] = {back->self(f, 0), back->inclusive(f, 0)};
  // Function 1's calls left open (every fifth thread's) made calls of function 2 that returned:
  // read back, they are function 1's calls, so it costs its self cost plus its calls to others
  // (docs/formats.md, Callgrind queries), more than its completed calls.
  uint64_t own = want["function 1"].first;
  const FunctionLayer& layer = m->layer();
  for (size_t k = 0; k < layer.edges.size(); ++k)
    if (m->function(layer.edges[k].caller).name == "function 1" &&
        m->function(layer.edges[k].callee).name != "function 1")
      own += layer.edgeCosts[k * layer.events()];
  CHECK(own > want["function 1"].second);
  want["function 1"].second = own;
  CHECK(got == want);
  CHECK_EQ(want["function 1"].first + want["function 2"].first, m->total(0));
}

TEST_MAIN()
