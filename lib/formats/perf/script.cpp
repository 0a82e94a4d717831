// `perf script` text (default fields and the common -F variants): a sample line
// `comm [pid/]tid [[cpu]] [time:] [period] [event:] ...` followed by one line per frame,
// `<tab> address symbol[+offset] (dso)`, innermost first, and a blank line. Kept in the same IR
// as perf.data (PerfData), with each frame's symbol and its dso as the mapping's path.

#include <charconv>
#include <climits>
#include <cstdint>
#include <map>
#include <unordered_map>

#include "error.h"
#include "formats/perf/perf.h"
#include "formats/perf/records.h"
#include "ir/column.h"

namespace profpack {

namespace {

constexpr const char* kScript = "perf-script";

// A number of the text, checked: a field too long or not a number is malformed input.
uint64_t number(std::string_view s, int base, uint64_t at, uint64_t lineNo) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size())
    throw Error(Status::malformed, kScript, "'" + std::string(s.substr(0, 32)) + "' is not a number",
                at, lineNo + 1);
  return v;
}

int32_t id(std::string_view s, uint64_t at, uint64_t lineNo) {
  const bool negative = !s.empty() && s.front() == '-';  // perf prints -1 for an unknown pid
  const uint64_t v = number(negative ? s.substr(1) : s, 10, at, lineNo);
  if (v > uint64_t{INT32_MAX})
    throw Error(Status::malformed, kScript, "a pid or tid out of range", at, lineNo + 1);
  return negative ? -static_cast<int32_t>(v) : static_cast<int32_t>(v);
}

bool isHex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A frame line: "addr sym[+off] (dso)"; false if it is not one.
bool parseFrame(std::string_view line, uint64_t& addr, std::string& sym, std::string& dso) {
  line = trim(line);
  const size_t sp = line.find(' ');
  if (sp == std::string_view::npos || !isHex(line.substr(0, sp))) return false;
  auto [end, ec] = std::from_chars(line.data(), line.data() + sp, addr, 16);
  if (ec != std::errc() || end != line.data() + sp) return false;  // longer than 64 bits
  std::string_view rest = trim(line.substr(sp));
  dso.clear();
  if (!rest.empty() && rest.back() == ')') {
    const size_t open = rest.rfind(" (");
    if (open != std::string_view::npos) {
      dso = rest.substr(open + 2, rest.size() - open - 3);
      rest = trim(rest.substr(0, open));
    } else if (rest.front() == '(') {
      dso = rest.substr(1, rest.size() - 2);
      rest = {};
    }
  }
  if (const size_t plus = rest.rfind("+0x"); plus != std::string_view::npos && plus > 0)
    rest = rest.substr(0, plus);
  sym = std::string(rest);  // "[unknown]" kept, as perf prints it (stackcollapse-perf keeps it too)
  return true;
}

// Whether `w` is -?digits.
bool isInteger(std::string_view w) {
  if (!w.empty() && w.front() == '-') w.remove_prefix(1);
  return !w.empty() && w.find_first_not_of("0123456789") == std::string_view::npos;
}

bool isTimeWord(std::string_view x) {
  return x.size() > 1 && x.back() == ':' && x.find('.') != x.npos &&
         x.find_first_not_of("0123456789.:") == x.npos;
}

bool isCpuWord(std::string_view x) {
  return x.size() > 2 && x.front() == '[' && x.back() == ']' &&
         isInteger(x.substr(1, x.size() - 2)) && x[1] != '-';
}

// A word of a sample line, and the columns perf's format gave it: its padding (the spaces
// before it but the one that separates it from the word before) and its characters.
struct Word {
  std::string_view text;
  size_t width;
};

// perf prints a [pid/]tid as "%5d" (later perf "%7d"), or "pid/tid"; a period as "%10".
bool isIdWord(const Word& w) {
  const size_t slash = w.text.find('/');
  if (slash != std::string_view::npos)
    return isInteger(w.text.substr(0, slash)) && isInteger(w.text.substr(slash + 1));
  return isInteger(w.text) && w.width >= 5;
}
bool isPeriodWord(const Word& w) {
  return w.width >= 10 && w.text.find_first_not_of("0123456789") == std::string_view::npos;
}
bool isEventWord(const Word& w) { return w.text.back() == ':' && !isTimeWord(w.text); }

// Words perf may print between the tid and the cpu or time: -F +misc's letters ("U", "K"),
// +tod's date and time or "disabled", and -L's bare cpu (narrower than a tid).
bool isBetweenWord(const Word& w) {
  const std::string_view x = w.text;
  if (x.find_first_not_of("KUHGgMESp") == std::string_view::npos) return true;
  if (x == "disabled") return true;
  if (x.find_first_not_of("0123456789-:.") == std::string_view::npos &&
      (x.find('-') != std::string_view::npos || x.find(':') != std::string_view::npos))
    return x.back() != ':';  // a date or a time of day (the sample's time ends in ':')
  return isInteger(x) && w.width < 5;
}

// The word that names the sample's event: the first (after the comm's first word) ending in
// ':' but the time, preferring one right after a field (a tid, cpu, time or period), before
// which the fields stand; a tracepoint's own text after it ("dfd: 0x1,") is not read.
size_t eventOf(const std::vector<Word>& words) {
  size_t first = words.size();
  for (size_t i = 1; i < words.size(); ++i) {
    if (!isEventWord(words[i])) continue;
    const Word& before = words[i - 1];
    if (isIdWord(before) || isPeriodWord(before) || isTimeWord(before.text) ||
        isCpuWord(before.text))
      return i;
    if (first == words.size()) first = i;
  }
  return first;
}

// Where a sample line's fields begin and which word is its [pid/]tid (none: words.size(), as
// with -F -tid). The comm before them may hold spaces, digits and colons; the fields follow in
// perf's order, each where -F prints it: [pid/]tid, [cpu], time:, period, event:. Where the
// cpu or the time is printed, the tid is the word just before it (past misc, tod or -L's cpu),
// if it is one; else the words before the event (or the line's end) are read backwards: a
// period (ten columns), then a tid (at least five). Where the file has no tid column
// (`tidColumn` false), no word is taken for one: a comm's last word may be a number.
size_t fieldsOf(const std::vector<Word>& words, bool tidColumn, size_t& idw) {
  idw = words.size();
  const size_t event = eventOf(words);
  for (size_t i = 0; i < event; ++i)
    if (isCpuWord(words[i].text) || isTimeWord(words[i].text)) {
      size_t j = i;
      while (j > 1 && isBetweenWord(words[j - 1])) --j;
      if (tidColumn && j > 0 && isIdWord(words[j - 1])) return idw = j - 1;
      if (tidColumn && i > 0 && isIdWord(words[i - 1])) return idw = i - 1;
      return i;
    }
  size_t k = event;
  if (k > 0 && isPeriodWord(words[k - 1])) --k;
  if (tidColumn && k > 0 && isIdWord(words[k - 1])) return idw = k - 1;
  return k;
}

// A sample line's words, each with the columns perf's format gave it.
std::vector<Word> wordsOf(std::string_view line) {
  std::vector<Word> words;
  for (size_t i = 0; i < line.size();) {
    const size_t from = i;
    while (i < line.size() && line[i] == ' ') ++i;
    size_t j = line.find(' ', i);
    if (j == std::string_view::npos) j = line.size();
    const size_t pad = i - from - (from > 0 && i > from ? 1 : 0);
    if (j > i) words.push_back({line.substr(i, j - i), pad + (j - i)});
    i = j;
  }
  return words;
}

// A sample line: comm (may hold spaces), then [pid/]tid, then [cpu], time:, period, event:,
// each but the comm where -F prints it. Without a tid the thread is perf's unknown one (-1),
// one per comm.
perf::ThreadKey parseSampleLine(std::string_view line, bool tidColumn, uint64_t at, uint64_t lineNo,
                                perf::Sample& cur, std::string& event) {
  const std::vector<Word> words = wordsOf(line);
  if (words.empty())
    throw Error(Status::malformed, kScript, "an empty sample line", at, lineNo + 1);
  size_t idw;
  const size_t start = fieldsOf(words, tidColumn, idw);
  perf::ThreadKey k{-1, -1, ""};
  if (start > 0) {
    const char* b = words[0].text.data();
    const std::string_view last = words[start - 1].text;
    k.comm = std::string(b, last.data() + last.size() - b);
  }
  size_t fields = start;
  if (idw < words.size()) {
    const std::string_view w = words[idw].text;
    const size_t slash = w.find('/');
    k.tid = id(slash == w.npos ? w : w.substr(slash + 1), at, lineNo);
    k.pid = slash == w.npos ? k.tid : id(w.substr(0, slash), at, lineNo);
    fields = idw + 1;
  }
  cur = {};
  cur.period = 1;
  event = "cpu-clock";
  bool sawTime = false;
  for (size_t i = fields; i < words.size(); ++i) {
    std::string_view x = words[i].text;
    if (isCpuWord(x)) {
      cur.cpu = number(x.substr(1, x.size() - 2), 10, at, lineNo);
    } else if (!sawTime && isTimeWord(x)) {
      sawTime = true;
      const size_t dot = x.find('.');
      const std::string nanos =
          (std::string(x.substr(dot + 1, x.size() - dot - 2)) + "000000000").substr(0, 9);
      cur.time = number(x.substr(0, dot), 10, at, lineNo) * 1000000000ull +
                 number(nanos, 10, at, lineNo);
    } else if (x.find_first_not_of("0123456789") == x.npos) {
      cur.period = number(x, 10, at, lineNo);
    } else if (x.back() == ':') {  // the whole name: "sched:sched_switch", "cycles:ppp"
      event = std::string(x.substr(0, x.size() - 1));
      break;
    }
  }
  return k;
}

// Whether the text's sample lines print a [pid/]tid. -F prints the same fields on every line,
// so a sample line with no word that could be a tid says that none has one: else "worker 12345
// [000] 1.5:" under -F -tid would take the comm's last word for a tid. Only lines with a field
// perf prints after the tid count (a [cpu], a time, an event): a line perf wrote among the
// samples ("Failed to open ...", "Warning: ...", even between one sample's frames) has none.
bool hasTidColumn(std::string_view text) {
  bool open = false;  // inside a sample, as readPerfScript reads lines
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (trim(line).empty() || line.front() == '#') {
      open = false;
      continue;
    }
    if (line.front() == '\t' || (line.front() == ' ' && open)) continue;
    open = true;
    const std::vector<Word> words = wordsOf(line);
    bool anchored = !words.empty() && eventOf(words) < words.size();
    for (size_t i = 1; i < words.size() && !anchored; ++i)
      anchored = isCpuWord(words[i].text) || isTimeWord(words[i].text);
    if (!anchored) continue;
    size_t idw;
    fieldsOf(words, true, idw);
    if (idw == words.size()) return false;
  }
  return true;
}

}  // namespace

bool isPerfScript(std::span<const uint8_t> data) {
  std::string_view t(reinterpret_cast<const char*>(data.data()), data.size());
  // perf script --header's lines (as many as the machine has CPUs and events), and blank
  // ones, before the first sample; then a look at 4 KiB.
  while (!t.empty() && (t.front() == '#' || t.front() == '\n')) {
    const size_t end = t.find('\n');
    if (end == std::string_view::npos) return false;
    t.remove_prefix(end + 1);
  }
  t = t.substr(0, 4096);
  if (t.empty()) return false;
  const size_t nl = t.find('\n');
  if (nl == std::string_view::npos || nl + 1 >= t.size() || t[nl + 1] != '\t') return false;
  const size_t nl2 = t.find('\n', nl + 1);
  uint64_t a;
  std::string s, d;
  // A sample line (not tab-indented: without a comm, perf pads the tid), then a frame:
  // "<tab> address symbol (dso)".
  return t.front() != '\t' &&
         parseFrame(t.substr(nl + 1, nl2 == std::string_view::npos ? t.npos : nl2 - nl - 1), a, s,
                    d);
}

std::unique_ptr<Profile> readPerfScript(std::span<const uint8_t> data) {
  std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
  perf::Recording r;
  std::map<std::string, uint64_t> events;
  std::map<perf::ThreadKey, uint64_t> threads;
  std::map<std::pair<int32_t, std::string>, uint64_t> mappings;
  std::unordered_map<std::string, uint64_t> frames;
  perf::StackTable stacks;
  std::vector<std::string> names;
  std::vector<uint64_t> chain;
  perf::Sample cur{};
  bool open = false;
  int32_t pid = 0;
  // The mapping (1-based; 0: none) of a frame's dso in the current process.
  auto mappingOf = [&](const std::string& dso) -> uint64_t {
    auto [m, newMap] = mappings.try_emplace({pid, dso}, r.mappings.size());
    if (newMap && !dso.empty() && dso != "[unknown]") {
      perf::MappingRec rec;
      rec.pid = pid;
      rec.path = dso;
      r.mappings.push_back(rec);
    } else if (newMap) {
      m->second = ~uint64_t{0};
    }
    return m->second == ~uint64_t{0} ? 0 : m->second + 1;
  };
  auto frameOf = [&](uint64_t mapping, uint64_t addr, const std::string& sym,
                     const std::string& dso) {
    const std::string fkey = std::to_string(mapping) + ":" + std::to_string(addr) + ":" + sym;
    auto [f, newFrame] = frames.try_emplace(fkey, r.frameAddress.size());
    if (newFrame) {
      r.frameAddress.push_back(addr);
      r.frameMapping.push_back(mapping);
      r.frameKernel.push_back(dso.rfind("[kernel", 0) == 0);
      names.push_back(sym);
    }
    return f->second;
  };
  std::vector<std::pair<uint64_t, std::string>> inlined;  // frames waiting for their dso
  auto finish = [&] {
    if (!open) return;
    open = false;
    for (auto& [a, name] : inlined) chain.push_back(frameOf(0, a, name, ""));  // no dso came
    inlined.clear();
    if (chain.empty()) return;  // a sample line without frames (a cut file's last) adds no stack
    cur.stack = stacks.intern(chain, r);
    r.samples.push(cur);
    chain.clear();
  };
  const bool tidColumn = hasTidColumn(text);
  uint64_t lineNo = 0;
  for (size_t pos = 0; pos < text.size(); ++lineNo) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    const uint64_t at = pos;
    pos = nl + 1;
    if (trim(line).empty() || line.front() == '#') {
      finish();
      continue;
    }
    // Frames are tab-indented, +srcline's lines space-indented; a sample line starts with a
    // space where -F leaves the comm out (perf pads the tid), after the blank line that ends
    // the sample before it.
    if (line.front() == '\t' || (line.front() == ' ' && open)) {
      uint64_t addr;
      std::string sym, dso;
      if (open && (!chain.empty() || !inlined.empty()) && line.front() == ' ' &&
          !parseFrame(line, addr, sym, dso))
        continue;  // -F +srcline: the frame's "file:line" (or "[dso][addr]"), not kept
      if (!open || !parseFrame(line, addr, sym, dso))
        throw Error(Status::malformed, kScript, "not a frame line of a sample", at, lineNo + 1);
      // A frame perf unwound through inlined code (--call-graph dwarf) names the inlined
      // function with "(inlined)" in place of its dso, before the frame of the function it is
      // inlined into, at the same address: its dso is that frame's, so it waits for it (where
      // perf prints no such frame, the dso is not known).
      // With -F +srcline, perf prints such a frame with no dso and "(inlined)" after its
      // source line, on the next line.
      if (dso.empty() && pos < text.size() && text[pos] == ' ') {
        const size_t end = text.find('\n', pos);
        const std::string_view next =
            trim(text.substr(pos, end == std::string_view::npos ? text.npos : end - pos));
        if (next.size() > 10 && next.substr(next.size() - 10) == " (inlined)") dso = "inlined";
      }
      if (dso == "inlined") {
        inlined.push_back({addr, std::move(sym)});
        continue;
      }
      const uint64_t mapping = mappingOf(dso);
      for (auto& [a, name] : inlined)
        chain.push_back(a == addr ? frameOf(mapping, a, name, dso) : frameOf(0, a, name, ""));
      inlined.clear();
      chain.push_back(frameOf(mapping, addr, sym, dso));
      continue;
    }
    finish();
    std::string event;
    perf::ThreadKey k = parseSampleLine(line, tidColumn, at, lineNo, cur, event);
    pid = k.pid;
    auto [e, newEvent] = events.try_emplace(event, r.attrs.size());
    if (newEvent) {
      perf::Attr a;
      a.name = event;
      r.attrs.push_back(a);
    }
    cur.event = e->second;
    if (cur.time != 0) r.attrs[cur.event].sampleType |= perf::kSampleTime;  // a timeline
    auto [t, newThread] = threads.try_emplace(k, r.threads.size());
    if (newThread) r.threads.push_back(k);
    cur.thread = t->second;
    open = true;
  }
  finish();
  if (r.samples.size() == 0) throw Error(Status::malformed, kScript, "no samples", 0);
  std::unique_ptr<Profile> p = buildPerfIR(std::move(r), ir::Format::PERF_SCRIPT, &names);
  return p;
}

}  // namespace profpack
