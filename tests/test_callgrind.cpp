// Callgrind reader/writer: every construct of the format, corpus round trips and every
// bad-input error with its line number.
#include <span>
#include <string>
#include <vector>

#include "container/ppk.h"
#include "error.h"
#include "formats/cachegrind/cachegrind.h"
#include "formats/callgrind/archive_coding.h"
#include "formats/callgrind/callgrind.h"
#include "formats/callgrind/costs.h"
#include "formats/registry.h"
#include "ir/column.h"
#include "layer_text.h"
#include "model/model.h"
#include "testlib.h"

using namespace profpack;

namespace {
std::span<const uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
ReadOptions opts() { return {kDefaultMaxPpkMessage, false}; }

std::unique_ptr<Profile> read(const std::string& text) { return readCallgrind(bytes(text)); }

// Expects reading `text` to fail as malformed Callgrind at `line`, with `needle` in the message.
void expectError(const std::string& text, uint64_t line, const std::string& needle) {
  try {
    readCallgrind(bytes(text));
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::malformed));
    CHECK_EQ(e.format(), std::string("callgrind"));
    CHECK_EQ(e.line(), line);
    CHECK(e.offset() != kUnknown);
    CHECK_CONTAINS(e.what(), needle);
    return;
  }
  throw testlib::Failure{"expected an error containing: " + needle};
}

// The rows of part `p`, decoded, with names resolved.
struct Rows {
  const Profile& prof;
  DecodedContexts ctx;
  DecodedCosts t;
  std::vector<size_t> firstCost, assoc;  // per row: index into costs / association columns
  Rows(const Profile& p, unsigned part = 0)
      : prof(p),
        ctx(p.root().getContexts(), p.strings().size()),
        t(p.root().getParts()[part].getCosts(), p.root().getPositionKinds().size(),
          p.root().getEvents().size(), ctx.size()) {
    size_t c = 0, a = 0;
    for (size_t r = 0; r < t.kind.size(); ++r) {
      firstCost.push_back(c);
      assoc.push_back(a);
      c += t.costCount[r];
      if (t.kind[r] != 0) ++a;
    }
  }
  size_t size() const { return t.kind.size(); }
  std::string s(uint64_t id) const { return std::string(prof.strings().get(id)); }
  std::string fn(size_t r) const { return s(ctx.function[t.context[r]]); }
  std::string file(size_t r) const { return s(ctx.file[t.context[r]]); }
  std::string obj(size_t r) const { return s(ctx.object[t.context[r]]); }
  std::string src(size_t r) const { return s(t.sourceFile[r]); }
  uint64_t pos(size_t r, size_t k = 0) const { return t.positions[k][r]; }
  uint64_t cost(size_t r, size_t i) const {
    return i < t.costCount[r] ? t.costs[firstCost[r] + i] : 0;
  }
  uint64_t target(size_t r) const { return t.target[assoc[r]]; }
  std::string targetFn(size_t r) const { return s(ctx.function[target(r)]); }
  std::string targetFile(size_t r) const { return s(ctx.file[target(r)]); }
  std::string targetObj(size_t r) const { return s(ctx.object[target(r)]); }
  uint64_t targetPos(size_t r, size_t k = 0) const { return t.targetPositions[k][assoc[r]]; }
  uint64_t count(size_t r) const { return t.count[assoc[r]]; }
};

// Reading the written text (and a .ppk of it) gives the same IR.
void checkRoundTrip(const Profile& p) {
  std::string back = writeCallgrind(p);
  auto again = read(back);
  CHECK(equalIR(p, *again));
  std::string ppk = writeProfile(p, FormatId::ppk, {});
  auto fromPpk = readProfile(bytes(ppk), opts());
  CHECK(equalIR(p, *fromPpk));
  CHECK(writeCallgrind(*fromPpk) == back);
}

const char* kCorpus[] = {"callgrind/callgrind.workload.out",
                         "callgrind/callgrind.workload.instr-jumps.out",
                         "callgrind/callgrind.workload.threads-combined.out",
                         "callgrind/callgrind.workload.uncompressed-contexts.out",
                         "callgrind/callgrind.workload.cachesim.out"};
}  // namespace

TEST(detects_callgrind_corpus) {
  for (const char* f : kCorpus)
    CHECK(detectFormat(bytes(testlib::slurp(testlib::data(f)))) == FormatId::callgrind);
}

TEST(corpus_round_trips_are_ir_equal) {
  for (const char* f : kCorpus) {
    std::string original = testlib::slurp(testlib::data(f));
    auto first = readProfile(bytes(original), opts());
    CHECK(first->root().getFormat() == ir::Format::CALLGRIND);
    std::string ppk = writeProfile(*first, FormatId::ppk, {});
    auto fromPpk = readProfile(bytes(ppk), opts());
    CHECK(equalIR(*first, *fromPpk));
    std::string back = writeProfile(*fromPpk, FormatId::callgrind, {});
    // About as small as valgrind's own output.
    CHECK(back.size() <= original.size() + original.size() / 20);
    auto second = readProfile(bytes(back), opts());
    CHECK(equalIR(*first, *second));
    // .ppk bytes are a function of the IR alone.
    CHECK(writeProfile(*second, FormatId::ppk, {}) == ppk);
  }
}

// A revision-2 message must store its cost tables predicted (plain columns were the
// pre-release coding; such .ppk files are refused by their revision, test_container).
TEST(unpredicted_cost_table_is_malformed) {
  auto text = read(testlib::slurp(testlib::data("callgrind/callgrind.workload.instr-jumps.out")));
  auto message = std::make_unique<capnp::MallocMessageBuilder>();
  message->setRoot(text->root());
  message->getRoot<ir::Profile>().getParts()[0].getCosts().setPredicted(false);
  Profile plain(std::move(message));
  try {
    writeCallgrind(plain);
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.status() == Status::malformed);
    CHECK_CONTAINS(e.what(), "predicted false");
  }
}

TEST(corpus_self_totals_match_totals_line) {
  // The self costs add up to the totals: line valgrind wrote (per part).
  std::string text = testlib::slurp(testlib::data("callgrind/callgrind.workload.out"));
  auto p = read(text);
  auto gModel = buildModel(*p, {});
  const Model& g = *gModel;
  CHECK_EQ(g.events(), size_t{1});
  CHECK_EQ(g.total(0), uint64_t{88742802});
  auto threads =
      read(testlib::slurp(testlib::data("callgrind/callgrind.workload.threads-combined.out")));
  CHECK_EQ(threads->root().getParts().size(), 3u);
  uint64_t want[3] = {133073, 43481139, 45128590};
  for (unsigned part = 0; part < 3; ++part) {
    Rows rows(*threads, part);
    uint64_t sum = 0;
    for (size_t r = 0; r < rows.size(); ++r)
      if (rows.t.kind[r] == 0) sum += rows.cost(r, 0);
    CHECK_EQ(sum, want[part]);
  }
}

TEST(header_lines_and_parts) {
  std::string text =
      "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 7\ncmd:  ./a b\npart: 1\n"
      "thread: 1\n\ndesc: I1 cache: \ndesc: Trigger: Program termination\npositions: line\n"
      "events: Ir\nsummary: 5\n\nfl=a.c\nfn=main\n3 5\n\ntotals: 5\n"
      "# callgrind format\nversion: 1\npart: 2\nthread: 2\nevents: Ir\nsummary: 2\nfl=a.c\nfn=f\n"
      "4 2\ntotals: 2\n# trailing comment\n";
  auto p = read(text);
  auto root = p->root();
  CHECK_EQ(std::string(root.getFormatVersion().cStr()), std::string("1"));
  CHECK_EQ(root.getParts().size(), 2u);
  auto h0 = root.getParts()[0].getHeaderLines();
  CHECK_EQ(std::string(h0[0].getText().cStr()), std::string("# callgrind format"));
  CHECK_EQ(std::string(h0[4].getKey().cStr()), std::string("cmd"));
  CHECK_EQ(std::string(h0[4].getValue().cStr()), std::string("./a b"));
  CHECK_EQ(std::string(h0[4].getText().cStr()), std::string("cmd:  ./a b"));
  auto last0 = h0[h0.size() - 1];
  CHECK_EQ(std::string(last0.getKey().cStr()), std::string("totals"));
  CHECK(last0.getPlacement() == ir::HeaderLine::Placement::TRAILER);
  auto h1 = root.getParts()[1].getHeaderLines();
  // The comment before part 2's version: line opens part 2.
  CHECK_EQ(std::string(h1[0].getText().cStr()), std::string("# callgrind format"));
  CHECK(h1[0].getPlacement() == ir::HeaderLine::Placement::HEADER);
  CHECK_EQ(std::string(h1[h1.size() - 1].getText().cStr()), std::string("# trailing comment"));
  CHECK(h1[h1.size() - 1].getPlacement() == ir::HeaderLine::Placement::TRAILER);
  Rows r1(*p, 1);
  CHECK_EQ(r1.size(), size_t{1});
  CHECK_EQ(r1.fn(0), std::string("f"));
  checkRoundTrip(*p);
  // Every header and trailer line comes back verbatim.
  std::string back = writeCallgrind(*p);
  for (const char* l : {"creator: callgrind-3.19.0\n", "pid: 7\n", "thread: 2\n", "totals: 2\n",
                        "desc: Trigger: Program termination\n", "# trailing comment\n"})
    CHECK_CONTAINS(back, l);
}

TEST(parts_without_cost_lines_round_trip) {
  // Found by fuzzing: a part with no cost lines ran on into the next part (and its totals:
  // became header lines) when written back.
  std::string text = "events: Ir\npart: 1\nfn=f\ntotals: 0\npart: 2\nfn=g\n3 4\ntotals: 4\n";
  auto p = read(text);
  CHECK_EQ(p->root().getParts().size(), 2u);
  std::string back = writeCallgrind(*p);
  auto q = read(back);
  CHECK_EQ(q->root().getParts().size(), 2u);
  CHECK(equalIR(*p, *q));
}

TEST(event_long_names_and_derived_events) {
  std::string text =
      "event: Ir : Instruction Fetches\nevent: Sum = Ir + 2 * Dr : Weighted sum\n"
      "event: L = 3Dr\nevents: Ir Dr\nfn=f\n1 1 2\n";
  auto p = read(text);
  auto ev = p->root().getEvents();
  CHECK_EQ(ev.size(), 2u);
  CHECK_EQ(std::string(ev[0].getLongName().cStr()), std::string("Instruction Fetches"));
  CHECK_EQ(std::string(ev[1].getLongName().cStr()), std::string(""));
  auto de = p->root().getDerivedEvents();
  CHECK_EQ(de.size(), 2u);
  CHECK_EQ(std::string(de[0].getName().cStr()), std::string("Sum"));
  CHECK_EQ(std::string(de[0].getFormula().cStr()), std::string("Ir + 2 * Dr"));
  CHECK_EQ(std::string(de[0].getLongName().cStr()), std::string("Weighted sum"));
  CHECK_EQ(de[0].getTerms().size(), 2u);
  CHECK_EQ(de[0].getTerms()[0].getFactor(), 1);
  CHECK_EQ(std::string(de[0].getTerms()[1].getEvent().cStr()), std::string("Dr"));
  CHECK_EQ(de[0].getTerms()[1].getFactor(), 2);
  CHECK_EQ(de[1].getTerms()[0].getFactor(), 3);
  CHECK_EQ(std::string(de[1].getTerms()[0].getEvent().cStr()), std::string("Dr"));
  checkRoundTrip(*p);
}

TEST(name_compression_shared_spaces_and_redefinition) {
  // valgrind defines a file id with cfi= and uses it with fl=/fi=/jfi=; functions likewise.
  std::string text =
      "events: Ir\nob=(1) /bin/a\nfl=(1) a.c\nfn=(1) main\n1 1\ncfi=(2) b.c\ncfn=(2) g\n"
      "calls=1 10\n1 4\nfl=(2)\nfn=(2)\n10 4\nfn=(1) renamed\n11 1\nfn=(1)\n12 1\n"
      "fn=(below main)\n13 1\n";
  auto p = read(text);
  Rows r(*p);
  CHECK_EQ(r.size(), size_t{6});
  CHECK_EQ(r.fn(0), std::string("main"));
  CHECK_EQ(r.obj(0), std::string("/bin/a"));
  CHECK_EQ(r.targetFn(1), std::string("g"));
  CHECK_EQ(r.targetFile(1), std::string("b.c"));
  CHECK_EQ(r.targetObj(1), std::string("/bin/a"));  // cob defaults to the caller's object
  CHECK_EQ(r.fn(2), std::string("g"));
  CHECK_EQ(r.file(2), std::string("b.c"));
  CHECK_EQ(r.t.context[2], r.target(1));  // the same context
  CHECK_EQ(r.fn(3), std::string("renamed"));
  CHECK_EQ(r.fn(4), std::string("renamed"));       // a redefinition replaces the old name
  CHECK_EQ(r.fn(5), std::string("(below main)"));  // "(" without a digit: a plain name
  checkRoundTrip(*p);
}

TEST(unused_names_do_not_change_the_ir) {
  std::string plain = "events: Ir\nfl=a.c\nfn=main\n1 1\n";
  std::string predefined =
      "events: Ir\n# define names first\nfl=(1) a.c\nfl=(9) unused.c\nfn=(3) main\n"
      "fn=(4) unused\ncob=(2) /lib/unused.so\nfl=(1)\nfn=(3)\n1 1\n";
  auto a = read(plain);
  auto b = read(predefined);
  Rows ra(*a), rb(*b);
  CHECK_EQ(ra.size(), rb.size());
  CHECK_EQ(a->strings().size(), b->strings().size());
  CHECK(equalIR(*a, *b) == false);  // the header comment differs...
  // ...but strings, contexts and costs are the same.
  CHECK(a->strings().size() == 3);
  CHECK_EQ(rb.fn(0), std::string("main"));
  CHECK(ra.t.context == rb.t.context);
  CHECK(ra.ctx.function == rb.ctx.function);
  CHECK(ra.ctx.file == rb.ctx.file);
}

TEST(subpositions_all_forms) {
  std::string text =
      "positions: instr bb line\nevents: A B\nfn=f\n"
      "0x1000 7 10 1 2\n+3 * +2 3\n-1 * -12 0 4\n* +1 * 5\n0X10 0 0x20\n"
      "16 +100 5 1\n";
  auto p = read(text);
  auto kinds = p->root().getPositionKinds();
  CHECK_EQ(kinds.size(), 3u);
  CHECK(kinds[0] == ir::PositionKind::INSTR);
  CHECK(kinds[1] == ir::PositionKind::BB);
  CHECK(kinds[2] == ir::PositionKind::LINE);
  Rows r(*p);
  CHECK_EQ(r.size(), size_t{6});
  uint64_t want[6][3] = {{0x1000, 7, 10}, {0x1003, 7, 12}, {0x1002, 7, 0},
                         {0x1002, 8, 0},  {0x10, 0, 0x20}, {16, 100, 5}};
  for (size_t i = 0; i < 6; ++i)
    for (size_t k = 0; k < 3; ++k) CHECK_EQ(r.pos(i, k), want[i][k]);
  // Fewer costs than events: the rest are zero, and the row remembers how many were given.
  CHECK_EQ(r.t.costCount[0], uint64_t{2});
  CHECK_EQ(r.t.costCount[1], uint64_t{1});
  CHECK_EQ(r.t.costCount[4], uint64_t{0});
  CHECK_EQ(r.cost(2, 1), uint64_t{4});
  checkRoundTrip(*p);
  // The writer compresses subpositions: relative forms and '*' appear.
  std::string back = writeCallgrind(*p);
  CHECK_CONTAINS(back, "+3 * +2 3\n");
  for (const char* positions : {"positions: line\n", "positions: instr\n", "positions: bb\n",
                                "positions: instr line\n", "positions: line bb\n"}) {
    auto q = read(std::string(positions) + "events: A\nfn=f\n5 1\n+2 1\n* 2\n-7 3\n");
    CHECK_EQ(Rows(*q).pos(3), uint64_t{0});
    checkRoundTrip(*q);
  }
}

TEST(calls_with_targets_and_inclusive_costs) {
  std::string text =
      "positions: instr line\nevents: Ir Dr\nob=(1) /bin/a\nfl=(1) a.c\nfn=(1) main\n"
      "0x100 5 1 1\ncob=(2) /lib/libc.so\ncfi=(2) m.c\ncfn=(2) malloc\ncalls=3 0x9000 77\n"
      "+4 * 30 6\ncfn=(3) helper\ncalls=1 -4 +1\n* * 9\ncfl=(3) other.c\ncfn=(3)\n"
      "calls=2 0x500 1\n* * 4\n";
  auto p = read(text);
  Rows r(*p);
  CHECK_EQ(r.size(), size_t{4});
  CHECK_EQ(r.t.kind[1], uint64_t(ir::RecordKind::CALL));
  // cfl= is cfi= under its older name.
  CHECK_EQ(r.targetFile(3), std::string("other.c"));
  CHECK_EQ(r.targetFn(3), std::string("helper"));
  CHECK_EQ(r.count(3), uint64_t{2});
  CHECK_EQ(r.targetObj(1), std::string("/lib/libc.so"));
  CHECK_EQ(r.targetFile(1), std::string("m.c"));
  CHECK_EQ(r.targetFn(1), std::string("malloc"));
  CHECK_EQ(r.count(1), uint64_t{3});
  CHECK_EQ(r.targetPos(1, 0), uint64_t{0x9000});
  CHECK_EQ(r.targetPos(1, 1), uint64_t{77});
  CHECK_EQ(r.pos(1, 0), uint64_t{0x104});  // call site, relative to the previous cost line
  CHECK_EQ(r.cost(1, 0), uint64_t{30});
  CHECK_EQ(r.cost(1, 1), uint64_t{6});
  // cob=/cfi= applied to one cfn= only: helper is in the caller's object and file.
  CHECK_EQ(r.targetObj(2), std::string("/bin/a"));
  CHECK_EQ(r.targetFile(2), std::string("a.c"));
  // The target position is relative to the last cost line (0x104, 5) and does not move it.
  CHECK_EQ(r.targetPos(2, 0), uint64_t{0x100});
  CHECK_EQ(r.targetPos(2, 1), uint64_t{6});
  CHECK_EQ(r.pos(2, 0), uint64_t{0x104});
  // Self cost counts only cost rows.
  CHECK_EQ((*buildModel(*p, {})).total(0), uint64_t{1});
  checkRoundTrip(*p);
}

TEST(jumps_and_conditional_jumps) {
  std::string text =
      "positions: instr line\nevents: Ir\nfl=(1) a.c\nfn=(1) f\n0x10 3 1\n"
      "jump=6 -8 * \n* * \n+2 4 1\njcnd=1/12 +10 +1\n* *\njfi=(2) b.h\njfn=(2) g\n"
      "jcnd=3/3 0x40 20\n* * \n";
  auto p = read(text);
  Rows r(*p);
  CHECK_EQ(r.size(), size_t{5});
  CHECK_EQ(r.t.kind[1], uint64_t(ir::RecordKind::JUMP));
  CHECK_EQ(r.count(1), uint64_t{6});
  CHECK_EQ(r.targetPos(1, 0), uint64_t{8});
  CHECK_EQ(r.targetPos(1, 1), uint64_t{3});
  CHECK_EQ(r.pos(1, 0), uint64_t{0x10});  // the source line
  CHECK_EQ(r.t.costCount[1], uint64_t{0});
  CHECK_EQ(r.targetFn(1), std::string("f"));  // defaults: same function and file
  CHECK_EQ(r.targetFile(1), std::string("a.c"));
  CHECK_EQ(r.t.kind[3], uint64_t(ir::RecordKind::COND_JUMP));
  CHECK_EQ(r.count(3), uint64_t{12});    // executed
  CHECK_EQ(r.t.jumped[0], uint64_t{1});  // jumped
  CHECK_EQ(r.targetPos(3, 0), uint64_t{0x1c});
  CHECK_EQ(r.targetPos(3, 1), uint64_t{5});
  CHECK_EQ(r.targetFile(4), std::string("b.h"));
  CHECK_EQ(r.targetFn(4), std::string("g"));
  CHECK_EQ(r.t.jumped[1], uint64_t{3});
  checkRoundTrip(*p);
  CHECK_CONTAINS(writeCallgrind(*p), "jcnd=1/12 ");
}

TEST(inlined_file_switches) {
  std::string text =
      "events: Ir\nfl=(1) a.c\nfn=(1) f\n10 1\nfi=(2) inl.h\n20 2\ncfn=(2) g\ncalls=1 5\n20 7\n"
      "fe=(1)\n11 1\nfi=(2)\nfn=(3) h\n30 1\n";
  auto p = read(text);
  Rows r(*p);
  CHECK_EQ(r.size(), size_t{5});
  CHECK_EQ(r.src(0), std::string(""));
  CHECK_EQ(r.src(1), std::string("inl.h"));
  CHECK_EQ(r.file(1), std::string("a.c"));
  CHECK_EQ(r.src(2), std::string("inl.h"));
  CHECK_EQ(r.targetFile(2), std::string("inl.h"));  // cfn= without cfi=: the file in effect
  CHECK_EQ(r.src(3), std::string(""));              // fe= back to the function's own file
  // fn= takes the file in effect (as valgrind and callgrind_annotate do).
  CHECK_EQ(r.file(4), std::string("inl.h"));
  CHECK_EQ(r.src(4), std::string(""));
  checkRoundTrip(*p);
}

TEST(comments_blank_lines_and_crlf) {
  std::string lf =
      "# callgrind format\nevents: Ir\n\n# comment\nfl=a.c\n\nfn=f\n# in the body\n1 2\n  \n"
      "cfn=g\ncalls=1 2\n1 3\n\ntotals: 2\n";
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  auto a = read(lf);
  auto b = read(crlf);
  CHECK(equalIR(*a, *b));
  CHECK_EQ(Rows(*a).size(), size_t{2});
  checkRoundTrip(*a);
}

// Most lines go through fast paths that parse a line ending in "\n" in one pass; a carriage
// return sends every line through the checked path instead. Both must give the same IR, for
// the corpus and for the edge forms of each fast path (hex widths, relative and '*' targets,
// blanks, long numbers the fast paths leave to the checked one).
TEST(fast_and_checked_paths_agree) {
  auto crlfOf = [](const std::string& lf) {
    std::string crlf;
    for (char c : lf) {
      if (c == '\n') crlf += '\r';
      crlf += c;
    }
    return crlf;
  };
  std::vector<std::string> texts;
  for (const char* f : kCorpus) texts.push_back(testlib::slurp(testlib::data(f)));
  texts.push_back(
      "events: Ir Dr\npositions: instr line\nob=(1) /bin/x\nfl=(1) a.c\nfn=(1) main\n"
      "0xffffffffffffffff 3 1 2\n0x0000000000000000ff 4 1\n+3 -1 7\n* * 9 9\n0x1A 12\n"
      "cfn=(2) g\ncalls=1 0x400 5\n* * 10\ncfn=(2)\ncalls=2 +3 -2\n+1 * 4\n"
      "cfn=(2)  \ncalls=  3   0x10\t7 \n* 8 5\ncfn=(2)\ncalls=12345678901234567890 0x10 7\n"
      "* 9 1\njcnd=0/5 * *\n+2 * 1\njcnd=3/4 +1 +0\n* * 1 1\njump=3 0x10 7\n* * 2\n"
      "jfn=(4) k\njump=2 0x30 1\n* * 1\n"
      "jfi=(2) b.c\njfn=(3) h\njump=1 0x20 1\n* * 1\njcnd=1/2 0X30 2\n* * 1\n"
      "cfn=(9)\n");
  texts.back().erase(texts.back().size() - 8);  // (an undefined id is an error, tested below)
  texts.push_back("events: Ir\nfl=a.c\nfn=f\n1 2\ncfn=g\ncalls=1 2\n1 3\njump=1 5\n1 1");
  for (const std::string& lf : texts) {
    auto fast = read(lf);
    auto checked = read(crlfOf(lf));
    CHECK(equalIR(*fast, *checked));
    CHECK(writeCallgrind(*fast) == writeCallgrind(*checked));
  }
  // Errors found on a fast-path line's form come from the checked path, with its line number.
  expectError("events: Ir\nfl=a.c\nfn=f\n1 2\ncfn=(4)\ncalls=1 2\n1 3\n", 5,
              "undefined compressed id (4)");
  expectError("events: Ir\nfl=a.c\nfn=f\n1 2\ncfn=g\ncalls=1 2\ncalls=1 2\n1 3\n", 7,
              "expected the cost line of the calls=");
  expectError("events: Ir\nfl=a.c\nfn=f\n1 2\njcnd=3/x 5\n1 3\n", 5, "jcnd=");
}

// The model of a profile just read takes its function layer from the reader's sums (RowSums,
// gathered as the rows are encoded); a profile read back from .ppk (no sums) passes over its
// rows. Both must give the same functions in the same order, the same edges, costs and
// summary: on the corpus, on inlined-file switches, jumps and several parts, and on a table
// large enough that its rows are encoded (and summed) on the builder's worker thread.
TEST(layers_from_the_readers_sums_and_from_the_rows_agree) {
  std::vector<std::string> texts;
  for (const char* f : kCorpus) texts.push_back(testlib::slurp(testlib::data(f)));
  for (const char* f :
       {"callgrind-threads/callgrind.out.workload-01", "callgrind/callgrind.rec.instr.out"})
    texts.push_back(testlib::slurp(testlib::data(f)));
  texts.push_back(
      "events: Ir Dr\nfl=(1) a.c\nfn=(1) f\n10 1 1\nfi=(2) inl.h\n20 2\ncfn=(2) g\ncalls=1 5\n"
      "20 7 3\nfe=(1)\n11 1\njump=2 12\n11\nfi=(2)\nfn=(3) h\n30 1 9\ncfi=(1)\ncfn=(1)\n"
      "calls=4 10\n31 5 5\nfe=(2)\ncfn=(3)\ncalls=1 30\n32 1\nfl=(2)\nfn=(4) f\n40 2 2\n"
      "totals: 1 1\npart: 2\nevents: Ir Dr\nfl=(1)\nfn=(2)\n5 3 3\ncfn=(4)\ncalls=2 40\n6 4\n");
  CHECK_EQ(read(texts.back())->root().getParts().size(), 2u);
  std::string big = "events: Ir\npositions: instr line\n";
  for (int f = 0; f < 400; ++f) {
    big += "fl=src" + std::to_string(f % 7) + ".c\nfn=fn" + std::to_string(f) + "\n";
    for (int r = 0; r < 60; ++r) {
      if (r % 20 == 10) big += "fi=inl" + std::to_string(f % 3) + ".h\n";
      if (r % 20 == 15) big += "fe=src" + std::to_string(f % 7) + ".c\n";
      big += "0x" + std::to_string(1000 + f * 100 + r) + " " + std::to_string(r) + " " +
             std::to_string(r * 3 + f) + "\n";
      if (r % 9 == 4)
        big += "cfn=fn" + std::to_string((f * 13 + r) % 400) + "\ncalls=" + std::to_string(r) +
               " 0x10 1\n* * " + std::to_string(f + r) + "\n";
    }
  }
  texts.push_back(big);
  for (const std::string& text : texts) {
    auto fresh = read(text);
    const std::string fromSums = testlib::layerText(*buildModel(*fresh, {}));
    CHECK(fresh->takeDecoded() != nullptr);  // the model gave the sums back
    auto fromPpk = readProfile(bytes(writeProfile(*fresh, FormatId::ppk, {})), opts());
    CHECK(fromPpk->takeDecoded() == nullptr);
    CHECK(fromPpk->storedModel() == nullptr);  // (a stored layer would be the sums' again)
    CHECK_EQ(testlib::layerText(*buildModel(*fromPpk, {})), fromSums);
  }
  CHECK(CostTableBuilder::kThreadFromRows < 400 * 63);
}

// A read that fails after a part's rows went to the builder's worker thread: the worker, still
// adding to the reader's sums, is stopped before the sums go (under AddressSanitizer a
// use-after-free otherwise, as a review found).
TEST(a_failed_read_stops_the_worker_before_its_sums_go) {
  std::string text = "events:";
  for (int e = 0; e < 16; ++e) text += " e" + std::to_string(e);
  text += "\nfl=a.c\n";
  for (int f = 0; f < 16 * 4096 + 1025; ++f) {  // a new function a row: the sums grow (their
    // 8 MB of costs is moved) while the worker adds the last batch, as the error comes
    text += "fn=(" + std::to_string(f + 1) + ") f" + std::to_string(f) + "\n1";
    for (int e = 0; e < 16; ++e) text += " 1";
    text += "\n";
  }
  text += "bogus=1\n";
  CHECK(16 * 4096 > CostTableBuilder::kThreadFromRows);
  for (int i = 0; i < 3; ++i) expectError(text, 2 * (16 * 4096 + 1025) + 3, "bogus=1");
}

// The sums are bounded by the rows read: with many events, keys that each cost one row (here
// contexts of one function, each with a row in the same inlined file) would otherwise take
// events x 8 bytes a row. Past the bound they are dropped and the model passes over the rows.
TEST(sums_past_their_bound_are_dropped) {
  std::string text = "events:";
  for (int e = 0; e < 2000; ++e) text += " e" + std::to_string(e);
  text += "\n";
  for (int k = 0; k < 3000; ++k)
    text += "fl=(" + std::to_string(k + 1) + ") f" + std::to_string(k) + ".c\nfn=(1)" +
            (k == 0 ? " g" : "") + "\nfi=(0)" + (k == 0 ? " F.h" : "") + "\n1 1\n";
  auto p = read(text);
  std::unique_ptr<Profile::Decoded> taken = p->takeDecoded();
  const auto* sums = dynamic_cast<const DecodedRowSums*>(taken.get());
  CHECK(sums != nullptr);
  CHECK(!sums->sums.usable);
  CHECK(sums->sums.self.capacity() == 0);
  p->returnDecoded(std::move(taken));
  auto fresh = read(text);
  auto fromPpk = readProfile(bytes(writeProfile(*fresh, FormatId::ppk, {})), opts());
  CHECK_EQ(testlib::layerText(*buildModel(*fresh, {})),
           testlib::layerText(*buildModel(*fromPpk, {})));
  CHECK_EQ((*buildModel(*fresh, {})).functions(), size_t{1});
}

TEST(cachegrind_family_interop) {
  // Callgrind -> Cachegrind: self costs per line, readable by the Cachegrind reader.
  auto cg = read(testlib::slurp(testlib::data("callgrind/callgrind.workload.instr-jumps.out")));
  std::string cache = writeProfile(*cg, FormatId::cachegrind, {});
  // cg_annotate wants desc: lines, then cmd:, then events:.
  CHECK(cache.rfind("desc: ", 0) == 0);
  CHECK(cache.find("desc: ", cache.find("cmd: ")) == std::string::npos);
  CHECK(cache.find("cmd: ") < cache.find("events: "));
  CHECK(detectFormat(bytes(cache)) == FormatId::cachegrind);
  auto back = readCachegrind(bytes(cache));
  CHECK_EQ((*buildModel(*back, {})).total(0), (*buildModel(*cg, {})).total(0));
  // Cachegrind -> Callgrind: a valid file with the same self costs, and stable from then on.
  std::string cgText = testlib::slurp(testlib::data("cachegrind/cachegrind.workload.out"));
  auto cachegrind = readCachegrind(bytes(cgText));
  std::string callgrind = writeCallgrind(*cachegrind);
  CHECK(detectFormat(bytes(callgrind)) == FormatId::callgrind);
  auto asCallgrind = read(callgrind);
  Summary a = buildModel(*cachegrind, {})->summary(), b = buildModel(*asCallgrind, {})->summary();
  auto gaModel = buildModel(*cachegrind, {}), gbModel = buildModel(*asCallgrind, {});
  const Model &ga = *gaModel, &gb = *gbModel;
  CHECK_EQ(ga.events(), gb.events());
  for (size_t i = 0; i < ga.events(); ++i) CHECK_EQ(ga.total(i), gb.total(i));
  CHECK_EQ(a.functions, b.functions);
  checkRoundTrip(*asCallgrind);
  // A Cachegrind file read as Callgrind (the format given, not detected) is written back as it
  // was read, so it is detected as Cachegrind, whose reader refused the relative positions
  // ("+6") of its first function. Written without them or compressed names, it reads back as
  // the same costs when detected, and as the same IR when read as Callgrind again.
  auto given = read(cgText);
  std::string written = writeCallgrind(*given);
  for (const char* compressed :
       {"\n+", "\n-", "\n*", "=(1", "=(2", "=(3", "=(4", "=(5", "=(6", "=(7", "=(8", "=(9"})
    CHECK(written.find(compressed) == std::string::npos);
  CHECK(detectFormat(bytes(written)) == FormatId::cachegrind);
  auto detected = readProfile(bytes(written), opts());
  const auto gg = buildModel(*given, {}), dg = buildModel(*detected, {});
  CHECK_EQ(gg->functions(), dg->functions());
  for (size_t i = 0; i < gg->events(); ++i) CHECK_EQ(gg->total(i), dg->total(i));
  checkRoundTrip(*given);
}

// ---- bad input: each error names its line and what was expected ----

TEST(error_undefined_compressed_id) {
  expectError("events: Ir\nfl=(1) a.c\nfn=(3)\n1 1\n", 3, "undefined compressed id (3) in fn=");
  // Id spaces: a function id does not define a file id.
  expectError("events: Ir\nfn=(1) f\nfl=(1)\n", 3, "undefined compressed id (1) in fl=");
  expectError("events: Ir\nfn=(1) f\n1 1\ncfn=(2)\n", 4, "undefined compressed id (2) in cfn=");
}
TEST(error_nul_byte) {
  // Found by fuzzing: a NUL in a header line was cut off by Cap'n Proto Text.
  expectError(std::string("events: Ir\ndesc\0: x\nfn=f\n1 1\n", 27), 2, "NUL byte");
  // NUL bytes are looked for a window ahead of the parser: past the first window, in a cost
  // line the fast path reads, in a name, and near the end of a line longer than a window.
  std::string big = "events: Ir\nfl=a.c\nfn=f\n";
  for (int i = 0; i < 300000; ++i) big += "+1 2\n";
  const uint64_t lines = 3 + 300000;
  expectError(big + std::string("+1 \0\n", 5), lines + 1, "NUL byte");
  expectError(big + std::string("fn=g\0h\n+1 2\n", 11), lines + 1, "NUL byte");
  expectError(big + "# " + std::string(3 << 20, 'x') + std::string("\0\n", 2) + "+1 2\n", lines + 1,
              "NUL byte");
}

TEST(error_calls_without_cost_line) {
  expectError("events: Ir\nfn=f\ncfn=g\ncalls=1 2\nfn=h\n", 5,
              "expected the cost line of the calls= on line 4");
  expectError("events: Ir\nfn=f\ncfn=g\ncalls=1 2\n", 4, "found the end of the file");
  expectError("events: Ir\nfn=f\ncfn=g\ncalls=1 2\n\n1 1\n", 5, "found an empty line");
  expectError("events: Ir\nfn=f\njump=1 2\ntotals: 1\n", 4,
              "expected the cost line of the jump= on line 3");
  expectError("events: Ir\nfn=f\ncalls=1 2\n1 1\n", 3, "calls= without a preceding cfn=");
}
TEST(error_cost_line_before_fn) {
  expectError("events: Ir\nfl=a.c\n1 1\n", 3, "cost line before any fn=");
  expectError("events: Ir\ncfn=g\ncalls=1 2\n1 1\n", 3, "calls= before any fn=");
}
TEST(error_bad_numbers) {
  expectError("events: Ir\nfn=f\n1 x2\n", 3, "expected a cost (a number), found 'x2'");
  expectError("events: Ir\nfn=f\n1 18446744073709551616\n", 3, "a cost does not fit in 64 bits");
  expectError("events: Ir\nfn=f\n1 18446744073709551615\n2 1\nqq=1\n", 5,
              "expected a cost line, a position");
  expectError("events: Ir\nfn=f\nx1 1\n", 3, "expected 'key: value', a position");
  expectError("events: Ir\nfn=f\n1a 1\n", 3, "expected a subposition (a number), found '1a'");
  expectError("positions: instr\nevents: Ir\nfn=f\n0x10000000000000000 1\n", 4,
              "a subposition does not fit in 64 bits");
  expectError("events: Ir\nfn=f\n+ 1\n", 3, "expected a relative subposition");
  expectError("events: Ir\nfn=f\ncfn=g\ncalls=x 1\n1 1\n", 4,
              "expected the call count of calls= (a number), found 'x'");
  expectError("events: Ir\nfn=f\njcnd=1 2\n1\n", 3, "expected 'jumped/executed'");
  expectError("events: Ir\nsummary: 1 2\nfn=f\n1 1\n", 2, "summary: has more costs than the 1");
  expectError("events: Ir\nfn=f\n1 1\ntotals: z\n", 4, "totals: expected a cost");
}
TEST(error_negative_line) {
  expectError("events: Ir\nfn=f\n5 1\n-6 1\n", 4, "relative subposition -6 goes below 0");
  expectError("events: Ir\nfn=f\n-1 1\n", 3, "goes below 0");
}
TEST(error_more_costs_than_events) {
  expectError("events: A B\nfn=f\n1 1 2 3\n", 3, "more costs than the 2 events");
  expectError("events: A\nfn=f\ncfn=g\ncalls=1 2\n1 1 2\n", 5, "more costs than the 1 events");
}
TEST(error_missing_events) {
  expectError("version: 1\nfn=f\n", 2, "missing events: line");
  expectError("version: 1\nfn=f\n1 1\n", 3, "cost line before the events: line");
}
TEST(error_header_problems) {
  expectError("version: 1\npositions: line nope\nevents: A\n", 2, "unknown subposition 'nope'");
  expectError("events: A\nfn=f\n1 1\nevents: B\n", 4, "events: differs from an earlier part");
  expectError("events: A\nthis is not a line\n", 2, "expected 'key: value'");
  expectError("events: A\nfn=(1\n", 2, "expected ')' after the compressed id");
  expectError("events: A\nevent: S = A + * \n", 2, "expected a term");
}

TEST_MAIN()

// ---- run-length column encodings used by the cost tables ----

TEST(run_length_columns_round_trip) {
  for (auto enc : {ir::Column::Encoding::VARINT_RUNS, ir::Column::Encoding::ZIGZAG_DELTA_RUNS}) {
    std::vector<uint64_t> v;
    for (int i = 0; i < 40; ++i) v.push_back(0);            // runs longer than 15
    for (int i = 0; i < 20; ++i) v.push_back(100 + 4 * i);  // constant stride
    v.push_back(uint64_t{1} << 60);                         // needs the escape
    v.push_back(~uint64_t{0});
    v.push_back(~uint64_t{0});
    v.push_back(3);
    for (uint64_t i = 0; i < kColumnChunkValues + 5; ++i) v.push_back(i % 7 == 0 ? 9 : 1);
    ColumnWriter w(enc);
    for (uint64_t x : v) w.push(x);
    capnp::MallocMessageBuilder m;
    auto c = m.initRoot<ir::Column>();
    w.build(c);
    CHECK(c.getEncoding() == enc);
    CHECK_EQ(c.getChunks().size(), 2u);
    CHECK(decodeColumn(c.asReader()) == v);
  }
}

TEST(run_length_column_defects_are_errors) {
  auto make = [](std::vector<uint8_t> bytes, uint64_t count) {
    auto m = std::make_unique<capnp::MallocMessageBuilder>();
    auto c = m->initRoot<ir::Column>();
    c.setCount(count);
    c.setEncoding(ir::Column::Encoding::VARINT_RUNS);
    c.setChunkValues(kColumnChunkValues);
    c.initChunks(1).set(0, kj::ArrayPtr<const kj::byte>(bytes.data(), bytes.size()));
    return m;
  };
  auto expectBad = [&](std::vector<uint8_t> bytes, uint64_t count, const char* needle) {
    auto m = make(bytes, count);
    try {
      decodeColumn(m->getRoot<ir::Column>().asReader());
    } catch (const Error& e) {
      CHECK_CONTAINS(e.what(), needle);
      return;
    }
    throw testlib::Failure{std::string("expected an error containing: ") + needle};
  };
  CHECK(decodeColumn(make({0x0e}, 15)->getRoot<ir::Column>().asReader()).size() == 15);
  expectBad({0x0e}, 14, "more values than it declares");     // a run of 15, 14 declared
  expectBad({0x0e}, 16, "more values than it has bytes");    // 16 declared, 15 a byte at most
  expectBad({0x0e, 0x00}, 17, "does not match");             // 17 declared, 16 stored
  expectBad({0x0f}, 1, "truncated");                         // escape without its value
  expectBad({0x0e}, 1000, "more values than it has bytes");  // > 15 values a byte
}

// valgrind's callgrind ends every part with totals:; a file cut short is loaded as far as it is
// complete, with a warning naming the byte offset, and refused in strict mode.
TEST(truncated_files_warn_and_strict_mode_refuses) {
  ReadOptions strict = opts();
  strict.strict = true;
  for (const char* f :
       {"callgrind/callgrind.workload.out", "callgrind/callgrind.workload.threads-combined.out"}) {
    const std::string whole = testlib::slurp(testlib::data(f));
    CHECK(readProfile(bytes(whole), strict)->warnings().empty());
    const size_t totalsAt = whole.rfind("totals:");
    const size_t lineEnd = whole.find('\n', whole.size() - 5000) + 1;
    struct Cut {
      size_t size;
      std::vector<std::pair<size_t, const char*>> warnings;  // offset, message
    };
    const Cut cuts[] = {
        {lineEnd, {{lineEnd, "ends without the totals: line"}}},
        {totalsAt, {{totalsAt, "ends without the totals: line"}}},
        {lineEnd + 3,
         {{lineEnd, "the last line ends without a newline"},
          {lineEnd + 3, "ends without the totals: line"}}},
        {totalsAt + 9, {{totalsAt, "the last line ends without a newline"}}},
    };
    for (const Cut& c : cuts) {
      const std::string text = whole.substr(0, c.size);
      auto p = readProfile(bytes(text), opts());
      CHECK_EQ(p->warnings().size(), c.warnings.size());
      for (size_t i = 0; i < c.warnings.size(); ++i) {
        CHECK_CONTAINS(p->warnings()[i], "byte offset " + std::to_string(c.warnings[i].first));
        CHECK_CONTAINS(p->warnings()[i], c.warnings[i].second);
      }
      // What was loaded writes back and reads again to the same IR (and the same warning).
      auto again = readProfile(bytes(writeCallgrind(*p)), opts());
      CHECK(equalIR(*p, *again));
      try {
        readProfile(bytes(text), strict);
        CHECK(false);
      } catch (const Error& e) {
        CHECK(e.status() == Status::malformed);
        CHECK_EQ(e.offset(), uint64_t{c.warnings[0].first});
        CHECK(e.line() != kUnknown);
        CHECK_CONTAINS(e.what(), c.warnings[0].second);
      }
    }
  }
  // Other writers of the format (go tool pprof -callgrind, say) write no totals: no warning.
  auto other = readProfile(
      bytes(std::string("# callgrind format\nevents: Ir\nfl=a.c\nfn=f\n1 2\n")), strict);
  CHECK(formatOf(*other) == FormatId::callgrind);
  CHECK(other->warnings().empty());
}

// The archive coding (lib/formats/callgrind/archive_coding.h): the writer's text of every
// corpus file codes and decodes to itself, with no name numbers and no costs left in the
// skeleton; a number used before its definition and a text without its last newline are not
// coded; every cut of a coding, a skeleton past the end and cut-out texts left over are refused
// as malformed, never read out of bounds.
TEST(archive_coding_round_trip_and_hostile_codings) {
  for (const char* f : kCorpus) {
    const std::string text = writeCallgrind(*read(testlib::slurp(testlib::data(f))));
    auto coded = callgrindArchiveCode(text);
    CHECK(coded.has_value());
    CHECK(callgrindArchiveDecode(*coded) == text);
    // A number follows "fn=(" in the text, never in the coding ("(below main)" is a name).
    auto numbered = [](const std::string& s, const std::string& key) {
      for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + 1))
        if (at + key.size() < s.size() && s[at + key.size()] >= '0' && s[at + key.size()] <= '9')
          return true;
      return false;
    };
    CHECK(numbered(text, "\nfn=(") && numbered(text, "\ncfn=("));
    CHECK(!numbered(*coded, "\nfn=(") && !numbered(*coded, "\ncfn=("));
    CHECK(!callgrindArchiveCode(text.substr(0, text.size() - 1)).has_value());
  }
  const std::string small =
      "events: Ir\nfl=(1) a.c\nfn=(3) main\n1 5\n+1 3\ncfn=(2) f\ncalls=2 10\n* 7\n"
      "fn=(2)\n10 4\n";
  auto coded = callgrindArchiveCode(small);
  CHECK(coded.has_value());
  // The skeleton: names in place of numbers, cost lines before their blank, calls= without
  // its count; then the cut-out texts, by function block, the blocks sorted by their fn=
  // lines ("fn=f" before "fn=main").
  CHECK_CONTAINS(*coded,
                 "fl=a.c\nfn=main\n1\n+1\ncfn=f\ncalls= 10\n*\nfn=f\n10\n 4\n 5\n 3\n2\n 7\n");
  CHECK(callgrindArchiveDecode(*coded) == small);
  // Names the writer writes in full (an empty one, one with a leading blank) count in the
  // ranks, and an empty name in a body starts no new part: such files code too. (Files that
  // say they are Callgrind: those Cachegrind's reader is for are written without numbers.)
  for (const char* text :
       {"# callgrind format\nevents: Ir\nfl=(1) a.c\nfn=(2)  spaced\n1 5\nfn= lead\n2 3\n",
        "# callgrind format\nevents: Ir\nfl=(1) a.c\nfn=(2) main\n1 5\nfl=\nfn=(3) other\n2 3\n"
        "fl=(1)\nfn=(2)\n3 4\n",
        "events: Ir\nfl=(1) a.c\nfn=(2) main\n1 5\ncfn=\ncalls=1 2\n1 1\nfn=(3) x\n2 3\n"
        "cfn=(2)\ncalls=1 2\n1 1\n"}) {
    const std::string written = writeCallgrind(*read(text));
    auto c = callgrindArchiveCode(written);
    CHECK(c.has_value() && callgrindArchiveDecode(*c) == written);
  }
  // Numbers other than the names' ranks do not decode to the file: not coded.
  CHECK(!callgrindArchiveCode("fn=(7) main\n1 5\n").has_value());
  CHECK(!callgrindArchiveCode("fn=(1)\n1 5\n").has_value());
  auto refused = [](const std::string& bad, const char* why) {
    try {
      callgrindArchiveDecode(bad);
      CHECK(false);
    } catch (const Error& e) {
      CHECK(e.status() == Status::malformed);
      CHECK_CONTAINS(e.what(), why);
    }
  };
  size_t cuts = 0;
  for (size_t n = 0; n < coded->size(); ++n) {
    try {
      CHECK(callgrindArchiveDecode(coded->substr(0, n)).size() <= small.size());
    } catch (const Error& e) {
      CHECK(e.status() == Status::malformed);
      ++cuts;
    }
  }
  CHECK(cuts > 0);
  std::string past = *coded;
  past[1] = '\x7f';
  refused(past, "past the end of the member");
  refused(*coded + "9\n", "left after the skeleton's 5 lines took theirs");
  refused(coded->substr(0, coded->size() - 3), "the cut-out texts end after 4 of the 5");
  refused(coded->substr(0, coded->size() - 1), "a cut-out text without its newline");
  refused("\x02" + coded->substr(1), "not a Callgrind archive coding");
}

// An archive keeps a Callgrind member as its coded text (registry_archive.cpp), which reads
// back as the same IR message, multi-part files too; from archive revision 4 on, which
// brought the coding: an archive of revision 3 keeps the file uncoded, and refuses a coded one.
TEST(archive_keeps_callgrind_members_coded) {
  for (const char* f : kCorpus) {
    auto p = read(testlib::slurp(testlib::data(f)));
    const std::string message = p->flatBytes();
    auto form = archiveForm(*p, message, 4);
    CHECK(form.has_value() && form->coded);
    CHECK(profileFromArchiveForm(FormatId::callgrind, form->bytes, true, 4)->flatBytes() ==
          message);
    auto plain = archiveForm(*p, message, 3);
    CHECK(plain.has_value() && !plain->coded && plain->bytes == writeCallgrind(*p));
    try {
      profileFromArchiveForm(FormatId::callgrind, form->bytes, true, 3);
      CHECK(false);
    } catch (const Error& e) {
      CHECK(e.status() == Status::malformed);
      CHECK_CONTAINS(e.what(), "archive revision 3 has not");
    }
  }
}
