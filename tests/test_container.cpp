// The .ppk container: round trip and every defect (truncation, magic, checksum, sizes).
#include <capnp/any.h>
#include <capnp/message.h>
#include <capnp/schema.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "container/ppk.h"
#include "error.h"
#include "formats/cachegrind/cachegrind.h"
#include "formats/registry.h"
#include "profile.h"
#include "testlib.h"
#include "util/io.h"

using namespace profpack;

namespace {
std::span<const uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
std::string samplePpk(int level = 3) {
  std::string cg = testlib::slurp(testlib::data("cachegrind/cachegrind.workload.out"));
  auto p = readCachegrind(bytes(cg));
  return encodePpk(*p, level);
}
void put64(std::string& s, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) s[at + i] = static_cast<char>(v >> (8 * i));
}
// Expects decodePpk to fail with `status` and `needle` in the message.
void expectFail(const std::string& img, Status status, const std::string& needle,
                uint64_t limit = kDefaultMaxPpkMessage) {
  try {
    decodePpk(bytes(img), limit);
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(status));
    CHECK_CONTAINS(e.what(), needle);
    return;
  }
  throw testlib::Failure{"expected failure: " + needle};
}
}  // namespace

TEST(round_trip_all_levels) {
  std::string cg = testlib::slurp(testlib::data("cachegrind/cachegrind.workload.out"));
  auto p = readCachegrind(bytes(cg));
  for (int level : {1, 6, 19}) {
    std::string img = encodePpk(*p, level);
    CHECK(isPpk(bytes(img)));
    CHECK(detectFormat(bytes(img)) == FormatId::ppk);
    auto q = decodePpk(bytes(img), kDefaultMaxPpkMessage);
    CHECK(equalIR(*p, *q));
    // A profile opened from a .ppk re-encodes from its own words.
    CHECK(equalIR(*q, *decodePpk(bytes(encodePpk(*q, level)), kDefaultMaxPpkMessage)));
  }
}

// A handle opened from a .ppk lives as long as its user wants (an IDE plugin keeps one open
// and queries it again and again). Every query and writer reads the message anew, so no
// budget may run out over the handle's life: full traversals worth 64 MiB must all succeed.
TEST(long_lived_handle_reads_without_running_out) {
  std::string img = samplePpk();
  auto p = decodePpk(bytes(img), kDefaultMaxPpkMessage);
  auto q = decodePpk(bytes(img), kDefaultMaxPpkMessage);
  size_t rounds = (size_t{64} << 20) / p->flatSize() + 1;
  for (size_t i = 0; i < rounds; ++i) CHECK(equalIR(*p, *q));
}

TEST(truncated_everywhere) {
  std::string img = samplePpk();
  for (size_t cut : {size_t{0}, size_t{4}, size_t{8}, size_t{31}, size_t{32}, size_t{40},
                     img.size() / 2, img.size() - 1}) {
    std::string t = img.substr(0, cut);
    bool threw = false;
    try {
      decodePpk(bytes(t), kDefaultMaxPpkMessage);
    } catch (const Error& e) {
      threw = true;
      CHECK(e.status() == Status::malformed);
    }
    CHECK(threw);
  }
  expectFail(img.substr(0, img.size() - 1), Status::malformed, "(file truncated)");
}

TEST(wrong_magic_and_version) {
  std::string img = samplePpk();
  std::string bad = img;
  bad[1] = 'Q';
  expectFail(bad, Status::malformed, "magic number missing");
  // Bytes 8-11: the IR revision. Other revisions are refused, saying which side is older.
  CHECK_EQ(static_cast<int>(img[8]), 2);
  bad = img;
  bad[8] = 1;
  expectFail(bad, Status::unsupported, "IR revision 1, written by a pre-release profpack");
  bad[8] = 3;
  expectFail(bad, Status::unsupported, "IR revision 3, written by a newer profpack");
}

// .ppk files of the pre-release IR (revision 1: one whose cost tables have plain columns, one
// with gperftools addresses as plain deltas) are refused, saying what to do.
TEST(pre_release_ppk_is_refused) {
  for (const char* f : {"ppk/callgrind.workload.instr-jumps.before-predicted.ppk",
                        "ppk/gperftools.workload.64le.before-address-model.ppk"}) {
    try {
      readProfile(bytes(testlib::slurp(testlib::data(f))), {});
      CHECK(false);
    } catch (const Error& e) {
      CHECK(e.status() == Status::unsupported);
      CHECK_EQ(e.offset(), uint64_t{8});
      CHECK_CONTAINS(e.what(), "IR revision 1, written by a pre-release profpack");
      CHECK_CONTAINS(e.what(), "convert the original profile again");
    }
  }
}

TEST(corrupt_checksum_and_data) {
  std::string img = samplePpk();
  std::string bad = img;
  bad[bad.size() - 2] ^= 0x55;  // inside the zstd checksum
  expectFail(bad, Status::malformed, "corrupt compressed data");
  bad = img;
  bad[img.size() / 2] ^= 0x55;
  bool threw = false;
  try {
    decodePpk(bytes(bad), kDefaultMaxPpkMessage);
  } catch (const Error& e) {
    threw = e.status() == Status::malformed;
  }
  CHECK(threw);
}

TEST(oversize_declaration_refused_before_allocating) {
  std::string img = samplePpk();
  std::string bad = img;
  put64(bad, 16, uint64_t{1} << 62);
  expectFail(bad, Status::limit, "exceeds the limit");
  // A caller-set limit below the real size is honoured too.
  expectFail(img, Status::limit, "exceeds the limit of 1024 bytes", 1024);
  // A declaration within the limit that disagrees with the zstd frame is malformed.
  bad = img;
  put64(bad, 16, 8);
  expectFail(bad, Status::malformed, "header declares 8");
  bad = img;
  put64(bad, 16, 12);
  expectFail(bad, Status::malformed, "not a positive multiple of 8");
}

TEST(trailing_data_refused) {
  std::string img = samplePpk() + "x";
  expectFail(img, Status::malformed, "(trailing data)");
}

TEST(bad_level) {
  std::string cg = testlib::slurp(testlib::data("cachegrind/cachegrind.workload.out"));
  auto p = readCachegrind(bytes(cg));
  bool threw = false;
  try {
    encodePpk(*p, 0);
  } catch (const Error& e) {
    threw = e.status() == Status::invalidArgument;
  }
  CHECK(threw);
}

// A message whose pointers disagree with the schema is refused when it is read, not by the
// first query that follows the bad pointer.
TEST(schema_mismatch_refused_at_read) {
  auto message = std::make_unique<capnp::MallocMessageBuilder>();
  auto root = message->initRoot<ir::Profile>();
  root.setFormat(ir::Format::GPERFTOOLS);
  const auto stacks = capnp::Schema::from<ir::Profile>().getFieldByName("stacks");
  // A list of bytes where the StackSamples struct belongs.
  capnp::AnyStruct::Builder(ir::Profile::Builder(root))
      .getPointerSection()[stacks.getProto().getSlot().getOffset()]
      .initAsAnyList(capnp::ElementSize::BYTE, 3);
  const std::string img = encodePpk(Profile(std::move(message)), 3);
  expectFail(img, Status::malformed, "invalid Cap'n Proto message");
}

// An output path that is no regular file is written to, not replaced by one: a FIFO (a reader
// gets the bytes, the FIFO stays), and a character device (a /dev/null made here, where the
// test may make device nodes: `profpack convert ... -o /dev/null` replaced the system's).
// A directory or an empty path is refused before anything is written (the rename at the end
// failed there, after the whole output was made), and a file replaced keeps its permissions.
TEST(atomic_file_refuses_directories_and_keeps_permissions) {
  const std::string dir = testlib::tempPath("out.dir");
  ::mkdir(dir.c_str(), 0700);
  for (const std::string& path : {dir, std::string()}) {
    bool refused = false;
    try {
      AtomicFile f(path);
    } catch (const Error& e) {
      refused = true;
      CHECK(std::string(e.what()).find(path.empty() ? "empty" : "Is a directory") !=
            std::string::npos);
    }
    CHECK(refused);
  }
  ::rmdir(dir.c_str());
  const std::string priv = testlib::tempPath("private.out");
  writeFileAtomic(priv, "first");
  CHECK(::chmod(priv.c_str(), 0600) == 0);
  writeFileAtomic(priv, "second");
  struct stat st;
  CHECK(::stat(priv.c_str(), &st) == 0 && (st.st_mode & 07777) == 0600);
  std::remove(priv.c_str());
}

// An output name as long as a directory entry allows: its temporary file's name, which adds a
// suffix, is cut short to fit (it was refused with "File name too long"), and nothing else is
// left in the directory.
TEST(atomic_file_writes_names_of_the_longest_length) {
  const std::string dir = testlib::tempPath("long.dir");
  ::mkdir(dir.c_str(), 0700);
  const std::string path = dir + "/" + std::string(NAME_MAX, 'n');
  writeFileAtomic(path, "first");
  writeFileAtomic(path, "second");
  CHECK_EQ(testlib::slurp(path), std::string("second"));
  size_t entries = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) entries += e->d_name[0] != '.';
    ::closedir(d);
  }
  CHECK_EQ(entries, size_t{1});
  std::remove(path.c_str());
  ::rmdir(dir.c_str());
}

TEST(atomic_file_writes_into_devices_and_fifos) {
  const std::string fifo = testlib::tempPath("out.fifo");
  std::remove(fifo.c_str());
  CHECK(::mkfifo(fifo.c_str(), 0600) == 0);
  // The reading end, open first (without waiting for a writer): the write then finds it.
  const int rfd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  CHECK(rfd >= 0);
  writeFileAtomic(fifo, "through the pipe");
  std::string got;
  char buf[256];
  for (ssize_t n; rfd >= 0 && (n = ::read(rfd, buf, sizeof buf)) > 0;)
    got.append(buf, static_cast<size_t>(n));
  if (rfd >= 0) ::close(rfd);
  struct stat st;
  CHECK(::stat(fifo.c_str(), &st) == 0 && S_ISFIFO(st.st_mode));
  CHECK_EQ(got, std::string("through the pipe"));
  std::remove(fifo.c_str());
  const std::string null = testlib::tempPath("null");
  std::remove(null.c_str());
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    std::fprintf(stderr, "device node not made here (needs root): only the FIFO checked\n");
    return;
  }
  writeFileAtomic(null, "gone");
  CHECK(::stat(null.c_str(), &st) == 0 && S_ISCHR(st.st_mode));
  std::remove(null.c_str());
}

TEST(atomic_file_killed_while_writing_leaves_nothing) {
  // A process killed before commit() (Ctrl-C, kill -9) left its named temporary file beside
  // the output; an O_TMPFILE file has no name until then. The directory is the test's own.
  const std::string dir = testlib::tempPath("killed.dir");
  ::mkdir(dir.c_str(), 0700);
  const std::string out = dir + "/out.ppk";
  writeFileAtomic(out, "before");
  const pid_t child = ::fork();
  if (child == 0) {
    AtomicFile f(out);
    f.write(std::string(1 << 20, 'x'));
    ::raise(SIGKILL);
  }
  int status = 0;
  CHECK(child > 0 && ::waitpid(child, &status, 0) == child && WIFSIGNALED(status));
  std::vector<std::string> left;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
        left.push_back(e->d_name);
    ::closedir(d);
  }
  CHECK_EQ(left.size(), size_t{1});
  CHECK(!left.empty() && left[0] == "out.ppk");
  // The file it would have replaced is whole, and a write that commits names it as before.
  std::string got;
  char buf[64];
  const int fd = ::open(out.c_str(), O_RDONLY);
  for (ssize_t n; fd >= 0 && (n = ::read(fd, buf, sizeof buf)) > 0;)
    got.append(buf, static_cast<size_t>(n));
  if (fd >= 0) ::close(fd);
  CHECK_EQ(got, std::string("before"));
  std::remove(out.c_str());
  ::rmdir(dir.c_str());
}

TEST_MAIN()
