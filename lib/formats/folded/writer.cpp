#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "error.h"
#include "formats/folded/folded.h"
#include "util/text.h"

namespace profpack {

namespace {

// Function names as the format can hold them, once per function. A function no symbol names
// is written as stackcollapse-perf.pl writes a frame perf script prints as "[unknown]": its
// object's file name in brackets ("[cc1plus]"), or "[unknown]" where the object is unknown too.
// (Its address, which the name holds, made a line of nearly every sample of a stripped program.)
std::vector<std::string> foldedNames(const Model& model) {
  std::vector<std::string> names(model.functions());
  for (size_t f = 0; f < names.size(); ++f) {
    const FunctionRow& row = model.function(f);
    if (row.unnamed) {
      const std::string_view object = row.object;
      const std::string_view file = object.substr(object.rfind('/') + 1);  // npos + 1: all
      names[f] =
          object.empty() || object == "[unknown]" ? "[unknown]" : "[" + std::string(file) + "]";
    } else {
      names[f] = row.name;
    }
    for (char& c : names[f])
      if (c == ';' || c == '\n' || c == '\r') c = c == ';' ? ':' : ' ';
  }
  return names;
}

// Stack `s`'s frames, outermost first, joined by ';', to `out` (room made for them at once).
void appendFrames(std::string& out, const StackLayer& st, const std::vector<std::string>& names,
                  uint64_t s) {
  size_t length = out.size();
  for (uint64_t i = st.start[s]; i < st.start[s + 1]; ++i) length += names[st.frames[i]].size() + 1;
  out.reserve(length);
  for (uint64_t i = st.start[s]; i < st.start[s + 1]; ++i) {
    if (i != st.start[s]) out += ';';
    out += names[st.frames[i]];
  }
}

// The model's stacks with a nonzero cost of `event`, each as its line's text and cost (names
// joined by ';'), to `line`.
template <typename Line>
void foldedLines(const Model& model, const std::vector<std::string>& names, size_t event,
                 Line&& line) {
  if (!model.has(kCapStacks))
    throw Error(Status::unsupported, "folded",
                model.sourceFormat() + " holds no call stacks, so there is nothing to fold");
  if (event >= model.events())
    throw Error(Status::invalidArgument, "folded", "the profile has no cost events");
  const StackLayer& st = model.stacks();
  if (st.locationsOnly())
    throw Error(Status::internal, "folded", "the model's stacks hold no function frames");
  const size_t ne = model.events();
  // Stacks told apart by their frames' locations (the lines of one function) are one stack of
  // functions here: their costs are summed into the first.
  std::vector<uint64_t> value(st.stacks());
  for (size_t s = 0; s < st.stacks(); ++s) value[s] = st.values[s * ne + event];
  if (!st.locations.empty()) {
    std::unordered_map<std::string_view, size_t> first;
    const char* base = reinterpret_cast<const char*>(st.frames.data());
    for (size_t s = 0; s < st.stacks(); ++s) {
      constexpr size_t w = sizeof st.frames[0];
      const std::string_view key(base + st.start[s] * w, (st.start[s + 1] - st.start[s]) * w);
      auto [it, added] = first.emplace(key, s);
      if (!added) {
        value[it->second] += value[s];
        value[s] = 0;
      }
    }
  }
  std::string stack;
  for (size_t s = 0; s < st.stacks(); ++s) {
    const uint64_t v = value[s];
    if (v == 0) continue;
    stack.clear();
    appendFrames(stack, st, names, s);
    line(stack, v);
  }
}

template <typename Line>
void foldedLines(const Model& model, size_t event, Line&& line) {
  foldedLines(model, foldedNames(model), event, std::forward<Line>(line));
}

// One line, `stack COUNT`, to `text` (handed to `out` when full).
void emit(std::string& text, const std::string& stack, uint64_t v, Sink& out) {
  text += stack;
  text += ' ';
  appendDecimal(text, v);
  text += '\n';
  flushIfFull(text, out);
}

// The lines of a model that splits its stacks' figures by thread (perf), each thread's under
// its process's name (`processOf`): one pass over its stacks, not a model per thread (a
// recording of a build has thousands of threads). Lines are summed by (process, stack of
// names) as numbers: names written alike are one name, stacks of the same names one stack, so
// that text is made once per line written, not per row.
template <typename ProcessOf>
void writeByThreadRows(const Model& model, const StackLayer& st, size_t event, Sink& out,
                       ProcessOf&& processOf) {
  const std::vector<ThreadRow>& threads = model.threads();
  const size_t ne = model.events(), row = 2 + ne;
  const std::vector<std::string> names = foldedNames(model);
  std::vector<uint32_t> nameId(names.size());
  {
    std::unordered_map<std::string_view, uint32_t> ids;
    ids.reserve(names.size());
    for (size_t f = 0; f < names.size(); ++f)
      nameId[f] = ids.try_emplace(names[f], static_cast<uint32_t>(ids.size())).first->second;
  }
  constexpr uint32_t kNone = UINT32_MAX;
  // Stacks of names, each once: its names at seqStart[k] .. seqStart[k + 1] of seq, and the
  // model stack whose frames it was made from (for its text).
  std::vector<uint32_t> stackOf(st.stacks(), kNone), seq, seqStart{0};
  std::vector<uint64_t> madeFrom;
  std::unordered_multimap<uint64_t, uint32_t> seqByHash;
  std::vector<uint32_t> names1;
  auto nameStack = [&](uint64_t s) {
    names1.clear();
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint64_t i = st.start[s]; i < st.start[s + 1]; ++i) {
      names1.push_back(nameId[st.frames[i]]);
      h = (h ^ names1.back()) * 0x100000001b3ull;
      h ^= h >> 29;
    }
    auto [lo, hi] = seqByHash.equal_range(h);
    for (auto it = lo; it != hi; ++it) {
      const uint32_t k = it->second;
      if (seqStart[k + 1] - seqStart[k] == names1.size() &&
          std::equal(names1.begin(), names1.end(), seq.begin() + seqStart[k]))
        return k;
    }
    const auto k = static_cast<uint32_t>(madeFrom.size());
    seq.insert(seq.end(), names1.begin(), names1.end());
    seqStart.push_back(static_cast<uint32_t>(seq.size()));
    madeFrom.push_back(s);
    seqByHash.emplace(h, k);
    return k;
  };
  // Processes by their text, each once; a thread's is made at its first row.
  std::vector<uint32_t> processOfThread(threads.size(), kNone);
  std::vector<std::string> processes;
  std::unordered_map<std::string, uint32_t> processIds;
  // (process, stack of names) -> cost, and the order lines were met in (for their text).
  std::unordered_map<uint64_t, uint64_t> cost;
  for (size_t r = 0; r + row <= st.threadValues.size(); r += row) {
    const uint64_t s = st.threadValues[r], t = st.threadValues[r + 1];
    const uint64_t v = st.threadValues[r + 2 + event];
    if (v == 0) continue;
    if (processOfThread[t] == kNone) {
      auto [it, added] =
          processIds.try_emplace(processOf(t), static_cast<uint32_t>(processes.size()));
      if (added) processes.push_back(it->first);
      processOfThread[t] = it->second;
    }
    if (stackOf[s] == kNone) stackOf[s] = nameStack(s);
    cost[uint64_t{processOfThread[t]} << 32 | stackOf[s]] += v;
  }
  // Each line's text, sorted; lines whose texts are alike (a process named as a stack's
  // first frame, beside a thread without one) are one line.
  std::vector<std::string> stackText(madeFrom.size());
  std::vector<bool> written(madeFrom.size(), false);
  std::vector<std::pair<std::string, uint64_t>> sorted;
  sorted.reserve(cost.size());
  for (const auto& [key, v] : cost) {
    const auto k = static_cast<uint32_t>(key);
    if (!written[k]) {
      appendFrames(stackText[k], st, names, madeFrom[k]);
      written[k] = true;
    }
    const std::string& process = processes[key >> 32];
    std::string line;
    line.reserve(process.size() + 1 + stackText[k].size());
    if (!process.empty()) (line += process) += ';';
    line += stackText[k];
    sorted.emplace_back(std::move(line), v);
  }
  std::sort(sorted.begin(), sorted.end());
  std::string text;
  for (size_t i = 0; i < sorted.size();) {
    uint64_t v = 0;
    size_t j = i;
    for (; j < sorted.size() && sorted[j].first == sorted[i].first; ++j) v += sorted[j].second;
    emit(text, sorted[i].first, v, out);
    i = j;
  }
  out.write(text);
}

}  // namespace

size_t foldedEvent(const Model& model) {
  const std::vector<std::string>& names = model.eventNames();
  if (names.size() > 2 && names[0] == "samples")
    for (size_t e = 2; e < names.size(); ++e)
      if (names[e] == names[1] + "_samples") return e;
  return 0;
}

void writeFolded(const Model& model, size_t event, Sink& out) {
  std::string text;
  const std::vector<std::string> names = foldedNames(model);
  std::unordered_set<std::string_view> distinct(names.begin(), names.end());
  if (distinct.size() == names.size()) {  // each name one function's: each stack one line
    foldedLines(model, names, event,
                [&](const std::string& stack, uint64_t v) { emit(text, stack, v, out); });
    out.write(text);
    return;
  }
  // Functions written alike (frames no symbol names, by their object; one name in two objects)
  // make stacks that are then one line: summed, in the order of their first stack.
  std::vector<std::pair<std::string, uint64_t>> lines;
  std::unordered_map<std::string, size_t> lineOf;
  foldedLines(model, names, event, [&](const std::string& stack, uint64_t v) {
    auto [it, added] = lineOf.try_emplace(stack, lines.size());
    if (added) lines.emplace_back(stack, 0);
    lines[it->second].second += v;
  });
  for (const auto& [stack, v] : lines) emit(text, stack, v, out);
  out.write(text);
}

void writeFolded(const Model& model, const ModelFor& perThread, size_t event, Sink& out,
                 FoldedProcess how) {
  const std::vector<ThreadRow>& threads = model.threads();
  const bool named =
      perThread && std::any_of(threads.begin(), threads.end(),
                               [](const ThreadRow& t) { return !t.process.empty(); });
  if (!named || how == FoldedProcess::none) return writeFolded(model, event, out);
  if (!model.has(kCapStacks))
    throw Error(Status::unsupported, "folded",
                model.sourceFormat() + " holds no call stacks, so there is nothing to fold");
  // Memory: the distinct (process, stack) lines, not the samples.
  std::map<std::string, uint64_t> lines;
  auto processOf = [&](size_t t) {
    std::string process = threads[t].process;
    if (how != FoldedProcess::comm) process += '-' + std::to_string(shownId(threads[t].pid));
    if (how == FoldedProcess::commPidTid)
      process += '/' + std::to_string(shownId(threads[t].threadId));
    std::replace(process.begin(), process.end(), ' ', '_');
    for (char& c : process)
      if (c == ';' || c == '\n' || c == '\r') c = c == ';' ? ':' : '_';
    return process;
  };
  const StackLayer& st = model.stacks();
  if (st.locationsOnly())
    throw Error(Status::internal, "folded", "the model's stacks hold no function frames");
  if (!st.threadValues.empty()) {
    if (event >= model.events())
      throw Error(Status::invalidArgument, "folded", "the profile has no cost events");
    writeByThreadRows(model, st, event, out, processOf);
    return;
  } else {
    for (size_t t = 0; t < threads.size(); ++t) {
      const std::string process = processOf(t);
      const std::unique_ptr<Model> m = perThread(static_cast<long>(t));
      foldedLines(*m, event, [&](const std::string& stack, uint64_t v) {
        lines[process.empty() ? stack : process + ';' + stack] += v;
      });
    }
  }
  std::string text;
  for (const auto& [line, v] : lines) emit(text, line, v, out);
  out.write(text);
}

}  // namespace profpack
