// How an archive keeps a member (registry.h, archiveForm): as the file its format's writer
// writes, where reading that file back gives the member's IR message byte for byte, coded by
// the format's archive coding where it has one. Profiles of one program in different runs
// share more bytes as files than as IR messages (whose string ids and predicted columns
// differ wherever one string or cost does), so an archive's shared dictionary finds more.
#include <optional>
#include <string>

#include "error.h"
#include "formats/callgrind/archive_coding.h"
#include "formats/gperftools/archive_coding.h"
#include "formats/registry.h"
#include "profile.h"

namespace profpack {

namespace {

// Members whose IR message is larger stay IR messages: reading a file of a text format costs
// more than decoding its message, and only small members gain much from a shared dictionary.
constexpr size_t kMaxFormBytes = size_t{16} << 20;

// A format's archive coding, and the archive revision that brought it: an archive of an
// earlier revision keeps that format's members uncoded (a build of that revision could not
// read them, and refuses an archive of a later revision as newer than itself).
struct ArchiveCoding {
  FormatId format;
  uint32_t sinceRevision;
  std::optional<std::string> (*code)(std::string_view file);
  std::string (*decode)(std::string_view coded);
};
constexpr ArchiveCoding kCodings[] = {
    {FormatId::gperftools, 2, gperftoolsArchiveCode, gperftoolsArchiveDecode},
    {FormatId::callgrind, 4, callgrindArchiveCode, callgrindArchiveDecode},
};

const ArchiveCoding* codingOf(FormatId f) {
  for (const ArchiveCoding& c : kCodings)
    if (c.format == f) return &c;
  return nullptr;
}

std::unique_ptr<Profile> readAs(FormatId f, const std::string& file) {
  ReadOptions o;
  o.format = f;
  return readProfile({reinterpret_cast<const uint8_t*>(file.data()), file.size()}, o);
}

}  // namespace

std::optional<ArchiveForm> archiveForm(const Profile& profile, const std::string& message,
                                       uint32_t archiveRevision) {
  const FormatId f = formatOf(profile);
  FormatFacts facts;
  if (message.size() > kMaxFormBytes || f == FormatId::ppk || !formatFacts(f, facts) ||
      !facts.writable || !facts.readable)
    return std::nullopt;
  ArchiveForm out;
  try {
    out.bytes = writeProfile(profile, f, WriteOptions{});
    if (readAs(f, out.bytes)->flatBytes() != message) return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;  // a profile its format's writer cannot write as read
  }
  if (const ArchiveCoding* c = codingOf(f); c && c->sinceRevision <= archiveRevision)
    if (auto coded = c->code(out.bytes)) out.bytes = std::move(*coded), out.coded = true;
  return out;
}

std::unique_ptr<Profile> profileFromArchiveForm(FormatId format, const std::string& bytes,
                                                bool coded, uint32_t archiveRevision) {
  const ArchiveCoding* c = codingOf(format);
  if (coded && !c)
    throw Error(Status::malformed, "ppka",
                std::string("a coded member of ") + formatName(format) +
                    ", a format without an archive coding");
  if (coded && c->sinceRevision > archiveRevision)
    throw Error(Status::malformed, "ppka",
                std::string("a coded member of ") + formatName(format) +
                    ", whose coding archive revision " + std::to_string(archiveRevision) +
                    " has not (it came with revision " + std::to_string(c->sinceRevision) + ")");
  return readAs(format, coded ? c->decode(bytes) : bytes);
}

}  // namespace profpack
