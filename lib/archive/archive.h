// The .ppka archive: many profiles in one file, in segments that share a zstd dictionary.
//
//   bytes 0-7    magic "\x89PPKA\r\n\x1a"
//   bytes 8-11   archive revision (u32 little-endian), 4 (1: every member an IR message; 2:
//                members kept as their formats' files, gperftools coded; 3: members kept whole
//                in their segment's dictionary; 4: Callgrind members coded too)
//   bytes 12-15  flags (u32), 0
//   then, appended by each commit: a segment (its dictionary's zstd frame, then each member's
//   zstd frame, compressed with the dictionary: the member's IR message as .ppk keeps it, or
//   the file its format writes where reading that gives the same message (Member.form)),
//   then the commit record: the zstd frame of the Manifest (archive.capnp) naming every
//   segment committed so far, and a 32-byte trailer
//     u64 manifest frame size, u64 manifest message size, u64 FNV-1a-64 of the frame,
//     magic "PPKACMIT".
// The last commit record whose trailer, checksum and manifest are valid is the archive; bytes
// after it (an append cut by a crash or a full disk) are ignored, and the next append
// overwrites them. Appends write and fsync the segment, then write and fsync the commit.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "profile.h"

namespace profpack {

inline constexpr uint32_t kArchiveRevision = 4;
// The oldest revision this build reads; appends to an archive of it keep its revision.
inline constexpr uint32_t kOldestArchiveRevision = 1;

// What a member's frame holds (archive.capnp, Member.form).
enum class MemberForm : uint8_t { message = 0, file = 1, codedFile = 2 };

struct ArchiveMember {
  uint64_t id = 0;
  std::string format;
  int64_t time = 0;
  std::vector<std::pair<std::string, std::string>> labels;
  uint64_t offset = 0, size = 0, rawSize = 0;
  uint32_t irRevision = 0;
  uint32_t segment = 0;
  MemberForm form = MemberForm::message;
  uint64_t messageSize = 0;  // the IR message's size (rawSize where form is message)
  // Revision 3: the member's bytes are the segment dictionary's [offset, offset + rawSize) (a
  // dictionary made of the members themselves holds each whole); no frame (size 0).
  bool inDictionary = false;
};

struct ArchiveSegment {
  uint32_t dictSegment = 0;
  uint64_t dictOffset = 0, dictSize = 0, dictRawSize = 0;
};

struct ArchiveInput {
  const Profile* profile = nullptr;
  std::string format;  // the format name it was read from
  int64_t time = 0;
  std::vector<std::pair<std::string, std::string>> labels;
};

class Archive {
 public:
  // Opens (creating where `create` and it does not exist) the archive at `path`. A writer takes
  // an exclusive lock on the file for its life; readers take none.
  static std::unique_ptr<Archive> open(const std::string& path, bool create, bool writable);
  ~Archive();

  const std::vector<ArchiveMember>& members() const { return members_; }
  const std::vector<ArchiveSegment>& segments() const { return segments_; }
  uint64_t committedBytes() const { return committed_; }
  uint32_t revision() const { return revision_; }

  // The member at `index` (of members()), decoded and checked.
  std::unique_ptr<Profile> read(size_t index) const;

  // Appends `inputs` as one new segment and commits it. On failure (a full disk) the file is
  // cut back to the last commit where it can be, and the archive is as before.
  void add(const std::vector<ArchiveInput>& inputs, int level);

  // Rewrites the archive (at the current revision) as one segment with one dictionary on all
  // members, each kept in the smallest form it may be kept in.
  void compact(int level);

 private:
  Archive() = default;
  void load();
  std::string dictionary(uint32_t segment) const;
  // A member's bytes: its frame decompressed, or its range of the segment's dictionary.
  std::string memberBytes(const ArchiveMember& m) const;
  std::string pread(uint64_t offset, uint64_t size) const;
  void writeAll(uint64_t offset, const std::string& data);

  std::string path_;
  int fd_ = -1;
  bool writable_ = false;  // opened for add and compact, holding the writers' lock
  void requireWritable(const char* what) const;
  uint64_t committed_ = 0;  // end of the last valid commit record
  uint64_t nextId_ = 1;
  uint32_t revision_ = kArchiveRevision;
  std::vector<ArchiveSegment> segments_;
  std::vector<ArchiveMember> members_;
};

}  // namespace profpack
