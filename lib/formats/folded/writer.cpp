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
    for (uint64_t i = st.start[s]; i < st.start[s + 1]; ++i) {
      if (i != st.start[s]) stack += ';';
      stack += names[st.frames[i]];
    }
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
    // The model splits its stacks' figures by thread (perf): one pass over its stacks, not a
    // model per thread (a recording of a build has thousands of threads).
    const size_t ne = model.events(), row = 2 + ne;
    std::vector<std::string> process(threads.size()), stackText(st.stacks());
    std::vector<bool> made(threads.size(), false), written(st.stacks(), false);
    const std::vector<std::string> names = foldedNames(model);
    // Each stack's text made at its length, each row's line in one buffer, copied only where
    // the line is new (growing them was 48,000 allocations of a g++ compile's recording).
    std::string key;
    for (size_t r = 0; r + row <= st.threadValues.size(); r += row) {
      const uint64_t s = st.threadValues[r], t = st.threadValues[r + 1];
      const uint64_t v = st.threadValues[r + 2 + event];
      if (v == 0) continue;
      if (!made[t]) {
        process[t] = processOf(t);
        made[t] = true;
      }
      if (!written[s]) {
        size_t length = 0;
        for (uint64_t i = st.start[s]; i < st.start[s + 1]; ++i)
          length += names[st.frames[i]].size() + 1;
        stackText[s].reserve(length);
        for (uint64_t i = st.start[s]; i < st.start[s + 1]; ++i) {
          if (i != st.start[s]) stackText[s] += ';';
          stackText[s] += names[st.frames[i]];
        }
        written[s] = true;
      }
      if (process[t].empty()) {
        lines[stackText[s]] += v;
        continue;
      }
      key.assign(process[t]);
      key += ';';
      key += stackText[s];
      auto it = lines.lower_bound(key);
      if (it == lines.end() || it->first != key) it = lines.emplace_hint(it, key, 0);
      it->second += v;
    }
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
