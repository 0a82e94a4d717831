#include "symbolize/kernel.h"

#include <sys/utsname.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string_view>

#include "error.h"
#include "util/text.h"

namespace profpack {

namespace {

// perf's choice among symbols at one address (tools/perf/util/symbol.c, choose_best_symbol):
// a weak one ('W') loses to any other, a global (upper-case type) beats a local one, fewer
// leading underscores win, then the longer name; on a tie, the first in the table.
bool betterThan(char typeA, std::string_view a, char typeB, std::string_view b) {
  const auto global = [](char t) { return t >= 'A' && t <= 'Z'; };
  return perfNameOrder(typeA == 'W', global(typeA), a, typeB == 'W', global(typeB), b) < 0;
}

}  // namespace

bool isKernelMapping(const std::string& path) { return path.rfind("[kernel.kallsyms]", 0) == 0; }

std::unique_ptr<Kallsyms> Kallsyms::load(const std::string& path, std::string& why) {
  // The whole table at once, parsed in place (names are views into it): a copy is mapped,
  // /proc/kallsyms (which says its size is 0) read to its end. One pass: a table comes sorted
  // by address (the kernel's, then each module's above it), so the symbols at one address are
  // next to each other and the one perf takes is chosen as they come; only a table out of
  // order (a hand-made one) is sorted afterwards. This runs beside the recording's read and
  // outlasted it on small recordings: the sort of 120,000 sorted symbols and a second copy of
  // them were half its time.
  auto k = std::unique_ptr<Kallsyms>(new Kallsyms);
  try {
    k->file_ = std::make_unique<InputFile>(path);
  } catch (const Error& e) {
    why = e.what();
    return nullptr;
  }
  const std::span<const uint8_t> text = k->file_->bytes();
  std::vector<Symbol>& symbols = k->symbols_;
  std::vector<char> types;  // per symbol, its type (for the choice among those at one address)
  symbols.reserve(text.size() / 40);  // a line is longer
  types.reserve(text.size() / 40);
  bool nonzero = false, sorted = true;
  // Appends a symbol, or where the last one kept is at its address, keeps the better of them.
  const auto keep = [](std::vector<Symbol>& kept, std::vector<char>& keptTypes, const Symbol& s,
                       char type) {
    if (!kept.empty() && kept.back().address == s.address) {
      if (betterThan(type, s.name, keptTypes.back(), kept.back().name)) {
        kept.back().name = s.name;
        keptTypes.back() = type;
      }
      return;
    }
    kept.push_back(s);
    keptTypes.push_back(type);
  };
  LineCursor lines(text);
  std::string_view line;
  while (lines.next(line)) {
    // "ADDRESS TYPE NAME[\t[MODULE]]"
    const size_t sp = line.find(' ');
    if (sp == std::string_view::npos || sp == 0 || sp > 16 || line.size() < sp + 4 ||
        line[sp + 2] != ' ')
      continue;
    // Functions and data, as perf keeps them (symbol_type__filter). ASCII: no locale.
    const char type = line[sp + 1];
    const char t = (type >= 'a' && type <= 'z') ? static_cast<char>(type - 'a' + 'A') : type;
    if (t != 'T' && t != 'W' && t != 'D' && t != 'B') continue;
    uint64_t a = 0;
    bool hex = true;
    for (size_t i = 0; i < sp && hex; ++i) {
      const unsigned v = hexDigitValue(line[i]);
      hex = v < 16;
      a = a << 4 | v;
    }
    if (!hex) continue;
    // The name ends at a space or tab ("\t[module]"). A plain loop: find_first_of(" \t") calls
    // memchr on the set once per character.
    size_t nameEnd = sp + 3;
    while (nameEnd < line.size() && line[nameEnd] != ' ' && line[nameEnd] != '\t') ++nameEnd;
    const std::string_view name = line.substr(sp + 3, nameEnd - sp - 3);
    if (name.empty()) continue;
    nonzero |= a != 0;
    sorted = sorted && (symbols.empty() || a >= symbols.back().address);
    keep(symbols, types, {a, name}, type);
  }
  if (!nonzero) {
    why = path + ": no symbol addresses (all zero: kernel.kptr_restrict hides them?)";
    return nullptr;
  }
  if (!sorted) {
    // A stable sort keeps the first of equal candidates first, as perf's tie rule wants.
    std::vector<size_t> order(symbols.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return symbols[x].address < symbols[y].address; });
    std::vector<Symbol> out;
    std::vector<char> outTypes;
    out.reserve(symbols.size());
    for (const size_t i : order) keep(out, outTypes, symbols[i], types[i]);
    symbols = std::move(out);
  }
  symbols.shrink_to_fit();
  return k;
}

const std::vector<SymbolFrame>* Kallsyms::lookup(uint64_t address) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  // Past the last symbol the table says nothing: its end is unknown, and in a cut table the
  // address may belong to a symbol that was cut off (a whole /proc/kallsyms ends with module
  // symbols, above the kernel's text).
  if (it == symbols_.begin() || it == symbols_.end()) return nullptr;
  frame_.assign(1, SymbolFrame{std::string(std::prev(it)->name), "", 0});
  return &frame_;
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
