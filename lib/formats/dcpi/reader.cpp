// DCPI profile files (dcpiformat(4)), binary data of major version 0 (versions 0.06, 0.07).
//
//   header     ::= line+ "samples" blank* "\n"
//   line       ::= key blank+ rest_of_line "\n"      (required keys exactly once)
//   binary     ::= chunk* footer                       (little-endian uint32 values)
//   chunk      ::= offset number count{number}
//   footer     ::= addresses_with_samples total_samples
//
// Kept in the IR: every header line exactly as written (unknown lines and the blanks that pad
// the header included), the terminator line as written, every chunk's offset and number and
// every count in file order, and the footer. The footer is verified against the counts.
//
// The binary part is parsed in one pass over the mapped bytes: chunk headers checked, counts
// varint-encoded without branches into scratch blobs, footer figures summed; the blobs are then
// copied into the message.

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <iterator>
#include <memory>
#include <string_view>

#include "error.h"
#include "formats/dcpi/common.h"
#include "ir/column.h"
#include "util/text.h"

namespace profpack {

using namespace dcpi;

namespace {

using Enc = ir::Column::Encoding;

enum ValueKind { kAny, kHex, kDigits, kEpoch, kVersion };
struct KeySpec {
  const char* key;
  bool required;
  ValueKind kind;
};
constexpr KeySpec kKeys[] = {
    {"version", true, kVersion}, {"image", true, kHex},        {"epoch", true, kEpoch},
    {"platform", true, kAny},    {"event", true, kAny},        {"period", true, kDigits},
    {"tstart", true, kHex},      {"tsize", true, kDigits},     {"cpuspeed", true, kDigits},
    {"cpuamask", false, kHex},   {"cpuimplv", false, kDigits}, {"cpucount", false, kDigits},
    {"path", false, kAny},
};
constexpr size_t kRequiredCount = 9;  // the first kRequiredCount entries of kKeys
constexpr size_t kTstart = 6;

inline uint32_t le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}
bool isHex(char c) { return hexDigitValue(c) < 16; }
std::string quoted(std::string_view s) {
  constexpr size_t kMax = 60;
  std::string out = "'";
  for (char c : s.substr(0, kMax)) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[static_cast<unsigned char>(c) >> 4];
      out += hex[c & 15];
    } else {
      out += c;
    }
  }
  if (s.size() > kMax) out += "...";
  return out + "'";
}

// Parses "pdb-<major>.<minor>"; returns false if the value does not have that form.
struct HeaderLine {
  std::string_view text, key, value;
};

// Per highest set bit b of a value (b = bit_width(v | 1) - 1): its LEB128 length, and the
// continuation bits of all but its last byte.
struct VarintShape {
  uint8_t bytes;
  uint64_t continuation;
};
constexpr auto kShapes = [] {
  std::array<VarintShape, 32> t{};
  for (unsigned b = 0; b < 32; ++b) {
    const unsigned n = b / 7 + 1;
    t[b] = {static_cast<uint8_t>(n), 0x0000008080808080ull & ((uint64_t{1} << (8 * (n - 1))) - 1)};
  }
  return t;
}();

// Writes the LEB128 encoding of v without branches: the 7-bit groups are spread over 5 bytes,
// the continuation bits set on all but the last used byte, and 8 bytes are stored (the caller
// leaves 8 bytes of room); returns the end of the used bytes.
inline uint8_t* putVarintFast(uint8_t* w, uint32_t v) {
  uint64_t x = (v & 0x7fu) | (uint64_t{v & 0x3f80u} << 1) | (uint64_t{v & 0x1fc000u} << 2) |
               (uint64_t{v & 0xfe00000u} << 3) | (uint64_t{v & 0xf0000000u} << 4);
  const VarintShape& shape = kShapes[31 - std::countl_zero(v | 1)];
  x |= shape.continuation;
  if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
  std::memcpy(w, &x, 8);
  return w + shape.bytes;
}

// Text of exactly these bytes (a NUL inside a header line is kept too).
}  // namespace

std::unique_ptr<Profile> readDcpi(std::span<const uint8_t> data) {
  const char* text = reinterpret_cast<const char*>(data.data());
  const size_t size = data.size();

  // ---- ASCII header.
  std::vector<HeaderLine> lines;
  uint64_t seenLine[kRequiredCount] = {};  // line number of each required key, 0 = not seen
  uint64_t versionLine = 0, versionOffset = 0, major = 0, textStart = 0;
  std::string_view version, terminator;
  uint64_t lineNo = 0;
  size_t pos = 0, binary = 0, termOffset = 0;
  for (;;) {
    ++lineNo;
    const void* nl = pos < size ? std::memchr(text + pos, '\n', size - pos) : nullptr;
    if (!nl)
      fail(kFmt, pos, lineNo,
           "the header ends without its terminator line: expected \"samples\" and a newline "
           "before the binary data, found " +
               (pos < size ? quoted(std::string_view(text + pos, size - pos)) + " and no newline"
                           : std::string("the end of the file")));
    const size_t eol = static_cast<size_t>(static_cast<const char*>(nl) - text);
    std::string_view line(text + pos, eol - pos);
    const size_t lineOffset = pos;
    pos = eol + 1;
    size_t k = 0;
    while (k < line.size() && !isSpace(line[k])) ++k;
    std::string_view key = line.substr(0, k);
    size_t v = k;
    while (v < line.size() && isSpace(line[v])) ++v;
    std::string_view value = line.substr(v);
    while (!value.empty() && isSpace(value.back())) value.remove_suffix(1);
    if (key == "samples") {
      if (!value.empty())
        fail(kFmt, lineOffset + v, lineNo,
             "expected the terminator line \"samples\" followed only by blanks, found " +
                 quoted(line));
      terminator = line;
      termOffset = lineOffset;
      binary = pos;
      break;
    }
    if (key.empty())
      fail(kFmt, lineOffset, lineNo,
           "expected a header line 'key value' (or the terminator \"samples\"), found " +
               (line.empty() ? std::string("an empty line") : quoted(line)));
    if (value.empty())
      fail(kFmt, lineOffset, lineNo,
           "header line " + quoted(key) + " has no value (expected 'key value')");
    for (size_t i = 0; i < std::size(kKeys); ++i) {
      const KeySpec& spec = kKeys[i];
      if (key != spec.key) continue;
      if (spec.required) {
        if (seenLine[i])
          fail(kFmt, lineOffset, lineNo,
               "repeated header line '" + std::string(key) + "': expected exactly one, found " +
                   "a second one (the first is on line " + std::to_string(seenLine[i]) + ")");
        seenLine[i] = lineNo;
      }
      bool ok = true;
      const char* expected = "";
      switch (spec.kind) {
        case kAny: break;
        case kHex:
          ok = allOf(value, isHex);
          expected = "hexadecimal digits";
          break;
        case kDigits:
          ok = allOf(value, isDigit);
          expected = "decimal digits";
          break;
        case kEpoch:
          ok = allOf(value, isDigit) && (value.size() == 10 || value.size() == 14);
          expected = "a UTC time YYMMDDHHMM or YYYYMMDDHHMMSS";
          break;
        case kVersion:
          ok = parseVersion(value, major);
          expected = "pdb-<major>.<minor>";
          break;
      }
      if (!ok)
        fail(kFmt, lineOffset + v, lineNo,
             "header line '" + std::string(key) + "': expected " + expected + ", found " +
                 quoted(value));
      if (i == kTstart) {
        size_t digits = value.size();
        size_t lead = 0;
        while (lead + 1 < digits && value[lead] == '0') ++lead;
        if (digits - lead > 16)
          fail(kFmt, lineOffset + v, lineNo,
               "header line 'tstart': expected an address of at most 64 bits, found " +
                   quoted(value));
        for (char c : value) textStart = textStart << 4 | hexDigitValue(c);  // checked hex above
      }
      if (spec.kind == kVersion) {
        version = value;
        versionLine = lineNo;
        versionOffset = lineOffset;
      }
      break;
    }
    lines.push_back({line, key, value});
  }
  if (seenLine[0] && major != 0)
    throw Error(Status::unsupported, kFmt,
                "version " + std::string(version) + ": DCPI major version " +
                    std::to_string(major) +
                    (major == 1 ? " is recognised but not supported: its binary layout is "
                                  "undocumented (dcpiformat(4) documents only major version 0, "
                                  "versions 0.06 and 0.07)"
                                : " is unknown (only major version 0 is documented)"),
                versionOffset, versionLine);
  {
    std::string missing;
    for (size_t i = 0; i < kRequiredCount; ++i)
      if (!seenLine[i]) missing += std::string(missing.empty() ? "" : ", ") + kKeys[i].key;
    if (!missing.empty())
      fail(kFmt, termOffset, lineNo,
           "missing required header line(s): " + missing +
               " (expected exactly one of each before \"samples\")");
  }

  // ---- Binary part, in one pass: chunk headers checked, counts varint-encoded (branch-free)
  // into scratch blobs of one column chunk each, and the footer figures computed.
  uint64_t nonzero = 0, sum = 0, inBlob = 0;
  std::vector<std::unique_ptr<uint8_t[]>> scratch;
  std::vector<size_t> blobBytes;
  uint8_t* w = nullptr;
  // `bound`: most values the rest of the file can hold, so a blob is never sized above it.
  auto encode = [&](const uint8_t* q, uint64_t n, uint64_t bound) {
    while (n) {
      if (!w) {
        // At most 5 bytes a value, plus the 8 bytes the last value's store may touch.
        scratch.emplace_back(new uint8_t[std::min<uint64_t>(kColumnChunkValues, bound) * 5 + 8]);
        w = scratch.back().get();
      }
      const uint64_t take = std::min<uint64_t>(n, kColumnChunkValues - inBlob);
      uint64_t nz = 0, sm = 0;
      uint8_t* out = w;
      for (uint64_t i = 0; i < take; ++i) {
        const uint32_t c = le32(q + 4 * i);
        nz += c != 0;
        sm += c;
        out = putVarintFast(out, c);
      }
      w = out;
      nonzero += nz;
      sum += sm;
      inBlob += take;
      if (inBlob == kColumnChunkValues) {
        blobBytes.push_back(static_cast<size_t>(w - scratch.back().get()));
        w = nullptr;
        inBlob = 0;
      }
      q += 4 * take;
      n -= take;
      bound -= take;
    }
  };
  const uint8_t* base = data.data();
  const uint8_t* p = base + binary;
  const uint8_t* end = base + size;
  if (end - p < 8)
    fail(
        kFmt, binary, kUnknown,
        "expected the 8-byte footer after the header, found " + std::to_string(end - p) + " bytes");
  const uint8_t* footer = end - 8;
  ColumnWriter offsets(Enc::ZIGZAG_DELTA), numbers(Enc::VARINT);
  uint64_t nextFree = 0;  // lowest offset the next chunk may start at
  uint64_t totalCounts = 0;
  while (p < footer) {
    const uint64_t at = static_cast<uint64_t>(p - base);
    if (footer - p < 8)
      fail(kFmt, at, kUnknown,
           "expected a chunk (8 bytes of offset and number) or the 8-byte footer, found " +
               std::to_string(end - p) + " bytes before the end of the file");
    const uint32_t offset = le32(p), number = le32(p + 4);
    if (number == 0)
      fail(kFmt, at + 4, kUnknown,
           "chunk at offset 0x" + hexDigits(offset) +
               " has number 0 (expected at least one count per chunk)");
    if (offset < nextFree)
      fail(kFmt, at, kUnknown,
           "chunk offset overlaps or precedes the previous chunk: expected an offset of at "
           "least 0x" +
               hexDigits(nextFree) + " (where the previous chunk's addresses end), found 0x" +
               hexDigits(offset));
    const uint64_t bytes = uint64_t{number} * 4;
    if (bytes > static_cast<uint64_t>(footer - (p + 8)))
      fail(kFmt, at + 4, kUnknown,
           "chunk at offset 0x" + hexDigits(offset) + " has " + std::to_string(number) +
               " counts: expected " + std::to_string(bytes) + " bytes of counts before the " +
               "8-byte footer, found " + std::to_string(footer - (p + 8)));
    offsets.push(offset);
    numbers.push(number);
    encode(p + 8, number, static_cast<uint64_t>(footer - (p + 8)) / 4);
    totalCounts += number;
    nextFree = uint64_t{offset} + bytes;
    p += 8 + bytes;
  }
  if (w) blobBytes.push_back(static_cast<size_t>(w - scratch.back().get()));

  const uint32_t footAddresses = le32(footer), footSamples = le32(footer + 4);
  const uint64_t footerAt = static_cast<uint64_t>(footer - base);
  if (footAddresses != nonzero)
    fail(kFmt, footerAt, kUnknown,
         "footer: expected " + std::to_string(nonzero) +
             " addresses with samples (the nonzero counts of the chunks), found " +
             std::to_string(footAddresses));
  if (footSamples != static_cast<uint32_t>(sum))
    fail(kFmt, footerAt + 4, kUnknown,
         "footer: expected " + std::to_string(static_cast<uint32_t>(sum)) +
             " total samples (the sum of the counts mod 2^32), found " +
             std::to_string(footSamples));

  // ---- Build the message.
  auto message = newMessage(size);
  auto root = message->getRoot<ir::Profile>();
  root.setFormat(ir::Format::DCPI);
  root.setFormatVersion(TextOf(version));
  StringInterner strings;
  strings.build(root.initStrings());
  auto img = root.initImages(1)[0];
  auto hl = img.initHeaderLines(static_cast<unsigned>(lines.size()));
  for (size_t i = 0; i < lines.size(); ++i)
    setHeaderLine(hl[static_cast<unsigned>(i)], lines[i].text, lines[i].key, lines[i].value);
  img.setTerminator(TextOf(terminator));
  img.setTextStart(textStart);
  offsets.build(img.initChunkOffset());
  numbers.build(img.initChunkLength());
  auto counts = img.initCounts();
  counts.setCount(totalCounts);
  counts.setEncoding(Enc::VARINT);
  counts.setChunkValues(kColumnChunkValues);
  auto blobs = counts.initChunks(static_cast<unsigned>(blobBytes.size()));
  for (size_t i = 0; i < blobBytes.size(); ++i)
    std::memcpy(blobs.init(static_cast<unsigned>(i), static_cast<unsigned>(blobBytes[i])).begin(),
                scratch[i].get(), blobBytes[i]);
  img.setFooterAddresses(footAddresses);
  img.setFooterSamples(footSamples);
  return std::make_unique<Profile>(std::move(message));
}

bool isDcpi(std::span<const uint8_t> data) {
  // An ASCII header of "key value" lines, one of which is "version pdb-...".
  const std::string_view head(reinterpret_cast<const char*>(data.data()),
                              std::min<size_t>(data.size(), 1 << 16));
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
      if (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) {
        while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
          rest.remove_prefix(1);
        if (rest.starts_with("pdb-")) return true;
      }
    }
    if (line.starts_with("samples")) return false;
  }
  return false;
}

}  // namespace profpack
