// Collapsed stacks:
//
//   file  ::= (line "\n")*
//   line  ::= blank* | blank* stack blank+ count blank*  (a '\r' before the newline is dropped)
//   stack ::= frame (";" frame)*                        (outermost first; a frame may hold blanks)
//   count ::= digit+
//
// The count is the last blank-separated word, as flamegraph.pl takes it. Blanks around the stack
// are not part of it, as inferno reads a line (flamegraph.pl would keep the ones before it). Each
// line is one sample of the IR's CallTree: frames share a prefix tree, the line's count is the
// sample's. The counts must add up to at most 2^64 - 1 (a frame's inclusive count is a sum of
// them): a line past that is an error naming it, not a total that wraps around.

#include <string>
#include <string_view>

#include "error.h"
#include "formats/callgrind/text_end.h"
#include "formats/calltree/calltree.h"
#include "formats/folded/folded.h"
#include "util/text.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "folded";

// Splits a non-blank line into its stack and count; false (and `why`) if it is not one.
bool splitLine(std::string_view line, std::string_view& stack, uint64_t& count, size_t& at,
               std::string& why) {
  const std::string_view t = trim(line);
  const size_t lead = static_cast<size_t>(t.data() - line.data());
  size_t sp = t.size();
  while (sp > 0 && !isSpace(t[sp - 1])) --sp;
  const std::string_view digits = t.substr(sp);
  at = lead + sp;
  count = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      why = "expected a whole-number count as the line's last word, found '" +
            std::string(digits.substr(0, 40)) + "'";
      return false;
    }
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (count > (UINT64_MAX - d) / 10) {
      why = "count '" + std::string(digits.substr(0, 40)) + "' does not fit in 64 bits";
      return false;
    }
    count = count * 10 + d;
  }
  stack = trim(t.substr(0, sp));
  if (stack.empty()) {
    at = lead;
    why = "expected a stack (frames separated by ';') before the count";
    return false;
  }
  return true;
}

}  // namespace

bool isFolded(std::span<const uint8_t> data) {
  // The first line that is not blank is a `stack COUNT` line (a later bad line is then an error
  // naming its place, not an unrecognised input).
  const std::string_view head(reinterpret_cast<const char*>(data.data()),
                              std::min<size_t>(data.size(), 1 << 16));
  LineCursor lines(head);
  std::string_view line, stack;
  while (lines.next(line)) {
    // A line the window cuts short is not judged.
    if (lines.atEnd() && head.size() < data.size()) return false;
    for (char c : line)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t') return false;
    if (trim(line).empty()) continue;
    uint64_t count;
    size_t at;
    std::string why;
    return splitLine(line, stack, count, at, why);
  }
  return false;
}

std::unique_ptr<Profile> readFolded(std::span<const uint8_t> data, const ReadOptions& options) {
  rejectNul(data, kFmt);
  CallTreeBuilder tree;
  LineCursor lines(data);
  std::string_view line, stack;
  std::string why;
  uint64_t total = 0;
  while (lines.next(line)) {
    if (trim(line).empty()) continue;
    uint64_t count;
    size_t at;
    if (!splitLine(line, stack, count, at, why))
      fail(kFmt, lines.lineOffset() + at, lines.lineNumber(), why);
    if (__builtin_add_overflow(total, count, &total))
      fail(kFmt, lines.lineOffset() + at, lines.lineNumber(),
           "count " + std::to_string(count) +
               " makes the counts add up to more than 2^64 - 1: expected counts whose sum "
               "fits in 64 bits");
    uint64_t node = 0;
    for (size_t from = 0;;) {
      const size_t semi = stack.find(';', from);
      const std::string_view name =
          stack.substr(from, semi == stack.npos ? stack.npos : semi - from);
      node = tree.child(node, tree.frame(name));
      if (semi == stack.npos) break;
      from = semi + 1;
    }
    tree.sampleNode.push(node);
    tree.sampleCount.push(count);
  }
  std::unique_ptr<Profile> profile = tree.build(ir::Format::FOLDED, "", data.size());
  const uint64_t complete = completeLines(data);
  if (complete < data.size() &&
      !trim(std::string_view(reinterpret_cast<const char*>(data.data()) + complete,
                             data.size() - complete))
           .empty())
    truncated(kFmt, data, complete, kCutLine, options.strict, profile.get());
  return profile;
}

}  // namespace profpack
