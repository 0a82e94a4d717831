#include "profile.h"

#include <capnp/any.h>
#include <capnp/serialize.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "error.h"

namespace profpack {

Profile::Profile(std::unique_ptr<capnp::MallocMessageBuilder> message)
    : builder_(std::move(message)) {
  root_ = partialRoot_ = builder_->getRoot<ir::Profile>().asReader();
}

Profile::Profile(kj::Array<capnp::word> words, capnp::ReaderOptions options)
    : words_(std::move(words)) {
  reader_ = std::make_unique<capnp::FlatArrayMessageReader>(words_.asPtr(), options);
  root_ = partialRoot_ = reader_->getRoot<ir::Profile>();
}

Profile::Profile(std::unique_ptr<capnp::MallocMessageBuilder> partial,
                 std::unique_ptr<Deferred> rest)
    : Profile(std::move(partial)) {
  if (!rest) return;
  deferred_ = std::move(rest);
  complete_.store(false, std::memory_order_relaxed);
}

Profile::Profile(std::shared_ptr<const Profile> base, std::unique_ptr<Deferred> symbols)
    : deferred_(std::move(symbols)), base_(std::move(base)), symbolsDeferred_(true) {
  root_ = partialRoot_ = base_->partialRoot();
  complete_.store(false, std::memory_order_relaxed);
}

Profile::Profile(std::unique_ptr<Pending> pending, Basics basics)
    : pending_(true), pendingMessage_(std::move(pending)), basics_(basics) {
  complete_.store(false, std::memory_order_relaxed);
}

Profile::~Profile() = default;

void Profile::complete() const {
  std::lock_guard<std::mutex> lock(completeMutex_);
  if (complete_.load(std::memory_order_relaxed)) return;  // another thread did it meanwhile
  // A build that failed part-way (out of memory) may have used up what the deferred part held
  // (a column writer gives its chunks away as it builds): it is never tried again, and every
  // later call reports the same failure rather than an IR with parts missing.
  if (completeError_) std::rethrow_exception(completeError_);
  if (pendingMessage_) {
    try {
      kj::Array<capnp::word> words = pendingMessage_->load();
      auto reader =
          std::make_unique<capnp::FlatArrayMessageReader>(words.asPtr(), checkedMessageOptions());
      root_ = partialRoot_ = reader->getRoot<ir::Profile>();
      words_ = std::move(words);
      reader_ = std::move(reader);
    } catch (const Error& e) {
      // Reported long after the read, maybe by a program that holds several profiles: named
      // by the file it came from, as the read's own errors are.
      completeError_ = fileName_.empty() ? std::current_exception()
                                         : std::make_exception_ptr(e.inFile(fileName_));
      pendingMessage_.reset();
      std::rethrow_exception(completeError_);
    } catch (...) {
      completeError_ = std::current_exception();
      pendingMessage_.reset();
      throw;
    }
    pendingMessage_.reset();
    complete_.store(true, std::memory_order_release);
    return;
  }
  takeModelCache();  // the IR is wanted for itself: no model is about to take it
  try {
    // The partial message is never written to: readers of partialRoot() on other threads go
    // on reading it while the whole one is built.
    auto whole = deferred_->build(partialRoot_);
    partial_ = std::move(builder_);
    builder_ = std::move(whole);
  } catch (...) {
    completeError_ = std::current_exception();
    deferred_.reset();
    throw;
  }
  root_ = builder_->getRoot<ir::Profile>().asReader();
  deferred_.reset();
  complete_.store(true, std::memory_order_release);
}

const StringTableReader& Profile::strings() const {
  // Readers that defer part of the IR never defer the strings.
  std::call_once(stringsOnce_, [&] {
    strings_ = std::make_unique<StringTableReader>(partialRoot().getStrings());
  });
  return *strings_;
}

std::unique_ptr<Profile::Decoded> Profile::takeDecoded() const {
  std::lock_guard<std::mutex> lock(decodedMutex_);
  return std::move(decoded_);
}

std::shared_ptr<ModelCache> Profile::takeModelCache() const {
  std::lock_guard<std::mutex> lock(decodedMutex_);
  return std::move(seedCache_);
}

void Profile::returnDecoded(std::unique_ptr<Decoded> decoded) const {
  std::lock_guard<std::mutex> lock(decodedMutex_);
  if (!decoded_) decoded_ = std::move(decoded);
}

size_t Profile::flatSize() const {
  if (pending_) return basics_.flatBytes;  // loaded or not: the loaded message's is checked
  root();  // builds a deferred part
  if (reader_) return words_.size() * sizeof(capnp::word);
  return capnp::computeSerializedSizeInWords(*builder_) * sizeof(capnp::word);
}

std::string Profile::flatBytes() const {
  std::string s;
  s.reserve(flatSize());
  forEachFlatPiece([&](const void* d, size_t n) { s.append(static_cast<const char*>(d), n); });
  return s;
}

void Profile::forEachFlatPiece(const std::function<void(const void*, size_t)>& sink) const {
  root();  // builds a deferred part
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

bool equalIR(const Profile& a, const Profile& b) {
  // Compare canonical encodings of both roots with `creator` cleared.
  auto canon = [](const Profile& p) {
    capnp::MallocMessageBuilder copy;
    copy.setRoot(p.root());
    copy.getRoot<ir::Profile>().setCreator("");
    return capnp::canonicalize(copy.getRoot<ir::Profile>().asReader());
  };
  auto x = canon(a);
  auto y = canon(b);
  return x.size() == y.size() &&
         std::memcmp(x.begin(), y.begin(), x.size() * sizeof(capnp::word)) == 0;
}

}  // namespace profpack
