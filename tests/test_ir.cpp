// Columns and the string table: encodings, chunking, and rejection of corrupt data.
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <random>
#include <string>

#include "error.h"
#include "formats/callgrind/costs.h"
#include "ir/adaptive.h"
#include "ir/column.h"
#include "profile.h"
#include "testlib.h"
#include "util/gzip.h"
#include "util/pairmap.h"
#include "util/text.h"

using namespace profpack;
using Enc = ir::Column::Encoding;

TEST(column_round_trip_both_encodings_across_chunks) {
  std::mt19937_64 rng(7);
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < kColumnChunkValues * 2 + 17; ++i)
    v.push_back(i % 5 == 0 ? rng() : i * 3);
  v.push_back(0);
  v.push_back(~uint64_t{0});
  for (Enc e : {Enc::VARINT, Enc::ZIGZAG_DELTA}) {
    capnp::MallocMessageBuilder m;
    auto c = m.initRoot<ir::Column>();
    encodeColumn(c, v, e);
    CHECK_EQ(c.getChunks().size(), 3u);
    CHECK_EQ(c.getCount(), v.size());
    CHECK(decodeColumn(c.asReader()) == v);
  }
}

TEST(column_rejects_count_mismatch_and_truncated_varint) {
  capnp::MallocMessageBuilder m;
  auto c = m.initRoot<ir::Column>();
  std::vector<uint64_t> v{1, 300, 5};
  encodeColumn(c, v);
  c.setCount(4);
  bool threw = false;
  try {
    decodeColumn(c.asReader());
  } catch (const Error&) {
    threw = true;
  }
  CHECK(threw);
  c.setCount(1u << 30);  // more values than bytes: refused before allocating
  threw = false;
  try {
    decodeColumn(c.asReader());
  } catch (const Error& e) {
    threw = true;
    CHECK_CONTAINS(e.what(), "more values than it has bytes");
  }
  CHECK(threw);
  auto chunks = c.initChunks(1);
  const kj::byte bad[] = {0x80, 0x80};
  chunks.set(0, kj::ArrayPtr<const kj::byte>(bad, 2));
  c.setCount(1);
  threw = false;
  try {
    decodeColumn(c.asReader());
  } catch (const Error& e) {
    threw = true;
    CHECK_CONTAINS(e.what(), "truncated or overlong varint");
  }
  CHECK(threw);
}

// The cursor must give exactly what decodeColumn gives, for every encoding, whatever batch
// sizes it is read in (runs split across reads, chunk boundaries inside a batch).
TEST(column_cursor_matches_decode_in_any_batches) {
  std::mt19937_64 rng(11);
  std::vector<uint64_t> v;
  while (v.size() < kColumnChunkValues + 5000) {  // runs of 1..40 equal values and strides
    const uint64_t x = rng() % 7 == 0 ? rng() : rng() % 300, len = 1 + rng() % 40;
    const bool stride = rng() % 3 == 0;
    for (uint64_t i = 0; i < len; ++i) v.push_back(stride ? x + 5 * i : x);
  }
  v.push_back(uint64_t{1} << 62);  // a value the run encodings store with an escape
  for (Enc e : {Enc::VARINT, Enc::ZIGZAG_DELTA, Enc::VARINT_RUNS, Enc::ZIGZAG_DELTA_RUNS}) {
    capnp::MallocMessageBuilder m;
    auto c = m.initRoot<ir::Column>();
    encodeColumn(c, v, e);
    CHECK(decodeColumn(c.asReader()) == v);
    for (size_t maxBatch : {1, 3, 16, 17, 4096}) {
      ColumnCursor cur(c.asReader());
      std::vector<uint64_t> got, buf(maxBatch);
      while (cur.remaining() > 0) {
        const size_t n = std::min<uint64_t>(cur.remaining(), 1 + rng() % maxBatch);
        cur.read(buf.data(), n);
        got.insert(got.end(), buf.begin(), buf.begin() + static_cast<long>(n));
      }
      cur.finish();
      CHECK(got == v);
    }
  }
}

TEST(column_cursor_rejects_what_decode_rejects) {
  auto fails = [](ir::Column::Reader c, size_t read, const char* what) {
    try {
      ColumnCursor cur(c);
      std::vector<uint64_t> buf(read);
      cur.read(buf.data(), read);
      cur.finish();
    } catch (const Error& e) {
      CHECK_CONTAINS(e.what(), what);
      return;
    }
    CHECK(!"no error");
  };
  capnp::MallocMessageBuilder m;
  auto c = m.initRoot<ir::Column>();
  encodeColumn(c, std::vector<uint64_t>{1, 300, 5}, Enc::VARINT_RUNS);
  fails(c.asReader(), 4, "fewer values");  // asks for more than the column declares
  c.setCount(4);
  fails(c.asReader(), 4, "does not match its data");  // declares more than the data holds
  c.setCount(2);
  fails(c.asReader(), 2, "more values than it declares");  // the data holds more than that
  c.setCount(1u << 30);
  fails(c.asReader(), 0, "more values than it has bytes");
  c.setCount(3);
  c.setChunkValues(2);
  fails(c.asReader(), 3, "more values than its chunk size");
}

TEST(adaptive_column_round_trips_every_bit_length) {
  std::mt19937_64 rng(5);
  std::vector<uint64_t> v{0, 1, 2, 3, ~uint64_t{0}, ~uint64_t{0} - 1, uint64_t{1} << 63};
  for (unsigned k = 1; k < 64; ++k) {
    v.push_back((uint64_t{1} << k) - 1);
    v.push_back(uint64_t{1} << k);
    v.push_back((uint64_t{1} << k) + 1);
  }
  for (int i = 0; i < 20000; ++i) v.push_back(rng() >> (rng() % 64));  // every width, mixed
  for (int i = 0; i < 30000; ++i) v.push_back(0);                      // settles to cheap decisions
  capnp::MallocMessageBuilder m;
  auto c = m.initRoot<ir::Column>();
  encodeColumn(c, v, Enc::ADAPTIVE);
  CHECK(c.getEncoding() == Enc::ADAPTIVE);
  CHECK_EQ(c.getChunks().size(), 1u);
  // The zeros cost far less than a byte each, but a chunk never holds more than 32 values a
  // byte: the padding keeps a decoder's work bounded by its input.
  CHECK(c.getChunks()[0].size() >= v.size() / kAdaptiveValuesPerByte);
  CHECK(decodeColumn(c.asReader()) == v);
  ColumnCursor cur(c.asReader());
  std::vector<uint64_t> got(v.size());
  for (size_t at = 0; at < v.size();) {
    const size_t n = std::min<size_t>(v.size() - at, 1 + rng() % 700);
    cur.read(got.data() + at, n);
    at += n;
  }
  cur.finish();
  CHECK(got == v);
  // Empty.
  encodeColumn(c, std::vector<uint64_t>{}, Enc::ADAPTIVE);
  CHECK(decodeColumn(c.asReader()).empty());
}

TEST(adaptive_column_chunks_and_size_limit) {
  // Chunks of 3 values, each its own stream (written by hand: the writer's chunks are 2^20).
  const std::vector<uint64_t> v{7, 0, 900, 5, 5, 1u << 20, 42};
  capnp::MallocMessageBuilder m;
  auto c = m.initRoot<ir::Column>();
  c.setEncoding(Enc::ADAPTIVE);
  c.setCount(v.size());
  c.setChunkValues(3);
  auto chunks = c.initChunks(3);
  for (unsigned i = 0; i < 3; ++i) {
    std::vector<uint8_t> bytes;
    const size_t from = 3 * i, to = std::min<size_t>(v.size(), from + 3);
    encodeAdaptive(v.data() + from, to - from, bytes);
    chunks.set(i, kj::ArrayPtr<const kj::byte>(bytes.data(), bytes.size()));
  }
  CHECK(decodeColumn(c.asReader()) == v);
  // A column too long to pay for the coder stays varint-coded.
  std::vector<uint64_t> many(kAdaptiveMaxValues + 1, 3);
  encodeColumn(c, many, Enc::ADAPTIVE);
  CHECK(c.getEncoding() == Enc::VARINT);
  CHECK(decodeColumn(c.asReader()) == many);
}

TEST(adaptive_column_rejects_corrupt_data) {
  std::mt19937_64 rng(9);
  std::vector<uint64_t> v;
  for (int i = 0; i < 5000; ++i) v.push_back(rng() % 100000);
  capnp::MallocMessageBuilder m;
  auto c = m.initRoot<ir::Column>();
  encodeColumn(c, v, Enc::ADAPTIVE);
  const std::vector<uint8_t> good(c.getChunks()[0].begin(), c.getChunks()[0].end());
  auto decodeWith = [&](std::vector<uint8_t> bytes, uint64_t count) -> std::string {
    c.setCount(count);
    c.initChunks(1).set(0, kj::ArrayPtr<const kj::byte>(bytes.data(), bytes.size()));
    try {
      decodeColumn(c.asReader());
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  CHECK_EQ(decodeWith(good, v.size()), std::string());
  // Cut short: the stream runs out before the values do.
  std::vector<uint8_t> cut(good.begin(), good.end() - 3);
  CHECK_CONTAINS(decodeWith(cut, v.size()), "ends before its values do");
  // More values than 32 a byte, or than any writer codes adaptively: refused before decoding.
  const std::vector<uint8_t> ten(good.begin(), good.begin() + 10);
  CHECK_CONTAINS(decodeWith(ten, 10 * kAdaptiveValuesPerByte + 1), "more values than it has bytes");
  CHECK_CONTAINS(decodeWith(good, kAdaptiveMaxValues + 1), "adaptive column of more than 65536");
  // Arbitrary bytes decode to some values or fail cleanly (a bit length over 64, or too
  // short), never anything else.
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> junk(1 + rng() % 64);
    for (auto& b : junk) b = static_cast<uint8_t>(rng());
    const std::string e = decodeWith(junk, rng() % (junk.size() * kAdaptiveValuesPerByte + 1));
    if (!e.empty() && e.find("adaptive column chunk") == std::string::npos &&
        e.find("more values than it declares") == std::string::npos)  // count 0
      throw testlib::Failure{"unexpected error: " + e};
  }
  // All ones: every bit of the length is 1, i.e. 127 > 64.
  CHECK_CONTAINS(decodeWith(std::vector<uint8_t>(16, 0xff), 1), "adaptive column chunk");
}

// Rows of every kind with values the predictions of CostTable.predicted get wrong on purpose
// (counts far from any cost, taken counts above the executed count, 2^64 - 1, calls to the
// same target from elsewhere): the residuals must give back every value exactly, through both
// decoders.
TEST(cost_table_predictions_are_lossless) {
  std::mt19937_64 rng(5);
  auto pick = [&]() -> uint64_t {
    switch (rng() % 6) {
      case 0: return 0;
      case 1: return ~uint64_t{0};
      case 2: return rng();
      default: return rng() % 50;
    }
  };
  struct Row {
    ir::RecordKind kind;
    uint64_t context;
    std::vector<uint64_t> pos, costs, tpos;
    uint64_t target = 0, count = 0, jumped = 0;
  };
  const size_t contexts = 7, events = 3, npos = 2;
  std::vector<Row> rows;
  CostTableBuilder b(npos);
  for (int i = 0; i < 20000; ++i) {
    Row r;
    r.kind = static_cast<ir::RecordKind>(rng() % 4);
    r.context = rng() % contexts;
    r.pos = {pick(), pick()};
    for (uint64_t n = rng() % (events + 1); n > 0; --n) r.costs.push_back(pick());
    if (r.kind != ir::RecordKind::COST) {
      r.target = rng() % contexts;
      r.tpos = {pick(), pick()};
      r.count = pick();
      if (r.kind == ir::RecordKind::COND_JUMP) r.jumped = rng() % 2 ? pick() : r.count - rng() % 3;
    }
    b.row(r.kind, r.context, 0, r.pos.data(), r.costs.data(), r.costs.size(), r.target,
          r.tpos.data(), r.count, r.jumped);
    rows.push_back(std::move(r));
  }
  capnp::MallocMessageBuilder m;
  auto t = m.initRoot<ir::CostTable>();
  std::vector<uint64_t> remap{0};
  b.build(t, remap);
  CHECK(t.getPredicted());
  DecodedCosts d(t.asReader(), npos, events, contexts);
  size_t ci = 0, a = 0, j = 0;
  bool same = true;
  for (size_t r = 0; r < rows.size(); ++r) {
    const Row& w = rows[r];
    same = same && d.kind[r] == static_cast<uint64_t>(w.kind) && d.context[r] == w.context &&
           d.positions[0][r] == w.pos[0] && d.positions[1][r] == w.pos[1] &&
           d.costCount[r] == w.costs.size();
    for (uint64_t c : w.costs) same = same && d.costs[ci++] == c;
    if (w.kind == ir::RecordKind::COST) continue;
    same = same && d.target[a] == w.target && d.count[a] == w.count &&
           d.targetPositions[0][a] == w.tpos[0] && d.targetPositions[1][a] == w.tpos[1];
    ++a;
    if (w.kind == ir::RecordKind::COND_JUMP) same = same && d.jumped[j++] == w.jumped;
  }
  CHECK(same);
  CostTableBatches batches(t.asReader(), npos, events, contexts);
  std::vector<uint64_t> costCount, target, count;
  while (batches.next()) {
    costCount.insert(costCount.end(), batches.costCount.begin(),
                     batches.costCount.begin() + static_cast<long>(batches.rows));
    target.insert(target.end(), batches.target.begin(), batches.target.end());
    count.insert(count.end(), batches.count.begin(), batches.count.end());
  }
  CHECK(costCount == d.costCount);
  CHECK(target == d.target);
  CHECK(count == d.count);
  // And in batches with positions, as the writers read them.
  CostTableBatches full(t.asReader(), npos, events, contexts, /*withPositions=*/true);
  std::vector<std::vector<uint64_t>> pos(npos), tpos(npos);
  std::vector<uint64_t> jumped;
  while (full.next()) {
    for (size_t k = 0; k < npos; ++k) {
      pos[k].insert(pos[k].end(), full.positions[k].begin(),
                    full.positions[k].begin() + static_cast<long>(full.rows));
      tpos[k].insert(tpos[k].end(), full.targetPositions[k].begin(), full.targetPositions[k].end());
    }
    jumped.insert(jumped.end(), full.jumped.begin(), full.jumped.end());
  }
  CHECK(pos == d.positions);
  CHECK(tpos == d.targetPositions);
  CHECK(jumped == d.jumped);
}

// Encoding on the worker thread (from the first row, or from a later one, with a finish() in
// between as a reader does at a part boundary) gives the same columns as encoding inline,
// also with rows of more costs than a batch holds. Under ThreadSanitizer (build-tsan) this
// also checks the hand-over between the two threads.
TEST(cost_table_worker_thread_gives_the_same_columns) {
  std::mt19937_64 rng(11);
  const size_t npos = 3, rows = 40000;
  auto build = [&](uint64_t threadFrom, bool finishMidway) {
    rng.seed(11);
    CostTableBuilder b(npos, threadFrom);
    std::vector<uint64_t> costs;
    for (size_t i = 0; i < rows; ++i) {
      const auto kind = static_cast<ir::RecordKind>(rng() % 4);
      uint64_t pos[3] = {rng() % 100, rng(), rng() % 7}, tpos[3] = {rng() % 9, 1, rng()};
      costs.assign(i % 9973 == 5 ? 20000 : rng() % 4, 0);
      for (uint64_t& c : costs) c = rng() % 1000;
      b.row(kind, rng() % 50, rng() % 3, pos, costs.data(), costs.size(), rng() % 50, tpos,
            rng() % 100, rng() % 100);
      if (finishMidway && i == rows / 2) b.finish();
    }
    CHECK_EQ(b.rows(), uint64_t{rows});
    capnp::MallocMessageBuilder m;
    b.build(m.initRoot<ir::CostTable>(), std::vector<uint64_t>{0, 1, 2});
    auto words = capnp::messageToFlatArray(m);
    return std::string(reinterpret_cast<const char*>(words.begin()), words.asBytes().size());
  };
  const std::string inline_ = build(UINT64_MAX, false);
  CHECK(build(0, false) == inline_);
  CHECK(build(5000, true) == inline_);
  CHECK(build(0, true) == inline_);
}

// The call-target prediction state is hashed by context: a call to context 2^40 costs one
// entry, not a vector of 2^40 (each part has its own state, so that would also have made many
// parts calling a high-numbered context quadratic).
TEST(last_call_targets_are_sparse) {
  LastCallTargets t;
  const uint64_t far = uint64_t{1} << 40, pos[3] = {7, 8, 9}, again[3] = {1, 2, 3};
  CHECK(t.find(far) == nullptr);
  t.record(far, pos, 3);
  t.record(5, again, 2);
  CHECK(t.find(far) != nullptr && t.find(far)[0] == 7 && t.find(far)[2] == 9);
  CHECK(t.find(5)[1] == 2);
  CHECK(t.find(6) == nullptr);
  t.record(far, again, 3);
  CHECK_EQ(t.find(far)[0], uint64_t{1});
}

// The interner's own hash table (growing past its first size, rebuilt after a sort) and the
// sort's 8-byte keys (strings that share them, differ only after a NUL, or are shorter).
TEST(strings_intern_and_sort_many) {
  StringInterner in;
  std::vector<std::string> all;
  for (int i = 0; i < 5000; ++i)
    all.push_back(i % 3 ? "std::__cxx11::basic_string<" + std::to_string(i * 7919 % 5000)
                        : std::string("ns::f") + std::to_string(i));
  all.push_back(std::string("ab\0c", 4));
  all.push_back(std::string("ab\0", 3));
  all.push_back("ab");
  std::vector<uint64_t> ids;
  for (const std::string& x : all) ids.push_back(in.intern(x));
  for (size_t i = 0; i < all.size(); ++i) CHECK_EQ(in.intern(all[i]), ids[i]);
  std::vector<bool> used(in.size(), true);
  auto remap = in.sortAndCompact(used);
  std::vector<std::string> sorted(all);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  CHECK_EQ(in.size(), sorted.size() + 1);
  bool inOrder = true;
  for (size_t i = 0; i < sorted.size(); ++i) inOrder = inOrder && in.get(i + 1) == sorted[i];
  CHECK(inOrder);
  for (size_t i = 0; i < all.size(); ++i) CHECK_EQ(in.intern(all[i]), remap[ids[i]]);
  CHECK_EQ(in.intern("new after sort"), sorted.size() + 1);
}

TEST(strings_sorted_compacted_and_read_back) {
  StringInterner in;
  uint64_t z = in.intern("zeta"), a = in.intern("alpha"), u = in.intern("unused"),
           e = in.intern("");
  CHECK_EQ(in.intern("zeta"), z);
  std::vector<bool> used(in.size(), false);
  used[z] = used[a] = used[e] = true;
  auto remap = in.sortAndCompact(used);
  CHECK_EQ(remap[u], 0u);
  capnp::MallocMessageBuilder m;
  auto t = m.initRoot<ir::StringTable>();
  in.build(t);
  StringTableReader r(t.asReader());
  CHECK_EQ(r.size(), 4u);  // none, "", alpha, zeta
  CHECK(r.get(remap[a]) == "alpha");
  CHECK(r.get(remap[z]) == "zeta");
  CHECK(r.get(remap[e]).empty());
  CHECK(remap[e] < remap[a] && remap[a] < remap[z]);
  bool threw = false;
  try {
    r.get(99);
  } catch (const Error&) {
    threw = true;
  }
  CHECK(threw);
}

namespace {
// The whole gzip member `gz` inflated by zlib; fails the test if zlib finds it damaged.
std::string gunzip(const std::string& gz) {
  z_stream z{};
  CHECK(inflateInit2(&z, 15 + 16) == Z_OK);
  std::string out;
  char buf[1 << 16];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  } while (rc == Z_OK);
  const uLong used = z.total_in;
  inflateEnd(&z);
  CHECK_EQ(rc, Z_STREAM_END);
  CHECK_EQ(used, gz.size());  // one member, nothing after it
  return out;
}
}  // namespace

// Chunks compressed side by side make one gzip member that zlib inflates back (CRC-32 and
// length checked by zlib), the same bytes for any number of threads, and not much larger than
// one stream.
TEST(gzip_chunks_inflate_to_the_input_with_any_thread_count) {
  std::mt19937_64 rng(11);
  std::string in;
  // Varint-like bytes with repeats, as profile.proto is: 5 chunks and a part.
  while (in.size() < 5 * kGzipChunk + 12345) {
    uint64_t v = rng() % 4096;
    if (rng() % 4 == 0) {
      size_t back = 1 + rng() % std::min<size_t>(in.size() + 1, 40000);
      if (back <= in.size()) in.append(in, in.size() - back, std::min<size_t>(back, 64));
    }
    while (v >= 0x80) {
      in.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    in.push_back(static_cast<char>(v));
  }
  const std::string one = gzipCompress(in, 4, 1);
  CHECK(gunzip(one) == in);
  for (unsigned threads : {2u, 3u, 8u, 0u}) CHECK(gzipCompress(in, 4, threads) == one);
  // As one stream (a single chunk's path) for comparison: within 12% of it (11.2%). Each chunk
  // is compressed on its own, without the window of the chunk before it, and these repeats reach
  // back up to 40,000 bytes, most of the data: a profile.proto's reach back less (a 5 MB one of
  // a gperftools profile came out 0.4% larger than as one stream).
  libdeflate_compressor* c = libdeflate_alloc_compressor(4);
  CHECK(c != nullptr);
  std::string whole(libdeflate_gzip_compress_bound(c, in.size()), '\0');
  const size_t wholeSize =
      libdeflate_gzip_compress(c, in.data(), in.size(), whole.data(), whole.size());
  libdeflate_free_compressor(c);
  CHECK(wholeSize > 0);
  CHECK(one.size() < wholeSize * 112 / 100);
  // A small input is one stream; the empty input too.
  const std::string small = in.substr(0, 1000);
  CHECK(gunzip(gzipCompress(small, 4)) == small);
  CHECK(gunzip(gzipCompress("", 4)).empty());
  // An input of exactly two chunks, and one byte more.
  for (size_t n : {2 * kGzipChunk, 2 * kGzipChunk + 1}) {
    const std::string part = in.substr(0, n);
    CHECK(gunzip(gzipCompress(part, 6, 2)) == part);
  }
  // Chunks whose blocks end anywhere in their last byte, or on its end (stored blocks of
  // random bytes), at each level: each made not final and byte-aligned joins the next.
  std::string noise(3 * kGzipChunk + 99, '\0');
  for (char& ch : noise) ch = static_cast<char>(rng());
  const std::string zeros(3 * kGzipChunk + 5, '\0');
  std::string mixed;
  for (size_t k = 0; mixed.size() < 4 * kGzipChunk; ++k)
    mixed += k % 3 == 0 ? noise.substr(k * 101 % kGzipChunk, 3000 + k % 17) : in.substr(k, 5000);
  for (const std::string* data : std::initializer_list<const std::string*>{&noise, &zeros, &mixed})
    for (int level : {1, 6, 12}) CHECK(gunzip(gzipCompress(*data, level)) == *data);
  // Given piece by piece (empty pieces, single bytes, pieces ending on a chunk's end or
  // spanning several chunks), with helpers compressing while pieces arrive: the same bytes.
  for (unsigned threads : {1u, 2u, 0u}) {
    GzipStream gz(4, threads);
    size_t at = 0;
    for (size_t i = 0; at < in.size(); ++i) {
      const size_t n = i % 7 == 0   ? 0
                       : i % 7 == 1 ? 1
                       : i % 7 == 2 ? kGzipChunk - at % kGzipChunk
                       : i % 7 == 3 ? 2 * kGzipChunk + 17
                                    : rng() % 5000;
      gz.append(std::string_view(in).substr(at, n));
      at = std::min(in.size(), at + n);
    }
    CHECK(gz.finish() == one);
  }
}

// A deferred part is built once. A build that fails part-way is not tried again (it may have
// used up what the part held): every later root() throws the same error.
TEST(deferred_part_built_once_and_failure_sticks) {
  struct Part : profpack::Profile::Deferred {
    int* calls;
    bool fail;
    Part(int* c, bool f) : calls(c), fail(f) {}
    std::unique_ptr<capnp::MallocMessageBuilder> build(
        profpack::ir::Profile::Reader partial) override {
      ++*calls;
      auto message = profpack::newMessage();
      auto whole = message->getRoot<profpack::ir::Profile>();
      whole.setFormat(partial.getFormat());
      if (fail) throw profpack::Error(profpack::Status::noMemory, "", "out of memory halfway");
      whole.setFormatVersion("built");
      return message;
    }
  };
  for (bool fail : {false, true}) {
    int calls = 0;
    auto partial = profpack::newMessage();
    partial->getRoot<profpack::ir::Profile>().setFormat(profpack::ir::Format::GPERFTOOLS);
    profpack::Profile p(std::move(partial), std::make_unique<Part>(&calls, fail));
    CHECK(p.partialRoot().getFormat() == profpack::ir::Format::GPERFTOOLS);
    CHECK(!p.partialRoot().hasFormatVersion());
    CHECK_EQ(calls, 0);
    for (int k = 0; k < 3; ++k) {
      if (!fail) {
        CHECK(std::string(p.root().getFormatVersion().cStr()) == "built");
        CHECK(p.root().getFormat() == profpack::ir::Format::GPERFTOOLS);
        continue;
      }
      bool threw = false;
      try {
        p.root();
      } catch (const profpack::Error& e) {
        threw = std::string(e.what()).find("out of memory halfway") != std::string::npos;
      }
      CHECK(threw);
    }
    CHECK_EQ(calls, 1);
    CHECK(!p.partialRoot().hasFormatVersion());  // the partial message is never changed
  }
}

// PairMap's slots take every bit of both keys: addresses a file chose to share their low bits
// (call chains at multiples of 2^45) spread over a table as random keys do, under the process's
// seed and under another, and every pair keeps its value.
TEST(pair_map_spreads_keys_that_differ_only_in_high_bits) {
  constexpr uint64_t kKeys = 1 << 15, kSlots = 1 << 16;
  for (const uint64_t seed : {PairMap::seed(), uint64_t{0}, uint64_t{0x5eed}}) {
    std::vector<bool> hit(kSlots, false);
    size_t distinct = 0;
    for (uint64_t x = 1; x <= kKeys; ++x) {
      const uint64_t slot = PairMap::mix(x << 45, 0, seed) & (kSlots - 1);
      distinct += !hit[slot];
      hit[slot] = true;
    }
    // Random keys: kSlots * (1 - e^(-1/2)) = 25,786 slots on average.
    CHECK(distinct > 24000);
  }
  PairMap m;
  bool inserted = false;
  for (uint64_t x = 1; x <= kKeys; ++x) {
    CHECK_EQ(m.findOrInsert(x << 45, x & 1, x, inserted), x);
    CHECK(inserted);
  }
  for (uint64_t x = 1; x <= kKeys; ++x) {
    const uint64_t* v = m.find(x << 45, x & 1);
    CHECK(v != nullptr && *v == x);
    CHECK(m.find(x << 45, (x & 1) ^ 1) == nullptr);
  }
  CHECK_EQ(m.size(), size_t{kKeys});
}

// The 32-bit map keeps 32-bit keys and values whole (no truncation through 64-bit slots'
// arithmetic) and finds every pair after its table has grown many times.
TEST(pair_map_32_keeps_full_keys_and_values) {
  PairMap32 m;
  bool inserted = false;
  constexpr uint32_t kKeys = 100000;
  for (uint32_t x = 0; x < kKeys; ++x) {
    const uint32_t a = 0xFFFFFFFFu - x, b = x * 2654435761u, v = 0x80000000u | x;
    CHECK_EQ(m.findOrInsert(a, b, v, inserted), v);
    CHECK(inserted);
    CHECK_EQ(m.findOrInsert(a, b, 0, inserted), v);
    CHECK(!inserted);
  }
  CHECK_EQ(m.size(), size_t{kKeys});
  for (uint32_t x = 0; x < kKeys; ++x) {
    const uint32_t* v = m.find(0xFFFFFFFFu - x, x * 2654435761u);
    CHECK(v != nullptr && *v == (0x80000000u | x));
    CHECK(m.find(0xFFFFFFFFu - x, x * 2654435761u + 1) == nullptr);  // each a has one b
  }
}

// The cache gives what demangle() gives, computes it once per string (the same reference back),
// and keys by the string's address: two copies of one name are two entries, each right.
TEST(demangle_cache_matches_demangle_once_per_string) {
  DemangleCache cache;
  const char* name = "_ZN3foo3barERKSt6vectorIiSaIiEE";
  CHECK_EQ(demangle(name), std::string("foo::bar(std::vector<int, std::allocator<int> > const&)"));
  const std::string& first = cache(name);
  CHECK_EQ(first, demangle(name));
  CHECK(&cache(name) == &first);
  char copy[] = "_ZN3foo3bazEi";
  CHECK_EQ(cache(copy), std::string("foo::baz(int)"));
  char other[] = "_ZN3foo3bazEi";
  CHECK_EQ(cache(other), std::string("foo::baz(int)"));
  CHECK(&cache(other) != &cache(copy));
  CHECK_EQ(cache("main"), std::string("main"));  // not a C++ name: unchanged
}

TEST_MAIN()
