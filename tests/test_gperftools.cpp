// gperftools CPU profiles: corpus round trips (byte-identical and IR-equal via .ppk), slot
// width / byte order conversions, queries, summary, and every bad-input error with its offset.
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "container/ppk.h"
#include "error.h"
#include "formats/gperftools/archive_coding.h"
#include "formats/gperftools/gperftools.h"
#include "formats/gperftools/stacks.h"
#include "formats/pprof/pprof.h"
#include "formats/registry.h"
#include "ir/column.h"
#include "model/model.h"
#include "testlib.h"

using namespace profpack;

namespace {
std::span<const uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
ReadOptions opts() { return {kDefaultMaxPpkMessage, false}; }

struct Kind {
  const char* file;
  unsigned width;
  bool bigEndian;
};
const Kind kCorpus[] = {{"gperftools/workload.64le.prof", 8, false},
                        {"gperftools/workload.64be.prof", 8, true},
                        {"gperftools/workload.32le.prof", 4, false},
                        {"gperftools/workload.32be.prof", 4, true}};

// Builds profile bytes slot by slot in a given width and byte order.
struct Slots {
  unsigned w;
  bool be;
  std::string out;
  Slots& operator<<(uint64_t v) {
    for (unsigned i = 0; i < w; ++i) {
      unsigned shift = 8 * (be ? w - 1 - i : i);
      out += static_cast<char>(shift < 64 ? (v >> shift) & 0xff : 0);
    }
    return *this;
  }
  Slots& header(uint64_t period = 10000) { return *this << 0 << 3 << 0 << period << 0; }
  Slots& trailer() { return *this << 0 << 1 << 0; }
  Slots& text(const std::string& t) {
    out += t;
    return *this;
  }
};

// Expects reading `data` to fail as malformed gperftools at byte `offset` with `needle`.
void expectError(const std::string& data, uint64_t offset, const std::string& needle) {
  try {
    readGperftools(bytes(data));
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::malformed));
    CHECK_EQ(e.format(), std::string("gperftools"));
    CHECK_EQ(e.offset(), offset);
    CHECK_CONTAINS(e.what(), needle);
    CHECK_CONTAINS(e.what(), "byte offset " + std::to_string(offset));
    return;
  }
  throw testlib::Failure{"expected an error containing: " + needle};
}

std::string convert(const std::string& data, unsigned w, bool be) {
  auto p = readGperftools(bytes(data));
  GperfWriteOptions o;
  o.slotBytes = w;
  o.byteOrder = be ? GperfWriteOptions::ByteOrder::big : GperfWriteOptions::ByteOrder::little;
  return writeGperftools(*p, o);
}

const std::string kMaps =
    "00400000-00401000 r-xp 00000000 fd:01 42          /bin/prog\n"
    "7f0000000000-7f0000010000 r-xp 00002000 fd:01 77   /lib/libx.so (deleted)\n"
    "this line is not a mapping\n"
    "7f0000020000-7f0000021000 rw-p 00000000 00:00 0 \n"
    "no newline at the end";
}  // namespace

TEST(detects_all_four_kinds) {
  for (const Kind& k : kCorpus) {
    std::string d = testlib::slurp(testlib::data(k.file));
    CHECK(detectFormat(bytes(d)) == FormatId::gperftools);
    auto p = readProfile(bytes(d), opts());
    auto st = p->root().getStacks();
    CHECK(p->root().getFormat() == ir::Format::GPERFTOOLS);
    CHECK_EQ(std::string(p->root().getFormatVersion().cStr()), std::string("0"));
    CHECK_EQ(st.getSlotBytes(), k.width);
    CHECK_EQ(st.getBigEndian(), k.bigEndian);
    CHECK_EQ(st.getSamplingPeriodUs(), 1000u);
    CHECK_EQ(st.getHeaderSlots().size(), 5u);
    CHECK_EQ(st.getTrailerSlots().size(), 3u);
    CHECK_EQ(st.getTrailerSlots()[1], 1u);
    CHECK_EQ(st.getSampleCount().getCount(), 94u);
    CHECK_EQ(st.getMappings().size(), 0u);  // derived from mapsText, not stored
    auto maps = parseMappings(st);
    CHECK_EQ(maps.size(), 67u);
    const GperfMapping& m = maps[0];
    CHECK_EQ(m.start, 0x55891abae000u);
    CHECK_EQ(m.limit, 0x55891abaf000u);
    CHECK(m.permissions == "r--p");
    CHECK_EQ(m.offset, 0u);
    CHECK(m.device == "00:00");
    CHECK_EQ(m.inode, 1163275u);
    CHECK(m.path == "/usr/src/profpack-samples/workload");
  }
}

TEST(corpus_round_trip_is_byte_identical_and_ir_equal) {
  for (const Kind& k : kCorpus) {
    std::string original = testlib::slurp(testlib::data(k.file));
    auto first = readProfile(bytes(original), opts());
    CHECK(writeGperftools(*first) == original);
    std::string ppk = writeProfile(*first, FormatId::ppk, {});
    auto fromPpk = readProfile(bytes(ppk), opts());
    CHECK(equalIR(*first, *fromPpk));
    std::string back = writeProfile(*fromPpk, FormatId::gperftools, {});
    CHECK(back == original);
    CHECK(equalIR(*first, *readProfile(bytes(back), opts())));
    // Much smaller than the input: chains are shared in the prefix tree.
    CHECK(ppk.size() * 3 < original.size());
  }
}

// A model of call edges on a large tree gives the reader's tree back to the profile once its
// function layer is made; asked for its stack layer after, it takes the tree again, and the
// layer is the one a model of stacks alone makes.
TEST(a_model_that_gave_its_tree_back_still_makes_its_stacks) {
  Slots s{8, false, {}};
  s.header();
  for (uint64_t r = 0; r < 60000; ++r) {  // past 65,536 nodes: the model's helper thread starts
    s << 1 + r % 5 << 3 + r % 7;
    for (uint64_t k = 0; k < 3 + r % 7; ++k)
      s << 0x400000 + ((r * 2654435761u) >> (3 * k) & 0xfff) * 16 + k;
  }
  const std::string input = s.trailer().text("").out;
  auto p = readGperftools(bytes(input), /*deferIR=*/true);
  auto m = buildModel(*p, {});  // call edges: the default
  CHECK(m->functions() > 0);
  CHECK(StackTree(*readGperftools(bytes(input))).nodes() >= 65536);
  auto back = p->takeDecoded();
  CHECK(back != nullptr);  // given back
  p->returnDecoded(std::move(back));
  ModelOptions stacksOnly;
  stacksOnly.callEdges = false;
  auto q = readGperftools(bytes(input), /*deferIR=*/true);
  auto n = buildModel(*q, stacksOnly);
  const StackLayer &a = m->stacks(), &b = n->stacks();
  CHECK(a.stacks() > 1000);
  CHECK(a.frames == b.frames);
  CHECK(a.locations == b.locations);
  CHECK(a.start == b.start);
  CHECK(a.values == b.values);
  CHECK(p->takeDecoded() == nullptr);  // the stack layer took it again
}

// A model asked for no stack frames (ModelOptions::stackFrames, as the pprof writer asks) holds
// the same stacks as their locations alone, each frame's function its location's; the pprof
// written from it is the one written from a full model.
TEST(a_stack_layer_of_locations_alone_is_the_same_stacks) {
  Slots s{8, false, {}};
  s.header();
  for (uint64_t r = 0; r < 3000; ++r) {
    s << 1 + r % 5 << 3 + r % 7;
    for (uint64_t k = 0; k < 3 + r % 7; ++k)
      s << 0x400000 + ((r * 2654435761u) >> (3 * k) & 0xfff) * 16 + k;
  }
  const std::string input = s.trailer().text("").out;
  auto p = readGperftools(bytes(input));
  ModelOptions locationsOnly;
  locationsOnly.stackFrames = false;
  auto full = buildModel(*p, {});
  auto lean = buildModel(*p, locationsOnly);
  const StackLayer &a = full->stacks(), &b = lean->stacks();
  CHECK(a.stacks() > 100);
  CHECK(!a.frames.empty() && b.frames.empty());
  CHECK(a.locations == b.locations);
  CHECK(a.start == b.start);
  CHECK(a.values == b.values);
  const std::vector<Location>& at = lean->locations().locations;
  for (size_t i = 0; i < b.locations.size(); ++i)
    CHECK_EQ(static_cast<uint64_t>(at.at(b.locations[i]).function), uint64_t{a.frames[i]});
  CHECK(writeProfile(*p, FormatId::pprof, {}) == writePprof(*full));
}

// The model of a profile just read uses the reader's tree (Profile::takeDecoded); a second model
// of the same profile, or one of a profile read from .ppk, decodes the IR. Every conversion must
// come out the same either way, on the corpus (each with a sorted tail) and on a profile large
// enough for the reader's and the model's helper threads.
TEST(models_from_the_reader_and_from_the_ir_agree) {
  Slots s{8, false, {}};
  s.header();
  for (uint64_t r = 0; r < 24000; ++r) {  // 1.3 MB of records: the reader's threads start
    s << 1 + r % 7 << 2 + r % 9;
    for (uint64_t k = 0; k < 2 + r % 9; ++k)
      s << 0x400000 + ((r * 2654435761u) >> (2 * k) & 0x3ff) * 16 + k % 3;
  }
  std::vector<std::string> inputs{s.trailer().text("").out};
  for (const Kind& k : kCorpus) inputs.push_back(testlib::slurp(testlib::data(k.file)));
  for (const std::string& input : inputs) {
    for (FormatId to : {FormatId::pprof, FormatId::callgrind, FormatId::folded}) {
      auto p = readGperftools(bytes(input));
      CHECK(p->takeDecoded() != nullptr);  // a fresh read has it...
      p = readGperftools(bytes(input));
      const std::string fromReader = writeProfile(*p, to, {});
      // ...and its first model took it, or gave it back unchanged once done with its tree (a
      // model of call edges on a large tree); taken here, the next model decodes the IR.
      if (auto back = p->takeDecoded()) {
        CHECK(to == FormatId::callgrind);
        auto* r = dynamic_cast<ReadStacks*>(back.get());
        CHECK(r != nullptr && r->tree != nullptr && r->samples.size() == r->tree->nodes() + 1);
      }
      CHECK(writeProfile(*p, to, {}) == fromReader);
      auto fromPpk = readProfile(bytes(writeProfile(*p, FormatId::ppk, {})), opts());
      CHECK(fromPpk->takeDecoded() == nullptr);
      CHECK(writeProfile(*fromPpk, to, {}) == fromReader);
    }
  }
}

namespace {
// Makes every later thread creation of this process fail with EAGAIN, as a process limit or a
// sandbox would: clone3 answers ENOSYS (so glibc falls back to clone), clone with CLONE_THREAD
// answers EAGAIN.
bool forbidThreads() {
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAGAIN),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}
}  // namespace

// Where no thread can be started, the calls that use helper threads (the reader's record walk,
// the model's call edges, the pprof writer's gzip) do the same work on the calling thread: the
// same IR, outputs and errors as with threads.
TEST(without_threads_the_same_results) {
  Slots s{8, false, {}};
  s.header();
  for (uint64_t r = 0; r < 30000; ++r) {  // 1.9 MB of records: the reader's threads start
    s << 1 + r % 5 << 6;
    for (uint64_t k = 0; k < 6; ++k)
      s << 0x400000 + ((r * 2654435761u) >> (3 * k) & 0xfff) * 16 + k;
  }
  const std::string input = s.trailer().text("").out;
  const std::string cut = input.substr(0, input.size() - 30);
  auto results = [&] {
    auto p = readGperftools(bytes(input));
    std::string r = writeProfile(*p, FormatId::ppk, {}) + writeProfile(*p, FormatId::pprof, {}) +
                    writeProfile(*p, FormatId::callgrind, {});
    try {
      readGperftools(bytes(cut));
    } catch (const Error& e) {
      r += e.what();
    }
    return r;
  };
  const std::string withThreads = results();
  CHECK(withThreads.size() > 300000);  // pprof alone is several gzip chunks
  int pipefd[2];
  CHECK(pipe(pipefd) == 0);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    close(pipefd[0]);
    // 1: no seccomp here; 2: a thread still started; 3: the results differ; 4: an exception
    // (the child must never return into the test runner); 0: the same.
    char verdict = 1;
    try {
      if (forbidThreads()) {
        verdict = 2;
        pthread_t t;
        if (pthread_create(
                &t, nullptr, [](void*) -> void* { return nullptr; }, nullptr) != 0)
          verdict = results() == withThreads ? 0 : 3;
      }
    } catch (...) {
      verdict = 4;
    }
    (void)!write(pipefd[1], &verdict, 1);
    _exit(0);
  }
  close(pipefd[1]);
  char verdict = 9;
  CHECK(read(pipefd[0], &verdict, 1) == 1);
  close(pipefd[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (verdict == 1) SKIP("this kernel does not filter system calls (no seccomp)");
  CHECK_EQ(static_cast<int>(verdict), 0);
}

TEST(byte_order_and_width_conversions) {
  std::string le64 = testlib::slurp(testlib::data("gperftools/workload.64le.prof"));
  std::string be64 = testlib::slurp(testlib::data("gperftools/workload.64be.prof"));
  std::string le32 = testlib::slurp(testlib::data("gperftools/workload.32le.prof"));
  std::string be32 = testlib::slurp(testlib::data("gperftools/workload.32be.prof"));
  CHECK(convert(le64, 8, true) == be64);
  CHECK(convert(be64, 8, false) == le64);
  CHECK(convert(le32, 4, true) == be32);
  CHECK(convert(be32, 4, false) == le32);
  // 32 -> 64 -> 32 in every byte order comes back unchanged.
  for (const std::string* s : {&le32, &be32})
    for (bool be : {false, true}) {
      std::string wide = convert(*s, 8, be);
      CHECK(wide.size() > s->size());
      auto p = readGperftools(bytes(wide));
      CHECK_EQ(p->root().getStacks().getSlotBytes(), 8u);
      CHECK_EQ(p->root().getStacks().getBigEndian(), be);
      CHECK(convert(wide, 4, s == &be32) == *s);
    }
  // Same samples whatever the layout.
  auto a = samplesByAddress(*readGperftools(bytes(le32)));
  auto b = samplesByAddress(*readGperftools(bytes(convert(le32, 8, true))));
  CHECK_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK_EQ(a[i].address, b[i].address);
    CHECK_EQ(a[i].self, b[i].self);
    CHECK_EQ(a[i].inclusive, b[i].inclusive);
  }
}

TEST(narrowing_refuses_addresses_that_do_not_fit) {
  std::string le64 = testlib::slurp(testlib::data("gperftools/workload.64le.prof"));
  try {
    convert(le64, 4, false);
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::unsupported));
    CHECK_CONTAINS(e.what(), "does not fit a 4-byte slot");
    CHECK_CONTAINS(e.what(), "address 0x");
    return;
  }
  throw testlib::Failure{"64 -> 32 bit conversion of 48-bit addresses did not fail"};
}

TEST(writer_rejects_a_slot_width_other_than_4_or_8) {
  auto p = readGperftools(bytes(testlib::slurp(testlib::data("gperftools/workload.32le.prof"))));
  GperfWriteOptions o;
  o.slotBytes = 2;
  try {
    writeGperftools(*p, o);
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::invalidArgument));
    CHECK_CONTAINS(e.what(), "slot width must be 4 or 8 bytes, not 2");
    return;
  }
  throw testlib::Failure{"a 2-byte slot width was accepted"};
}

TEST(narrowing_keeps_small_addresses) {
  Slots s{8, false, {}};
  s.header(4000) << 2 << 2 << 0x401000 << 0x400100 << 1 << 1 << 0x401004;
  s.trailer().text(kMaps);
  std::string narrow = convert(s.out, 4, false);
  Slots n{4, false, {}};
  n.header(4000) << 2 << 2 << 0x401000 << 0x400100 << 1 << 1 << 0x401004;
  n.trailer().text(kMaps);
  CHECK(narrow == n.out);
}

TEST(repeated_chains_stay_separate_records_and_share_nodes) {
  for (unsigned w : {4u, 8u})
    for (bool be : {false, true}) {
      Slots s{w, be, {}};
      s.header();
      s << 1 << 3 << 0xa0 << 0xc0 << 0xe0;  // a <- c <- e
      s << 2 << 3 << 0xa0 << 0xc0 << 0xe0;  // same chain again
      s << 5 << 2 << 0xb0 << 0xe0;          // b <- e
      s << 1 << 3 << 0xa0 << 0xc0 << 0xe0;  // and again
      s.trailer().text(kMaps);
      auto p = readGperftools(bytes(s.out));
      auto st = p->root().getStacks();
      DecodedStacks d = decodeStacks(st);
      CHECK_EQ(d.count.size(), 4u);
      CHECK_EQ(d.count[0], 1u);
      CHECK_EQ(d.count[1], 2u);
      CHECK_EQ(d.count[2], 5u);
      CHECK_EQ(d.nodes(), 4u);  // e, c, a, b
      CHECK_EQ(d.node[0], d.node[1]);
      CHECK_EQ(d.node[0], d.node[3]);
      CHECK(d.node[2] != d.node[0]);
      CHECK(writeGperftools(*p) == s.out);
      Summary sum = buildModel(*p, {})->summary();
      CHECK_EQ(sum.records, 4u);
      auto gModel = buildModel(*p, {});
      const Model& g = *gModel;
      CHECK_EQ(g.events(), 1u);
      CHECK_EQ(g.eventNames()[0], std::string("samples"));
      CHECK_EQ(g.total(0), 9u);
      CHECK_EQ(sum.objects, 3u);
    }
}

TEST(mapped_objects_text_kept_byte_for_byte) {
  Slots s{8, false, {}};
  s.header() << 1 << 1 << 0x400010;
  s.trailer().text(kMaps);
  auto p = readGperftools(bytes(s.out));
  auto st = p->root().getStacks();
  auto text = st.getMapsText();
  CHECK(std::string(reinterpret_cast<const char*>(text.begin()), text.size()) == kMaps);
  auto maps = parseMappings(st);
  CHECK_EQ(maps.size(), 3u);  // the garbage line and the unterminated line are text only
  CHECK_EQ(maps[0].line, 0u);
  CHECK_EQ(maps[1].start, 0x7f0000000000u);
  CHECK_EQ(maps[1].offset, 0x2000u);
  CHECK(maps[1].device == "fd:01");
  CHECK_EQ(maps[1].inode, 77u);
  CHECK(maps[1].path == "/lib/libx.so (deleted)");
  CHECK_EQ(maps[2].line, 3u);
  CHECK(maps[2].path == "");
  CHECK(writeGperftools(*p) == s.out);
  // No text at all is fine too.
  Slots e{4, true, {}};
  e.header() << 1 << 1 << 0x10;
  e.trailer();
  auto q = readGperftools(bytes(e.out));
  CHECK_EQ(parseMappings(q->root().getStacks()).size(), 0u);
  CHECK(writeGperftools(*q) == e.out);
}

TEST(long_header_and_unusual_records_kept) {
  for (unsigned w : {4u, 8u}) {
    Slots s{w, true, {}};
    s << 0 << 6 << 0 << 250 << 0 << 7 << 8 << 9;  // three extra header slots
    s << 0 << 2 << 0x10 << 0x20;                  // count 0 but not the trailer
    s << 3 << 1 << 0;                             // first PC 0, count 3
    s.trailer().text("\n\n");
    auto p = readGperftools(bytes(s.out));
    auto st = p->root().getStacks();
    CHECK_EQ(st.getHeaderSlots().size(), 8u);
    CHECK_EQ(st.getHeaderSlots()[7], 9u);
    CHECK_EQ(st.getSamplingPeriodUs(), 250u);
    CHECK_EQ(st.getSampleCount().getCount(), 2u);
    std::string ppk = writeProfile(*p, FormatId::ppk, {});
    CHECK(writeProfile(*readProfile(bytes(ppk), opts()), FormatId::gperftools, {}) == s.out);
  }
}

TEST(queries_self_inclusive_callers_callees) {
  Slots s{8, false, {}};
  s.header();
  // Chains, innermost first; 0x401000.. in /bin/prog, 0x7f0000001000.. in libx.
  s << 4 << 3 << 0x7f0000001000 << 0x400100 << 0x400010;        // libx <- f <- main
  s << 2 << 2 << 0x400100 << 0x400010;                          // f <- main
  s << 1 << 4 << 0x400100 << 0x400100 << 0x400100 << 0x400010;  // f recursing <- main
  s << 3 << 3 << 0x7f0000001000 << 0x400200 << 0x400010;        // libx <- g <- main
  s << 1 << 1 << 0x900000;                                      // nowhere
  s.trailer().text(kMaps);
  auto p = readGperftools(bytes(s.out));
  auto by = samplesByAddress(*p);
  auto find = [&](uint64_t a) {
    for (auto& x : by)
      if (x.address == a) return x;
    throw testlib::Failure{"address missing from samplesByAddress"};
  };
  CHECK_EQ(by.size(), 5u);
  CHECK_EQ(by[0].address, 0x7f0000001000u);  // highest self first
  CHECK_EQ(find(0x7f0000001000).self, 7u);
  CHECK_EQ(find(0x7f0000001000).inclusive, 7u);
  CHECK_EQ(find(0x7f0000001000).location, std::string("/lib/libx.so (deleted)+0x3000"));
  CHECK_EQ(find(0x400100).self, 3u);
  CHECK_EQ(find(0x400100).inclusive, 7u);  // the recursive record counts once
  CHECK_EQ(find(0x400100).location, std::string("/bin/prog+0x100"));
  CHECK_EQ(find(0x400010).self, 0u);
  CHECK_EQ(find(0x400010).inclusive, 10u);
  CHECK_EQ(find(0x900000).location, std::string("0x900000"));
  CHECK_EQ(find(0x900000).mapping, -1);

  // The model: a function per address, named object+offset; self per mapping from the
  // locations; arcs once per record.
  auto model = buildModel(*p, {});
  auto fn = [&](const std::string& name) {
    for (size_t f = 0; f < model->functions(); ++f)
      if (model->function(f).name == name) return f;
    throw testlib::Failure{"no function " + name};
  };
  const size_t libx = fn("/lib/libx.so (deleted)+0x3000"), f = fn("/bin/prog+0x100");
  const size_t mainFn = fn("/bin/prog+0x10"), g = fn("/bin/prog+0x200");
  CHECK_EQ(model->function(libx).object, std::string("/lib/libx.so (deleted)"));
  CHECK_EQ(model->self(libx, 0), 7u);
  CHECK_EQ(model->inclusive(f, 0), 7u);
  CHECK_EQ(model->inclusive(mainFn, 0), 10u);
  std::map<std::string, uint64_t> byMapping;
  const LocationLayer& at = model->locations();
  // Five program counters, then their call sites (one byte back, no self cost).
  CHECK_EQ(at.locations.size(), 10u);
  for (size_t l = 0; l < 5; ++l) {
    CHECK(!at.locations[l].callSite);
    CHECK(at.locations[l + 5].callSite);
    CHECK_EQ(at.locations[l + 5].address, at.locations[l].address - 1);
    CHECK_EQ(at.locations[l + 5].function, at.locations[l].function);
    CHECK_EQ(at.self[l + 5], 0u);
  }
  // Each frame of the stacks is at its function's location: the leaf at its program counter,
  // a caller's frame at the call site.
  const StackLayer& st = model->stacks();
  CHECK_EQ(st.locations.size(), st.frames.size());
  for (size_t s = 0; s < st.stacks(); ++s)
    for (uint64_t i = st.start[s]; i < st.start[s + 1]; ++i) {
      const Location& l = at.locations[st.locations[i]];
      CHECK_EQ(static_cast<uint64_t>(l.function), st.frames[i]);
      CHECK_EQ(l.callSite, i + 1 < st.start[s + 1]);
    }
  for (size_t l = 0; l < at.locations.size(); ++l)
    byMapping[at.locations[l].mapping < 0 ? "" : at.mappings[at.locations[l].mapping].path] +=
        at.self[l];
  CHECK_EQ(byMapping["/lib/libx.so (deleted)"], 7u);
  CHECK_EQ(byMapping["/bin/prog"], 3u);
  CHECK_EQ(byMapping[""], 1u);
  auto samples = [&](const std::vector<const CallEdge*>& edges, size_t other, bool callers) {
    for (const CallEdge* e : edges)
      if ((callers ? e->caller : e->callee) == other) return e->inclusive[0];
    return uint64_t{0};
  };
  auto callers = model->callers(libx);
  CHECK_EQ(callers.size(), 2u);
  CHECK_EQ(samples(callers, f, true), 4u);
  CHECK_EQ(samples(callers, g, true), 3u);
  auto fcallers = model->callers(f);  // main (7) and f itself (1, recursion counted once)
  CHECK_EQ(fcallers.size(), 2u);
  CHECK_EQ(samples(fcallers, mainFn, true), 7u);
  CHECK_EQ(samples(fcallers, f, true), 1u);
  auto callees = model->callees(mainFn);
  CHECK_EQ(callees.size(), 2u);
  CHECK_EQ(samples(callees, f, false), 7u);
  CHECK_EQ(samples(callees, g, false), 3u);
  CHECK(model->callees(libx).empty());
}

TEST(queries_on_corpus_add_up) {
  auto p = readGperftools(bytes(testlib::slurp(testlib::data("gperftools/workload.64le.prof"))));
  uint64_t self = 0, maxIncl = 0;
  for (auto& a : samplesByAddress(*p)) {
    self += a.self;
    maxIncl = std::max(maxIncl, a.inclusive);
    CHECK(a.inclusive >= a.self);
  }
  CHECK_EQ(self, 97u);
  CHECK(maxIncl <= 97u);
  uint64_t lself = 0;
  auto model = buildModel(*p, {});
  for (uint64_t v : model->locations().self) lself += v;
  CHECK_EQ(lself, 97u);
  Summary s = buildModel(*p, {})->summary();
  CHECK_EQ(s.records, 94u);
  CHECK_EQ((*buildModel(*p, {})).total(0), 97u);
  CHECK_EQ(s.objects, 67u);
}

TEST(writer_refuses_other_formats) {
  auto p = readProfile(bytes(testlib::slurp(testlib::data("cachegrind/cachegrind.workload.out"))),
                       opts());
  try {
    writeProfile(*p, FormatId::gperftools, {});
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::unsupported));
    CHECK(std::string(e.what()).find("cachegrind holds no stack samples") != std::string::npos);
    return;
  }
  throw testlib::Failure{"writing a Cachegrind profile as gperftools did not fail"};
}

TEST(error_empty_file) { expectError("", 0, "empty file"); }
TEST(error_short_file) { expectError(std::string(6, '\0'), 0, "too short for a header"); }
TEST(error_header_count_not_zero) {
  Slots s{4, false, {}};
  s << 1 << 3 << 0 << 100 << 0;
  s.trailer();
  expectError(s.out, 0, "header count slot must be 0");
}
TEST(error_header_words_below_three) {
  Slots s{8, false, {}};
  s << 0 << 2 << 0 << 100;
  s.trailer();
  expectError(s.out, 8, "at least 3");
}
TEST(error_header_words_past_end) {
  Slots s{4, true, {}};
  s << 0 << 1000 << 0 << 100 << 0;
  s.trailer();
  expectError(s.out, 4, "header declares 1000 slots");
}
TEST(error_version_not_zero) {
  Slots s{8, true, {}};
  s << 0 << 3 << 2 << 100 << 0;
  s.trailer();
  expectError(s.out, 16, "expected 0, found 2");
}
TEST(error_record_runs_past_end) {
  for (unsigned w : {4u, 8u}) {
    Slots s{w, false, {}};
    s.header() << 1 << 1 << 0x10;
    std::string d = s.out + std::string(w + 1, '\0');  // one slot and a byte: not a record
    expectError(d, 8 * w, "record runs past the end");
  }
}
TEST(error_num_pcs_zero) {
  Slots s{8, false, {}};
  s.header() << 1 << 1 << 0x10 << 5 << 0;
  s.trailer();
  expectError(s.out, 8 * 8 + 8, "num_pcs 0");
}
TEST(error_num_pcs_larger_than_slots_left) {
  for (bool be : {false, true}) {
    Slots s{4, be, {}};
    s.header() << 1 << 0xfffffff0 << 0x10;
    s.trailer().text(kMaps);
    expectError(s.out, 6 * 4, "num_pcs 4294967280 is larger than the");
  }
}
TEST(error_missing_trailer) {
  Slots s{8, true, {}};
  s.header() << 1 << 2 << 0x10 << 0x20;
  expectError(s.out, 9 * 8, "missing binary trailer");
  // With text but no trailer, the text is read as a record and cannot fit.
  Slots t{8, false, {}};
  t.header() << 1 << 2 << 0x10 << 0x20;
  t.text(kMaps);
  try {
    readGperftools(bytes(t.out));
    throw testlib::Failure{"a profile without a trailer was accepted"};
  } catch (const Error& e) {
    CHECK_EQ(e.offset() >= 9 * 8, true);
  }
}

// Every prefix of a file and every single-byte change of its binary part either reads (and
// then writes back byte-identically) or fails with a gperftools error: no crash, no hang.
TEST(truncations_and_corruptions_are_errors_or_lossless) {
  for (const char* f : {"gperftools/workload.32be.prof", "gperftools/workload.64le.prof"}) {
    std::string original = testlib::slurp(testlib::data(f));
    size_t binary = original.find("55891abae000");
    CHECK(binary != std::string::npos);
    auto attempt = [&](const std::string& d, int& ok, int& errors) {
      try {
        auto p = readGperftools(bytes(d));
        CHECK(writeGperftools(*p) == d);
        // A cut inside a line of the text is told: the mappings after it are gone.
        const bool cutInLine = d.size() > binary && d.back() != '\n';
        CHECK_EQ(p->warnings().size(), size_t{cutInLine});
        if (cutInLine)
          CHECK(p->warnings()[0].find("mapped-objects text ends inside a line") !=
                std::string::npos);
        ++ok;
      } catch (const Error& e) {
        CHECK_EQ(e.format(), std::string("gperftools"));
        CHECK(e.offset() <= d.size());
        ++errors;
      }
    };
    int ok = 0, errors = 0;
    // Every cut in the header, the first records and the text; elsewhere every fifth, which
    // still falls at every offset within a 4- or 8-byte slot (a cut at each length made this
    // the slowest unit test under the sanitizers).
    for (size_t len = 0; len < original.size(); ++len)
      if (len < 2048 || len >= binary || len % 5 == 0) attempt(original.substr(0, len), ok, errors);
    CHECK_EQ(static_cast<size_t>(ok), original.size() - binary);  // cut inside the text only
    uint32_t seed = 12345;
    for (int i = 0; i < 3000; ++i) {
      seed = seed * 1103515245u + 12345u;
      std::string d = original;
      size_t at = (seed >> 8) % binary;
      d[at] = static_cast<char>(d[at] ^ (1u << ((seed >> 4) % 8)));
      attempt(d, ok, errors);
    }
    CHECK(errors > 0);
  }
}

TEST(corrupt_record_node_in_ppk_is_rejected) {
  auto p = readGperftools(bytes(testlib::slurp(testlib::data("gperftools/workload.64le.prof"))));
  capnp::MallocMessageBuilder copy;
  copy.setRoot(p->root());
  auto st = copy.getRoot<ir::Profile>().getStacks();
  std::vector<uint64_t> nodes = decodeColumn(st.getSampleNode());
  nodes[3] = 2 * 100000 + 1;  // names a node that does not exist yet
  encodeColumn(st.initSampleNode(), nodes);
  auto message = newMessage();
  message->setRoot(copy.getRoot<ir::Profile>().asReader());
  Profile bad(std::move(message));
  try {
    writeGperftools(bad);
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::malformed));
    CHECK_CONTAINS(e.what(), "record 3 names node 100000 before it was created");
    return;
  }
  throw testlib::Failure{"a record naming a missing node was written"};
}

// The recent-callees coding with what it must not lose: more than four callees of one call
// site (entries dropping off the list), call sites reached from different stacks, pc 0 (the
// root's key), and differences that do not fit its 5 + zigzag form (escapes).
TEST(address_model_round_trips_extreme_addresses) {
  const uint64_t top = ~uint64_t{0}, half = uint64_t{1} << 63;
  std::vector<std::vector<uint64_t>> chains = {{0x10, 0x100, 0x1000},  // innermost first
                                               {0x11, 0x100, 0x1000},  {0x12, 0x100, 0x1000},
                                               {0x13, 0x100, 0x1000},  {0x14, 0x100, 0x1000},
                                               {0x10, 0x100, 0x1000},  {0x10, 0x100, 0x2000},
                                               {0x15, 0x100, 0x2000},  {0x11, 0x100, 0x2000},
                                               {0, 0x100, 0x2000},     {top, 0, 0x2000},
                                               {half, top, 0, 0x2000}, {0, half, top, 0, 0x2000},
                                               {half - 1, 0, 0x2000},  {half + 1, 0, 0x2000},
                                               {1, half, 0x3000},      {half + 2, 1, half, 0x3000},
                                               {0x10, 0x100, 0x1000}};
  Slots s{8, false, {}};
  s.header();
  for (const auto& c : chains) {
    s << 3 << c.size();
    for (uint64_t pc : c) s << pc;
  }
  s.trailer().text("00400000-00401000 r-xp 00000000 08:01 42 /bin/x\n");
  auto p = readGperftools(bytes(s.out));
  auto st = p->root().getStacks();
  CHECK(st.getNodeAddressEscapes().getCount() > 0);  // the extreme differences took escapes
  CHECK(writeGperftools(*p) == s.out);
  std::string ppk = writeProfile(*p, FormatId::ppk, {});
  auto back = readProfile(bytes(ppk), opts());
  CHECK(writeGperftools(*back) == s.out);
  CHECK(equalIR(*p, *back));
}

namespace {
// Expects writing `p` as gperftools to fail with `status` and `needle`.
void expectWriteRejected(const Profile& p, Status status, const std::string& needle) {
  try {
    writeGperftools(p);
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(status));
    CHECK_CONTAINS(e.what(), needle);
    return;
  }
  throw testlib::Failure{"written despite: " + needle};
}

// Expects writing stacks made of these columns to fail with `status` and `needle` (the
// writer decodes the tree, so every check of decodeStacks is reached).
void expectStacksRejected(std::vector<uint64_t> parent, std::vector<uint64_t> addr,
                          std::vector<uint64_t> escapes, std::vector<uint64_t> node, uint8_t coding,
                          Status status, const std::string& needle, uint8_t tree = 1) {
  auto message = newMessage();
  auto root = message->getRoot<ir::Profile>();
  root.setFormat(ir::Format::GPERFTOOLS);
  auto st = root.initStacks();
  st.setSlotBytes(8);
  st.setAddressCoding(coding);
  st.setTreeCoding(tree);
  std::vector<uint64_t> count(node.size(), 1);
  encodeColumn(st.initNodeParent(), parent);
  encodeColumn(st.initNodeAddress(), addr);
  encodeColumn(st.initNodeAddressEscapes(), escapes);
  encodeColumn(st.initSampleCount(), count);
  encodeColumn(st.initSampleNode(), node);
  st.initHeaderSlots(5).set(1, 3);
  st.initTrailerSlots(3).set(1, 1);
  expectWriteRejected(Profile(std::move(message)), status, needle);
}
}  // namespace

// Address values that name a recent callee the call site does not have, escapes missing or
// left over, and an unknown coding are errors, not wrong addresses.
// The stored values of the recent-callees coding, worked by hand (see profile.capnp): misses
// as 5 + zigzag against the call site's newest callee or the node's reference, hits as the
// list position, for a call site (pc 0x100) reached from two stacks.
TEST(address_model_values) {
  const std::vector<std::vector<uint64_t>> chains = {
      {0x10, 0x100}, {0x11, 0x100},        {0x10, 0x200},       {0x10, 0x100},
      {0x10, 0x300}, {0x10, 0x100, 0x900}, {0x11, 0x100, 0x900}};
  Slots s{8, false, {}};
  s.header();
  for (const auto& c : chains) {
    s << 1 << c.size();
    for (uint64_t pc : c) s << pc;
  }
  s.trailer();
  auto p = readGperftools(bytes(s.out));
  const std::vector<uint64_t> expected = {0x205, 0x1e4, 7,      0x205, 0x3e4, 0x205,
                                          0x5e4, 0xc05, 0x1004, 1,     1};
  CHECK(decodeColumn(p->root().getStacks().getNodeAddress()) == expected);
  CHECK(writeGperftools(*p) == s.out);
}

// Address values that name a recent callee the call site does not have, escapes missing or
// left over, and an unknown coding are errors, not wrong addresses.
TEST(corrupt_address_model_in_ppk_is_rejected) {
  // One record adds every node, each the child of the one before: one nodeParent value, the
  // root.
  auto attempt = [](uint8_t coding, std::vector<uint64_t> addr, std::vector<uint64_t> escapes,
                    Status status, const std::string& needle) {
    std::vector<uint64_t> parent{0}, node{2 * (addr.size() - 1)};
    expectStacksRejected(parent, addr, escapes, node, coding, status, needle);
  };
  // Node 1 (a child of the root) names entry 0 of a list that is still empty.
  attempt(1, {0}, {}, Status::malformed, "names recent callee 0 of a call site with fewer");
  // Node 2 names entry 1 of its call site's list, which holds one pc.
  attempt(1, {5 + 2 * 7, 1}, {}, Status::malformed, "recent callee 1");
  attempt(1, {4}, {}, Status::malformed, "more escaped addresses than nodeAddressEscapes holds");
  attempt(1, {5}, {9}, Status::malformed, "nodeAddressEscapes holds unused addresses");
  // IR revision 2 stores addressCoding 1 only (0 was a pre-release coding).
  attempt(0, {5}, {}, Status::malformed, "addressCoding 0 is not the coding IR revision 2 stores");
  attempt(2, {5}, {}, Status::malformed, "addressCoding 2 is not the coding IR revision 2 stores");
}

TEST(corrupt_tree_in_ppk_is_rejected) {
  // One nodeParent value per record that adds nodes, naming an older node.
  const std::vector<uint64_t> addr{5, 0, 5 + 2};  // node 3 is a second callee of the root
  auto attempt = [&](std::vector<uint64_t> branch, std::vector<uint64_t> node,
                     const std::string& needle, uint8_t tree = 1,
                     Status status = Status::malformed) {
    expectStacksRejected(branch, addr, {}, node, 1, status, needle, tree);
  };
  // Record 0 adds nodes 1 and 2 below the root, record 1 adds node 3 below the root.
  attempt({0}, {2, 0}, "record 1 adds nodes but nodeParent has no value left");
  attempt({0, 0, 0}, {2, 0}, "nodeParent holds 1 values no record uses");
  attempt({0, 3}, {2, 0}, "record 1 adds nodes below node 3, which no earlier record created");
  attempt({0}, {2}, "1 nodes that no record adds");
  // IR revision 2 stores treeCoding 1 only (0 was a pre-release coding).
  attempt({0, 0}, {2, 0}, "treeCoding 0 is not the coding IR revision 2 stores", 0);
  attempt({0, 0}, {2, 0}, "treeCoding 2 is not the coding IR revision 2 stores", 2);
}

TEST(tree_coding_one_values) {
  // Two records sharing the outer frame 0x10: [0x30, 0x20, 0x10] then [0x40, 0x10], then a
  // repeat of the first, then [0x20]. (Their table buckets are 656, 656, 656, 288: the last
  // record alone ends the file in bucket order, so no tail is sorted.)
  Slots s{8, false, {}};
  s.header() << 1 << 3 << 0x30 << 0x20 << 0x10 << 1 << 2 << 0x40 << 0x10 << 1 << 3 << 0x30 << 0x20
             << 0x10 << 1 << 1 << 0x20;
  s.trailer();
  auto p = readGperftools(bytes(s.out));
  auto st = p->root().getStacks();
  CHECK_EQ(st.getTreeCoding(), 1u);
  CHECK_EQ(st.getSortedTail(), 0u);
  // The first record branches off the root, the second off node 1 (0x10), the last off the
  // root.
  CHECK(decodeColumn(st.getNodeParent()) == (std::vector<uint64_t>{0, 1, 0}));
  // Nodes 1-3 added (2 * (3 - 0 - 1)), node 4 added (0), node 3 again (2 * 3 + 1), node 5.
  CHECK(decodeColumn(st.getSampleNode()) == (std::vector<uint64_t>{4, 0, 7, 0}));
  DecodedStacks d = decodeStacks(st);
  CHECK(d.parent == (std::vector<uint32_t>{0, 1, 2, 1, 0}));
  CHECK(d.address == (std::vector<uint64_t>{0x10, 0x20, 0x30, 0x40, 0x20}));
  CHECK(writeGperftools(*p) == s.out);
}

// gperftools' table hash (profiledata.cc), as profile.capnp documents it for sortedTail.
uint32_t tableBucket(unsigned w, const std::vector<uint64_t>& chain) {
  const uint64_t mask = w == 8 ? ~uint64_t{0} : 0xffffffffu;
  uint64_t h = 0;
  for (uint64_t pc : chain) h = (((h << 8) | (h >> (8 * w - 8))) + pc * 41) & mask;
  return static_cast<uint32_t>(h % 1024);
}

// A profile whose records end in table-bucket order, as the profiler writes its table last.
Slots tailProfile(unsigned w, bool be) {
  const std::vector<std::pair<uint64_t, std::vector<uint64_t>>> records = {
      {9, {0x12}},              // bucket 738: not part of the tail
      {8, {0x20}},              // 288
      {7, {0x50, 0x10}},        // 656: a run of three, not in the stored (sorted) order
      {6, {0x30, 0x20, 0x10}},  // 656
      {5, {0x40, 0x10}},        // 656
      {4, {0x11}},              // 697
      {3, {0x12}},              // 738
  };
  const std::vector<uint32_t> buckets = {738, 288, 656, 656, 656, 697, 738};
  Slots s{w, be, {}};
  s.header();
  for (size_t i = 0; i < records.size(); ++i) {
    CHECK_EQ(tableBucket(w, records[i].second), buckets[i]);
    s << records[i].first << records[i].second.size();
    for (uint64_t pc : records[i].second) s << pc;
  }
  s.trailer();
  return s;
}

TEST(sorted_tail_restores_file_order) {
  for (auto [w, be] : {std::pair{8u, false}, std::pair{4u, true}}) {
    Slots s = tailProfile(w, be);
    auto p = readGperftools(bytes(s.out));
    auto st = p->root().getStacks();
    CHECK_EQ(st.getSortedTail(), 6u);
    // Stored sorted by pcs innermost first: 0x11, 0x12, 0x20, 0x30.., 0x40.., 0x50..; the
    // 656 run's file order (0x50.., 0x30.., 0x40..) is entry 2, then entry 0 of the two left.
    CHECK(decodeColumn(st.getTailRanks()) == (std::vector<uint64_t>{2, 0}));
    CHECK(decodeColumn(st.getSampleCount()) == (std::vector<uint64_t>{9, 4, 3, 8, 6, 5, 7}));
    DecodedStacks d = decodeStacks(st);
    CHECK(d.count == (std::vector<uint64_t>{9, 8, 7, 6, 5, 4, 3}));
    CHECK(writeGperftools(*p) == s.out);
    auto back = readProfile(bytes(writeProfile(*p, FormatId::ppk, {})), opts());
    CHECK(writeGperftools(*back) == s.out);
  }
}

TEST(corrupt_sorted_tail_in_ppk_is_rejected) {
  Slots s = tailProfile(8, false);
  auto p = readGperftools(bytes(s.out));
  auto attempt = [&](uint64_t tail, std::vector<uint64_t> ranks, const std::string& needle) {
    auto message = newMessage();
    message->setRoot(p->root());
    auto st = message->getRoot<ir::Profile>().getStacks();
    st.setSortedTail(tail);
    encodeColumn(st.initTailRanks(), ranks);
    expectWriteRejected(Profile(std::move(message)), Status::malformed, needle);
  };
  attempt(8, {2, 0}, "sortedTail 8 is more than the 7 records");
  attempt(5000, {}, "sortedTail 5000 is more than the 4096 records a reader sorts");
  attempt(6, {2}, "tailRanks has too few values");
  attempt(6, {2, 0, 0}, "tailRanks holds unused values");
  attempt(6, {3, 0}, "tail rank 3 in a run of 3 records left");
  attempt(6, {2, 2}, "tail rank 2 in a run of 2 records left");
}

// A caller that names the output format leaves the decision to defer the IR to the library:
// deferred where that format is written from the model, not where it writes the IR as read.
TEST(output_format_decides_deferral) {
  const std::string d = testlib::slurp(testlib::data("gperftools/workload.64le.prof"));
  const std::pair<FormatId, bool> kCases[] = {
      {FormatId::pprof, true},       {FormatId::callgrind, true}, {FormatId::folded, true},
      {FormatId::gperftools, false}, {FormatId::ppk, false},      {FormatId::unknown, false}};
  for (const auto& [out, deferred] : kCases) {
    ReadOptions o;
    o.outputFormat = out;
    auto p = readProfile(bytes(d), o);
    const uint64_t partial = p->partialRoot().totalSize().wordCount;
    CHECK_EQ(partial < p->root().totalSize().wordCount, deferred);
  }
}

// The archive coding (lib/formats/gperftools/archive_coding.h): a 64-bit little-endian file
// codes and decodes to itself, its PCs as offsets in their objects; other widths are not
// coded; every cut of a coding and a PC in an object no mapping holds are refused as malformed,
// never read out of bounds.
TEST(archive_coding_round_trip_and_hostile_codings) {
  const std::string file = testlib::slurp(testlib::data("gperftools/workload.64le.prof"));
  auto coded = profpack::gperftoolsArchiveCode(file);
  CHECK(coded.has_value());
  CHECK(profpack::gperftoolsArchiveDecode(*coded) == file);
  CHECK(!profpack::gperftoolsArchiveCode(
             testlib::slurp(testlib::data("gperftools/workload.32le.prof")))
             .has_value());
  CHECK(!profpack::gperftoolsArchiveCode(
             testlib::slurp(testlib::data("gperftools/workload.64be.prof")))
             .has_value());
  // The mapped-objects text's ranges are coded: no line of the coding starts with one.
  CHECK(coded->find("\n5") == std::string::npos && coded->find("\n7f") == std::string::npos);
  size_t cuts = 0;
  for (size_t n = 0; n < coded->size(); ++n) {
    try {
      std::string back = profpack::gperftoolsArchiveDecode(coded->substr(0, n));
      CHECK(back.size() < file.size() + 64 * n + 64);  // (a cut in the text still decodes)
    } catch (const profpack::Error& e) {
      CHECK(e.status() == profpack::Status::malformed);
      ++cuts;
    }
  }
  CHECK(cuts > 0);
  // The first record's first frame (after the version, the slot count, 5 header slots, the
  // record count and the record's depth, varints below 128 here): coded in object 0xfd, which
  // no mapping holds; in object 0 (no coding writes it); a depth past the end of the coding.
  auto refused = [](const std::string& bad, const char* why) {
    try {
      profpack::gperftoolsArchiveDecode(bad);
      CHECK(false);
    } catch (const profpack::Error& e) {
      CHECK(e.status() == profpack::Status::malformed);
      CHECK_CONTAINS(e.what(), why);
    }
  };
  const size_t depthAt = 9 + 8 * 5 + 1, frameAt = depthAt + 1;
  CHECK(static_cast<uint8_t>((*coded)[depthAt - 1]) < 128 &&
        static_cast<uint8_t>((*coded)[depthAt]) < 128 && (*coded)[depthAt] > 0);
  std::string bad = *coded;
  const uint32_t v = (uint32_t{0xfe} << 24) | 0x1000;
  std::memcpy(bad.data() + frameAt, &v, 4);
  refused(bad, "which no mapping holds");
  const uint32_t zero = 0x1000;
  std::memcpy(bad.data() + frameAt, &zero, 4);
  refused(bad, "frame in object 0");
  bad = *coded;
  bad.replace(depthAt, 1, "\xff\xff\xff\xff\x7f");
  refused(bad, "passes the end");
}

TEST_MAIN()

namespace {
// Stacks of one chain of `depth` nodes (pcs 1, 2, ..., each the caller of the next), added by
// the first record; `repeats` more records name its innermost node.
Profile deepChain(uint64_t depth, uint64_t repeats) {
  auto message = newMessage();
  auto root = message->getRoot<ir::Profile>();
  root.setFormat(ir::Format::GPERFTOOLS);
  auto st = root.initStacks();
  st.setSlotBytes(8);
  st.setAddressCoding(1);
  st.setTreeCoding(1);
  // Every node misses its call site's (empty) list: 5 + zigzag(pc - pc(parent)) = 5 + 2.
  std::vector<uint64_t> address(depth, 7), node{2 * (depth - 1)};
  node.resize(repeats + 1, 2 * depth + 1);
  const std::vector<uint64_t> parent{0}, none, count(node.size(), 1);
  encodeColumn(st.initNodeParent(), parent);
  encodeColumn(st.initNodeAddress(), address);
  encodeColumn(st.initNodeAddressEscapes(), none);
  encodeColumn(st.initSampleCount(), count);
  encodeColumn(st.initSampleNode(), node);
  st.initHeaderSlots(5).set(1, 3);
  st.initTrailerSlots(3).set(1, 1);
  return Profile(std::move(message));
}
}  // namespace

// What two fuzz inputs of the pre-release tree coding found, in today's: a chain 200,000
// frames deep builds its call graph in one pass over the tree (it was quadratic in depth), and
// 100,000 records naming a node 2,000 deep (1.6 GB of output from a few hundred bytes of
// columns) are refused before anything is allocated for them.
TEST(deep_chains_stay_linear_and_huge_outputs_are_refused) {
  Profile deep = deepChain(200000, 0);
  // Linear: about 0.2 s here (more under sanitizers). A search of each frame's ancestors, which
  // a summary of the keys on the path stops short of only while the path has few distinct
  // keys, took 45 s.
  const auto start = std::chrono::steady_clock::now();
  auto model = buildModel(deep, {});
  CHECK_EQ(model->functions(), 200000u);
  CHECK_EQ(model->edges().size(), 199999u);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(15));
  CHECK_EQ(model->total(0), 1u);
  CHECK_EQ(model->inclusive(0, 0) + model->inclusive(199999, 0), 2u);  // outermost, innermost
  expectWriteRejected(deepChain(2000, 100000), Status::limit, "");
}

// The stacks layer: one entry per distinct chain, outermost frame first, its samples summed;
// the stacks ending in a PC add up to its self samples.
TEST(stacks_layer_sums_the_records_per_chain) {
  auto p = readGperftools(bytes(testlib::slurp(testlib::data("gperftools/workload.64le.prof"))));
  auto m = buildModel(*p, {});
  const StackLayer& st = m->stacks();
  std::vector<uint64_t> self(m->functions(), 0);
  uint64_t sum = 0;
  std::set<std::vector<uint64_t>> distinct;
  for (size_t s = 0; s < st.stacks(); ++s) {
    std::vector<uint64_t> frames(st.frames.begin() + static_cast<long>(st.start[s]),
                                 st.frames.begin() + static_cast<long>(st.start[s + 1]));
    CHECK(!frames.empty());
    distinct.insert(frames);
    self[frames.back()] += st.values[s];
    sum += st.values[s];
  }
  CHECK_EQ(distinct.size(), st.stacks());
  CHECK_EQ(sum, 97u);
  for (size_t f = 0; f < m->functions(); ++f) CHECK_EQ(self[f], m->self(f, 0));
  // Outermost first: every stack starts with a PC that no record has outside the root's level.
  CHECK(m->has(kCapStacks));
  CHECK(!m->has(kCapTimeline));
  struct Count : SpanSink {
    size_t n = 0;
    void span(const Span&) override { ++n; }
  } spans;
  m->spans(spans);
  CHECK_EQ(spans.n, size_t{0});
}
