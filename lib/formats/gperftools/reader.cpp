// gperftools CPU profile (specs/gperftools-cpuprofile-fileformat.adoc).
//
//   file    ::= header record* trailer maps_text
//   header  ::= 0 nwords slot[nwords]         (slot[0] = version 0, slot[1] = period in us)
//   record  ::= count num_pcs pc[num_pcs]
//   trailer ::= 0 1 0
//
// Slots are 4 or 8 bytes in either byte order; both are detected from the header. Kept in the
// IR: every header slot, every record (repeated chains stay separate records) in file order,
// except that the profiler's final table dump is stored sorted by chain with what restores its
// order, the trailer and the mapped-objects text byte for byte. Call chains are stored once in
// a prefix tree (outermost frame nearest the root); a record names the node of its innermost
// PC.

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "error.h"
#include "formats/gperftools/gperftools.h"
#include "formats/gperftools/node_table.h"
#include "formats/gperftools/record_walk.h"
#include "formats/gperftools/storage.h"
#include "util/pages.h"
#include "util/pairmap.h"
#include "util/text.h"

namespace profpack {

using gperf::AddressColumn;
using gperf::Body;
using gperf::chainHash;
using gperf::kTailMax;
using gperf::kThreadFrom;
using gperf::load;
using gperf::loadSlot;
using gperf::NodeTable;
using gperf::RecordWalk;
using gperf::suffixHashes;
using gperf::TableHash;
using gperf::TreeNodes;
using gperf::Walked;

namespace {

constexpr const char* kFmt = "gperftools";
constexpr size_t kMaxData = (size_t{1} << 29) - 1;  // Cap'n Proto Data / List size limit

// The records that end a file in nondecreasing bucket order (at most kTailMax, the 1024 x 4
// entries of the profiler's table) and their buckets; none if there are fewer than 2.
struct Tail {
  std::vector<uint64_t> offset;  // of each record, in file order
  std::vector<uint32_t> bucket;
};

// The tail among the last records of a file, `last` (their offsets in file order).
template <unsigned W, bool BE>
Tail tailOf(const uint8_t* base, std::vector<uint64_t> last) {
  Tail t;
  t.offset = std::move(last);
  for (const uint64_t at : t.offset) {
    const uint64_t n = load<W, BE>(base + at + W);
    TableHash h(W);
    for (uint64_t k = 0; k < n; ++k) h.add(load<W, BE>(base + at + (2 + k) * W));
    t.bucket.push_back(h.bucket());
  }
  size_t start = t.bucket.size();
  while (start > 0 && (start == t.bucket.size() || t.bucket[start - 1] <= t.bucket[start])) --start;
  if (t.bucket.size() - start < 2) return {};
  t.offset.erase(t.offset.begin(), t.offset.begin() + static_cast<ptrdiff_t>(start));
  t.bucket.erase(t.bucket.begin(), t.bucket.begin() + static_cast<ptrdiff_t>(start));
  return t;
}

// For a tail added in `order` (order[j] = the file index of the j-th record added): per run of
// one bucket, the rank of each of the file's records among the run's records not yet placed,
// in added order, but the last (see tailRanks in profile.capnp).
void tailRanks(const std::vector<uint32_t>& bucket, const std::vector<uint32_t>& order,
               ColumnWriter& out) {
  std::vector<uint32_t> addedAt(order.size());
  for (size_t j = 0; j < order.size(); ++j) addedAt[order[j]] = static_cast<uint32_t>(j);
  std::vector<uint32_t> left;
  for (size_t s = 0, e; s < bucket.size(); s = e) {
    for (e = s + 1; e < bucket.size() && bucket[e] == bucket[s];) ++e;
    left.clear();
    for (size_t f = s; f < e; ++f) left.push_back(static_cast<uint32_t>(f));
    std::sort(left.begin(), left.end(),
              [&](uint32_t a, uint32_t b) { return addedAt[a] < addedAt[b]; });
    for (size_t f = s; f + 1 < e; ++f) {
      const auto it = std::find(left.begin(), left.end(), static_cast<uint32_t>(f));
      out.push(static_cast<uint64_t>(it - left.begin()));
      left.erase(it);
    }
  }
}

// Parses the records from byte offset `pos` up to and including the trailer.
//
// Records come from the walk (RecordWalk) checked and hashed, and are added to the tree kTailMax
// records behind it: at the trailer the last kTailMax are still waiting, and those gperftools
// wrote from its table at the end can be added sorted by chain (like chains together: a
// smaller tree column).
//
// Most records repeat a chain seen before, and then the cost is two cache misses: the table
// slot and the nodes of the chain it is compared with. kAhead records in front of the adding,
// the record's slot is prefetched, and kAhead/2 records in front the node that slot points to,
// so those misses overlap.
//
// `nodes` receives every node of the tree (see NodeTable::takeNodes).
template <unsigned W, bool BE>
void parseRecords(std::span<const uint8_t> data, size_t pos, Body& body, TreeNodes& nodes) {
  const uint8_t* base = data.data();
  const size_t size = data.size();
  NodeTable<W, BE> table;
  std::vector<uint64_t> hashes(64);
  std::vector<size_t> at(64);

  constexpr size_t kAhead = 16;
  std::vector<Walked> waiting(kTailMax);  // records [done, walked), by index
  uint64_t walked = 0, done = 0;

  // Adds the record at `recordAt` (`count`; num_pcs `n`, checked; chain hash `h0`, and `h1`
  // that of the chain without its leaf where n >= 2): its chain to the tree, then the record.
  auto insert = [&](uint64_t recordAt, uint64_t count, uint64_t n, uint64_t h0, uint64_t h1) {
    table.reserve(n);  // no growth below, so the insert positions found stay valid
    const uint64_t pcsAt = recordAt + 2 * W;
    const uint8_t* pcs = base + pcsAt;
    size_t at0 = 0;
    uint32_t node = table.find(h0, pcs, static_cast<uint32_t>(n), at0);
    uint32_t added = 0, parent = 0;  // the nodes it adds, below which node
    if (node == 0) {
      // A new chain: find the longest suffix already in the tree (j == n: none, the root)
      // and add the missing inner nodes, outermost first.
      if (n > hashes.size()) {  // n is bounded by the bytes left, checked above
        hashes.resize(n);
        at.resize(n);
      }
      at[0] = at0;
      hashes[0] = h0;
      size_t j = 1;
      // Most new chains are a known one with another leaf: their caller's chain, whose hash the
      // walk made, is found first, and the other suffixes are hashed only where it is not.
      if (n >= 2) {
        hashes[1] = h1;
        node = table.find(h1, pcs + W, static_cast<uint32_t>(n - 1), at[1]);
      }
      if (node == 0 && n >= 2) {
        suffixHashes<W, BE>(pcs, n, hashes.data());
        j = 2;
        for (size_t k = 2; k < n && k < 6; ++k) table.prefetch(hashes[k]);
        for (; j < n; ++j) {
          node = table.find(hashes[j], pcs + j * W, static_cast<uint32_t>(n - j), at[j]);
          if (node) break;
          if (j + 4 < n) table.prefetch(hashes[j + 4]);
        }
      }
      if (table.nodes() > UINT32_MAX - j)
        throw Error(Status::limit, kFmt, "more than 2^32 call-chain nodes", recordAt);
      added = static_cast<uint32_t>(j);  // j <= n, and n * W < 2^32
      parent = node;
      while (j-- > 0) {
        const uint32_t child =
            table.insert(at[j], hashes[j], pcs + j * W, static_cast<uint32_t>(n - j), node);
        body.addNode(node, load<W, BE>(pcs + j * W));
        node = child;
      }
    }
    body.addRecord(count, node, added, parent);
  };

  PageReleaser releaser(base, size);
  // Adds the oldest waiting record.
  auto addNext = [&] {
    if (done + kAhead < walked) {
      const Walked& a = waiting[(done + kAhead) % kTailMax];
      table.prefetch(a.hash);
      if (a.callerHash) table.prefetch(a.callerHash);
    }
    if (done + kAhead / 2 < walked) {
      const Walked& a = waiting[(done + kAhead / 2) % kTailMax];
      table.prefetchChain(a.hash);
      if (a.callerHash) table.prefetchChain(a.callerHash);
    }
    const Walked& r = waiting[done % kTailMax];
    insert(r.at, load<W, BE>(base + r.at), load<W, BE>(base + r.at + W), r.hash, r.callerHash);
    ++done;
    if (done < walked)
      releaser.upTo(base + waiting[done % kTailMax].at);  // no earlier byte is read
  };

  {
    RecordWalk<W, BE> walk(data, pos);
    for (Walked r; walk.next(r);) {
      if (walked - done == kTailMax) addNext();
      waiting[walked % kTailMax] = r;
      ++walked;
    }
    body.end = walk.end();
  }

  // At the trailer: the waiting records before the tail in file order, then the tail sorted by
  // pcs as numbers, innermost first (nearby leaves together code smaller than a bytewise order
  // of little-endian pcs would), then length, then count.
  std::vector<uint64_t> last;
  for (uint64_t r = done; r < walked; ++r) last.push_back(waiting[r % kTailMax].at);
  const Tail tail = tailOf<W, BE>(base, std::move(last));
  while (done < walked - tail.offset.size()) addNext();
  const size_t t = tail.offset.size();  // 0: nothing below is done (no tail, no ranks)
  std::vector<uint32_t> order(t);
  for (size_t i = 0; i < t; ++i) order[i] = static_cast<uint32_t>(i);
  auto slot = [&](uint32_t i, uint64_t k) { return load<W, BE>(base + tail.offset[i] + k * W); };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const uint64_t na = slot(a, 1), nb = slot(b, 1);
    for (uint64_t k = 0; k < na && k < nb; ++k)
      if (slot(a, 2 + k) != slot(b, 2 + k)) return slot(a, 2 + k) < slot(b, 2 + k);
    if (na != nb) return na < nb;
    if (slot(a, 0) != slot(b, 0)) return slot(a, 0) < slot(b, 0);
    return a < b;
  });
  for (uint32_t i : order) {
    const uint64_t recordAt = tail.offset[i], n = slot(i, 1);
    uint64_t h1 = 0;
    const uint64_t h0 = chainHash<W, BE>(base + recordAt + 2 * W, n, &h1);
    insert(recordAt, slot(i, 0), n, h0, h1);
  }
  body.sortedTail = t;
  tailRanks(tail.bucket, order, body.ranks);
  nodes = table.takeNodes();
}

// The IR but for the stack columns: what the file holds besides its records.
struct Rest {
  unsigned slotBytes;
  bool bigEndian;
  std::vector<uint64_t> header;  // every header slot, the count and nwords included
  uint64_t trailer[3];
  kj::ArrayPtr<const kj::byte> mapsText;
};

// Sets every field of the IR but the stack columns; the columns go after (build() of a Body):
// zstd's fast levels search ever more sparsely through data they find no matches in, and text
// placed after the columns compressed 3 KB worse. Returns the stacks, for the columns.
ir::StackSamples::Builder buildRest(ir::Profile::Builder root, const Rest& r) {
  root.setFormat(ir::Format::GPERFTOOLS);
  root.setFormatVersion("0");
  StringInterner strings;
  strings.build(root.initStrings());
  auto st = root.initStacks();
  st.setSlotBytes(static_cast<uint8_t>(r.slotBytes));
  st.setBigEndian(r.bigEndian);
  auto hdr = st.initHeaderSlots(static_cast<unsigned>(r.header.size()));
  for (unsigned i = 0; i < r.header.size(); ++i) hdr.set(i, r.header[i]);
  st.setSamplingPeriodUs(r.header[3]);
  auto trailer = st.initTrailerSlots(3);
  for (unsigned i = 0; i < 3; ++i) trailer.set(i, r.trailer[i]);
  st.setMapsText(r.mapsText);
  return st;
}

// The stack columns of a profile read with deferIR: the records' columns as the parser pushed
// them, and the tree (shared with the model, which reads it too), whose address column is
// encoded only now. The whole IR is built in the order an eager reading builds it, so it is the
// same byte for byte.
class DeferredStacks : public Profile::Deferred {
 public:
  DeferredStacks(std::unique_ptr<Body> body, std::shared_ptr<const DecodedStacks> tree,
                 size_t expectedBytes)
      : body_(std::move(body)), tree_(std::move(tree)), expectedBytes_(expectedBytes) {}
  std::unique_ptr<capnp::MallocMessageBuilder> build(ir::Profile::Reader partial) override {
    auto message = newMessage(expectedBytes_);
    const auto from = partial.getStacks();
    Rest r{from.getSlotBytes(), from.getBigEndian(), {}, {}, from.getMapsText()};
    for (uint64_t v : from.getHeaderSlots()) r.header.push_back(v);
    for (unsigned i = 0; i < 3; ++i) r.trailer[i] = from.getTrailerSlots()[i];
    auto st = buildRest(message->getRoot<ir::Profile>(), r);
    AddressColumn column;
    for (size_t n = 1; n <= tree_->nodes(); ++n)
      column.add(tree_->parentOf(n), tree_->addressOf(n));
    body_->build(st, column);
    return message;
  }

 private:
  std::unique_ptr<Body> body_;
  std::shared_ptr<const DecodedStacks> tree_;
  size_t expectedBytes_;
};

}  // namespace

std::unique_ptr<Profile> readGperftools(std::span<const uint8_t> data, bool deferIR) {
  const size_t size = data.size();
  const uint8_t* p = data.data();
  if (size == 0) fail(kFmt, 0, kUnknown, "empty file: expected a gperftools CPU profile header");
  if (size < 8)
    fail(kFmt, 0, kUnknown,
         "file too short for a header: expected at least 20 bytes, found " + std::to_string(size));
  if (load<4, false>(p) != 0)
    fail(kFmt, 0, kUnknown,
         "header count slot must be 0, found " + hexString(load<4, false>(p)) +
             " (not a gperftools CPU profile)");
  // Slot 1 (>= 3) decides: its upper half is 0 in 64-bit files, so a non-zero second 4-byte
  // word means 4-byte slots; of the two byte orders the smaller value is the real one.
  unsigned w = load<4, false>(p + 4) != 0 ? 4 : 8;
  if (w == 8 && size < 16)
    fail(kFmt, 0, kUnknown,
         "file too short for a header: expected at least 40 bytes, found " + std::to_string(size));
  const uint64_t le = loadSlot(p + w, w, false), be = loadSlot(p + w, w, true);
  const bool bigEndian = be < le;
  const uint64_t words = bigEndian ? be : le;
  if (words < 3)
    fail(kFmt, w, kUnknown,
         "header slots after the count must be at least 3 (version, period, padding), found " +
             std::to_string(words));
  const uint64_t slotsLeft = size / w - 2;
  if (words > slotsLeft)
    fail(kFmt, w, kUnknown,
         "header declares " + std::to_string(words) + " slots after the count but only " +
             std::to_string(slotsLeft) + " slots follow");
  if (words + 2 > kMaxData / 8)
    throw Error(Status::limit, kFmt, "header of " + std::to_string(words) + " slots is too long",
                w);
  const uint64_t version = loadSlot(p + 2 * w, w, bigEndian);
  if (version != 0)
    fail(kFmt, 2 * w, kUnknown,
         "unsupported format version: expected 0, found " + std::to_string(version));

  auto bodyOwner = std::make_unique<Body>();
  Body& body = *bodyOwner;
  const size_t recordsAt = static_cast<size_t>((2 + words) * w);
  TreeNodes nodes;  // the tree, as the parse leaves it
  // At most one record per 3 slots (count, num_pcs, a pc); as for the record walk, a thread
  // only pays off for a large profile.
  body.records.start(size - recordsAt >= kThreadFrom, (size - recordsAt) / (3 * w) + 1);
  if (deferIR) {
    body.deferAddresses = true;
  } else {
    // Each node is a PC slot of some record; as for the record walk, a thread only pays off
    // for a large profile.
    body.address.start(size - recordsAt >= kThreadFrom, (size - recordsAt) / w);
  }
  if (w == 4) {
    if (bigEndian)
      parseRecords<4, true>(data, recordsAt, body, nodes);
    else
      parseRecords<4, false>(data, recordsAt, body, nodes);
  } else {
    if (bigEndian)
      parseRecords<8, true>(data, recordsAt, body, nodes);
    else
      parseRecords<8, false>(data, recordsAt, body, nodes);
  }
  body.records.finish();  // every record's columns and samples are in `body` from here
  const size_t textAt = body.end;
  if (size - textAt > kMaxData)
    throw Error(Status::limit, kFmt, "mapped-objects text larger than 512 MiB", textAt);
  std::string_view text(reinterpret_cast<const char*>(p + textAt), size - textAt);

  Rest rest{w,
            bigEndian,
            std::vector<uint64_t>(words + 2),
            {},
            kj::ArrayPtr<const kj::byte>(p + textAt, size - textAt)};
  for (unsigned i = 0; i < words + 2; ++i) rest.header[i] = loadSlot(p + i * w, w, bigEndian);
  for (unsigned i = 0; i < 3; ++i)
    rest.trailer[i] = loadSlot(p + textAt - 3 * w + i * w, w, bigEndian);

  auto decoded = std::make_unique<ReadStacks>();
  auto tree = std::make_shared<DecodedStacks>();
  // Kept with the profile: without the slack of their doubling.
  nodes.parent.shrink_to_fit();
  tree->parent = std::move(nodes.parent);
  if (deferIR) {
    nodes.pc.shrink_to_fit();
    tree->address = std::move(nodes.pc);
  } else {
    std::vector<uint64_t>().swap(nodes.pc);  // the address column has them
  }
  // Kept with the profile for as long as it lives: without the slack its doubling left (up to
  // half of it; 4 MB for a 50 MB profile of 530,000 nodes).
  body.samples.shrink_to_fit();
  decoded->samples = std::move(body.samples);
  std::unique_ptr<Profile> profile;
  if (deferIR) {
    // This message holds the rest of the IR; the whole one is built when asked for.
    auto message = newMessage(size - textAt + 8 * words);
    buildRest(message->getRoot<ir::Profile>(), rest);
    profile = std::make_unique<Profile>(
        std::move(message), std::make_unique<DeferredStacks>(std::move(bodyOwner), tree, size / 4));
  } else {
    auto message = newMessage(size / 4);
    auto st = buildRest(message->getRoot<ir::Profile>(), rest);
    AddressColumn& addresses = body.address.finish();
    body.build(st, addresses);
    tree->address = addresses.takeAddresses();
    profile = std::make_unique<Profile>(std::move(message));
  }
  decoded->tree = std::move(tree);
  profile->keepDecoded(std::move(decoded));
  // The mapped-objects text is /proc/self/maps, whose lines all end: text that does not is
  // a file cut short, its later mappings missing (their addresses would stay unnamed).
  if (!text.empty() && text.back() != '\n')
    profile->warnings().push_back(
        "byte offset " + std::to_string(size) +
        ": the mapped-objects text ends inside a line: the file may have been cut there, and "
        "the mappings after its last whole line are missing (their addresses cannot be named)");
  return profile;
}

bool isGperftools(std::span<const uint8_t> data) {
  // Header slot 0 is 0 and slot 1 is >= 3, in any width and byte order.
  if (data.size() < 8) return false;
  auto u32 = [&](size_t off, bool be) {
    const uint8_t* p = data.data() + off;
    return be ? (uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3])
              : (uint32_t{p[3]} << 24 | uint32_t{p[2]} << 16 | uint32_t{p[1]} << 8 | p[0]);
  };
  if (u32(0, false) != 0) return false;
  if (u32(4, false) >= 3 && u32(4, false) < 0x10000) return true;  // 32-bit little-endian
  if (u32(4, true) >= 3 && u32(4, true) < 0x10000) return true;    // 32-bit big-endian
  return data.size() >= 16 && u32(4, false) == 0 &&
         ((u32(8, false) >= 3 && u32(8, false) < 0x10000 && u32(12, false) == 0) ||
          (u32(8, false) == 0 && u32(12, true) >= 3 && u32(12, true) < 0x10000));  // 64 LE / BE
}

}  // namespace profpack
