// The archive coding of a gperftools CPU profile (archive_coding.h).
#include "formats/gperftools/archive_coding.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string_view>
#include <vector>

#include "error.h"
#include "util/bytes.h"
#include "util/round_trip.h"

namespace profpack {

namespace {

constexpr uint8_t kCodingVersion = 2;
constexpr uint32_t kRawPc = 0xffffffff;  // a frame slot: the PC follows as 8 bytes
constexpr int kOffsetBits = 48;
constexpr uint64_t kOffsetMask = (uint64_t{1} << kOffsetBits) - 1;
constexpr char kCodedLine = '\x01';

[[noreturn]] void malformed(uint64_t offset, const std::string& what) {
  throw Error(Status::malformed, "gperftools archive coding", what, offset);
}

struct MapLine {
  uint64_t start = 0, end = 0, offset = 0;
  uint32_t object = 0;  // index of its path among the distinct paths, in order of first line
};

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The lowercase hex number of [p, p + n) (1 to 16 digits), or false.
bool hexAt(std::string_view s, size_t p, size_t n, uint64_t& v) {
  if (n == 0 || n > 16 || p + n > s.size()) return false;
  v = 0;
  for (size_t i = 0; i < n; ++i) {
    int d = hexDigit(s[p + i]);
    if (d < 0) return false;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return true;
}

size_t hexRun(std::string_view s, size_t p) {
  size_t q = p;
  while (q < s.size() && hexDigit(s[q]) >= 0) ++q;
  return q - p;
}

// The mappings of the mapped-objects text: lines `START-END PERMS OFFSET DEV INODE [PATH]`.
std::vector<MapLine> mapLines(std::string_view text) {
  std::vector<MapLine> out;
  std::map<std::string_view, uint32_t> objects;
  size_t p = 0;
  while (p < text.size()) {
    size_t e = text.find('\n', p);
    if (e == std::string_view::npos) e = text.size();
    std::string_view line = text.substr(p, e - p);
    p = e + 1;
    MapLine m;
    size_t a = hexRun(line, 0);
    if (!hexAt(line, 0, a, m.start) || a >= line.size() || line[a] != '-') continue;
    size_t b = hexRun(line, a + 1);
    if (!hexAt(line, a + 1, b, m.end)) continue;
    size_t perms = line.find(' ', a + 1);
    if (perms == std::string_view::npos) continue;
    size_t off = line.find(' ', perms + 1);
    if (off == std::string_view::npos) continue;
    if (!hexAt(line, off + 1, hexRun(line, off + 1), m.offset)) continue;
    // The path: what follows the inode, without leading blanks ("" for anonymous memory).
    size_t q = off + 1;
    for (int field = 0; field < 3 && q != std::string_view::npos; ++field)
      q = line.find(' ', q + 1);
    std::string_view path;
    if (q != std::string_view::npos) {
      path = line.substr(q);
      path.remove_prefix(std::min(path.find_first_not_of(' '), path.size()));
    }
    m.object = objects.emplace(path, static_cast<uint32_t>(objects.size())).first->second;
    out.push_back(m);
  }
  return out;
}

uint64_t zigzag(uint64_t d) { return (d << 1) ^ (0 - (d >> 63)); }
uint64_t unzigzag(uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }

void appendHex(std::string& s, uint64_t v) {
  char buf[17];
  int n = 0;
  do buf[n++] = "0123456789abcdef"[v & 15], v >>= 4;
  while (v);
  while (n) s.push_back(buf[--n]);
}

// Each line that starts with START-END of two hex numbers of one width becomes \x01, the width
// as a letter, the distance of START from the END before it (zigzag, hex), '-' and its length
// (hex): mapped-objects texts of runs under address-space randomization then differ in a few
// numbers where they differed in every line. Empty where a line already starts with \x01.
std::optional<std::string> codeMaps(std::string_view text) {
  std::string out;
  uint64_t prevEnd = 0;
  size_t p = 0;
  while (p < text.size()) {
    size_t e = text.find('\n', p);
    e = e == std::string_view::npos ? text.size() : e + 1;
    std::string_view line = text.substr(p, e - p);
    p = e;
    if (!line.empty() && line[0] == kCodedLine) return std::nullopt;
    size_t a = hexRun(line, 0), b = a < line.size() && line[a] == '-' ? hexRun(line, a + 1) : 0;
    uint64_t start = 0, end = 0;
    if (a == b && hexAt(line, 0, a, start) && hexAt(line, a + 1, b, end) && end >= start) {
      out.push_back(kCodedLine);
      out.push_back(static_cast<char>('a' + a));
      appendHex(out, zigzag(start - prevEnd));
      out.push_back('-');
      appendHex(out, end - start);
      out.append(line.substr(2 * a + 1));
      prevEnd = end;
    } else {
      out.append(line);
    }
  }
  return out;
}

std::string decodeMaps(std::string_view coded, uint64_t at) {
  std::string out;
  uint64_t prevEnd = 0;
  size_t p = 0;
  while (p < coded.size()) {
    size_t e = coded.find('\n', p);
    e = e == std::string_view::npos ? coded.size() : e + 1;
    std::string_view line = coded.substr(p, e - p);
    if (line.empty() || line[0] != kCodedLine) {
      out.append(line);
      p = e;
      continue;
    }
    if (line.size() < 2 || line[1] < 'a' + 1 || line[1] > 'a' + 16)
      malformed(at + p, "mapped-objects line of a bad address width");
    const size_t width = static_cast<size_t>(line[1] - 'a');
    uint64_t delta = 0, length = 0;
    size_t a = hexRun(line, 2);
    if (!hexAt(line, 2, a, delta) || 2 + a >= line.size() || line[2 + a] != '-')
      malformed(at + p, "mapped-objects line without its coded range");
    size_t b = hexRun(line, 3 + a);
    if (!hexAt(line, 3 + a, b, length)) malformed(at + p, "mapped-objects line without a length");
    const uint64_t start = prevEnd + unzigzag(delta), end = start + length;
    for (uint64_t v : {start, end}) {
      std::string h;
      appendHex(h, v);
      if (h.size() > width) malformed(at + p, "mapped-objects address wider than its width");
      out.append(width - h.size(), '0');
      out.append(h);
      if (v == start) out.push_back('-');
    }
    out.append(line.substr(3 + a + b));
    prevEnd = end;
    p = e;
  }
  return out;
}

// The mappings sorted for lookups by address and by (object, file offset): where mappings
// overlap, the coding picks one and the round trip in gperftoolsArchiveCode checks that
// decoding finds the same address.
struct Lookup {
  std::vector<MapLine> byStart, byObject;
  explicit Lookup(std::vector<MapLine> lines) : byStart(lines), byObject(std::move(lines)) {
    std::stable_sort(byStart.begin(), byStart.end(),
                     [](const MapLine& a, const MapLine& b) { return a.start < b.start; });
    std::stable_sort(byObject.begin(), byObject.end(), [](const MapLine& a, const MapLine& b) {
      return a.object != b.object ? a.object < b.object : a.offset < b.offset;
    });
  }
};

uint64_t codePc(const Lookup& maps, uint64_t pc, bool& ok) {
  auto it = std::upper_bound(maps.byStart.begin(), maps.byStart.end(), pc,
                             [](uint64_t v, const MapLine& m) { return v < m.start; });
  if (it != maps.byStart.begin() && pc < (it - 1)->end) {
    const MapLine& m = *(it - 1);
    const uint64_t off = pc - m.start + m.offset;
    if (off <= kOffsetMask && m.object + 1 < (uint64_t{1} << (64 - kOffsetBits)))
      return (uint64_t{m.object} + 1) << kOffsetBits | off;
  }
  if (pc >> kOffsetBits) ok = false;
  return pc;
}

uint64_t decodePc(const Lookup& maps, uint64_t v, uint64_t at) {
  const uint64_t object = v >> kOffsetBits;
  if (object == 0) return v;
  const uint64_t off = v & kOffsetMask;
  auto it = std::upper_bound(maps.byObject.begin(), maps.byObject.end(), std::pair(object, off),
                             [](const std::pair<uint64_t, uint64_t>& k, const MapLine& m) {
                               return k.first != m.object + 1 ? k.first < m.object + 1
                                                              : k.second < m.offset;
                             });
  if (it != maps.byObject.begin()) {
    const MapLine& m = *(it - 1);
    if (m.object + 1 == object && off - m.offset < m.end - m.start)
      return m.start + (off - m.offset);
  }
  malformed(at, "address in object " + std::to_string(object - 1) + " at offset " +
                    std::to_string(off) + ", which no mapping holds");
}

// Walks the slots of an 8-byte little-endian profile: the header, then records (count,
// depth, PCs) up to and with the trailer (0, 1, 0); `pc` sees (and may replace) each PC.
// Returns the number of slots, or 0 where the slots do not parse so.
template <typename F>
uint64_t walkSlots(std::string& slots, uint64_t limit, F&& pc) {
  auto slot = [&](uint64_t i) {
    return rd64(reinterpret_cast<const uint8_t*>(slots.data()) + 8 * i);
  };
  const uint64_t n = std::min<uint64_t>(limit, slots.size() / 8);
  if (n < 5 || slot(0) != 0 || slot(1) > n - 2) return 0;
  uint64_t i = 2 + slot(1);
  while (i + 2 <= n) {
    const uint64_t count = slot(i), depth = slot(i + 1);
    if (depth > n - i - 2) return 0;
    for (uint64_t k = 0; k < depth; ++k) {
      uint64_t v = pc(slot(i + 2 + k), i + 2 + k);
      std::memcpy(slots.data() + 8 * (i + 2 + k), &v, 8);
    }
    i += 2 + depth;
    if (count == 0 && depth == 1 && slot(i - 1) == 0) return i;
  }
  return 0;
}

void appendVarint(std::string& s, uint64_t v) {
  while (v >= 0x80) s.push_back(static_cast<char>(v | 0x80)), v >>= 7;
  s.push_back(static_cast<char>(v));
}

// Reads the coding from its front: each read past the end or out of range is malformed.
struct Reader {
  std::string_view s;
  size_t p = 0;
  uint64_t varint(const char* what) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= s.size()) malformed(p, "coding ends inside " + std::string(what));
      const uint8_t b = static_cast<uint8_t>(s[p++]);
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
    malformed(p, "overlong number for " + std::string(what));
  }
  uint64_t fixed(size_t n, const char* what) {
    if (s.size() - p < n) malformed(p, "coding ends inside " + std::string(what));
    uint64_t v = 0;  // little-endian
    for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(s[p + i])} << (8 * i);
    p += n;
    return v;
  }
};

// A frame: (object + 1) << 24 | offset where the PC lies in one of the first 254 objects at
// an offset below 16 MiB, else kRawPc and the PC.
void appendFrame(std::string& s, const Lookup& maps, uint64_t pc) {
  bool ok = true;
  const uint64_t v = codePc(maps, pc, ok);
  const uint64_t object = v >> kOffsetBits, off = v & kOffsetMask;
  if (ok && object != 0 && object < 0xff && off < (uint64_t{1} << 24)) {
    appendLe32(s, static_cast<uint32_t>(object << 24 | off));
  } else {
    appendLe32(s, kRawPc);
    appendLe64(s, pc);
  }
}

}  // namespace

std::optional<std::string> gperftoolsArchiveCode(std::string_view file) {
  std::string slots(file);
  // The mappings are known only after the slots: find where they end first.
  const uint64_t n = walkSlots(slots, ~uint64_t{0}, [](uint64_t v, uint64_t) { return v; });
  if (n == 0) return std::nullopt;
  std::string_view maps = file.substr(8 * n);
  const Lookup lines(mapLines(maps));
  std::optional<std::string> codedMaps = codeMaps(maps);
  if (!codedMaps) return std::nullopt;
  auto slot = [&](uint64_t i) {
    return rd64(reinterpret_cast<const uint8_t*>(file.data()) + 8 * i);
  };
  const uint64_t header = 2 + slot(1);
  std::string out(1, static_cast<char>(kCodingVersion));
  appendLe64(out, n);
  out.append(file.substr(0, 8 * header));
  // The records' stacks, then their counts: each stream alike from profile to profile.
  std::string stacks, counts;
  uint64_t records = 0;
  for (uint64_t i = header; i < n; ++records) {
    const uint64_t depth = slot(i + 1);
    appendVarint(counts, slot(i));
    appendVarint(stacks, depth);
    for (uint64_t k = 0; k < depth; ++k) appendFrame(stacks, lines, slot(i + 2 + k));
    i += 2 + depth;
  }
  appendVarint(out, records);
  out += stacks;
  out += counts;
  out += *codedMaps;
  return ifDecodesTo(std::move(out), file, gperftoolsArchiveDecode);
}

std::string gperftoolsArchiveDecode(std::string_view coded) {
  if (coded.size() < 9 || static_cast<uint8_t>(coded[0]) != kCodingVersion)
    malformed(0, "not a gperftools archive coding of version 2");
  Reader r{coded, 1};
  const uint64_t n = r.fixed(8, "the slot count");
  if (r.fixed(8, "the header") != 0) malformed(9, "header that does not start with 0");
  const uint64_t words = r.fixed(8, "the header");
  if (words > (coded.size() - r.p) / 8) malformed(17, "header past the end of the member");
  std::string slots(coded.substr(9, 16 + 8 * words));
  r.p += 8 * words;
  const uint64_t records = r.varint("the record count");
  if (records > coded.size() - r.p) malformed(r.p, "record count past the end of the member");
  // The stacks as (depth, frames) with frames kept coded until the mappings are known.
  std::vector<uint64_t> depths(records), frames;
  const size_t stacksAt = r.p;
  for (uint64_t& depth : depths) {
    depth = r.varint("a record's depth");
    if (depth > (coded.size() - r.p) / 4) malformed(r.p, "record whose stack passes the end");
    for (uint64_t k = 0; k < depth; ++k) {
      const uint64_t v = r.fixed(4, "a frame");
      frames.push_back(v == kRawPc ? uint64_t{1} << 63 | r.p : v);
      if (v == kRawPc) r.p += 8;
      if (r.p > coded.size()) malformed(r.p, "coding ends inside a frame");
    }
  }
  std::vector<uint64_t> counts(records);
  for (uint64_t& c : counts) c = r.varint("a record's count");
  const size_t mapsAt = r.p;
  const std::string maps = decodeMaps(coded.substr(mapsAt), mapsAt);
  const Lookup lines(mapLines(maps));
  size_t f = 0;
  for (uint64_t i = 0; i < records; ++i) {
    appendLe64(slots, counts[i]);
    appendLe64(slots, depths[i]);
    for (uint64_t k = 0; k < depths[i]; ++k, ++f) {
      const uint64_t v = frames[f];
      if (v >> 63) {
        appendLe64(slots, rd64(reinterpret_cast<const uint8_t*>(coded.data()) +
                               (v & ~(uint64_t{1} << 63))));
      } else {
        if (v >> 24 == 0) malformed(stacksAt, "frame in object 0");
        appendLe64(slots, decodePc(lines, (v >> 24) << kOffsetBits | (v & 0xffffff), stacksAt));
      }
    }
  }
  if (slots.size() / 8 != n || walkSlots(slots, n, [](uint64_t v, uint64_t) { return v; }) != n)
    malformed(9, "slots that are no gperftools header and records");
  return slots + maps;
}

}  // namespace profpack
