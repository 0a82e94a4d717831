#include "symbolize/kernel.h"

#include <sys/utsname.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <string_view>

#include "error.h"
#include "util/text.h"

namespace profpack {

bool isKernelMapping(const std::string& path) { return path.rfind("[kernel.kallsyms]", 0) == 0; }

namespace {

// perf's choice among the symbols of one address is the last the table lists, whatever their
// types and names. It gives a kallsyms symbol no size: each ends where the next begins
// (tools/perf/util/symbol.c, symbols__fixup_end), so of a group of one address all but the last
// have length 0, and choose_best_symbol prefers a symbol with a length before its other rules
// (weak, global, underscores). Checked with perf 6.1's `report --kallsyms` on tables with the
// group's lines in other orders, a local or a weak symbol last: it took the last each time.
// Equal addresses stay in table order in its tree: a later line out of order wins too.

// A mark at every 16th address group of the sorted part, and at any line 256 lines past the
// last mark (within a long run of aliases, or of symbols not kept): a lookup parses at most a
// few hundred lines, however the table was made.
constexpr size_t kMarkEvery = 16, kMarkLines = 256;

#if !defined(__SSE2__)
// Eight hex digits (either case) at `p`, first digit highest, as a SWAR word; false where one is
// not a hex digit. Bytes are tested and converted eight at a time: a byte below 0x80 plus
// (0x80 - lo) has its top bit set where it is at least lo, with no carry into the next byte.
bool hex8(const char* p, uint32_t& out) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
  // The first digit is in the lowest byte.
  constexpr uint64_t kOnes = 0x0101010101010101, kTops = kOnes * 0x80;
  if (x & kTops) return false;
  const auto atLeast = [](uint64_t w, uint64_t lo) { return (w + kOnes * (0x80 - lo)) & kTops; };
  const uint64_t digit = atLeast(x, '0') & ~atLeast(x, '9' + 1);
  const uint64_t y = x | kOnes * 0x20;  // 'A'-'F' to 'a'-'f' (and no other byte into them)
  const uint64_t letter = atLeast(y, 'a') & ~atLeast(y, 'f' + 1);
  if ((digit | letter) != kTops) return false;
  uint64_t v = (x & kOnes * 0x0f) + (letter >> 7) * 9;  // each byte its digit's value
  v = ((v << 4) | (v >> 8)) & 0x00ff00ff00ff00ff;       // pairs of digits: bytes
  v = ((v << 8) | (v >> 16)) & 0x0000ffff0000ffff;      // pairs of bytes
  out = static_cast<uint32_t>((v << 16) | (v >> 32));
  return true;
}
#endif

// Sixteen hex digits at `p`, first digit highest; false where one is not a hex digit: what two
// hex8 calls give, the sixteen bytes tested and converted at once (SSE2: every x86-64). The
// address of every line of the table is read (where its sorted part ends): two hex8 calls
// were 14 of the 39 M instructions of loading a 122,000-line kallsyms, this is a quarter of that.
bool hex16(const char* p, uint64_t& out) {
#if defined(__SSE2__)
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  // Unsigned "v <= n" as min(v, n) == v. Bytes from 0x80 up are neither: 0x80 - '0' and
  // (0x80 | 0x20) - 'a' are both above 9.
  const __m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0'));
  const __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
  const __m128i l = _mm_sub_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
  const __m128i letter = _mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(5)), l);
  if (_mm_movemask_epi8(_mm_or_si128(digit, letter)) != 0xffff) return false;
  const __m128i v = _mm_or_si128(_mm_and_si128(digit, d),
                                 _mm_andnot_si128(digit, _mm_add_epi8(l, _mm_set1_epi8(10))));
  // Each 16-bit lane holds two digits, the higher first (lowest byte): one byte of the value.
  const __m128i pairs =
      _mm_and_si128(_mm_or_si128(_mm_slli_epi16(v, 4), _mm_srli_epi16(v, 8)), _mm_set1_epi16(0xff));
  const uint64_t bytes = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)));
  out = __builtin_bswap64(bytes);  // the first byte is the highest
  return true;
#else
  uint32_t high, low;
  if (!hex8(p, high) || !hex8(p + 8, low)) return false;
  out = uint64_t{high} << 32 | low;
  return true;
#endif
}

}  // namespace

// The line that starts at `at`.
std::string_view Kallsyms::lineAt(std::string_view text, size_t at) {
  std::string_view line;
  LineCursor(text.substr(at)).next(line);
  return line;
}

// "ADDRESS TYPE NAME[\t[MODULE]]", where TYPE is one perf keeps: functions and data
// (symbol_type__filter). The address and type only, and where the name starts (0: not kept).
size_t Kallsyms::head(std::string_view line, uint64_t& address, char& type) {
  // At most 16 hex digits, a space, the type, a space, a name. A 64-bit kernel's addresses
  // have all 16 digits: read all at once (hex16; digit by digit, the load's largest cost).
  size_t i = 0;
  uint64_t a = 0;
  if (line.size() > 16 && line[16] == ' ' && hex16(line.data(), a)) {
    i = 16;
  } else {  // a shorter address ("c0100000 T start ..." may have a space at 16 too)
    for (const size_t n = std::min<size_t>(line.size(), 17); i < n; ++i) {
      const unsigned v = hexDigitValue(line[i]);
      if (v >= 16) break;
      a = a << 4 | v;
    }
  }
  if (i == 0 || i > 16 || line.size() < i + 4 || line[i] != ' ' || line[i + 2] != ' ' ||
      line[i + 3] == ' ' || line[i + 3] == '\t')
    return 0;
  type = line[i + 1];
  const char t =
      (type >= 'a' && type <= 'z') ? static_cast<char>(type - 'a' + 'A') : type;  // ASCII
  if (t != 'T' && t != 'W' && t != 'D' && t != 'B') return 0;
  address = a;
  return i + 3;
}

bool Kallsyms::parse(std::string_view line, Symbol& s) {
  const size_t name = head(line, s.address, s.type);
  if (name == 0) return false;
  // The name ends at a space or tab ("\t[module]"). A plain loop: find_first_of(" \t") calls
  // memchr on the set once per character.
  size_t end = name + 1;
  while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
  s.name = line.substr(name, end - name);
  return true;
}

std::unique_ptr<Kallsyms> Kallsyms::load(const std::string& path, std::string& why) {
  // The table is mapped (/proc/kallsyms, which says its size is 0, read to its end) and read
  // once. The kernel prints its own symbols sorted by address: that part is only marked, and
  // parsed where a lookup lands (a recording names a few hundred kernel addresses of 100,000+
  // symbols). What follows the first symbol out of order (modules' symbols, or a table made by
  // hand) is parsed whole and sorted. This runs beside the recording's read; parsing every
  // line, with a vector of all symbols, took most of it on small recordings.
  auto k = std::unique_ptr<Kallsyms>(new Kallsyms);
  try {
    k->file_ = std::make_unique<InputFile>(path);
  } catch (const Error& e) {
    why = e.what();
    return nullptr;
  }
  const std::span<const uint8_t> bytes = k->file_->bytes();
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::vector<Symbol>& rest = k->rest_;
  bool nonzero = false, restSorted = true;
  size_t groupsSinceMark = 0, linesSinceMark = 0;
  uint64_t last = 0;
  size_t bestAt = 0;  // the latest group's last line so far: perf's choice
  LineCursor lines(text);
  std::string_view line;
  Symbol s;
  size_t restAt = text.size();  // where the sorted part ends
  while (lines.next(line)) {
    const size_t at = lines.lineOffset();
    if (!k->marks_.empty() && ++linesSinceMark > kMarkLines) {
      k->marks_.push_back({last, at, bestAt});  // within a long run: the group's choice so far
      groupsSinceMark = linesSinceMark = 0;
    }
    if (head(line, s.address, s.type) == 0) continue;
    nonzero |= s.address != 0;
    if (k->marks_.empty() || s.address > last) {
      if (k->marks_.empty() || ++groupsSinceMark == kMarkEvery) {
        k->marks_.push_back({s.address, at, Mark::kNone});
        groupsSinceMark = linesSinceMark = 0;
      }
      last = s.address;
      bestAt = at;
      continue;
    }
    if (s.address == last) {  // an alias, which perf takes over those before it
      bestAt = at;
      continue;
    }
    restAt = at;  // out of order: this line and all after it parsed whole
    break;
  }
  k->sorted_ = text.substr(0, restAt);
  while (!k->marks_.empty() && k->marks_.back().offset >= restAt) k->marks_.pop_back();
  LineCursor after(text.substr(restAt));
  while (after.next(line)) {
    if (!parse(line, s)) continue;
    nonzero |= s.address != 0;
    restSorted = restSorted && (rest.empty() || s.address >= rest.back().address);
    rest.push_back(s);
  }
  if (!nonzero) {
    why = path + ": no symbol addresses (all zero: kernel.kptr_restrict hides them?)";
    return nullptr;
  }
  // One symbol per address, perf's: the last of equals in table order.
  if (!restSorted)
    std::stable_sort(rest.begin(), rest.end(),
                     [](const Symbol& x, const Symbol& y) { return x.address < y.address; });
  size_t kept = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (kept > 0 && rest[kept - 1].address == rest[i].address)
      rest[kept - 1] = rest[i];
    else
      rest[kept++] = rest[i];
  }
  rest.resize(kept);
  rest.shrink_to_fit();
  return k;
}

// In the sorted part: the symbol perf takes at the highest address at or below `address` (null
// where there is none), and whether any symbol lies above.
void Kallsyms::lookupSorted(uint64_t address, const Symbol*& below, bool& above) const {
  below = nullptr;
  auto m = std::upper_bound(marks_.begin(), marks_.end(), address,
                            [](uint64_t a, const Mark& x) { return a < x.address; });
  above = m != marks_.end();
  if (m == marks_.begin()) return;
  --m;
  if (m->best != Mark::kNone) {  // a mark within a group: its choice of the lines before
    parse(lineAt(sorted_, m->best), best_);
    below = &best_;
  }
  LineCursor lines(sorted_.substr(m->offset));
  std::string_view line;
  Symbol s;
  while (lines.next(line)) {
    if (!parse(line, s)) continue;
    if (s.address > address) {
      above = true;
      break;
    }
    best_ = s;  // of equal addresses, the last
    below = &best_;
  }
}

const std::vector<SymbolFrame>* Kallsyms::lookup(uint64_t address) const {
  const Symbol* below;
  bool above;
  lookupSorted(address, below, above);
  auto it = std::upper_bound(rest_.begin(), rest_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  above = above || it != rest_.end();
  if (it != rest_.begin()) {
    const Symbol& r = *std::prev(it);
    if (!below || r.address >= below->address) below = &r;  // the rest comes later in the table
  }
  // Past the last symbol the table says nothing: its end is unknown, and in a cut table the
  // address may belong to a symbol that was cut off (a whole /proc/kallsyms ends with module
  // symbols, above the kernel's text).
  if (!below || !above) return nullptr;
  frame_.assign(1, SymbolFrame{std::string(below->name), "", 0, symbolDeclaration(below->address)});
  return &frame_;
}

const std::vector<SymbolFrame>* Kallsyms::lookupCaller(uint64_t address) const {
  if (address == 0) return nullptr;
  const std::vector<SymbolFrame>* f = lookup(address - 1);
  constexpr std::string_view kPadding = "__pfx_";
  if (!f || f->empty() || f->front().function.compare(0, kPadding.size(), kPadding) != 0) return f;
  const std::string padded = f->front().function.substr(kPadding.size());
  const std::vector<SymbolFrame>* own = lookup(address);  // (the same frame_, refilled)
  if (own && !own->empty() && own->front().function == padded) return own;
  return lookup(address - 1);
}

std::string runningKernelBuildId() {
  // ELF notes: namesz, descsz, type, name (padded to 4), desc (padded to 4).
  std::ifstream in("/sys/kernel/notes", std::ios::binary);
  const std::string d((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t i = 0; i + 12 <= d.size();) {
    uint32_t n, s, t;
    std::memcpy(&n, d.data() + i, 4);
    std::memcpy(&s, d.data() + i + 4, 4);
    std::memcpy(&t, d.data() + i + 8, 4);
    const size_t desc = i + 12 + ((uint64_t{n} + 3) & ~uint64_t{3});
    if (desc > d.size() || d.size() - desc < s) break;
    if (t == 3 && n == 4 && d.compare(i + 12, 4, std::string("GNU\0", 4)) == 0)
      return d.substr(desc, s);
    i = desc + ((uint64_t{s} + 3) & ~uint64_t{3});
  }
  return "";
}

std::string runningKernelRelease() {
  struct utsname u;
  return uname(&u) == 0 ? u.release : "";
}

}  // namespace profpack
