#include "formats/registry.h"

#include <algorithm>
#include <cstring>

#include "container/ppk.h"
#include "error.h"
#include "formats/gperftools/gperftools.h"
#include "formats/xray/xray.h"

namespace profpack {

namespace {
struct Name {
  FormatId id;
  const char* name;
};
constexpr Name kNames[] = {
    {FormatId::ppk, "ppk"},
    {FormatId::callgrind, "callgrind"},
    {FormatId::cachegrind, "cachegrind"},
    {FormatId::gperftools, "gperftools"},
    {FormatId::xray, "xray"},
    {FormatId::dcpi, "dcpi"},
};

std::string_view trimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// Text profiles of the Callgrind family: Cachegrind's header holds only desc:, cmd: and
// events:, and its body only fl=, fn= and count lines; anything else is Callgrind.
FormatId detectText(std::string_view text) {
  size_t pos = 0;
  bool sawHeader = false;
  for (int lines = 0; pos < text.size() && lines < 4096; ++lines) {
    size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? text.npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (lines == 0 && line.starts_with("# callgrind format")) return FormatId::callgrind;
    if (line.empty() || line.front() == '#') continue;
    size_t colon = line.find(':');
    size_t eq = line.find('=');
    if (colon != line.npos && (eq == line.npos || colon < eq)) {
      std::string_view key = line.substr(0, colon);
      if (key == "desc" || key == "cmd" || key == "events") {
        sawHeader = true;
        continue;
      }
      if (key == "version" || key == "creator" || key == "pid" || key == "thread" ||
          key == "part" || key == "positions" || key == "event" || key == "summary" ||
          key == "totals")
        return FormatId::callgrind;
      return FormatId::unknown;
    }
    // First body line.
    if (!sawHeader) return FormatId::unknown;
    if (line.starts_with("fl=") || line.starts_with("fn=")) {
      // Look further: Callgrind-only body lines decide.
      std::string_view rest = text.substr(std::min(pos, text.size()), 1 << 20);
      for (const char* k : {"\nob=", "\ncalls=", "\ncfn=", "\ncfl=", "\nfi=", "\nfe=", "\njump=",
                            "\njcnd=", "\ntotals:"})
        if (rest.find(k) != rest.npos) return FormatId::callgrind;
      return FormatId::cachegrind;
    }
    return FormatId::unknown;
  }
  return FormatId::unknown;
}

bool looksLikeDcpi(std::string_view head) {
  // An ASCII header of "key value" lines, one of which is "version pdb-...".
  size_t pos = 0;
  for (int lines = 0; pos < head.size() && lines < 256; ++lines) {
    size_t eol = head.find('\n', pos);
    if (eol == head.npos) return false;
    std::string_view line = head.substr(pos, eol - pos);
    pos = eol + 1;
    for (char c : line)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t') return false;
    if (line.starts_with("version")) {
      std::string_view rest = line.substr(7);
      if (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t') &&
          trimLeft(rest).starts_with("pdb-"))
        return true;
    }
    if (line.starts_with("samples")) return false;
  }
  return false;
}
}  // namespace

const char* formatName(FormatId f) {
  for (const Name& n : kNames)
    if (n.id == f) return n.name;
  return "unknown";
}

FormatId formatFromName(std::string_view name) {
  for (const Name& n : kNames)
    if (name == n.name) return n.id;
  return FormatId::unknown;
}

FormatId detectFormat(std::span<const uint8_t> data) {
  if (isPpk(data)) return FormatId::ppk;
  auto u32 = [&](size_t off, bool be) {
    const uint8_t* p = data.data() + off;
    return be ? (uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3])
              : (uint32_t{p[3]} << 24 | uint32_t{p[2]} << 16 | uint32_t{p[1]} << 8 | p[0]);
  };
  // gperftools: header slot 0 is 0 and slot 1 is >= 3 (in any width and byte order).
  if (data.size() >= 8 && u32(0, false) == 0) {
    if (u32(4, false) >= 3 && u32(4, false) < 0x10000) return FormatId::gperftools;  // 32 LE
    if (u32(4, true) >= 3 && u32(4, true) < 0x10000) return FormatId::gperftools;    // 32 BE
    if (data.size() >= 16 && u32(4, false) == 0 &&
        ((u32(8, false) >= 3 && u32(8, false) < 0x10000 && u32(12, false) == 0) ||
         (u32(8, false) == 0 && u32(12, true) >= 3 && u32(12, true) < 0x10000)))
      return FormatId::gperftools;  // 64 LE / 64 BE
  }
  // XRay: 32-byte header, u16 version then u16 type 0 (basic) or 1 (FDR).
  if (data.size() >= 32) {
    uint16_t version = static_cast<uint16_t>(data[0] | data[1] << 8);
    uint16_t type = static_cast<uint16_t>(data[2] | data[3] << 8);
    if (version >= 1 && version < 256 && type <= 1) return FormatId::xray;
  }
  std::string_view head(reinterpret_cast<const char*>(data.data()),
                        std::min<size_t>(data.size(), 1 << 16));
  if (looksLikeDcpi(head)) return FormatId::dcpi;
  std::string_view all(reinterpret_cast<const char*>(data.data()), data.size());
  return detectText(all);
}

std::unique_ptr<Profile> readProfile(std::span<const uint8_t> data, const ReadOptions& options) {
  // An empty input may come with a null pointer (an empty std::vector, a C caller's NULL):
  // give the readers a valid one, so no memchr/memcpy ever sees null.
  static const uint8_t kNothing[1] = {0};
  if (data.empty()) data = std::span<const uint8_t>(kNothing, 0);
  FormatId f = options.format == FormatId::unknown ? detectFormat(data) : options.format;
  switch (f) {
    case FormatId::ppk: return decodePpk(data, options.maxPpkMessage);
    case FormatId::cachegrind: return readCachegrind(data);
    case FormatId::xray: return readXray(data, options.strict);
    case FormatId::dcpi: return readDcpi(data);
    case FormatId::callgrind: return readCallgrind(data);
    case FormatId::gperftools: return readGperftools(data);
    case FormatId::unknown:
      if (data.empty()) throw Error(Status::malformed, "", "empty input: no profile to read", 0);
      throw Error(Status::malformed, "",
                  "unrecognised input: not a .ppk, Callgrind, Cachegrind, gperftools, XRay or "
                  "DCPI profile",
                  0);
    default:
      throw Error(Status::unsupported, formatName(f),
                  std::string("reading ") + formatName(f) + " profiles is not implemented yet");
  }
}

void writeProfile(const Profile& profile, FormatId format, const WriteOptions& options, Sink& out) {
  switch (format) {
    case FormatId::callgrind: return writeCallgrind(profile, out);
    case FormatId::cachegrind: return writeCachegrind(profile, out);
    default: out.write(writeProfile(profile, format, options));
  }
}

std::string writeProfile(const Profile& profile, FormatId format, const WriteOptions& options) {
  switch (format) {
    case FormatId::ppk: return encodePpk(profile, options.ppkLevel);
    case FormatId::cachegrind: return writeCachegrind(profile);
    case FormatId::xray: return writeXray(profile, {options.xrayMode, options.xrayVersion});
    case FormatId::dcpi: return writeDcpi(profile, options.dcpiImage);
    case FormatId::callgrind: return writeCallgrind(profile);
    case FormatId::gperftools: {
      GperfWriteOptions g;
      g.slotBytes = options.gperfSlotBytes;
      g.byteOrder = options.gperfByteOrder == 1   ? GperfWriteOptions::ByteOrder::little
                    : options.gperfByteOrder == 2 ? GperfWriteOptions::ByteOrder::big
                                                  : GperfWriteOptions::ByteOrder::asRead;
      return writeGperftools(profile, g);
    }
    case FormatId::unknown: throw Error(Status::invalidArgument, "", "no output format given");
    default:
      throw Error(
          Status::unsupported, formatName(format),
          std::string("writing ") + formatName(format) + " profiles is not implemented yet");
  }
}

}  // namespace profpack
