#include "archive/archive.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>

#include "archive.capnp.h"
#include "archive/frames.h"
#include "container/ppk.h"
#include "error.h"
#include "formats/registry.h"
#include "util/bytes.h"

namespace profpack {

using archive::buildSegment;
using archive::Built;
using archive::compress;
using archive::decompress;

namespace {

constexpr uint8_t kMagic[8] = {0x89, 'P', 'P', 'K', 'A', '\r', '\n', 0x1a};
constexpr char kCommitMagic[9] = "PPKACMIT";
constexpr uint64_t kHeaderSize = 16;
constexpr uint64_t kTrailerSize = 32;
constexpr uint64_t kMaxManifest = uint64_t{1} << 30;
constexpr uint64_t kMaxMember = uint64_t{4} << 30;
constexpr uint64_t kMaxDict = uint64_t{64} << 20;

uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
uint64_t le64(const uint8_t* p) { return uint64_t{le32(p)} | uint64_t{le32(p + 4)} << 32; }

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

[[noreturn]] void malformed(uint64_t offset, const std::string& what) {
  throw Error(Status::malformed, "ppka", what, offset);
}
[[noreturn]] void ioError(const std::string& path, const std::string& what) {
  throw Error(Status::io, "ppka", path + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

Archive::~Archive() {
  if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<Archive> Archive::open(const std::string& path, bool create, bool writable) {
  std::unique_ptr<Archive> a(new Archive);
  a->path_ = path;
  int flags = writable ? O_RDWR : O_RDONLY;
  if (create) flags |= O_CREAT;
  a->fd_ = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (a->fd_ < 0) ioError(path, "cannot open");
  if (writable && ::flock(a->fd_, LOCK_EX) != 0) ioError(path, "cannot lock");
  a->writable_ = writable;
  struct stat st {};
  if (::fstat(a->fd_, &st) != 0) ioError(path, "cannot stat");
  if (st.st_size == 0 && writable) {
    std::string h(reinterpret_cast<const char*>(kMagic), sizeof kMagic);
    appendLe32(h, kArchiveRevision);
    appendLe32(h, 0);
    a->writeAll(0, h);
    if (::fsync(a->fd_) != 0) ioError(path, "cannot sync");
  }
  a->load();
  return a;
}

std::string Archive::pread(uint64_t offset, uint64_t size) const {
  std::string out(size, '\0');
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd_, out.data() + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ioError(path_, "cannot read");
    if (n == 0) malformed(offset + done, "file ends inside a record");
    done += static_cast<uint64_t>(n);
  }
  return out;
}

void Archive::writeAll(uint64_t offset, const std::string& data) {
  uint64_t done = 0;
  while (done < data.size()) {
    ssize_t n =
        ::pwrite(fd_, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ioError(path_, "cannot write");
    done += static_cast<uint64_t>(n);
  }
}

// The commit record whose trailer ends at `end`: true and the archive's state where it is valid;
// false where not (or, where `strict`, Status::malformed saying why).
namespace {

struct Loaded {
  uint64_t nextId = 1;
  std::vector<ArchiveSegment> segments;
  std::vector<ArchiveMember> members;
};

std::string text(capnp::Text::Reader t) { return std::string(t.cStr(), t.size()); }

// Checks and reads the manifest of a commit whose data ends at `dataEnd` (where the manifest's
// frame starts): every range lies in [16, dataEnd), every dictionary reference is to an
// earlier (or the same) segment that holds a dictionary.
Loaded readManifest(const std::string& message, uint64_t at, uint64_t dataEnd, uint32_t revision) {
  Loaded l;
  kj::ArrayPtr<const capnp::word> words(reinterpret_cast<const capnp::word*>(message.data()),
                                        message.size() / sizeof(capnp::word));
  try {
    capnp::ReaderOptions opt;
    opt.traversalLimitInWords = words.size() * 2 + 1024;
    capnp::FlatArrayMessageReader reader(words, opt);
    auto m = reader.getRoot<ar::Manifest>();
    l.nextId = m.getNextId();
    auto inFile = [&](uint64_t off, uint64_t size, const char* what) {
      if (off < kHeaderSize || off > dataEnd || size > dataEnd - off)
        malformed(at, std::string("the manifest places ") + what + " at bytes " +
                          std::to_string(off) + "+" + std::to_string(size) +
                          ", outside the committed data (16.." + std::to_string(dataEnd) + ")");
    };
    uint32_t index = 0;
    for (auto s : m.getSegments()) {
      ArchiveSegment seg;
      seg.dictSegment = s.getDictSegment();
      seg.dictOffset = s.getDictOffset();
      seg.dictSize = s.getDictSize();
      seg.dictRawSize = s.getDictRawSize();
      if (seg.dictSegment > index)
        malformed(at, "segment " + std::to_string(index) + " names dictionary " +
                          std::to_string(seg.dictSegment) + ", past the segments before it");
      if (seg.dictSegment == index && seg.dictSize > 0) {
        inFile(seg.dictOffset, seg.dictSize, "a dictionary");
        if (seg.dictRawSize == 0 || seg.dictRawSize > kMaxDict)
          malformed(at, "dictionary size " + std::to_string(seg.dictRawSize) + " out of range");
      } else if (seg.dictSegment < index && l.segments[seg.dictSegment].dictSize == 0) {
        malformed(at, "segment " + std::to_string(index) + " names dictionary " +
                          std::to_string(seg.dictSegment) + ", a segment without one");
      } else if (seg.dictSegment < index) {
        seg.dictSegment = l.segments[seg.dictSegment].dictSegment;
      }
      for (auto mem : s.getMembers()) {
        ArchiveMember a;
        a.id = mem.getId();
        a.format = text(mem.getFormat());
        a.time = mem.getTime();
        for (auto lab : mem.getLabels())
          a.labels.emplace_back(text(lab.getKey()), text(lab.getValue()));
        a.offset = mem.getOffset();
        a.size = mem.getSize();
        a.rawSize = mem.getRawSize();
        a.irRevision = mem.getIrRevision();
        a.segment = index;
        const uint8_t form = mem.getForm();
        if (form > static_cast<uint8_t>(MemberForm::codedFile) || (form != 0 && revision < 2))
          malformed(at, "member " + std::to_string(a.id) + " of form " + std::to_string(form) +
                            ", which archive revision " + std::to_string(revision) + " has not");
        a.form = static_cast<MemberForm>(form);
        a.messageSize = a.form == MemberForm::message ? a.rawSize : mem.getMessageSize();
        a.inDictionary = mem.getInDictionary();
        if (a.inDictionary &&
            (revision < 3 || a.size != 0 || seg.dictSegment != index || seg.dictSize == 0))
          malformed(at,
                    "member " + std::to_string(a.id) +
                        " is kept in its segment's dictionary, which " +
                        (revision < 3 ? "archive revision " + std::to_string(revision) + " has not"
                                      : std::string("a member with a frame or a segment "
                                                    "without a dictionary of its own cannot be")));
        if (a.inDictionary &&
            (a.offset > seg.dictRawSize || a.rawSize > seg.dictRawSize - a.offset))
          malformed(at, "member " + std::to_string(a.id) + " at bytes " + std::to_string(a.offset) +
                            "+" + std::to_string(a.rawSize) + " of a dictionary of " +
                            std::to_string(seg.dictRawSize));
        if (!a.inDictionary) inFile(a.offset, a.size, "a member");
        if (a.rawSize == 0 || a.rawSize > kMaxMember ||
            (a.form == MemberForm::message && a.rawSize % 8 != 0))
          malformed(at, "member " + std::to_string(a.id) + " declares " +
                            std::to_string(a.rawSize) + " bytes, not a message size");
        l.members.push_back(std::move(a));
      }
      l.segments.push_back(seg);
      ++index;
    }
  } catch (const kj::Exception& e) {
    malformed(at, std::string("invalid manifest: ") + e.getDescription().cStr());
  }
  return l;
}

}  // namespace

void Archive::load() {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) ioError(path_, "cannot stat");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < kHeaderSize) malformed(size, "not a .ppka archive (file shorter than its header)");
  std::string h = pread(0, kHeaderSize);
  if (std::memcmp(h.data(), kMagic, sizeof kMagic) != 0)
    malformed(0, "not a .ppka archive (magic number missing)");
  const uint32_t rev = le32(reinterpret_cast<const uint8_t*>(h.data()) + 8);
  if (rev < kOldestArchiveRevision || rev > kArchiveRevision)
    throw Error(Status::unsupported, "ppka",
                "archive revision " + std::to_string(rev) + "; this build reads revisions " +
                    std::to_string(kOldestArchiveRevision) + "-" + std::to_string(kArchiveRevision),
                8);
  revision_ = rev;
  // A commit ending at `end`; strict: its defects are errors, else it is just not a commit.
  auto tryCommit = [&](uint64_t end, bool strict) -> bool {
    try {
      if (end < kHeaderSize + kTrailerSize) malformed(end, "commit record before the header");
      std::string t = pread(end - kTrailerSize, kTrailerSize);
      auto* p = reinterpret_cast<const uint8_t*>(t.data());
      if (std::memcmp(p + 24, kCommitMagic, 8) != 0) malformed(end - 8, "no commit record");
      const uint64_t frameSize = le64(p), msgSize = le64(p + 8), sum = le64(p + 16);
      const uint64_t trailer = end - kTrailerSize;
      if (frameSize > trailer - kHeaderSize)
        malformed(trailer, "the manifest (" + std::to_string(frameSize) +
                               " bytes) reaches before the start of the file");
      if (msgSize == 0 || msgSize % 8 != 0 || msgSize > kMaxManifest)
        malformed(trailer + 8, "manifest size " + std::to_string(msgSize) + " out of range");
      const uint64_t start = trailer - frameSize;
      std::string frame = pread(start, frameSize);
      if (fnv1a(frame) != sum) malformed(start, "manifest checksum mismatch");
      Loaded l = readManifest(decompress(frame, msgSize, {}, start), start, start, rev);
      segments_ = std::move(l.segments);
      members_ = std::move(l.members);
      nextId_ = l.nextId;
      committed_ = end;
      return true;
    } catch (const Error& e) {
      if (strict || e.status() != Status::malformed) throw;
      return false;
    }
  };
  segments_.clear();
  members_.clear();
  committed_ = kHeaderSize;
  if (size == kHeaderSize) return;
  // A file that ends in a whole trailer was written to its end: its commit must be valid.
  if (size >= kHeaderSize + kTrailerSize && pread(size - 8, 8) == std::string(kCommitMagic, 8)) {
    tryCommit(size, true);
    return;
  }
  // Else an append was cut short: the archive is the last valid commit before it.
  const uint64_t chunk = 1 << 20;
  uint64_t hi = size;
  while (hi > kHeaderSize) {
    uint64_t lo = hi > chunk + kHeaderSize ? hi - chunk : kHeaderSize;
    std::string buf = pread(lo, std::min<uint64_t>(hi + 7, size) - lo);
    for (size_t i = buf.size() >= 8 ? buf.size() - 8 + 1 : 0; i-- > 0;)
      if (lo + i + 8 <= size && std::memcmp(buf.data() + i, kCommitMagic, 8) == 0 &&
          tryCommit(lo + i + 8, false))
        return;
    hi = lo;
  }
}

std::string Archive::memberBytes(const ArchiveMember& m) const {
  if (!m.inDictionary)
    return decompress(pread(m.offset, m.size), m.rawSize, dictionary(m.segment), m.offset);
  // Kept in its segment's dictionary (revision 3; the manifest's range was checked on open).
  std::string dict = dictionary(m.segment);
  if (m.offset > dict.size() || m.rawSize > dict.size() - m.offset)
    malformed(m.offset, "member " + std::to_string(m.id) + " lies past its dictionary");
  return dict.substr(m.offset, m.rawSize);
}

std::string Archive::dictionary(uint32_t segment) const {
  const ArchiveSegment& s = segments_.at(segments_.at(segment).dictSegment);
  if (s.dictSize == 0) return {};
  return decompress(pread(s.dictOffset, s.dictSize), s.dictRawSize, {}, s.dictOffset);
}

std::unique_ptr<Profile> Archive::read(size_t index) const {
  const ArchiveMember& m = members_.at(index);
  if (m.form != MemberForm::message) {
    const FormatId f = formatFromName(m.format);
    if (f == FormatId::unknown)
      malformed(m.offset, "member " + std::to_string(m.id) + " of unknown format " + m.format);
    std::string raw = memberBytes(m);
    try {
      return profileFromArchiveForm(f, raw, m.form == MemberForm::codedFile, revision_);
    } catch (const Error& e) {
      if (e.status() != Status::malformed) throw;
      malformed(m.offset, "the " + m.format + " file member " + std::to_string(m.id) +
                              " keeps: " + e.what());
    }
  }
  if (m.irRevision != kPpkVersion)
    throw Error(Status::unsupported, "ppka",
                "member " + std::to_string(m.id) + " holds IR revision " +
                    std::to_string(m.irRevision) + "; this build reads revision " +
                    std::to_string(kPpkVersion));
  std::string raw = memberBytes(m);
  auto words = kj::heapArray<capnp::word>(raw.size() / sizeof(capnp::word));
  std::memcpy(words.begin(), raw.data(), raw.size());
  return profileFromMessage(std::move(words), m.offset, "ppka");
}

namespace {

std::string manifestRecord(const std::vector<ArchiveSegment>& segments,
                           const std::vector<ArchiveMember>& members, uint64_t nextId) {
  capnp::MallocMessageBuilder b;
  auto m = b.initRoot<ar::Manifest>();
  m.setNextId(nextId);
  auto segs = m.initSegments(static_cast<unsigned>(segments.size()));
  std::vector<unsigned> counts(segments.size());
  for (const auto& mem : members) ++counts[mem.segment];
  std::vector<capnp::List<ar::Member>::Builder> lists;
  for (size_t i = 0; i < segments.size(); ++i) {
    auto s = segs[static_cast<unsigned>(i)];
    s.setDictSegment(segments[i].dictSegment);
    s.setDictOffset(segments[i].dictOffset);
    s.setDictSize(segments[i].dictSize);
    s.setDictRawSize(segments[i].dictRawSize);
    lists.push_back(s.initMembers(counts[i]));
  }
  std::vector<unsigned> next(segments.size());
  for (const auto& mem : members) {
    auto o = lists[mem.segment][next[mem.segment]++];
    o.setId(mem.id);
    o.setFormat(mem.format);
    o.setTime(mem.time);
    auto labels = o.initLabels(static_cast<unsigned>(mem.labels.size()));
    for (size_t j = 0; j < mem.labels.size(); ++j) {
      labels[static_cast<unsigned>(j)].setKey(mem.labels[j].first);
      labels[static_cast<unsigned>(j)].setValue(mem.labels[j].second);
    }
    o.setOffset(mem.offset);
    o.setSize(mem.size);
    o.setRawSize(mem.rawSize);
    o.setIrRevision(mem.irRevision);
    o.setForm(static_cast<uint8_t>(mem.form));
    if (mem.inDictionary) o.setInDictionary(true);
    if (mem.form != MemberForm::message) o.setMessageSize(mem.messageSize);
  }
  auto flat = capnp::messageToFlatArray(b);
  std::string msg(reinterpret_cast<const char*>(flat.begin()), flat.size() * sizeof(capnp::word));
  std::string frame = compress(msg, 19, {});
  std::string rec = frame;
  appendLe64(rec, frame.size());
  appendLe64(rec, msg.size());
  appendLe64(rec, fnv1a(frame));
  rec.append(kCommitMagic, 8);
  return rec;
}

// The form a member of `profile` (IR message `raw`) is kept in, in an archive of `revision`;
// `raw` becomes what its frame holds.
MemberForm keepAs(const Profile& profile, const std::string& format, std::string& raw,
                  uint32_t revision) {
  // (the format named is the one a frame of another form is read back as)
  if (revision < 2 || formatFromName(format) != formatOf(profile)) return MemberForm::message;
  std::optional<ArchiveForm> form = archiveForm(profile, raw, revision);
  if (!form) return MemberForm::message;
  raw = std::move(form->bytes);
  return form->coded ? MemberForm::codedFile : MemberForm::file;
}

}  // namespace

// A handle opened for reading holds no writers' lock, and its view may be older than the file:
// an add or a compact through it would write over members another handle committed since.
void Archive::requireWritable(const char* what) const {
  if (!writable_)
    throw Error(Status::invalidArgument, "ppka",
                path_ + ": " + what + " needs the archive opened for writing");
}

void Archive::add(const std::vector<ArchiveInput>& inputs, int level) {
  requireWritable("adding members");
  if (inputs.empty()) return;
  std::vector<std::string> raws;
  std::vector<MemberForm> forms;
  std::vector<uint64_t> messageSizes;
  for (const auto& in : inputs) {
    std::string raw = in.profile->flatBytes();
    messageSizes.push_back(raw.size());
    forms.push_back(keepAs(*in.profile, in.format, raw, revision_));
    raws.push_back(std::move(raw));
  }
  // The dictionary of the last segment that holds one, offered to the new segment.
  uint32_t previousIndex = 0;
  std::string previous;
  for (size_t i = segments_.size(); i-- > 0;)
    if (segments_[i].dictSegment == i && segments_[i].dictSize > 0) {
      previousIndex = static_cast<uint32_t>(i);
      previous = dictionary(previousIndex);
      break;
    }
  Built b = buildSegment(raws, previous, level, revision_);
  const uint64_t base = committed_;
  const uint32_t index = static_cast<uint32_t>(segments_.size());
  auto segments = segments_;
  auto members = members_;
  ArchiveSegment seg = b.segment;
  if (seg.dictSegment == ~uint32_t{0}) {
    seg.dictSegment = previousIndex;
  } else {
    seg.dictSegment = index;
    seg.dictOffset = base;
  }
  segments.push_back(seg);
  uint64_t nextId = nextId_;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ArchiveMember m;
    m.id = nextId++;
    m.format = inputs[i].format;
    m.time = inputs[i].time;
    m.labels = inputs[i].labels;
    m.inDictionary = b.inDictionary[i];
    m.offset = m.inDictionary ? b.frames[i].first : base + b.frames[i].first;
    m.size = b.frames[i].second;
    m.rawSize = raws[i].size();
    m.irRevision = kPpkVersion;
    m.segment = index;
    m.form = forms[i];
    m.messageSize = messageSizes[i];
    members.push_back(std::move(m));
  }
  std::string record = manifestRecord(segments, members, nextId);
  try {
    // Whatever an earlier, interrupted append left after the last commit goes first.
    if (::ftruncate(fd_, static_cast<off_t>(base)) != 0) ioError(path_, "cannot truncate");
    writeAll(base, b.blob);
    if (::fdatasync(fd_) != 0) ioError(path_, "cannot sync");
    writeAll(base + b.blob.size(), record);
    if (::fdatasync(fd_) != 0) ioError(path_, "cannot sync");
  } catch (...) {
    // A full disk: the archive stays as it was committed (a reader ignores what is left).
    [[maybe_unused]] int rc = ::ftruncate(fd_, static_cast<off_t>(base));
    throw;
  }
  segments_ = std::move(segments);
  members_ = std::move(members);
  nextId_ = nextId;
  committed_ = base + b.blob.size() + record.size();
}

void Archive::compact(int level) {
  requireWritable("compacting");
  std::vector<std::string> raws;
  auto members = members_;
  for (auto& m : members) {
    if (m.irRevision != kPpkVersion) {  // an IR message of an earlier revision: kept as it is
      raws.push_back(memberBytes(m));
      continue;
    }
    // Every other member is read, as the archive's own revision reads it (so a member that
    // revision cannot hold is refused, not carried into the new one), and kept in the form a
    // new add would keep it in: an IR message of revision 1 as its format's file, a file of a
    // format whose coding came with a later revision coded.
    std::unique_ptr<Profile> p = read(static_cast<size_t>(&m - members.data()));
    std::string raw = p->flatBytes();
    m.messageSize = raw.size();
    m.form = keepAs(*p, m.format, raw, kArchiveRevision);
    m.rawSize = raw.size();
    raws.push_back(std::move(raw));
  }
  Built b = buildSegment(raws, {}, level, kArchiveRevision);
  std::string file(reinterpret_cast<const char*>(kMagic), sizeof kMagic);
  appendLe32(file, kArchiveRevision);
  appendLe32(file, 0);
  ArchiveSegment seg = b.segment;
  seg.dictSegment = 0;
  seg.dictOffset = kHeaderSize;
  for (size_t i = 0; i < members.size(); ++i) {
    members[i].inDictionary = b.inDictionary[i];
    members[i].offset = (members[i].inDictionary ? 0 : kHeaderSize) + b.frames[i].first;
    members[i].size = b.frames[i].second;
    members[i].segment = 0;
  }
  file += b.blob;
  std::vector<ArchiveSegment> segments{seg};
  if (members.empty()) segments.clear();
  file += manifestRecord(segments, members, nextId_);
  // The new file replaces the old one whole (rename), so a crash leaves one or the other.
  const std::string tmp = path_ + ".compact";
  // (Only the writer holding the lock gets here; a symbolic link at the name is not followed.)
  int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) ioError(tmp, "cannot create");
  int old = fd_;
  fd_ = fd;
  try {
    writeAll(0, file);
    if (::fsync(fd_) != 0) ioError(tmp, "cannot sync");
  } catch (...) {
    ::close(fd);
    fd_ = old;
    ::unlink(tmp.c_str());
    throw;
  }
  if (::flock(fd_, LOCK_EX) != 0 || ::rename(tmp.c_str(), path_.c_str()) != 0) {
    ::close(fd);
    fd_ = old;
    ::unlink(tmp.c_str());
    ioError(path_, "cannot replace");
  }
  ::close(old);
  load();
}

}  // namespace profpack
