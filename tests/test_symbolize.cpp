// Which file symbolization takes for a mapping (lib/symbolize/binaries.h): real binaries of
// tests/data/symbolize against the mapping hot.prof records for hot (go tool pprof -raw:
// 0x55dc6e079000/0x55dc6e07a000/0x1000 /tmp/psym/hot).

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "error.h"
#include "formats/registry.h"
#include "ir/column.h"
#include "model/model.h"
#include "symbolize/aranges.h"
#include "symbolize/binaries.h"
#include "symbolize/elf.h"
#include "symbolize/kernel.h"
#include "symbolize/perfmap.h"
#include "symbolize/scopes.h"
#include "symbolize/symbolize.h"
#include "symbolize/table.h"
#include "symbolize/writer.h"
#include "testlib.h"

using namespace profpack;

namespace {

std::unique_ptr<ElfBinary> openOk(const std::string& name) {
  std::string why;
  auto b = ElfBinary::open(testlib::data("symbolize/" + name), why);
  CHECK(b != nullptr);
  return b;
}

// A file's DWARF through libdw, closed at the end of the scope.
struct DwarfFile {
  explicit DwarfFile(const std::string& path) : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    CHECK(fd >= 0);
    dw = dwarf_begin(fd, DWARF_C_READ);
    CHECK(dw != nullptr);
  }
  ~DwarfFile() {
    if (dw) dwarf_end(dw);
    if (fd >= 0) ::close(fd);
  }
  DwarfFile(const DwarfFile&) = delete;
  DwarfFile& operator=(const DwarfFile&) = delete;
  int fd;
  Dwarf* dw = nullptr;
};

Mapping hotMapping() {
  Mapping m;
  m.start = 0x55dc6e079000;
  m.limit = 0x55dc6e07a000;
  m.offset = 0x1000;
  m.path = "/tmp/psym/hot";
  return m;
}

}  // namespace

// The build that ran fits; a build whose code is in the file's first segment does not.
TEST(segments_fit_the_mapping) {
  auto hot = openOk("hot"), other = openOk("hot-noseparate");
  const Mapping m = hotMapping();
  CHECK_EQ(mismatch(m, *hot, 0), std::string());
  CHECK(mismatch(m, *other, 0).find("no loadable segment spans") != std::string::npos);
  Mapping bigger = m;
  bigger.limit += 0x1000;  // two pages: hot's code segment is one
  CHECK(!mismatch(bigger, *hot, 0).empty());
  Mapping shifted = m;
  shifted.offset = 0x2000;                              // hot's read-only data, not its code
  CHECK_EQ(mismatch(shifted, *hot, 0), std::string());  // a segment of that page and size
  shifted.offset = 0x3000;
  CHECK(!mismatch(shifted, *hot, 0).empty());
}

// Where the profile records a build id, it decides, whatever the layout and time.
TEST(build_id_decides) {
  auto hot = openOk("hot"), inl = openOk("hot-inline");
  CHECK(!hot->buildId().empty() && hot->buildId() != inl->buildId());
  Mapping m = hotMapping();
  m.buildId = hot->buildId();
  CHECK_EQ(mismatch(m, *hot, 1), std::string());  // modified after time 1: irrelevant
  const std::string why = mismatch(m, *inl, 0);
  CHECK(why.find("build id") != std::string::npos);
  m.buildId = inl->buildId();
  CHECK(!mismatch(m, *hot, 0).empty());
}

// Without a build id, a file modified after the profile is another build.
TEST(modified_after_the_profile) {
  auto hot = openOk("hot");
  const Mapping m = hotMapping();
  CHECK_EQ(mismatch(m, *hot, hot->modified()), std::string());
  CHECK(mismatch(m, *hot, hot->modified() - 1).find("modified after") != std::string::npos);
  CHECK_EQ(mismatch(m, *hot, 0), std::string());  // time unknown: not checked
}

// DCPI: link-time addresses of the image's text, inside one segment.
TEST(link_time_range_in_a_segment) {
  auto hot = openOk("hot");
  Mapping m;
  m.linkTime = true;
  m.start = 0x1060;  // hot's .text
  m.limit = 0x1200;
  CHECK_EQ(mismatch(m, *hot, 0), std::string());
  m.limit = 0x5000;  // past every segment
  CHECK(!mismatch(m, *hot, 0).empty());
}

// Names from the symbol table's sorted index are the names libdw's own lookup (a scan of every
// symbol per address) gives, at addresses all over the file's symbols: this library and the
// C++ runtime it links (thousands of symbols, global, weak and local, sized and not) and a
// test program.
TEST(symbol_index_names_as_libdw) {
  std::vector<std::string> files = {testlib::data("symbolize/hot")};
  for (const char* lib :
       {"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/lib/x86_64-linux-gnu/libc.so.6"})
    if (access(lib, R_OK) == 0) files.push_back(lib);
  for (const std::string& f : files) {
    std::string why;
    auto b = ElfBinary::open(f, why);
    CHECK(b != nullptr);
    auto [lo, hi] = b->symbolRange();
    CHECK(hi > lo);
    // About 4,000 addresses per file, from before the first symbol to past the last.
    const uint64_t step = std::max<uint64_t>(1, (hi - lo) / 4000) | 1;
    size_t named = 0, checked = 0;
    for (uint64_t a = lo > 64 ? lo - 64 : 0; a < hi + 64; a += step) {
      const char* ours = b->symbolAt(a);
      const char* theirs = b->symbolAtByLibdw(a);
      const std::string x = ours ? ours : "(none)", y = theirs ? theirs : "(none)";
      if (x != y) {
        std::fprintf(stderr, "%s: 0x%llx: index %s, libdw %s\n", f.c_str(),
                     static_cast<unsigned long long>(a), x.c_str(), y.c_str());
        CHECK_EQ(x, y);
        break;
      }
      named += ours != nullptr;
      ++checked;
    }
    CHECK(named > 0 && checked > 1000);
  }
}

// Opened without DWARF, a binary names each address by its symbol table alone: one frame, no
// file or line, where DWARF gives the inline chain; the function is the chain's outermost.
TEST(symbol_tables_only_name_one_frame) {
  std::string why;
  auto full = ElfBinary::open(testlib::data("symbolize/hot-inline"), why);
  auto tables = ElfBinary::open(testlib::data("symbolize/hot-inline"), why, false);
  CHECK(full != nullptr && tables != nullptr);
  auto [lo, hi] = tables->symbolRange();
  CHECK(hi > lo);
  size_t inlined = 0, named = 0;
  for (uint64_t a = lo; a < hi; ++a) {
    const std::vector<SymbolFrame>& t = tables->lookup(a);
    const std::vector<SymbolFrame>& d = full->lookup(a);
    CHECK(t.size() <= 1);
    if (t.empty()) continue;
    ++named;
    CHECK(t[0].file.empty() && t[0].line == 0);
    CHECK_EQ(t[0].function, std::string(tables->symbolAt(a)));
    if (d.size() > 1) {
      ++inlined;
      CHECK_EQ(t[0].function, d.back().function);
    }
  }
  CHECK(named > 100 && inlined > 0);
}

// A tool's output, line by line (empty if it could not be run).
std::vector<std::string> linesOf(const std::string& command) {
  std::vector<std::string> out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  std::string line;
  for (int c; (c = std::fgetc(p)) != EOF;) {
    if (c != '\n') {
      line += static_cast<char>(c);
      continue;
    }
    out.push_back(line);
    line.clear();
  }
  pclose(p);
  return out;
}

// Entries of the procedure linkage table are named as perf names them, "free@plt", with and
// without DWARF: each entry objdump labels "<free@plt>" (binutils finds the entries on its own,
// from the code), and each IFUNC entry ("<*ABS*+0x9c6a0@plt>") by a name nm lists at the
// resolver's address (in the binary's dynamic symbols or its debug file). libc's table lists its
// IFUNC relocations after the others, which its entries do not: perf 6.1 named a g++ recording's
// sample in libc's entry for mempcpy
// "__tls_get_addr@plt" (fixed in later perf, by the slots' order).
TEST(plt_entries_named_as_perf) {
  size_t checked = 0, ifuncs = 0, ifuncEntries = 0;
  // This process's libc, wherever the system keeps it.
  std::string libc;
  {
    std::ifstream maps("/proc/self/maps");
    for (std::string l; std::getline(maps, l);) {
      const size_t at = l.find('/');
      if (at != std::string::npos && l.find("/libc.so", at) != std::string::npos)
        libc = l.substr(at);
    }
  }
  CHECK(!libc.empty());
  for (const std::string& f :
       {testlib::data("perf/threads"), testlib::data("symbolize/hot"), libc}) {
    std::string why;
    auto tables = ElfBinary::open(f, why, false, false, false);
    auto full = ElfBinary::open(f, why, true, true, false);
    CHECK(tables != nullptr && full != nullptr);
    if (!tables || !full) continue;
    // address -> the names nm lists there: the dynamic symbols, and those of the debug file
    // where the system has one (libc's names its IFUNC resolvers: __strnlen_ifunc).
    std::map<uint64_t, std::set<std::string>> named;
    std::string debug;
    for (const std::string& l : linesOf("readelf -n '" + f + "' 2>/dev/null"))
      if (const size_t at = l.find("Build ID: "); at != std::string::npos && l.size() > at + 12)
        debug =
            "/usr/lib/debug/.build-id/" + l.substr(at + 10, 2) + "/" + l.substr(at + 12) + ".debug";
    for (const std::string& command :
         {"nm -D --defined-only '" + f + "' 2>/dev/null", "nm '" + debug + "' 2>/dev/null"})
      for (const std::string& l : linesOf(command)) {
        char name[512];
        unsigned long long a;
        if (std::sscanf(l.c_str(), "%llx %*s %511s", &a, name) == 2) {
          const std::string n = name;  // "memcpy@@GLIBC_2.14" in a symbol table, as perf names it
          named[a].insert(n);
          named[a].insert(n.substr(0, n.find('@')));
        }
      }
    for (const std::string& l : linesOf("objdump -d -j .plt -j .plt.sec '" + f + "' 2>/dev/null")) {
      unsigned long long a;
      char label[512];
      if (std::sscanf(l.c_str(), "%llx <%511[^>]>:", &a, label) != 2) continue;
      const std::string want = label;
      if (want.size() < 5 || want.compare(want.size() - 4, 4, "@plt") != 0) continue;
      unsigned long long resolver;
      const bool ifunc = std::sscanf(want.c_str(), "*ABS*+%llx@plt", &resolver) == 1;
      ifuncEntries += ifunc;
      for (ElfBinary* b : {tables.get(), full.get()})
        for (uint64_t at : {a, a + 4}) {
          const std::vector<SymbolFrame>& got = b->lookup(at);
          const std::string name = got.size() == 1 ? got[0].function : "(none)";
          bool ok = name == want;
          if (ifunc) {  // a name nm lists at the resolver's address
            const auto& names = named[resolver];
            ok = name.size() > 4 && names.count(name.substr(0, name.size() - 4)) > 0;
            ifuncs += ok;
          }
          ++checked;
          if (!ok) {
            std::fprintf(stderr, "%s (%s): 0x%llx: %s, objdump: %s\n", f.c_str(),
                         b == tables.get() ? "symbol tables" : "DWARF",
                         static_cast<unsigned long long>(at), name.c_str(), want.c_str());
            CHECK(ok);
          }
        }
    }
  }
  CHECK(checked > 12);                 // threads: 3 entries at two addresses by two openings
  CHECK_EQ(ifuncs, ifuncEntries * 4);  // every IFUNC entry (libc's), each four times
}

// Aliases (tests/data/symbolize/aliases.S): without DWARF, each address is named as perf names
// it (perf script on a recording of the program: foo 3465, __bar 2672, _start 1959, baz 1775
// samples, and profpack top --symbol-tables-only the same); libdw's own choice differs at foo.
TEST(symbol_tables_only_name_aliases_as_perf) {
  std::string why;
  auto tables = ElfBinary::open(testlib::data("symbolize/aliases"), why, false);
  auto full = ElfBinary::open(testlib::data("symbolize/aliases"), why);
  CHECK(tables != nullptr && full != nullptr);
  const struct {
    uint64_t from, to;
    const char* perf;
  } ranges[] = {
      {0x401020, 0x401049, "foo"}, {0x401050, 0x401070, "__bar"}, {0x401070, 0x401080, "baz"}};
  for (const auto& r : ranges)
    for (uint64_t a = r.from; a < r.to; ++a) {
      const char* name = tables->symbolAt(a);
      CHECK(name != nullptr);
      if (std::string(name) != r.perf) {
        std::fprintf(stderr, "0x%llx: %s, perf names %s\n", static_cast<unsigned long long>(a),
                     name, r.perf);
        CHECK_EQ(std::string(name), std::string(r.perf));
      }
    }
  CHECK_EQ(std::string(full->symbolAt(0x401025)), std::string("__foo"));  // libdw's: the smaller
  CHECK_EQ(std::string(full->symbolAt(0x401035)), std::string("foo"));
}

// A kallsyms table names an address by the symbol at or below it, choosing among symbols at one
// address as perf does (the last the table lists: kernel.cpp), whether the table comes sorted
// (as the kernel prints it) or not. perf 6.1's `report --kallsyms` took the last of each group
// of these when it was the one a recording's samples fell in.
TEST(kallsyms_names_as_perf_in_any_order) {
  // Address, type, name; perf takes the last of each group, whatever its type or name.
  const std::vector<std::string> rows = {
      "ffffffff81000000 T _stext",
      "ffffffff81000000 t _stext_alias",  // a local one
      "ffffffff81000010 T do_work",
      "ffffffff81000010 W do_work_weak",  // a weak one
      "ffffffff81000020 T run",
      "ffffffff81000020 T __run",  // more underscores
      "ffffffff81000030 T long_name",
      "ffffffff81000030 T short",  // a shorter name
      "ffffffff81000040 T first",         "ffffffff81000040 T secon",
      "ffffffff81000050 r skipped_ro",    "ffffffff81000060 t last_fn",
      "ffffffff81000070 T ___",           "ffffffff81000070 T __",
      "ffffffffc0000000 t mod_fn\t[mod]", "ffffffffc0000100 T mod_end\t[mod]"};
  std::vector<std::pair<uint64_t, std::string>> want = {
      {0xffffffff81000000, "_stext_alias"}, {0xffffffff81000005, "_stext_alias"},
      {0xffffffff81000010, "do_work_weak"}, {0xffffffff81000027, "__run"},
      {0xffffffff81000030, "short"},        {0xffffffff81000041, "secon"},
      {0xffffffff81000055, "secon"},  // 'r' (read-only data) is not kept
      {0xffffffff81000061, "last_fn"},      {0xffffffff81000071, "__"},
      {0xffffffffc0000004, "mod_fn"}};
  auto check = [&](const std::vector<std::string>& order, const char* what) {
    const std::string path = testlib::tempPath(std::string("kallsyms.") + what);
    std::string text;
    for (const std::string& r : order) text += r + "\n";
    testlib::spit(path, text);
    std::string why;
    auto k = Kallsyms::load(path, why);
    CHECK(k != nullptr);
    for (const auto& [address, name] : want) {
      const std::vector<SymbolFrame>* f = k->lookup(address);
      CHECK(f != nullptr && f->size() == 1);
      if (f && f->size() == 1 && (*f)[0].function != name) {
        std::fprintf(stderr, "%s: 0x%llx: %s, want %s\n", what,
                     static_cast<unsigned long long>(address), (*f)[0].function.c_str(),
                     name.c_str());
        CHECK_EQ((*f)[0].function, name);
      }
    }
    CHECK(k->lookup(0xffffffff80000000) == nullptr);  // below the first symbol
    CHECK(k->lookup(0xffffffffc0000200) == nullptr);  // past the last: its end is unknown
    std::remove(path.c_str());
  };
  check(rows, "sorted");
  // Out of order: the groups reversed, each group's own order kept.
  std::vector<std::string> shuffled;
  for (size_t i = rows.size(); i >= 2; i -= 2) {
    shuffled.push_back(rows[i - 2]);
    shuffled.push_back(rows[i - 1]);
  }
  check(shuffled, "reversed");
  // A row out of order at the end joins the first group, last: it is perf's choice there.
  const std::string late = "ffffffff81000000 t _stext_late";
  std::vector<std::string> withLate = rows;
  withLate.push_back(late);
  shuffled.push_back(late);
  want[0].second = want[1].second = "_stext_late";
  check(withLate, "late");
  check(shuffled, "reversed-late");
}

// A JIT's perf map (node --perf-basic-prof's lines, as it writes them): each line's range names
// its code; a later line for the same start (code compiled again) wins, and code inside other
// code is the inner entry's; lines that are not "START SIZE NAME" are passed over; a map of
// none, a FIFO and another user's map are refused.
TEST(perf_map_names_jit_code) {
  const std::string path = testlib::tempPath("perf-4242.map");
  testlib::spit(path,
                "7f448c006840 1c0 JS:*hotjs /tmp/js.js:1:15\n"
                "7f448c006a00 40 Builtins_ModulusSmi_Baseline\n"
                "not a line\n"
                "7f448c006a40 0 empty\n"
                "0x7f448c007000 100 JS:~lazy /tmp/js.js:9:1\r\n"
                "7f448c006840 80 JS:*hotjs /tmp/js.js:1:15 (again)\n");
  std::string why;
  auto map = PerfMap::load(path, why);
  CHECK(map != nullptr);
  if (map) {
    CHECK_EQ(map->size(), size_t{4});
    auto name = [&](uint64_t a) {
      const std::vector<SymbolFrame>* f = map->lookup(a);
      return f && !f->empty() ? (*f)[0].function : std::string("(none)");
    };
    CHECK_EQ(name(0x7f448c006840), std::string("JS:*hotjs /tmp/js.js:1:15 (again)"));
    CHECK_EQ(name(0x7f448c0068bf), std::string("JS:*hotjs /tmp/js.js:1:15 (again)"));
    // Past the later line's 0x80, in the earlier line's 0x1c0: code the later one is inside.
    CHECK_EQ(name(0x7f448c0068c0), std::string("JS:*hotjs /tmp/js.js:1:15"));
    CHECK_EQ(name(0x7f448c006a3f), std::string("Builtins_ModulusSmi_Baseline"));
    CHECK_EQ(name(0x7f448c006a40), std::string("(none)"));
    CHECK_EQ(name(0x7f448c0070ff), std::string("JS:~lazy /tmp/js.js:9:1"));
    CHECK_EQ(name(0x1000), std::string("(none)"));
  }
  // Code inside other code: the inner entry where it holds the address, else the outer one.
  testlib::spit(path, "1000 2000 outer\n1800 10 inner\n");
  map = PerfMap::load(path, why);
  CHECK(map != nullptr);
  if (map) {
    CHECK((*map->lookup(0x1805))[0].function == "inner");
    CHECK((*map->lookup(0x2000))[0].function == "outer");
    CHECK(map->lookup(0x3000) == nullptr);
  }
  testlib::spit(path, "no map here\n");
  CHECK(PerfMap::load(path, why) == nullptr && why.find("START SIZE NAME") != std::string::npos);
  // Not a regular file (a FIFO would block the read), or another user's: not read.
  std::remove(path.c_str());
  CHECK(::mkfifo(path.c_str(), 0600) == 0);
  CHECK(PerfMap::load(path, why) == nullptr && why.find("not a regular file") != std::string::npos);
  std::remove(path.c_str());
  testlib::spit(path, "1000 10 planted\n");
  if (::geteuid() == 0 && ::chown(path.c_str(), 12345, 12345) == 0)
    CHECK(PerfMap::load(path, why) == nullptr && why.find("another user") != std::string::npos);
  std::remove(path.c_str());
  CHECK(isJitMapping("//anon") && isJitMapping("/memfd:doublemapper (deleted)") &&
        !isJitMapping("/usr/bin/node") && !isJitMapping("[anon:v8]"));
}

// A table as the kernel prints it, long enough that a lookup starts from one of the sorted part's
// marks (load parses that part only where a lookup lands): every address, and every address just
// past a symbol, named as a plain search of the table names it. Modules follow in no order.
// A caller's frame at a function's very start, after its __pfx_ padding, is where an
// interrupt stopped it: that function, not the padding its address - 1 is in. Elsewhere, and
// at the padding's own start (a trailing call's return), address - 1.
TEST(kallsyms_caller_frames_at_a_function_start) {
  const std::string path = testlib::tempPath("kallsyms.pfx");
  testlib::spit(path,
                "ffffffff81000000 T before\n"
                "ffffffff81000030 T __pfx_spin\n"
                "ffffffff81000040 T spin\n"
                "ffffffff81000080 T after\n"
                "ffffffff810000c0 T end\n");
  std::string why;
  auto k = Kallsyms::load(path, why);
  CHECK(k != nullptr);
  auto name = [&](uint64_t a) {
    const std::vector<SymbolFrame>* f = k->lookupCaller(a);
    return f && f->size() == 1 ? (*f)[0].function : std::string("(none)");
  };
  CHECK_EQ(name(0xffffffff81000040), std::string("spin"));    // interrupted at its start
  CHECK_EQ(name(0xffffffff81000030), std::string("before"));  // a trailing call's return
  CHECK_EQ(name(0xffffffff81000041), std::string("spin"));
  CHECK_EQ(name(0xffffffff81000080), std::string("spin"));  // no padding before after
  CHECK_EQ(name(0xffffffff81000035), std::string("__pfx_spin"));
  std::remove(path.c_str());
}

TEST(kallsyms_long_table_names_every_address) {
  std::mt19937 rng(7);
  std::string text;
  std::vector<std::pair<uint64_t, std::string>> kept;  // ascending: address, perf's choice
  std::vector<uint64_t> probes;
  uint64_t a = 0xffffffff81000000;
  char hex[32];
  const auto line = [&](uint64_t address, char type, const std::string& name, const char* mod) {
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(address));
    text += std::string(hex) + " " + type + " " + name + mod + "\n";
  };
  for (int g = 0; g < 2000; ++g) {
    a += 0x10 + rng() % 0x100;
    probes.push_back(a);
    probes.push_back(a + 1);
    const std::string n = "fn" + std::to_string(g);
    // In each group, symbols of every kind in any order, perf's choice the last kept one; now
    // and then a group of read-only data only (not kept: its addresses fall to the group before).
    std::vector<std::pair<char, std::string>> rows;
    if (rng() % 8 == 0) {
      rows = {{'r', "ro" + std::to_string(g)}, {'R', "ro_" + std::to_string(g)}};
    } else {
      rows = {{'T', n}, {'t', n + "_local"}, {'W', n + "_weak"}, {'T', "__" + n}, {'r', "ro" + n}};
      rows.resize(1 + rng() % rows.size());
      std::shuffle(rows.begin(), rows.end(), rng);
      if (rows.size() == 1 && rows[0].first == 'r') rows[0] = {'T', n};
    }
    // Long runs, which marks within a group cut short: 1,000 aliases, perf's choice the last,
    // four marks on; and 1,000 lines not kept after a group.
    if (g == 500) {
      rows.clear();
      for (int i = 0; i < 1000; ++i) rows.push_back({'T', "__" + n + "_" + std::to_string(i)});
    }
    if (g == 1000)
      for (int i = 0; i < 1000; ++i) rows.push_back({'r', "ro" + n + "_" + std::to_string(i)});
    for (auto r = rows.rbegin(); r != rows.rend(); ++r)
      if (r->first != 'r' && r->first != 'R') {
        kept.emplace_back(a, r->second);
        break;
      }
    for (const auto& [type, name] : rows) line(a, type, name, "");
  }
  std::vector<uint64_t> modules;
  for (int m = 0; m < 300; ++m) modules.push_back(0xffffffffc0000000 + 0x40 * m);
  std::shuffle(modules.begin(), modules.end(), rng);
  for (const uint64_t m : modules) {
    line(m, 't', "mod" + std::to_string(m & 0xffff), "\t[mod]");
    kept.emplace_back(m, "mod" + std::to_string(m & 0xffff));
    probes.push_back(m + 3);
  }
  // Symbols out of order at addresses of the sorted part: later in the table, perf takes them.
  for (size_t i = 100; i < kept.size() && i < 2000; i += 300) {
    kept[i].second += "_late_and_longer";
    line(kept[i].first, 'T', kept[i].second, "");
  }
  std::sort(kept.begin(), kept.end());
  const std::string path = testlib::tempPath("kallsyms.long");
  testlib::spit(path, text);
  std::string why;
  auto k = Kallsyms::load(path, why);
  CHECK(k != nullptr);
  probes.push_back(0xffffffff80000000);
  probes.push_back(kept.back().first + 8);
  size_t wrong = 0;
  for (const uint64_t p : probes) {
    auto it = std::upper_bound(kept.begin(), kept.end(), p,
                               [](uint64_t x, const auto& s) { return x < s.first; });
    const char* want =
        it == kept.begin() || it == kept.end() ? nullptr : std::prev(it)->second.c_str();
    const std::vector<SymbolFrame>* f = k->lookup(p);
    const bool ok = want ? f && f->size() == 1 && (*f)[0].function == want : f == nullptr;
    if (!ok && ++wrong <= 5)
      std::fprintf(stderr, "0x%llx: %s, want %s\n", static_cast<unsigned long long>(p),
                   f && !f->empty() ? (*f)[0].function.c_str() : "(none)", want ? want : "(none)");
  }
  CHECK_EQ(wrong, size_t{0});
  std::remove(path.c_str());
  // A 32-bit table's 8-digit addresses: "c0100000 T start extra" has a space at 16 too.
  const std::string small = testlib::tempPath("kallsyms.32");
  testlib::spit(small, "c0100000 T start extra\nc0100100 T next\nc0100200 T end\n");
  auto k32 = Kallsyms::load(small, why);
  CHECK(k32 != nullptr);
  const std::vector<SymbolFrame>* f = k32 ? k32->lookup(0xc0100010) : nullptr;
  CHECK(f != nullptr && f->size() == 1 && (*f)[0].function == "start");
  std::remove(small.c_str());
}

// A unit's scope index (UnitScopes) finds, at every address of every unit, the same DIEs as
// findScopes walking the unit from its start: C programs with and without inlining, an XRay
// C++ program, and this test's own C++ (namespaces, classes, templates, lambdas).
TEST(unit_scopes_as_a_walk_of_the_unit) {
  for (const std::string& f :
       {testlib::data("symbolize/hot"), testlib::data("symbolize/hot-inline"),
        testlib::data("xray/st-g.bin"), std::string("/proc/self/exe")}) {
    const DwarfFile file(f);
    Dwarf* dw = file.dw;
    size_t addresses = 0, found = 0, units = 0;
    Dwarf_Off off = 0, next = 0;
    size_t headerSize = 0;
    while (dwarf_nextcu(dw, off, &next, &headerSize, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die cu;
      if (dwarf_offdie(dw, off + headerSize, &cu)) {
        ++units;
        size_t budget = kScopeBudget;
        const UnitScopes index(&cu, budget);
        CHECK(index.complete());
        std::vector<std::pair<Dwarf_Addr, Dwarf_Addr>> ranges;
        Dwarf_Addr base = 0, low = 0, high = 0, size = 0;
        for (ptrdiff_t r = 0; (r = dwarf_ranges(&cu, r, &base, &low, &high)) > 0;) {
          ranges.push_back({low, high});
          size += high - low;
        }
        // Every address of a unit of up to 1 KiB; about 150 spread over a large one (the walk from
        // the unit's start costs a millisecond per address in this test's largest units).
        const Dwarf_Addr step = size <= 1024 ? 1 : size / 150;
        Dwarf_Addr carry = 0;  // where the next address falls past a range's start
        for (auto [lo, hi] : ranges) {
          Dwarf_Addr a = lo + carry;
          for (; a < hi; a += step) {
            std::vector<Dwarf_Die> walked, indexed;
            size_t b1 = kScopeBudget, b2 = kScopeBudget;
            findScopes(&cu, a, walked, 0, b1);
            index.find(a, indexed, b2);
            CHECK_EQ(walked.size(), indexed.size());
            for (size_t i = 0; i < walked.size() && i < indexed.size(); ++i)
              CHECK_EQ(dwarf_dieoffset(&walked[i]), dwarf_dieoffset(&indexed[i]));
            ++addresses;
            found += !walked.empty();
          }
          carry = a - hi;
        }
      }
      off = next;
    }
    std::fprintf(stderr, "%s: %zu units, %zu addresses, %zu in a function\n", f.c_str(), units,
                 addresses, found);
    CHECK(units > 0 && found > 100);
  }
}

namespace {

std::span<const uint8_t> spanOf(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

// The units' ranges read from .debug_aranges's bytes are the ones libdw lists, each with the
// offset of its unit's DIE: in three programs GCC built, and in this test's own (GCC writes the
// section; clang, which builds it under the sanitizers, does not: then none is read, and libdw
// lists none either).
TEST(unit_ranges_as_libdw_lists_them) {
  for (const std::string& f :
       {testlib::data("symbolize/hot"), testlib::data("symbolize/hot-inline"),
        testlib::data("perf/threads"), std::string("/proc/self/exe")}) {
    const DwarfFile file(f);
    Dwarf* dw = file.dw;
    std::vector<UnitRange> ours;
    const bool read = readUnitRanges(dw, ours);
    CHECK(read || f == "/proc/self/exe");
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> mine, libdw;
    for (const UnitRange& u : ours) {
      Dwarf_Off next = 0;
      size_t headerSize = 0;
      CHECK_EQ(dwarf_nextcu(dw, u.unit, &next, &headerSize, nullptr, nullptr, nullptr), 0);
      mine.emplace_back(u.start, u.length, u.unit + headerSize);
    }
    Dwarf_Aranges* aranges = nullptr;
    size_t count = 0;
    CHECK_EQ(dwarf_getaranges(dw, &aranges, &count), 0);
    for (size_t i = 0; i < count; ++i) {
      Dwarf_Addr start = 0;
      Dwarf_Word length = 0;
      Dwarf_Off die = 0;
      CHECK_EQ(dwarf_getarangeinfo(dwarf_onearange(aranges, i), &start, &length, &die), 0);
      if (length != 0) libdw.emplace_back(start, length, die);
    }
    std::sort(mine.begin(), mine.end());
    std::sort(libdw.begin(), libdw.end());
    std::fprintf(stderr, "%s: %zu ranges\n", f.c_str(), read ? mine.size() : libdw.size());
    CHECK(read ? !mine.empty() && mine == libdw : libdw.empty());
  }
}

// Sets of either offset size and address size are read; every cut of them, and each field out
// of its bounds, is refused (unless the cut falls between sets) and leaves the list as it was.
TEST(unit_ranges_refuse_malformed_sections) {
  std::string s;
  auto put = [&](uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
  };
  // Set 1: 32-bit offsets, 8-byte addresses: 12 bytes of header, 4 of padding, three pairs.
  put(4 + 2 + 4 + 1 + 1 + 4 + 16 * 3 - 4, 4);
  put(2, 2), put(0x100, 4), put(8, 1), put(0, 1), put(0, 4);
  put(0x401000, 8), put(0x20, 8), put(0x402000, 8), put(0, 8), put(0, 8), put(0, 8);
  const size_t firstEnd = s.size();
  // Set 2: 64-bit offsets, 4-byte addresses: 4 + 8 + 2 + 8 + 1 + 1 = 24 bytes, then pairs of 8.
  put(0xffffffff, 4), put(2 + 8 + 1 + 1 + 8 * 2, 8);
  put(2, 2), put(0x2000, 8), put(4, 1), put(0, 1);
  put(0x8000, 4), put(0x10, 4), put(0, 4), put(0, 4);
  const std::span<const uint8_t> all = spanOf(s);
  std::vector<UnitRange> out{{1, 2, 3}};
  CHECK(parseUnitRanges(all, out));
  CHECK_EQ(out.size(), size_t{3});  // the one kept, and a range of each set (not the empty one)
  CHECK(out[1].start == 0x401000 && out[1].length == 0x20 && out[1].unit == 0x100);
  CHECK(out[2].start == 0x8000 && out[2].length == 0x10 && out[2].unit == 0x2000);
  for (size_t cut = 0; cut < s.size(); ++cut) {
    std::vector<UnitRange> part{{1, 2, 3}};
    const bool ok = parseUnitRanges(all.first(cut), part);
    CHECK_EQ(ok, cut == 0 || cut == firstEnd);
    CHECK_EQ(part.size(), cut == firstEnd ? size_t{2} : size_t{1});
  }
  auto refused = [&](size_t at, uint64_t v, size_t n) {
    std::string bad = s;
    for (size_t i = 0; i < n; ++i) bad[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
    std::vector<UnitRange> part;
    return !parseUnitRanges(spanOf(bad), part) && part.empty();
  };
  CHECK(refused(4, 3, 2));                                   // version 3
  CHECK(refused(10, 2, 1));                                  // 2-byte addresses
  CHECK(refused(11, 1, 1));                                  // a segment selector
  CHECK(refused(0, 0xfffffff0, 4));                          // a reserved length
  CHECK(refused(0, 0x7fffffff, 4));                          // past the section
  CHECK(refused(0, 4 + 2 + 4 + 1 + 1 + 4 + 16 * 2 - 4, 4));  // no closing pair in the set
  CHECK(refused(firstEnd + 4, 0xffff, 8));  // the 64-bit set's length past the section
  // A pair of zeros before the set's end is passed over (some producers write one there).
  s.clear();
  put(4 + 2 + 4 + 1 + 1 + 4 + 16 * 4 - 4, 4);
  put(2, 2), put(0x100, 4), put(8, 1), put(0, 1), put(0, 4);
  put(0x1000, 8), put(0x10, 8), put(0, 8), put(0, 8), put(0x2000, 8), put(0x20, 8), put(0, 8),
      put(0, 8);
  std::vector<UnitRange> both;
  CHECK(parseUnitRanges(spanOf(s), both));
  CHECK(both.size() == 2 && both[1].start == 0x2000 && both[1].length == 0x20);
}

// perf.data lists the files its samples are in ahead of its records (the build-id table): the
// paths and build ids, in one order; none for a recording to a pipe, a cut header or another
// format, and no error either (reading the file reports one).
TEST(perf_data_lists_its_binaries_ahead) {
  const std::string bytes = testlib::slurp(testlib::data("perf/threads.data"));
  FormatId f = FormatId::unknown;
  const std::vector<Mapping> ahead = binariesAhead(spanOf(bytes), ReadOptions{}, f);
  CHECK(f == FormatId::perf);
  auto named = [&](const std::string& path) {
    return std::find_if(ahead.begin(), ahead.end(),
                        [&](const Mapping& m) { return m.path == path; });
  };
  CHECK(named("/usr/src/profpack-samples/perf/threads") != ahead.end());
  CHECK_EQ(named("/usr/src/profpack-samples/perf/threads")->buildId.size(), size_t{20});
  CHECK(named("[kernel.kallsyms]") != ahead.end());
  CHECK(std::is_sorted(ahead.begin(), ahead.end(),
                       [](const Mapping& a, const Mapping& b) { return a.path < b.path; }));
  const std::string pipe = testlib::slurp(testlib::data("perf/pipe.data"));
  CHECK(binariesAhead(spanOf(pipe), ReadOptions{}, f).empty() && f == FormatId::perf);
  CHECK(binariesAhead(spanOf(bytes.substr(0, 120)), ReadOptions{}, f).empty());
  const std::string gperf = testlib::slurp(testlib::data("gperftools/workload.64le.prof"));
  CHECK(binariesAhead(spanOf(gperf), ReadOptions{}, f).empty() && f == FormatId::gperftools);
}

// Opened on a thread while the profile is read, a binary is the one open() would have found
// (the same file, build id and verdict for every mapping), and it is not opened again.
TEST(binaries_opened_ahead_are_those_found_after) {
  const std::string bytes = testlib::slurp(testlib::data("perf/threads.data"));
  FormatId f = FormatId::unknown;
  const std::vector<Mapping> ahead = binariesAhead(spanOf(bytes), ReadOptions{}, f);
  SymbolizeOptions o;
  o.binaryPath = {testlib::data("perf")};
  ElfResolver early(o, {}), late(o, {});
  early.openAhead(ahead);
  for (const Mapping& m : ahead) {
    std::string used[2], id[2], why[2];
    const bool a = early.open(m, used[0], id[0], why[0]), b = late.open(m, used[1], id[1], why[1]);
    CHECK(a == b);
    CHECK_EQ(used[0], used[1]);
    CHECK_EQ(id[0], id[1]);
    CHECK_EQ(why[0], why[1]);
  }
  CHECK(early.openedAhead() >= 1);  // the threads program, found in tests/data/perf
  CHECK_EQ(late.openedAhead(), size_t{0});
  CHECK(early.skipped() == late.skipped());
  // Without a build id a file is not opened ahead (its fit needs the mapping's place).
  Mapping noId = *std::find_if(ahead.begin(), ahead.end(), [](const Mapping& m) {
    return m.path == "/usr/src/profpack-samples/perf/threads";
  });
  noId.buildId.clear();
  ElfResolver unsure(o, {});
  unsure.openAhead({noId});
  std::string used, id, why;
  unsure.open(noId, used, id, why);
  CHECK_EQ(unsure.openedAhead(), size_t{0});
  // Given up before naming: destroyed at once, the thread stops after its current file.
  {
    ElfResolver abandoned(o, {});
    abandoned.openAhead(ahead);
  }
  // The profile named with them as without.
  ReadOptions ro;
  auto once = nameFromBinaries(readProfile(spanOf(bytes), ro), o);
  auto withAhead = nameFromBinaries(readProfile(spanOf(bytes), ro), o, namingAhead(ahead, o).get());
  CHECK(once->hasSymbols() && withAhead->hasSymbols());
  CHECK(writeProfile(*once, FormatId::folded, {}) ==
        writeProfile(*withAhead, FormatId::folded, {}));
  CHECK(once->warnings() == withAhead->warnings());
}

// Named as it is read for a conversion, a perf profile keeps the IR it was read into: its symbol
// section and the copy of that IR it lives in are built only when the IR is asked for (a .ppk
// write), and then are what symbolize gives, byte for byte. Until then, queries and
// conversions answer the names. Read for a .ppk write, the section is built at once.
TEST(names_found_on_read_build_their_section_when_asked) {
  const std::string bytes = testlib::slurp(testlib::data("perf/threads.data"));
  SymbolizeOptions o;
  o.binaryPath = {testlib::data("perf")};
  auto once = readProfile(spanOf(bytes), ReadOptions{});
  CHECK(!once->rootPending());
  auto eager = symbolizeProfile(*once, o);
  o.deferSection = true;
  auto read = nameFromBinaries(readProfile(spanOf(bytes), ReadOptions{}), o);
  CHECK(read->hasSymbols());
  CHECK(read->rootPending());  // nothing built yet
  // What the model of its addresses decoded waits for the first model of its names.
  std::shared_ptr<ModelCache> seed = read->takeModelCache();
  CHECK(seed != nullptr);
  read->seedModelCache(seed);
  const std::string folded = writeProfile(*read, FormatId::folded, {});
  CHECK(read->takeModelCache() == nullptr);             // the conversion's models took it
  CHECK(folded.find(";work_a ") != std::string::npos);  // named from tests/data/perf/threads
  CHECK(folded == writeProfile(*eager, FormatId::folded, {}));
  CHECK(writeProfile(*read, FormatId::pprof, {}) == writeProfile(*eager, FormatId::pprof, {}));
  CHECK(writeProfile(*read, FormatId::callgrind, {}) ==
        writeProfile(*eager, FormatId::callgrind, {}));
  CHECK(read->rootPending());  // the conversions did not build it
  CHECK(writeProfile(*read, FormatId::ppk, {}) == writeProfile(*eager, FormatId::ppk, {}));
  CHECK(!read->rootPending() && read->root().hasSymbols());
  CHECK(read->flatBytes() == eager->flatBytes());
  // A .ppk write builds the IR first, and lets go of what was kept for a model then (the copy
  // of the IR is its peak).
  auto forPpk = nameFromBinaries(readProfile(spanOf(bytes), ReadOptions{}), o);
  CHECK(writeProfile(*forPpk, FormatId::ppk, {}) == writeProfile(*eager, FormatId::ppk, {}));
  CHECK(forPpk->takeModelCache() == nullptr);
  // Not deferred: the section is there at once, with the same bytes.
  o.deferSection = false;
  auto now = nameFromBinaries(readProfile(spanOf(bytes), ReadOptions{}), o);
  CHECK(!now->rootPending() && now->partialRoot().hasSymbols());
  CHECK(now->flatBytes() == eager->flatBytes());
  CHECK(writeProfile(*now, FormatId::folded, {}) == folded);
}

// The symbol section's declaration column (what tells functions of one name apart) holds one
// value per frame: one of another length is refused as malformed; an empty one (a file written
// before the column was added) is 0 for every frame, which keys functions by name alone.
TEST(symbol_section_declarations_one_per_frame_or_none) {
  const std::string bytes = testlib::slurp(testlib::data("perf/threads.data"));
  SymbolizeOptions o;
  o.binaryPath = {testlib::data("perf")};
  auto named = symbolizeProfile(*readProfile(spanOf(bytes), ReadOptions{}), o);
  auto msg = copyOf(*named);
  ir::Symbols::Builder sym = msg->getRoot<ir::Profile>().getSymbols();
  const SymbolTable whole(sym.asReader());
  CHECK(whole.frames.size() > 1);
  CHECK(std::any_of(whole.frames.begin(), whole.frames.end(),
                    [](const SymbolTable::Frame& f) { return f.declaration != 0; }));
  ColumnWriter cut;
  for (size_t i = 0; i + 1 < whole.frames.size(); ++i) cut.push(whole.frames[i].declaration);
  cut.build(sym.initDeclaration());
  bool refused = false;
  try {
    SymbolTable table(sym.asReader());
  } catch (const Error& e) {
    refused = e.status() == Status::malformed;
    CHECK_CONTAINS(e.what(), "per-frame columns differ in length");
  }
  CHECK(refused);
  ColumnWriter none;
  none.build(sym.initDeclaration());
  const SymbolTable old(sym.asReader());
  CHECK_EQ(old.frames.size(), whole.frames.size());
  CHECK(std::all_of(old.frames.begin(), old.frames.end(),
                    [](const SymbolTable::Frame& f) { return f.declaration == 0; }));
}

// C++ names without their parameters, as `c++filt -p` prints them (and perf): every row of the
// committed table, each name demangled here first.
TEST(names_without_parameters_as_cxxfilt_p) {
  const std::string table =
      testlib::slurp(testlib::data("symbolize/demangled-without-parameters.tsv"));
  size_t rows = 0, specials = 0;
  std::vector<std::string> wrong;
  for (size_t at = 0; at < table.size();) {
    size_t end = table.find('\n', at);
    if (end == std::string::npos) end = table.size();
    const std::string line = table.substr(at, end - at);
    at = end + 1;
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    CHECK(tab != std::string::npos);
    const std::string mangled = line.substr(0, tab), want = line.substr(tab + 1);
    const std::string full = demangle(mangled.c_str());
    const std::string got = withoutParameters(full);
    ++rows;
    specials += got == full && full.find('(') != std::string::npos;
    if (got != want) wrong.push_back(mangled + ": " + got + " | " + want);
  }
  std::fprintf(stderr, "%zu names, %zu kept whole; %zu differ%s%s\n", rows, specials, wrong.size(),
               wrong.empty() ? "" : ", first: ", wrong.empty() ? "" : wrong[0].c_str());
  CHECK(rows > 1900 && specials > 100 && wrong.empty());
  // What a DemangleCache without parameters gives, and the same names with them.
  DemangleCache shortNames(false), full(true);
  const char* sym = "_ZNKSt6vectorIiSaIiEE4sizeEv";
  CHECK_EQ(shortNames(sym), std::string("std::vector<int, std::allocator<int> >::size"));
  CHECK_EQ(full(sym), std::string("std::vector<int, std::allocator<int> >::size() const"));
  CHECK_EQ(shortNames("main"), std::string("main"));  // C names as they are
  CHECK_EQ(withoutParameters("(anonymous)"),
           std::string("(anonymous)"));  // V8's: no name before it
  CHECK_EQ(withoutParameters("net/http.(*Client).Do"), std::string("net/http.(*Client).Do"));
  // A crafted name nesting 10,000 declarators: no recursion, 64 unwrapped at most.
  std::string deep = "int ";
  for (int i = 0; i < 10000; ++i) deep += "(*";
  deep += "f()";
  for (int i = 0; i < 10000; ++i) deep += ")(int)";
  const std::string cut = withoutParameters(deep);
  CHECK(!cut.empty() && cut.size() < deep.size());
  CHECK_EQ(withoutParameters("int (*(*f<int>(int))(char))(long)"), std::string("f<int>"));
  DemangleCache undemangled(false);  // a name the demangler refuses is kept as it is
  CHECK_EQ(undemangled("_Z x (*f())"), std::string("_Z x (*f())"));
}

TEST_MAIN()
