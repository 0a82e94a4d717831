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

// The reader's steps: the ASCII header line by line, the checks of the header as a whole, the
// binary part in one pass, the footer's checks, and the message.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> data)
      : data_(data), text_(reinterpret_cast<const char*>(data.data())), size_(data.size()) {}

  std::unique_ptr<Profile> run() {
    while (headerLine()) {
    }
    checkHeader();
    binaryPart();
    checkFooter();
    return build();
  }

 private:
  // Reads the next header line; returns false after the terminator line.
  bool headerLine() {
    ++lineNo_;
    const void* nl = pos_ < size_ ? std::memchr(text_ + pos_, '\n', size_ - pos_) : nullptr;
    if (!nl)
      fail(kFmt, pos_, lineNo_,
           "the header ends without its terminator line: expected \"samples\" and a newline "
           "before the binary data, found " +
               (pos_ < size_
                    ? quoted(std::string_view(text_ + pos_, size_ - pos_)) + " and no newline"
                    : std::string("the end of the file")));
    const size_t eol = static_cast<size_t>(static_cast<const char*>(nl) - text_);
    std::string_view line(text_ + pos_, eol - pos_);
    const size_t lineOffset = pos_;
    pos_ = eol + 1;
    size_t k = 0;
    while (k < line.size() && !isSpace(line[k])) ++k;
    std::string_view key = line.substr(0, k);
    size_t v = k;
    while (v < line.size() && isSpace(line[v])) ++v;
    std::string_view value = line.substr(v);
    while (!value.empty() && isSpace(value.back())) value.remove_suffix(1);
    if (key == "samples") {
      if (!value.empty())
        fail(kFmt, lineOffset + v, lineNo_,
             "expected the terminator line \"samples\" followed only by blanks, found " +
                 quoted(line));
      terminator_ = line;
      termOffset_ = lineOffset;
      binary_ = pos_;
      return false;
    }
    if (key.empty())
      fail(kFmt, lineOffset, lineNo_,
           "expected a header line 'key value' (or the terminator \"samples\"), found " +
               (line.empty() ? std::string("an empty line") : quoted(line)));
    if (value.empty())
      fail(kFmt, lineOffset, lineNo_,
           "header line " + quoted(key) + " has no value (expected 'key value')");
    for (size_t i = 0; i < std::size(kKeys); ++i) {
      if (key != kKeys[i].key) continue;
      knownKey(i, key, value, lineOffset, lineOffset + v);
      break;
    }
    lines_.push_back({line, key, value});
    return true;
  }

  // Checks the value of the known key kKeys[i] and keeps what the reader needs of it.
  void knownKey(size_t i, std::string_view key, std::string_view value, size_t lineOffset,
                size_t valueOffset) {
    const KeySpec& spec = kKeys[i];
    if (spec.required) {
      if (seenLine_[i])
        fail(kFmt, lineOffset, lineNo_,
             "repeated header line '" + std::string(key) + "': expected exactly one, found " +
                 "a second one (the first is on line " + std::to_string(seenLine_[i]) + ")");
      seenLine_[i] = lineNo_;
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
        ok = parseVersion(value, major_);
        expected = "pdb-<major>.<minor>";
        break;
    }
    if (!ok)
      fail(kFmt, valueOffset, lineNo_,
           "header line '" + std::string(key) + "': expected " + expected + ", found " +
               quoted(value));
    if (i == kTstart) {
      size_t digits = value.size();
      size_t lead = 0;
      while (lead + 1 < digits && value[lead] == '0') ++lead;
      if (digits - lead > 16)
        fail(
            kFmt, valueOffset, lineNo_,
            "header line 'tstart': expected an address of at most 64 bits, found " + quoted(value));
      for (char c : value) textStart_ = textStart_ << 4 | hexDigitValue(c);  // checked hex above
    }
    if (spec.kind == kVersion) {
      version_ = value;
      versionLine_ = lineNo_;
      versionOffset_ = lineOffset;
    }
  }

  // The header as a whole: a supported major version and every required key.
  void checkHeader() {
    if (seenLine_[0] && major_ != 0)
      throw Error(Status::unsupported, kFmt,
                  "version " + std::string(version_) + ": DCPI major version " +
                      std::to_string(major_) +
                      (major_ == 1 ? " is recognised but not supported: its binary layout is "
                                     "undocumented (dcpiformat(4) documents only major version 0, "
                                     "versions 0.06 and 0.07)"
                                   : " is unknown (only major version 0 is documented)"),
                  versionOffset_, versionLine_);
    std::string missing;
    for (size_t i = 0; i < kRequiredCount; ++i)
      if (!seenLine_[i]) missing += std::string(missing.empty() ? "" : ", ") + kKeys[i].key;
    if (!missing.empty())
      fail(kFmt, termOffset_, lineNo_,
           "missing required header line(s): " + missing +
               " (expected exactly one of each before \"samples\")");
  }

  // Varint-encodes (branch-free) n counts at q into scratch blobs of one column chunk each,
  // and adds them to the footer figures. `bound`: most values the rest of the file can hold,
  // so a blob is never sized above it.
  void encode(const uint8_t* q, uint64_t n, uint64_t bound) {
    while (n) {
      if (!w_) {
        // At most 5 bytes a value, plus the 8 bytes the last value's store may touch.
        scratch_.emplace_back(new uint8_t[std::min<uint64_t>(kColumnChunkValues, bound) * 5 + 8]);
        w_ = scratch_.back().get();
      }
      const uint64_t take = std::min<uint64_t>(n, kColumnChunkValues - inBlob_);
      uint64_t nz = 0, sm = 0;
      uint8_t* out = w_;
      for (uint64_t i = 0; i < take; ++i) {
        const uint32_t c = le32(q + 4 * i);
        nz += c != 0;
        sm += c;
        out = putVarintFast(out, c);
      }
      w_ = out;
      nonzero_ += nz;
      sum_ += sm;
      inBlob_ += take;
      if (inBlob_ == kColumnChunkValues) {
        blobBytes_.push_back(static_cast<size_t>(w_ - scratch_.back().get()));
        w_ = nullptr;
        inBlob_ = 0;
      }
      q += 4 * take;
      n -= take;
      bound -= take;
    }
  }

  // The binary part, in one pass: chunk headers checked, counts encoded, footer located.
  void binaryPart() {
    const uint8_t* base = data_.data();
    const uint8_t* p = base + binary_;
    const uint8_t* end = base + size_;
    if (end - p < 8)
      fail(kFmt, binary_, kUnknown,
           "expected the 8-byte footer after the header, found " + std::to_string(end - p) +
               " bytes");
    const uint8_t* footer = end - 8;
    uint64_t nextFree = 0;  // lowest offset the next chunk may start at
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
      offsets_.push(offset);
      numbers_.push(number);
      encode(p + 8, number, static_cast<uint64_t>(footer - (p + 8)) / 4);
      totalCounts_ += number;
      nextFree = uint64_t{offset} + bytes;
      p += 8 + bytes;
    }
    if (w_) blobBytes_.push_back(static_cast<size_t>(w_ - scratch_.back().get()));
    footerAt_ = static_cast<uint64_t>(footer - base);
  }

  // The footer against the counts.
  void checkFooter() {
    const uint8_t* footer = data_.data() + footerAt_;
    footAddresses_ = le32(footer);
    footSamples_ = le32(footer + 4);
    if (footAddresses_ != nonzero_)
      fail(kFmt, footerAt_, kUnknown,
           "footer: expected " + std::to_string(nonzero_) +
               " addresses with samples (the nonzero counts of the chunks), found " +
               std::to_string(footAddresses_));
    if (footSamples_ != static_cast<uint32_t>(sum_))
      fail(kFmt, footerAt_ + 4, kUnknown,
           "footer: expected " + std::to_string(static_cast<uint32_t>(sum_)) +
               " total samples (the sum of the counts mod 2^32), found " +
               std::to_string(footSamples_));
  }

  std::unique_ptr<Profile> build() {
    auto message = newMessage(size_);
    auto root = message->getRoot<ir::Profile>();
    root.setFormat(ir::Format::DCPI);
    root.setFormatVersion(TextOf(version_));
    StringInterner strings;
    strings.build(root.initStrings());
    auto img = root.initImages(1)[0];
    auto hl = img.initHeaderLines(static_cast<unsigned>(lines_.size()));
    for (size_t i = 0; i < lines_.size(); ++i)
      setHeaderLine(hl[static_cast<unsigned>(i)], lines_[i].text, lines_[i].key, lines_[i].value);
    img.setTerminator(TextOf(terminator_));
    img.setTextStart(textStart_);
    offsets_.build(img.initChunkOffset());
    numbers_.build(img.initChunkLength());
    auto counts = img.initCounts();
    counts.setCount(totalCounts_);
    counts.setEncoding(Enc::VARINT);
    counts.setChunkValues(kColumnChunkValues);
    auto blobs = counts.initChunks(static_cast<unsigned>(blobBytes_.size()));
    for (size_t i = 0; i < blobBytes_.size(); ++i)
      std::memcpy(
          blobs.init(static_cast<unsigned>(i), static_cast<unsigned>(blobBytes_[i])).begin(),
          scratch_[i].get(), blobBytes_[i]);
    img.setFooterAddresses(footAddresses_);
    img.setFooterSamples(footSamples_);
    return std::make_unique<Profile>(std::move(message));
  }

  const std::span<const uint8_t> data_;
  const char* const text_;
  const size_t size_;

  // Header.
  std::vector<HeaderLine> lines_;
  uint64_t seenLine_[kRequiredCount] = {};  // line number of each required key, 0 = not seen
  uint64_t versionLine_ = 0, versionOffset_ = 0, major_ = 0, textStart_ = 0;
  std::string_view version_, terminator_;
  uint64_t lineNo_ = 0;
  size_t pos_ = 0, binary_ = 0, termOffset_ = 0;

  // Binary part.
  uint64_t nonzero_ = 0, sum_ = 0, inBlob_ = 0;
  std::vector<std::unique_ptr<uint8_t[]>> scratch_;
  std::vector<size_t> blobBytes_;
  uint8_t* w_ = nullptr;
  ColumnWriter offsets_{Enc::ZIGZAG_DELTA}, numbers_{Enc::VARINT};
  uint64_t totalCounts_ = 0, footerAt_ = 0;
  uint32_t footAddresses_ = 0, footSamples_ = 0;
};

}  // namespace

std::unique_ptr<Profile> readDcpi(std::span<const uint8_t> data) { return Reader(data).run(); }

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
