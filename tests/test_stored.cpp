// A model's function layer stored beside the IR in a .ppk (lib/model/stored.h): the model of
// the .ppk answers as the model of the profile it came from, in every layer; a stored layer of
// another build is not used; a damaged one is refused with its offset.
#include <capnp/message.h>
#include <capnp/serialize.h>

#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "container/ppk.h"
#include "error.h"
#include "formats/registry.h"
#include "model/stored.h"
#include "profile.h"
#include "stored.capnp.h"
#include "testlib.h"

using namespace profpack;

namespace {
std::span<const uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::unique_ptr<Profile> read(const std::string& name) {
  return readProfile(bytes(testlib::slurp(testlib::data(name))), ReadOptions{});
}

// A .ppk of `p` that stores `model` (the flat stored::Model message).
std::string withModel(const Profile& p, const std::string& model) {
  return encodePpk(p, 3, [&] { return model; });
}
std::string withOwnModel(const Profile& p) {
  return withModel(p, encodeStoredModel(*buildModel(p, {}), p));
}

void sameModels(const Model& a, const Model& b) {
  CHECK_EQ(a.capabilities(), b.capabilities());
  CHECK(a.eventNames() == b.eventNames());
  CHECK(a.eventLongNames() == b.eventLongNames());
  CHECK_EQ(a.unitsPerSecond(), b.unitsPerSecond());
  CHECK_EQ(a.samplePeriodNanos(), b.samplePeriodNanos());
  CHECK_EQ(a.timelineUnitsPerSecond(), b.timelineUnitsPerSecond());
  CHECK_EQ(a.threads().size(), b.threads().size());
  for (size_t t = 0; t < a.threads().size(); ++t) {
    CHECK_EQ(a.threads()[t].pid, b.threads()[t].pid);
    CHECK_EQ(a.threads()[t].threadId, b.threads()[t].threadId);
    CHECK_EQ(a.threads()[t].process, b.threads()[t].process);
  }
  CHECK(a.description() == b.description());
  CHECK_EQ(a.functions(), b.functions());
  for (size_t e = 0; e < a.events(); ++e) {
    CHECK_EQ(a.total(e), b.total(e));
    CHECK_EQ(a.eventUnitsPerSecond(e), b.eventUnitsPerSecond(e));
    CHECK_EQ(a.eventPeriod(e), b.eventPeriod(e));
    CHECK_EQ(a.baseTotal(e), b.baseTotal(e));
  }
  for (size_t f = 0; f < a.functions(); ++f) {
    CHECK_EQ(a.function(f).name, b.function(f).name);
    CHECK_EQ(a.function(f).file, b.function(f).file);
    CHECK_EQ(a.function(f).object, b.function(f).object);
    CHECK_EQ(a.function(f).line, b.function(f).line);
    CHECK_EQ(a.calls(f), b.calls(f));
    for (size_t e = 0; e < a.events(); ++e) {
      CHECK_EQ(a.self(f, e), b.self(f, e));
      CHECK_EQ(a.inclusive(f, e), b.inclusive(f, e));
    }
  }
  CHECK_EQ(a.edges().size(), b.edges().size());
  for (size_t k = 0; k < a.edges().size(); ++k) {
    const CallEdge &x = a.edges()[k], &y = b.edges()[k];
    CHECK_EQ(x.caller, y.caller);
    CHECK_EQ(x.callee, y.callee);
    CHECK_EQ(x.calls, y.calls);
    for (size_t e = 0; e < a.events(); ++e) CHECK_EQ(x.inclusive[e], y.inclusive[e]);
  }
  CHECK_EQ(a.rootCalls().size(), b.rootCalls().size());
  for (size_t k = 0; k < a.rootCalls().size(); ++k) {
    CHECK_EQ(a.rootCalls()[k].function, b.rootCalls()[k].function);
    CHECK_EQ(a.rootCalls()[k].calls, b.rootCalls()[k].calls);
    CHECK(a.rootCalls()[k].inclusive == b.rootCalls()[k].inclusive);
  }
  const Summary &s = a.summary(), &t = b.summary();
  CHECK_EQ(s.formatVersion, t.formatVersion);
  CHECK_EQ(s.parts, t.parts);
  CHECK_EQ(s.records, t.records);
  CHECK_EQ(s.functions, t.functions);
  CHECK_EQ(s.files, t.files);
  CHECK_EQ(s.objects, t.objects);
  CHECK_EQ(s.strings, t.strings);
  // The other layers come from the profile's own source, in the same function indexes.
  CHECK(a.stacks().frames == b.stacks().frames);
  CHECK(a.stacks().values == b.stacks().values);
  CHECK_EQ(a.functionLines().rows.size(), b.functionLines().rows.size());
  CHECK(a.functionLines().self == b.functionLines().self);
  CHECK_EQ(a.locations().locations.size(), b.locations().locations.size());
}

// Builds a stored::Model message by hand.
template <class Fill>
std::string handMade(Fill&& fill) {
  capnp::MallocMessageBuilder message;
  stored::Model::Builder m = message.initRoot<stored::Model>();
  m.setComputedBy(storedModelAuthor());
  fill(m);
  kj::Array<capnp::word> words = capnp::messageToFlatArray(message);
  return std::string(reinterpret_cast<const char*>(words.asBytes().begin()),
                     words.asBytes().size());
}

void expectFail(const std::string& img, const std::string& needle) {
  try {
    decodePpk(bytes(img), kDefaultMaxPpkMessage);
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::malformed));
    CHECK_CONTAINS(e.what(), needle);
    return;
  }
  throw testlib::Failure{"expected failure: " + needle};
}

const char* const kSamples[] = {
    "callgrind/callgrind.workload.out",
    "callgrind/callgrind.workload.threads-combined.out",
    "cachegrind/cachegrind.workload.out",
    "gperftools/workload.64le.prof",
    "pprof/go-heap.pb.gz",
    "pprof/hot-diff.pb.gz",
    "xray/fdr-v5-manybuf.xray",
    "cpuprofile/work.cpuprofile",
    "dcpi/medium.dcpi",
    "perf/threads.data",
};
}  // namespace

TEST(stored_model_answers_as_the_profile_in_every_layer) {
  for (const char* name : kSamples) {
    std::unique_ptr<Profile> p = read(name);
    std::unique_ptr<Profile> q = decodePpk(bytes(withOwnModel(*p)), kDefaultMaxPpkMessage);
    CHECK(q->storedModel() != nullptr);
    CHECK(equalIR(*p, *q));
    sameModels(*buildModel(*p, {}), *buildModel(*q, {}));
    // Without it (a .ppk of a small IR), the same figures from the IR.
    std::unique_ptr<Profile> r = decodePpk(bytes(encodePpk(*p, 3)), kDefaultMaxPpkMessage);
    CHECK(r->storedModel() == nullptr);
    sameModels(*buildModel(*r, {}), *buildModel(*q, {}));
  }
}

TEST(small_profiles_store_no_model_large_ones_do) {
  std::unique_ptr<Profile> p = read("callgrind/callgrind.workload.out");
  CHECK(p->flatSize() < kStoredModelMinIR);
  const std::string small = writeProfile(*p, FormatId::ppk, WriteOptions{});
  CHECK(decodePpk(bytes(small), kDefaultMaxPpkMessage)->storedModel() == nullptr);
  // The CLI's checks (tests/check_stored_model.py) write a large one.
}

// Sets `column` to `count` values of `encoding` in one chunk of the given bytes, as they are,
// to make damaged columns.
void rawColumn(ir::Column::Builder column, uint64_t count, std::initializer_list<uint8_t> data,
               ir::Column::Encoding encoding = ir::Column::Encoding::VARINT) {
  column.setCount(count);
  column.setEncoding(encoding);
  column.setChunkValues(kColumnChunkValues);
  const std::vector<capnp::byte> bytes(data);
  column.initChunks(1).set(0, capnp::Data::Reader(bytes.data(), bytes.size()));
}

TEST(another_builds_model_is_not_used) {
  std::unique_ptr<Profile> p = read("callgrind/callgrind.workload.out");
  const std::string other = handMade([](stored::Model::Builder m) {
    m.setComputedBy("profpack 0.0.9, layer 7");
    rawColumn(m.initFunctionName(), 1000, {1});  // never looked at
  });
  std::unique_ptr<Profile> q = decodePpk(bytes(withModel(*p, other)), kDefaultMaxPpkMessage);
  CHECK(q->storedModel() == nullptr);
  sameModels(*buildModel(*p, {}), *buildModel(*q, {}));
}

TEST(damaged_model_refused_with_offset) {
  using Encoding = ir::Column::Encoding;
  std::unique_ptr<Profile> p = read("callgrind/callgrind.workload.out");
  const std::string plain = encodePpk(*p, 3);
  const std::string at = "byte offset " + std::to_string(plain.size());
  auto undersized = [](stored::Model::Builder m) { rawColumn(m.initFunctionName(), 5, {0, 0}); };
  expectFail(withModel(*p, handMade(undersized)),
             "functionName: column declares more values than it has bytes");
  expectFail(withModel(*p, handMade([](stored::Model::Builder m) {
               m.initStrings(1).set(0, "");
               rawColumn(m.initFunctionName(), 2, {0, 4}, Encoding::ZIGZAG_DELTA);  // 0, then 2
             })),
             "functionName holds 2, not below 1");
  expectFail(withModel(*p, handMade([](stored::Model::Builder m) {
               m.initStrings(1).set(0, "");
               rawColumn(m.initFunctionName(), 1, {0});
               rawColumn(m.initFunctionFile(), 2, {0, 0});  // one file too many
             })),
             "functionFile holds 2 values, expected 1");
  expectFail(withModel(*p, handMade([](stored::Model::Builder m) {
               m.initStrings(1).set(0, "");
               rawColumn(m.initFunctionName(), 1, {0x80, 0x80});  // a varint that never ends
             })),
             "functionName: truncated or overlong varint");
  // Only the encodings the writer uses (a runs column holds up to 15 values a byte, which
  // would let a small frame ask for a large allocation), and only the counts the function
  // count gives.
  expectFail(withModel(*p, handMade([](stored::Model::Builder m) {
               m.initStrings(1).set(0, "");
               rawColumn(m.initFunctionName(), 1, {0});
               rawColumn(m.initFunctionFile(), 1, {0});
               rawColumn(m.initFunctionObject(), 1, {0});
               rawColumn(m.initFunctionLine(), 15, {0x0e}, Encoding::VARINT_RUNS);
             })),
             "functionLine uses an encoding a stored layer does not");
  expectFail(withModel(*p, handMade([](stored::Model::Builder m) {
               m.initStrings(1).set(0, "");
               m.initEventNames(1).set(0, 0);
               m.initEventLongNames(1).set(0, 0);
               rawColumn(m.initFunctionName(), 1, {0});
               rawColumn(m.initFunctionFile(), 1, {0});
               rawColumn(m.initFunctionObject(), 1, {0});
               rawColumn(m.initFunctionLine(), 1, {0});
               rawColumn(m.initSelf(), uint64_t{1} << 40, {0});
             })),
             "self holds 1099511627776 values, expected 1");
  expectFail(withModel(*p, handMade([](stored::Model::Builder m) {
               m.initEventNames(1).set(0, 3);
               m.initStrings(1).set(0, "");
             })),
             "an event names string 3 of 1");
  expectFail(withModel(*p, handMade([](stored::Model::Builder) {})) + "x", "(trailing data)");
  expectFail(withModel(*p, handMade(undersized)), at);
}

TEST(frames_after_the_ir) {
  std::unique_ptr<Profile> p = read("callgrind/callgrind.workload.out");
  const std::string plain = encodePpk(*p, 3);
  auto fix = [](std::string img) {  // bytes 24-31: everything after the header
    const uint64_t n = img.size() - kPpkHeaderSize;
    for (int i = 0; i < 8; ++i) img[24 + i] = static_cast<char>(n >> (8 * i));
    return img;
  };
  // Another skippable frame is skipped; anything else is refused, with its offset.
  std::string other = plain + std::string("\x50\x2a\x4d\x18\x03\x00\x00\x00xyz", 11);
  CHECK(decodePpk(bytes(fix(other)), kDefaultMaxPpkMessage)->storedModel() == nullptr);
  expectFail(fix(plain + std::string(8, '\0')), "not a skippable frame");
  expectFail(fix(plain + std::string("\x5b\x2a\x4d\x18\xff\x00\x00\x00", 8)), "file truncated");
  expectFail(fix(plain + "abc"), "truncated frame after the IR");
  const std::string whole = withOwnModel(*p);
  expectFail(fix(whole.substr(0, whole.size() - 1)), "");
}

TEST(a_model_stored_for_another_profile_is_refused_where_layers_meet) {
  // The stored layer answers the function queries as it is (a .ppk is profpack's own file,
  // its frames checksummed); a layer the profile's own source answers must index the same
  // functions, and says so where it does not.
  std::unique_ptr<Profile> a = read("callgrind/callgrind.workload.out");
  std::unique_ptr<Profile> b = read("callgrind/callgrind.workload.cachesim.out");
  const std::string mixed = withModel(*b, encodeStoredModel(*buildModel(*a, {}), *a));
  std::unique_ptr<Profile> q = decodePpk(bytes(mixed), kDefaultMaxPpkMessage);
  CHECK(q->storedModel() != nullptr);
  std::unique_ptr<Model> m = buildModel(*q, {});
  try {
    m->stacks();
  } catch (const Error& e) {
    CHECK_CONTAINS(e.what(), "the function layer stored beside the IR is not the IR's");
    return;
  }
  throw testlib::Failure{"a mismatched stored layer was used"};
}

TEST(other_models_of_the_profile_come_from_the_ir) {
  // A thread's model is not the stored one (which is the whole profile's).
  std::unique_ptr<Profile> p = read("callgrind/callgrind.workload.threads-combined.out");
  std::unique_ptr<Profile> q = decodePpk(bytes(withOwnModel(*p)), kDefaultMaxPpkMessage);
  ModelOptions o;
  o.thread = 1;
  sameModels(*buildModel(*p, o), *buildModel(*q, o));
}

TEST(the_ir_is_decompressed_when_a_query_first_needs_it) {
  std::unique_ptr<Profile> p = read("callgrind/callgrind.workload.out");
  const std::string whole = withOwnModel(*p);
  // A damaged IR behind an intact layer: the layer answers; the first use of the IR reports the
  // damage with the IR frame's offset, and so does every later one.
  std::string damaged = whole;
  const size_t irEnd = encodePpk(*p, 3).size();
  damaged[kPpkHeaderSize + (irEnd - kPpkHeaderSize) / 2] ^= 0x5a;
  std::unique_ptr<Profile> q = decodePpk(bytes(damaged), kDefaultMaxPpkMessage);
  CHECK(q->storedModel() != nullptr);
  CHECK_EQ(q->flatSize(), p->flatSize());
  CHECK(q->format() == ir::Format::CALLGRIND);
  std::unique_ptr<Model> m = buildModel(*q, {});
  std::unique_ptr<Model> want = buildModel(*p, {});
  CHECK_EQ(m->functions(), want->functions());
  for (size_t f = 0; f < want->functions(); ++f) CHECK_EQ(m->self(f, 0), want->self(f, 0));
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      q->root();
      throw testlib::Failure{"a damaged IR was read"};
    } catch (const Error& e) {
      CHECK_CONTAINS(e.what(), "byte offset 32");
      CHECK_CONTAINS(e.what(), "corrupt compressed data");
    }
  }
  // A layer whose record of the IR's root disagrees with the IR: refused when the IR is read,
  // naming the field.
  auto misdescribed = [&](auto edit, ir::Format format, bool isSigned, const char* message) {
    capnp::MallocMessageBuilder b;
    const std::string own = encodeStoredModel(*want, *p);
    kj::ArrayPtr<const capnp::word> in(reinterpret_cast<const capnp::word*>(own.data()),
                                       own.size() / sizeof(capnp::word));
    capnp::FlatArrayMessageReader r(in);
    b.setRoot(r.getRoot<stored::Model>());
    edit(b.getRoot<stored::Model>());
    const kj::Array<capnp::word> words = capnp::messageToFlatArray(b);
    const std::string layer(reinterpret_cast<const char*>(words.asBytes().begin()),
                            words.asBytes().size());
    std::unique_ptr<Profile> t = decodePpk(bytes(withModel(*p, layer)), kDefaultMaxPpkMessage);
    CHECK(t->format() == format);  // as the layer says, until the IR is read
    CHECK_EQ(t->signedCosts(), isSigned);
    try {
      t->root();
      throw testlib::Failure{"a layer that misdescribes its IR was used with it"};
    } catch (const Error& e) {
      CHECK_CONTAINS(e.what(), "byte offset 32");
      CHECK_CONTAINS(e.what(), message);
    }
  };
  misdescribed([](stored::Model::Builder m) { m.setSignedCosts(true); }, ir::Format::CALLGRIND,
               true, "describes another profile: signed costs 1 stored, 0 in the IR");
  misdescribed([](stored::Model::Builder m) { m.setIrFormat(ir::Format::CACHEGRIND); },
               ir::Format::CACHEGRIND, false,
               "describes another profile: format 1 stored, 2 in the IR");
  // Without a damaged part, the loaded IR is the profile's.
  std::unique_ptr<Profile> s = decodePpk(bytes(whole), kDefaultMaxPpkMessage);
  CHECK(equalIR(*p, *s));
}

TEST_MAIN()
