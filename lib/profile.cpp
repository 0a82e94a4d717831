#include "profile.h"

#include <capnp/any.h>
#include <capnp/serialize.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "error.h"
#include "formats/registry.h"
#include "formats/gperftools/gperftools.h"
#include "formats/callgrind/costs.h"

namespace profpack {

Profile::Profile(std::unique_ptr<capnp::MallocMessageBuilder> message)
    : builder_(std::move(message)) {
  root_ = builder_->getRoot<ir::Profile>().asReader();
}

Profile::Profile(kj::Array<capnp::word> words, capnp::ReaderOptions options)
    : words_(std::move(words)) {
  reader_ = std::make_unique<capnp::FlatArrayMessageReader>(words_.asPtr(), options);
  root_ = reader_->getRoot<ir::Profile>();
}

Profile::~Profile() = default;

const StringTableReader& Profile::strings() const {
  if (!strings_) strings_ = std::make_unique<StringTableReader>(root_.getStrings());
  return *strings_;
}

size_t Profile::flatSize() const {
  if (reader_) return words_.size() * sizeof(capnp::word);
  return capnp::computeSerializedSizeInWords(*builder_) * sizeof(capnp::word);
}

void Profile::forEachFlatPiece(const std::function<void(const void*, size_t)>& sink) const {
  if (reader_) {
    sink(words_.begin(), words_.size() * sizeof(capnp::word));
    return;
  }
  // Cap'n Proto's stream framing: segment count - 1, each segment's size in words (all u32
  // little-endian), padded to a word; then the segments.
  auto segments = builder_->getSegmentsForOutput();
  std::vector<uint32_t> table;
  table.push_back(static_cast<uint32_t>(segments.size() - 1));
  for (auto seg : segments) table.push_back(static_cast<uint32_t>(seg.size()));
  if (table.size() % 2) table.push_back(0);
  sink(table.data(), table.size() * sizeof(uint32_t));
  for (auto seg : segments) sink(seg.begin(), seg.size() * sizeof(capnp::word));
}

namespace {

// Zeroed anonymous memory for a large first segment, on huge pages where the kernel allows: a
// reader fills the segment front to back, and 4 KiB pages would cost a page fault every 4 KiB
// (a sixth of the Callgrind reader's time after parsing, measured on a 17 MB profile).
struct MappedWords {
  explicit MappedWords(size_t n) : bytes(n * sizeof(capnp::word)) {
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    madvise(m, bytes, MADV_HUGEPAGE);
    words = static_cast<capnp::word*>(m);
  }
  ~MappedWords() { munmap(words, bytes); }
  MappedWords(const MappedWords&) = delete;
  MappedWords& operator=(const MappedWords&) = delete;
  size_t bytes;
  capnp::word* words;
};

// A message builder whose first segment is such a mapping (a base, so that it outlives the
// builder that uses it).
class MappedMessageBuilder : private MappedWords, public capnp::MallocMessageBuilder {
 public:
  explicit MappedMessageBuilder(size_t count)
      : MappedWords(count), capnp::MallocMessageBuilder(kj::arrayPtr(words, count)) {}
};

}  // namespace

std::unique_ptr<capnp::MallocMessageBuilder> newMessage(size_t expectedBytes) {
  // First segment: about the input size in words (bounded), growing heuristically after it.
  size_t words = std::clamp<size_t>(expectedBytes / 8, 1024, size_t{64} << 20);
  std::unique_ptr<capnp::MallocMessageBuilder> m;
  if (words >= (size_t{4} << 20) / sizeof(capnp::word))
    m = std::make_unique<MappedMessageBuilder>(words);
  else
    m = std::make_unique<capnp::MallocMessageBuilder>(static_cast<unsigned>(words));
  m->initRoot<ir::Profile>();
  return m;
}

namespace {

// A cost table of an older file (CostTable.predicted false: plain columns) stored as today's
// writer stores the same rows, so that equalIR compares the rows, not their representation.
void storeAsToday(ir::Profile::Builder root, ir::Part::Builder part) {
  const size_t npos = root.getPositionKinds().size();
  // The count as checked against the column's bytes, not as declared: it sizes a vector.
  const uint64_t strings = ColumnCursor(root.asReader().getStrings().getLengths()).size();
  DecodedContexts contexts(root.asReader().getContexts(), strings);
  DecodedCosts t(part.asReader().getCosts(), npos, root.getEvents().size(), contexts.size());
  CostTableBuilder out(npos);
  uint64_t pos[kMaxPositions] = {}, tpos[kMaxPositions] = {};
  size_t ci = 0, a = 0, j = 0;
  for (size_t r = 0; r < t.kind.size(); ++r) {
    if (t.sourceFile[r] >= strings)  // the identity map below is indexed by it
      throw Error(Status::malformed, "ppk",
                  "cost table row " + std::to_string(r) + " names source file string " +
                      std::to_string(t.sourceFile[r]) + " of " + std::to_string(strings));
    for (size_t k = 0; k < npos; ++k) pos[k] = t.positions[k][r];
    const auto kind = static_cast<ir::RecordKind>(t.kind[r]);
    const uint64_t* costs = t.costs.data() + ci;
    ci += t.costCount[r];
    if (kind == ir::RecordKind::COST) {
      out.row(kind, t.context[r], t.sourceFile[r], pos, costs, t.costCount[r]);
      continue;
    }
    for (size_t k = 0; k < npos; ++k) tpos[k] = t.targetPositions[k][a];
    const uint64_t jumped = kind == ir::RecordKind::COND_JUMP ? t.jumped[j++] : 0;
    out.row(kind, t.context[r], t.sourceFile[r], pos, costs, t.costCount[r], t.target[a], tpos,
            t.count[a], jumped);
    ++a;
  }
  std::vector<uint64_t> identity(strings);
  for (uint64_t i = 0; i < strings; ++i) identity[i] = i;
  out.build(part.initCosts(), identity);
}

}  // namespace

bool equalIR(const Profile& a, const Profile& b) {
  // Compare canonical encodings of both roots with `creator` cleared.
  auto canon = [](const Profile& p) {
    // Stacks of an older coding: compare what today's reader makes of the file they write.
    std::unique_ptr<Profile> reread;
    if (p.root().getFormat() == ir::Format::GPERFTOOLS && p.root().hasStacks() &&
        olderStacksCoding(p.root().getStacks())) {
      try {
        // A few hundred bytes of IR can describe gigabytes of records: beyond a size that a
        // real old file reaches, compare as stored.
        GperfWriteOptions options;
        options.maxBytes = (uint64_t{256} << 20) + 256 * uint64_t{p.flatSize()};
        const std::string file = writeGperftools(p, options);
        reread =
            readGperftools(std::span(reinterpret_cast<const uint8_t*>(file.data()), file.size()));
      } catch (const Error&) {
        // Stacks that do not decode (a damaged file) are compared as they are stored.
      } catch (const std::bad_alloc&) {
        // So is one whose file does not fit in memory.
      }
    }
    capnp::MallocMessageBuilder copy;
    copy.setRoot(reread ? reread->root() : p.root());
    auto root = copy.getRoot<ir::Profile>();
    root.setCreator("");
    for (auto part : root.getParts()) {
      if (!part.hasCosts() || part.getCosts().getPredicted()) continue;
      try {
        storeAsToday(root, part);
      } catch (const Error&) {
        // A table that does not decode (a damaged file) is compared as it is stored.
      }
    }
    return capnp::canonicalize(copy.getRoot<ir::Profile>().asReader());
  };
  auto x = canon(a);
  auto y = canon(b);
  return x.size() == y.size() &&
         std::memcmp(x.begin(), y.begin(), x.size() * sizeof(capnp::word)) == 0;
}

}  // namespace profpack
