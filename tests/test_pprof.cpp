// pprof as an input: hand-made profile.proto messages (every field, ids not dense, packed and
// unpacked, negative values), their IR and round trip, the model's figures, detection, and
// each input pprof refuses, refused with its byte offset. The real profiles of tests/data/pprof
// are checked against go tool pprof by check_pprof_input.py.
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "container/ppk.h"
#include "error.h"
#include "formats/pprof/data.h"
#include "formats/pprof/pprof.h"
#include "formats/registry.h"
#include "merge/merge.h"
#include "testlib.h"
#include "util/gzip.h"

using namespace profpack;

// For CHECK_EQ's message on vectors (found by argument-dependent lookup).
namespace std {
template <class T>
ostream& operator<<(ostream& os, const vector<T>& v) {
  os << '{';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  return os << '}';
}
}  // namespace std

namespace {

// A protobuf message built field by field.
struct Msg {
  std::string b;
  Msg& varint(uint64_t v) {
    while (v >= 0x80) {
      b += static_cast<char>(v | 0x80);
      v >>= 7;
    }
    b += static_cast<char>(v);
    return *this;
  }
  Msg& u(unsigned field, uint64_t v) { return varint(field << 3).varint(v); }
  Msg& bytes(unsigned field, const std::string& s) {
    varint(field << 3 | 2).varint(s.size());
    b += s;
    return *this;
  }
  Msg& msg(unsigned field, const Msg& m) { return bytes(field, m.b); }
  Msg& packed(unsigned field, const std::vector<uint64_t>& v) {
    Msg p;
    for (uint64_t x : v) p.varint(x);
    return bytes(field, p.b);
  }
};

// Strings: 0 "", 1 samples, 2 count, 3 space, 4 bytes, 5 main, 6 work, 7 a.c, 8 /bin/a,
// 9 build1, 10 worker, 11 hash, 12 size, 13 drop.*, 14 keep.*, 15 a comment, 16 https://doc,
// 17 _main (system name), 18 inl
const char* kStrings[] = {"",       "samples",   "count",       "space",  "bytes", "main", "work",
                          "a.c",    "/bin/a",    "build1",      "worker", "hash",  "size", "drop.*",
                          "keep.*", "a comment", "https://doc", "_main",  "inl"};

Msg valueType(uint64_t type, uint64_t unit) { return Msg().u(1, type).u(2, unit); }

// A profile of every field: two sample types, ids 7/9/40 (not dense), a location with two
// lines (inl inlined into work), a negative value, labels of both kinds.
Msg fullProfile() {
  Msg p;
  p.msg(1, valueType(1, 2)).msg(1, valueType(3, 4));
  // sample 1: leaf location 40 (work + inl), caller 9 (main); packed ids and values
  p.msg(2, Msg().packed(1, {40, 9}).packed(2, {5, 500}).msg(3, Msg().u(1, 10).u(2, 11)));
  // sample 2: unpacked, negative value, a numeric label with a unit
  p.msg(2, Msg()
               .u(1, 9)
               .u(2, 2)
               .u(2, static_cast<uint64_t>(int64_t{-100}))
               .msg(3, Msg().u(1, 12).u(3, 4096).u(4, 4)));
  p.msg(3, Msg()
               .u(1, 7)
               .u(2, 0x400000)
               .u(3, 0x500000)
               .u(4, 0x1000)
               .u(5, 8)
               .u(6, 9)
               .u(7, 1)
               .u(9, 1)
               .u(10, 1));
  p.msg(4, Msg().u(1, 9).u(2, 7).u(3, 0x401000).msg(4, Msg().u(1, 3).u(2, 12)));
  p.msg(4, Msg()
               .u(1, 40)
               .u(2, 7)
               .u(3, 0x402000)
               .msg(4, Msg().u(1, 5).u(2, 30).u(3, 4))  // inl, innermost, column 4
               .msg(4, Msg().u(1, 2).u(2, 21))          // work
               .u(5, 1));
  p.msg(5, Msg().u(1, 3).u(2, 5).u(3, 17).u(4, 7).u(5, 10));
  p.msg(5, Msg().u(1, 2).u(2, 6).u(3, 6).u(4, 7).u(5, 20));
  p.msg(5, Msg().u(1, 5).u(2, 18).u(3, 18).u(4, 7).u(5, 29));
  for (const char* s : kStrings) p.bytes(6, s);
  p.u(7, 13).u(8, 14).u(9, 1700000000000000000).u(10, 2000000000);
  p.msg(11, valueType(3, 4)).u(12, 512).packed(13, {15}).u(14, 3).u(15, 16);
  return p;
}

std::span<const uint8_t> span(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::unique_ptr<Profile> read(const std::string& s, FormatId as = FormatId::unknown) {
  ReadOptions o;
  o.format = as;
  return readProfile(span(s), o);
}

void expectError(const std::string& bytes, uint64_t offset, const std::string& needle) {
  try {
    read(bytes, FormatId::pprof);
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::malformed));
    CHECK_EQ(e.offset(), offset);
    CHECK_CONTAINS(std::string(e.what()), needle);
    return;
  }
  CHECK(!"no error");
}

}  // namespace

TEST(detects_bare_and_gzipped_pprof) {
  const std::string m = fullProfile().b;
  CHECK(detectFormat(span(m)) == FormatId::pprof);
  const std::string gz = gzipCompress(m, 6);
  CHECK(detectFormat(span(gz)) == FormatId::pprof);
  // Text and other binaries are not pprof.
  CHECK(!isPprof(span(std::string("# callgrind format\nversion: 1\n"))));
  CHECK(!isPprof(span(std::string("desc: x\ncmd: y\nevents: Ir\n"))));
  CHECK(!isPprof(span(std::string())));
  // gzip's magic is pprof's only where the inflated bytes are profile.proto: a gzipped
  // gperftools profile (a zero word first) is not.
  const std::string gperf = testlib::slurp(testlib::data("gperftools/workload.64le.prof"));
  CHECK(!isPprof(span(gzipCompress(gperf, 6))));
  CHECK(detectFormat(span(gperf)) == FormatId::gperftools);
}

TEST(every_field_round_trips_through_ppk) {
  for (bool gz : {false, true}) {
    const std::string m = gz ? gzipCompress(fullProfile().b, 6) : fullProfile().b;
    auto p = read(m);
    CHECK(formatOf(*p) == FormatId::pprof);
    const std::string ppk = encodePpk(*p, 3);
    auto back = decodePpk(span(ppk), uint64_t{1} << 30);
    CHECK(equalIR(*p, *back));
    const std::string out = writeProfile(*back, FormatId::pprof, {});
    CHECK_EQ(out.size() > 2 && static_cast<uint8_t>(out[0]) == 0x1f, gz);
    // Read again: the same IR (ids and every field as read).
    auto again = read(out);
    CHECK(equalIR(*p, *again));
    PprofData a = pprofFromIR(*p);
    CHECK_EQ(a.sampleLocation, (std::vector<uint64_t>{40, 9, 9}));
    CHECK_EQ(a.sampleValue, (std::vector<int64_t>{5, 500, 2, -100}));
    CHECK_EQ(a.locationId, (std::vector<uint64_t>{9, 40}));
    CHECK_EQ(a.lineLine, (std::vector<int64_t>{12, 30, 21}));
    CHECK_EQ(a.lineColumn, (std::vector<int64_t>{0, 4, 0}));
    CHECK_EQ(a.locationFolded, (std::vector<uint64_t>{0, 1}));
    CHECK_EQ(a.mappingFlags, (std::vector<uint64_t>{1 | 4 | 8}));
    CHECK_EQ(a.labelNum, (std::vector<int64_t>{0, 4096}));
    CHECK_EQ(std::string(a.strings[a.functionSystemName[0]]), "_main");
    CHECK_EQ(std::string(a.strings[a.functionSystemName[1]]), "work");
    CHECK_EQ(std::string(a.strings[a.mappingBuildId[0]]), "build1");
    CHECK_EQ(std::string(a.strings[a.dropFrames]), "drop.*");
    CHECK_EQ(std::string(a.strings[a.keepFrames]), "keep.*");
    CHECK_EQ(std::string(a.strings[a.comments.at(0)]), "a comment");
    CHECK_EQ(std::string(a.strings[a.docUrl]), "https://doc");
    CHECK_EQ(std::string(a.strings[a.defaultSampleType]), "space");
    CHECK_EQ(std::string(a.strings[a.periodType]), "space");
    CHECK_EQ(a.period, 512);
    CHECK_EQ(a.timeNanos, 1700000000000000000);
    CHECK_EQ(a.durationNanos, 2000000000);
    CHECK_EQ(a.functionStartLine, (std::vector<int64_t>{10, 20, 29}));
  }
}

TEST(model_every_sample_type_an_event_with_inline_frames) {
  auto p = read(fullProfile().b);
  auto m = buildModel(*p, {});
  CHECK_EQ(m->events(), 2u);
  CHECK_EQ(m->eventNames()[1], "space");
  CHECK(m->has(kCapSigned) && m->has(kCapStacks) && m->has(kCapLines) && m->has(kCapNames));
  const long space = m->eventIndex("space");
  CHECK_EQ(static_cast<int64_t>(m->total(space)), 400);
  auto named = [&](const std::string& n) {
    for (size_t f = 0; f < m->functions(); ++f)
      if (m->function(f).name == n) return f;
    CHECK(!"function missing");
    return size_t{0};
  };
  // inl is the leaf of sample 1 (inlined into work); main the leaf of sample 2.
  CHECK_EQ(m->self(named("inl"), space), 500u);
  CHECK_EQ(static_cast<int64_t>(m->self(named("main"), space)), -100);
  CHECK_EQ(m->inclusive(named("work"), space), 500u);
  CHECK_EQ(static_cast<int64_t>(m->inclusive(named("main"), space)), 400);
  CHECK_EQ(m->function(named("main")).object, "/bin/a");
  CHECK_EQ(m->function(named("main")).line, 10u);
  // Arcs: main -> work -> inl.
  bool mainWork = false, workInl = false;
  for (const CallEdge& e : m->edges()) {
    mainWork |= e.caller == named("main") && e.callee == named("work");
    workInl |= e.caller == named("work") && e.callee == named("inl");
  }
  CHECK(mainWork && workInl);
  // The stacks layer spells the inline frames out.
  const StackLayer& st = m->stacks();
  CHECK_EQ(st.stacks(), 2u);
  CHECK_EQ(st.start[1], 3u);
  // Callgrind carries lines and the object.
  const std::string cg = writeProfile(*p, FormatId::callgrind, {});
  CHECK_CONTAINS(cg, "ob=/bin/a");
  CHECK_CONTAINS(cg, "fn=inl");
  CHECK_CONTAINS(cg, "positions: instr line");
}

TEST(refuses_what_pprof_refuses_with_offsets) {
  // A value count that differs from the sample types: at the sample's tag.
  {
    Msg p;
    p.msg(1, valueType(1, 2));
    const uint64_t at = p.b.size();
    p.msg(2, Msg().packed(2, {1, 2}));
    p.bytes(6, "").bytes(6, "samples").bytes(6, "count");
    expectError(p.b, at, "2 values for 1 sample types");
  }
  // A sample location that no location has.
  {
    Msg p;
    p.msg(1, valueType(1, 2));
    const uint64_t at = p.b.size();
    p.msg(2, Msg().u(1, 77).u(2, 1));
    p.bytes(6, "").bytes(6, "samples").bytes(6, "count");
    expectError(p.b, at, "location id 77");
  }
  // A line whose function does not exist.
  {
    Msg p;
    const uint64_t at = p.b.size();
    p.msg(4, Msg().u(1, 1).msg(4, Msg().u(1, 5)));
    p.bytes(6, "");
    expectError(p.b, at, "function 5");
  }
  // A string index out of range: at the field that names it.
  {
    Msg p;
    p.bytes(6, "");
    const uint64_t at = p.b.size() + 4;  // the name field inside the function message
    p.msg(5, Msg().u(1, 1).u(2, 9));
    expectError(p.b, at, "string index 9 out of range");
  }
  // Ids 0 and twice.
  {
    Msg p;
    p.bytes(6, "");
    const uint64_t at = p.b.size();
    p.msg(3, Msg().u(2, 1));
    expectError(p.b, at, "reserved id 0");
  }
  {
    Msg p;
    p.bytes(6, "");
    p.msg(5, Msg().u(1, 4));
    const uint64_t at = p.b.size();
    p.msg(5, Msg().u(1, 4));
    expectError(p.b, at, "two functions with id 4");
  }
  // Wire-level defects: a length past the end, a bad wire type, a non-empty string_table[0].
  {
    Msg p;
    p.msg(1, valueType(0, 0));
    const uint64_t at = p.b.size();
    p.varint(2 << 3 | 2).varint(50).b += "xx";
    expectError(p.b, at, "declares 50 bytes");
  }
  {
    Msg p;
    p.msg(1, valueType(0, 0)).bytes(6, "");
    const uint64_t at = p.b.size();
    p.varint(9 << 3 | 2).varint(0);
    expectError(p.b, at, "wire type 2, expected 0");
  }
  {
    Msg p;
    p.msg(1, valueType(0, 0));
    const uint64_t at = p.b.size();
    p.bytes(6, "x");
    expectError(p.b, at, "string_table[0] must be ''");
  }
  // Gzip: offsets in the gunzipped message; a cut gzip stream is refused.
  {
    Msg p;
    p.msg(1, valueType(1, 2));
    const uint64_t at = p.b.size();
    p.msg(2, Msg().u(1, 77).u(2, 1));
    p.bytes(6, "").bytes(6, "samples").bytes(6, "count");
    expectError(gzipCompress(p.b, 6), at, "gunzipped message");
    const std::string gz = gzipCompress(fullProfile().b, 6);
    try {
      read(gz.substr(0, gz.size() - 12));
      CHECK(!"no error");
    } catch (const Error& e) {
      CHECK_CONTAINS(std::string(e.what()), "gzip data cut short");
    }
  }
}

TEST(gzip_output_is_bounded) {
  // 64 MiB of zeros inflate past a 1 MiB limit: refused, nothing that large allocated.
  const std::string gz = gzipCompress(std::string(size_t{64} << 20, '\0'), 6);
  ReadOptions o;
  o.maxPpkMessage = 1 << 20;
  o.format = FormatId::pprof;
  try {
    readProfile(span(gz), o);
    CHECK(!"no error");
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::limit));
  }
}

TEST(real_profiles_read_and_round_trip) {
  for (const char* f : {"go-cpu.pb.gz", "go-heap.pb.gz", "go-heap.pb", "flate-cpu.pb.gz",
                        "gperf-hot-inline.pb.gz", "hot-diff.pb.gz", "profpack-rec.pb.gz"}) {
    const std::string bytes = testlib::slurp(testlib::data(std::string("pprof/") + f));
    auto p = read(bytes);
    auto again = read(writeProfile(*p, FormatId::pprof, {}));
    CHECK(equalIR(*p, *again));
  }
  auto heap = read(testlib::slurp(testlib::data("pprof/go-heap.pb.gz")));
  auto m = buildModel(*heap, {});
  CHECK_EQ(m->events(), 4u);
  CHECK(m->eventIndex("alloc_space") >= 0);
}

TEST(tags_select_samples_as_tagfocus) {
  auto p = read(fullProfile().b);
  ModelOptions o;
  o.tags = {{"worker", "^ha"}};
  auto m = buildModel(*p, o);
  CHECK_EQ(m->total(1), 500u);  // sample 1 only (worker=hash)
  o.tags = {{"size", "4096"}};
  CHECK_EQ(static_cast<int64_t>(buildModel(*p, o)->total(1)), -100);  // a numeric label
  o.tags = {{"worker", "squares"}};
  CHECK_EQ(buildModel(*p, o)->total(1), 0u);
  // A profile without labels refuses; a bad pattern is an invalid argument.
  auto cg =
      readProfile(span(testlib::slurp(testlib::data("callgrind/callgrind.rec.instr.out"))), {});
  try {
    buildModel(*cg, o);
    CHECK(!"no error");
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::unsupported));
  }
  o.tags = {{"worker", "("}};
  try {
    buildModel(*p, o);
    CHECK(!"no error");
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::invalidArgument));
  }
}

TEST(merge_sums_samples_as_go_does) {
  auto p = read(fullProfile().b);
  const MergeInput in[] = {{p.get(), "a"}, {p.get(), "b"}};
  auto m = mergeProfiles(in);
  CHECK(formatOf(*m) == FormatId::pprof);
  PprofData d = pprofFromIR(*m);
  // Two samples (per locations and labels), values doubled; the time the earliest, the
  // durations summed, the comment once.
  CHECK_EQ(d.sampleValue, (std::vector<int64_t>{10, 1000, 4, -200}));
  CHECK_EQ(d.durationNanos, 4000000000);
  CHECK_EQ(d.timeNanos, 1700000000000000000);
  CHECK_EQ(d.comments.size(), 1u);
  CHECK_EQ(d.locationId.size(), 2u);
  CHECK_EQ(d.labelNum, (std::vector<int64_t>{0, 4096}));
  // Profiles of other sample types are refused.
  Msg other;
  other.msg(1, valueType(1, 1)).msg(2, Msg().u(2, 1)).bytes(6, "").bytes(6, "x");
  auto q = read(other.b);
  const MergeInput mixed[] = {{p.get(), "a"}, {q.get(), "b"}};
  try {
    mergeProfiles(mixed);
    CHECK(!"no error");
  } catch (const Error& e) {
    CHECK_CONTAINS(std::string(e.what()), "different sample types");
  }
}

// The reader hands its decoded message to the model (DecodedPprof) instead of the model
// decoding the IR again: it must be what pprofFromIR decodes, field by field, for the
// hand-made message with every field (bare and gzipped) and every real profile; and a model
// built from it gives the same figures as one built from the IR, which the next model is
// (the first gives it back when done, so a capabilities probe does not use it up).
TEST(reader_hands_the_model_what_the_ir_decodes_to) {
  std::vector<std::string> inputs = {fullProfile().b, gzipCompress(fullProfile().b, 6)};
  for (const char* f :
       {"go-cpu.pb.gz", "go-heap.pb.gz", "go-heap.pb", "flate-cpu.pb.gz", "flate-mem.pb.gz",
        "gperf-hot-inline.pb.gz", "hot-diff.pb.gz", "profpack-rec.pb.gz"})
    inputs.push_back(testlib::slurp(testlib::data(std::string("pprof/") + f)));
  for (const std::string& in : inputs) {
    auto p = read(in);
    std::unique_ptr<Profile::Decoded> taken = p->takeDecoded();
    auto* handed = dynamic_cast<DecodedPprof*>(taken.get());
    CHECK(handed != nullptr);
    if (!handed) continue;
    const PprofData& a = handed->data;
    const PprofData b = pprofFromIR(*p);
    CHECK_EQ(a.strings.size(), b.strings.size());
    for (size_t i = 0; i < a.strings.size() && i < b.strings.size(); ++i)
      CHECK_EQ(a.strings[i], b.strings[i]);
    CHECK_EQ(a.gzipped, b.gzipped);
    for (auto m :
         {&PprofData::sampleType,         &PprofData::sampleUnit,    &PprofData::sampleFrames,
          &PprofData::sampleLocation,     &PprofData::sampleValues,  &PprofData::sampleLabels,
          &PprofData::labelKey,           &PprofData::labelStr,      &PprofData::labelUnit,
          &PprofData::mappingId,          &PprofData::mappingStart,  &PprofData::mappingLimit,
          &PprofData::mappingOffset,      &PprofData::mappingFile,   &PprofData::mappingBuildId,
          &PprofData::mappingFlags,       &PprofData::locationId,    &PprofData::locationMapping,
          &PprofData::locationAddress,    &PprofData::locationLines, &PprofData::locationFolded,
          &PprofData::lineFunction,       &PprofData::functionId,    &PprofData::functionName,
          &PprofData::functionSystemName, &PprofData::functionFile,  &PprofData::comments,
          &PprofData::sampleAt,           &PprofData::locationAt,    &PprofData::mappingAt,
          &PprofData::functionAt})
      CHECK_EQ(a.*m, b.*m);
    for (auto m : {&PprofData::sampleValue, &PprofData::labelNum, &PprofData::lineLine,
                   &PprofData::lineColumn, &PprofData::functionStartLine})
      CHECK_EQ(a.*m, b.*m);
    for (auto m : {&PprofData::dropFrames, &PprofData::keepFrames, &PprofData::periodType,
                   &PprofData::periodUnit, &PprofData::defaultSampleType, &PprofData::docUrl})
      CHECK_EQ(a.*m, b.*m);
    CHECK_EQ(a.timeNanos, b.timeNanos);
    CHECK_EQ(a.durationNanos, b.durationNanos);
    CHECK_EQ(a.hasPeriodType, b.hasPeriodType);
    CHECK_EQ(a.period, b.period);
    p->returnDecoded(std::move(taken));
    // Models: the first (which takes the hand-over), a probe of its capabilities in between,
    // and one after (from the IR or the given-back hand-over): the same Callgrind and folded.
    const std::string first = writeProfile(*p, FormatId::callgrind, {});
    const std::string folded = writeProfile(*p, FormatId::folded, {});
    CHECK(p->takeDecoded() != nullptr);  // given back by the writes' models
    CHECK_EQ(writeProfile(*p, FormatId::callgrind, {}), first);
    CHECK_EQ(writeProfile(*p, FormatId::folded, {}), folded);
  }
}

TEST_MAIN()
