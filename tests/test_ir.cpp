// Columns and the string table: encodings, chunking, and rejection of corrupt data.
#include <capnp/message.h>

#include <random>

#include "error.h"
#include "ir/column.h"
#include "testlib.h"

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
  fails(c.asReader(), 2, "does not match its data");  // the data holds more than declared
  c.setCount(1u << 30);
  fails(c.asReader(), 0, "more values than it has bytes");
  c.setCount(3);
  c.setChunkValues(2);
  fails(c.asReader(), 3, "more values than its chunk size");
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

TEST_MAIN()
