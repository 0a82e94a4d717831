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

#include "formats/dcpi/dcpi.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <iterator>
#include <memory>
#include <string_view>

#include "error.h"
#include "ir/column.h"
#include "util/text.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "dcpi";
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
inline void putLe32(char* p, uint32_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}

bool isHex(char c) { return hexDigitValue(c) < 16; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool allOf(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s)
    if (!pred(c)) return false;
  return true;
}

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

std::string hexString(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  char buf[16];
  int n = 0;
  do {
    buf[n++] = digits[v & 15];
    v >>= 4;
  } while (v);
  std::string s;
  while (n) s += buf[--n];
  return s;
}

// Parses "pdb-<major>.<minor>"; returns false if the value does not have that form.
bool parseVersion(std::string_view v, uint64_t& major) {
  if (!v.starts_with("pdb-")) return false;
  v.remove_prefix(4);
  size_t dot = v.find('.');
  if (dot == v.npos) return false;
  std::string_view ma = v.substr(0, dot), mi = v.substr(dot + 1);
  if (!allOf(ma, isDigit) || !allOf(mi, isDigit)) return false;
  major = 0;
  for (char c : ma) {
    if (major > (~uint64_t{0} - 9) / 10) return false;
    major = major * 10 + static_cast<uint64_t>(c - '0');
  }
  return true;
}

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
struct TextOf {
  explicit TextOf(std::string_view v) : s(v) {}
  operator capnp::Text::Reader() const { return capnp::Text::Reader(s.c_str(), s.size()); }
  std::string s;
};

void setHeaderLine(ir::HeaderLine::Builder b, std::string_view text, std::string_view key,
                   std::string_view value) {
  b.setText(TextOf(text));
  b.setKey(TextOf(key));
  b.setValue(TextOf(value));
  b.setPlacement(ir::HeaderLine::Placement::HEADER);
}

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
           "chunk at offset 0x" + hexString(offset) +
               " has number 0 (expected at least one count per chunk)");
    if (offset < nextFree)
      fail(kFmt, at, kUnknown,
           "chunk offset overlaps or precedes the previous chunk: expected an offset of at "
           "least 0x" +
               hexString(nextFree) + " (where the previous chunk's addresses end), found 0x" +
               hexString(offset));
    const uint64_t bytes = uint64_t{number} * 4;
    if (bytes > static_cast<uint64_t>(footer - (p + 8)))
      fail(kFmt, at + 4, kUnknown,
           "chunk at offset 0x" + hexString(offset) + " has " + std::to_string(number) +
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

// ---------------------------------------------------------------------------------------------

namespace {
[[noreturn]] void corruptImage(const std::string& what) {
  throw Error(Status::malformed, "ppk", "DCPI image: " + what);
}

// Decodes and checks the chunk columns (not the counts); returns the number of counts.
uint64_t decodeChunks(ir::ImageHistogram::Reader image, DcpiImage& d) {
  d.textStart = image.getTextStart();
  d.offset = decodeColumn(image.getChunkOffset());
  d.number = decodeColumn(image.getChunkLength());
  d.footerAddresses = image.getFooterAddresses();
  d.footerSamples = image.getFooterSamples();
  if (d.offset.size() != d.number.size())
    corruptImage("chunk offset and length columns have different lengths");
  d.firstCount.reserve(d.offset.size());
  uint64_t total = 0, nextFree = 0;
  for (size_t k = 0; k < d.offset.size(); ++k) {
    const uint64_t o = d.offset[k], n = d.number[k];
    if (o > 0xffffffffu || n == 0 || n > 0xffffffffu)
      corruptImage("chunk " + std::to_string(k) + " has an offset or count number outside 32 bits");
    if (k > 0 && o < nextFree)
      corruptImage("chunk " + std::to_string(k) + " overlaps or precedes the chunk before it");
    d.firstCount.push_back(total);
    total += n;
    nextFree = o + 4 * n;
  }
  if (total != image.getCounts().getCount())
    corruptImage("chunk lengths disagree with the number of counts");
  return total;
}

}  // namespace

DcpiImage decodeDcpiImage(ir::ImageHistogram::Reader image) {
  DcpiImage d;
  decodeChunks(image, d);
  d.counts = decodeColumn(image.getCounts());
  for (uint64_t c : d.counts)
    if (c > 0xffffffffu) corruptImage("a count does not fit in 32 bits");
  for (auto l : image.getHeaderLines()) {
    if (l.getKey() == "event" && d.event.empty()) d.event = l.getValue().cStr();
    if (l.getKey() == "path" && d.path.empty()) d.path = l.getValue().cStr();
  }
  return d;
}

namespace {

// Serialises one image exactly as stored. The counts are decoded straight into the output.
std::string writeImage(ir::ImageHistogram::Reader image) {
  DcpiImage d;
  const uint64_t counts = decodeChunks(image, d);
  size_t headerBytes = image.getTerminator().size() + 1;
  for (auto l : image.getHeaderLines()) headerBytes += l.getText().size() + 1;
  // Each stored count takes at least one byte: a count not backed by the message is refused
  // before the output is sized from it.
  uint64_t stored = 0;
  for (auto c : image.getCounts().getChunks()) stored += c.size();
  if (counts > stored) corruptImage("counts column declares more values than it has bytes");
  std::string out;
  out.resize(headerBytes + 8 * d.offset.size() + 4 * counts + 8);
  char* w = out.data();
  auto put = [&](kj::StringPtr s) {
    std::memcpy(w, s.cStr(), s.size());
    w += s.size();
    *w++ = '\n';
  };
  for (auto l : image.getHeaderLines()) {
    if (l.getText().findFirst('\n') != nullptr) corruptImage("a header line contains a newline");
    put(l.getText());
  }
  {
    std::string_view t(image.getTerminator().cStr(), image.getTerminator().size());
    if (!t.starts_with("samples") || t.find_first_not_of(" \t", 7) != t.npos)
      corruptImage("the terminator is not a samples line");
  }
  put(image.getTerminator());
  ColumnCursor values(image.getCounts());
  uint64_t batch[4096];
  for (size_t k = 0; k < d.offset.size(); ++k) {
    putLe32(w, static_cast<uint32_t>(d.offset[k]));
    putLe32(w + 4, static_cast<uint32_t>(d.number[k]));
    w += 8;
    for (uint64_t left = d.number[k]; left > 0;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left, std::size(batch)));
      values.read(batch, n);
      for (size_t i = 0; i < n; ++i, w += 4) {
        if (batch[i] > 0xffffffffu) corruptImage("a count does not fit in 32 bits");
        putLe32(w, static_cast<uint32_t>(batch[i]));
      }
      left -= n;
    }
  }
  values.finish();
  putLe32(w, d.footerAddresses);
  putLe32(w + 4, d.footerSamples);
  return out;
}

std::string imagePath(ir::ImageHistogram::Reader image) {
  for (auto l : image.getHeaderLines())
    if (l.getKey() == "path") return l.getValue().cStr();
  return "";
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

std::unique_ptr<Profile> dcpiFromModel(const Model& model, const DcpiConvertOptions& o) {
  if (!model.has(kCapAddresses) || model.events() == 0)
    throw Error(Status::unsupported, kFmt,
                "DCPI holds per-instruction sample counts: the profile has no instruction "
                "addresses with cost events to take them from");
  size_t event = 0;
  if (!o.event.empty()) {
    const long e = model.eventIndex(o.event);
    if (e < 0) {
      std::string names;
      for (const std::string& n : model.eventNames()) names += (names.empty() ? "" : ", ") + n;
      throw Error(Status::invalidArgument, kFmt,
                  "no event named '" + o.event + "' in the profile (its events: " + names + ")");
    }
    event = static_cast<size_t>(e);
  }
  uint64_t major = 0;
  if (!parseVersion(o.version, major) || major != 0)
    throw Error(
        Status::invalidArgument, kFmt,
        "DCPI version must be pdb-0.<minor> (the documented layout), not '" + o.version + "'");
  if (!allOf(o.epoch, isDigit) || (o.epoch.size() != 10 && o.epoch.size() != 14))
    throw Error(Status::invalidArgument, kFmt,
                "DCPI epoch must be YYMMDDHHMM or YYYYMMDDHHMMSS, not '" + o.epoch + "'");
  auto oneLine = [](const std::string& s) {
    return !s.empty() && !isSpace(s[0]) && s.find('\n') == s.npos;
  };
  if (!oneLine(o.platform))
    throw Error(Status::invalidArgument, kFmt, "DCPI platform must be one non-blank line");
  const std::string& eventName = model.eventNames()[event];
  if (!oneLine(eventName))
    throw Error(Status::unsupported, kFmt, "event name '" + eventName + "' cannot be a DCPI event");

  const LocationLayer& layer = model.locations();
  // Objects ranked by name (locations in no mapping: the object ""): the rank of each mapping.
  std::vector<std::string_view> objects{""};
  for (const Mapping& m : layer.mappings) objects.push_back(m.path);
  std::sort(objects.begin(), objects.end());
  objects.erase(std::unique(objects.begin(), objects.end()), objects.end());
  auto rankOf = [&](int64_t mapping) {
    const std::string_view path =
        mapping < 0 ? std::string_view() : std::string_view(layer.mappings[mapping].path);
    return static_cast<uint64_t>(std::lower_bound(objects.begin(), objects.end(), path) -
                                 objects.begin());
  };
  // (object rank, slot address, cost) of every location.
  struct Row {
    uint64_t object, slot, cost;
  };
  std::vector<Row> rows;
  rows.reserve(layer.locations.size());
  const size_t ne = model.events();
  for (size_t l = 0; l < layer.locations.size(); ++l)
    rows.push_back({rankOf(layer.locations[l].mapping), layer.locations[l].address & ~uint64_t{3},
                    layer.self[l * ne + event]});
  // Objects in name order, addresses ascending.
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.object != b.object ? a.object < b.object : a.slot < b.slot;
  });

  auto message = newMessage(rows.size() * 8);
  auto out = message->getRoot<ir::Profile>();
  out.setFormat(ir::Format::DCPI);
  out.setFormatVersion(o.version);
  StringInterner none;
  none.build(out.initStrings());
  size_t nimages = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    if (i == 0 || rows[i].object != rows[i - 1].object) ++nimages;
  auto images = out.initImages(static_cast<unsigned>(nimages));
  size_t img = 0;
  for (size_t i = 0; i < rows.size();) {
    size_t j = i;
    const std::string_view object = objects[rows[i].object];
    while (j < rows.size() && rows[j].object == rows[i].object) ++j;
    const uint64_t tstart = rows[i].slot;
    if (rows[j - 1].slot - tstart > 0xfffffffbull)
      throw Error(Status::limit, kFmt,
                  "object '" + std::string(object) + "' spans more than 4 GiB of addresses, " +
                      "beyond DCPI's 32-bit chunk offsets");
    ColumnWriter offsets(Enc::ZIGZAG_DELTA), numbers, counts;
    uint64_t nonzero = 0, sum = 0, chunkStart = 0, chunkLen = 0;
    for (size_t r = i; r < j;) {
      uint64_t slot = rows[r].slot, cost = 0;
      for (; r < j && rows[r].slot == slot; ++r) {
        cost += rows[r].cost;
        if (cost < rows[r].cost || cost > 0xffffffffu)
          throw Error(Status::limit, kFmt,
                      "object '" + std::string(object) + "', address 0x" + hexString(slot) + ": " +
                          eventName + " cost exceeds DCPI's 32-bit sample count");
      }
      if (chunkLen > 0 && slot != chunkStart + 4 * chunkLen) {
        offsets.push(chunkStart - tstart);
        numbers.push(chunkLen);
        chunkLen = 0;
      }
      if (chunkLen == 0) chunkStart = slot;
      ++chunkLen;
      counts.push(cost);
      nonzero += cost != 0;
      sum += cost;
    }
    offsets.push(chunkStart - tstart);
    numbers.push(chunkLen);

    std::vector<std::pair<std::string, std::string>> kv = {
        {"version", o.version},
        {"image", hexString(fnv1a(object))},
        {"epoch", o.epoch},
        {"platform", o.platform},
        {"event", eventName},
        {"period", std::to_string(o.period)},
        {"tstart", hexString(tstart)},
        {"tsize", std::to_string(rows[j - 1].slot + 4 - tstart)},
        {"cpuspeed", std::to_string(o.cpuspeed)},
    };
    if (oneLine(std::string(object))) kv.emplace_back("path", std::string(object));
    size_t headerBytes = std::string_view("samples\n").size();
    for (auto& [k, v] : kv) headerBytes += k.size() + 1 + v.size() + 1;
    auto image = images[static_cast<unsigned>(img++)];
    auto hl = image.initHeaderLines(static_cast<unsigned>(kv.size()));
    for (size_t k = 0; k < kv.size(); ++k) {
      std::string line = kv[k].first + " " + kv[k].second;
      if (k + 1 == kv.size()) line.append((4 - headerBytes % 4) % 4, ' ');  // align the binary
      setHeaderLine(hl[static_cast<unsigned>(k)], line, kv[k].first, kv[k].second);
    }
    image.setTerminator("samples");
    image.setTextStart(tstart);
    offsets.build(image.initChunkOffset());
    numbers.build(image.initChunkLength());
    counts.build(image.initCounts());
    image.setFooterAddresses(static_cast<uint32_t>(nonzero));
    image.setFooterSamples(static_cast<uint32_t>(sum));
    i = j;
  }
  return std::make_unique<Profile>(std::move(message));
}

std::string writeDcpi(const Profile& profile, const std::string& select) {
  auto images = profile.root().getImages();
  if (images.size() == 1 && select.empty()) return writeImage(images[0]);
  for (unsigned i = 0; i < images.size(); ++i)
    if (!select.empty() && (select == std::to_string(i) || select == imagePath(images[i])))
      return writeImage(images[i]);
  std::string list;
  for (unsigned i = 0; i < images.size(); ++i) {
    std::string path = imagePath(images[i]);
    list += "\n  " + std::to_string(i) + ": " + (path.empty() ? "(no path)" : path);
  }
  throw Error(Status::invalidArgument, kFmt,
              (select.empty() ? "the profile has " + std::to_string(images.size()) +
                                    " images and a DCPI file holds one: select one by path or "
                                    "index. Images:"
                              : "no image with path or index '" + select + "'. Images:") +
                  list);
}

std::string writeDcpi(const Model& model, const std::string& image) {
  auto converted = dcpiFromModel(model, DcpiConvertOptions{});
  if (converted->root().getImages().size() == 0)
    throw Error(Status::unsupported, kFmt,
                "the profile has no instruction costs, so there is no DCPI image to write");
  return writeDcpi(*converted, image);
}

}  // namespace profpack

namespace profpack {

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
