// The archive coding of a Callgrind profile (archive_coding.h).
#include "formats/callgrind/archive_coding.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "error.h"
#include "formats/callgrind/common.h"
#include "util/bytes.h"
#include "util/round_trip.h"
#include "util/text.h"

namespace profpack {

namespace {

using callgrind::kFiles;
using callgrind::kFunctions;
using callgrind::kObjects;

constexpr uint8_t kCodingVersion = 1;
constexpr int kSpaces = kFunctions + 1;  // the id spaces (callgrind::IdSpace)
constexpr size_t kHeaderBytes = 9;  // the version and the skeleton's length

[[noreturn]] void malformed(uint64_t offset, const std::string& what) {
  throw Error(Status::malformed, "Callgrind archive coding", what, offset);
}

// The id space (callgrind::IdSpace) of a name line ("fn=..." -> kFunctions), or -1 for any
// other line; `eq` gets the position of its '='.
int nameSpace(std::string_view line, size_t& eq) {
  struct Key {
    std::string_view key;
    int space;
  };
  static constexpr Key kKeys[] = {{"ob", kObjects},    {"cob", kObjects},  {"fl", kFiles},
                                  {"fi", kFiles},      {"fe", kFiles},     {"cfi", kFiles},
                                  {"cfl", kFiles},     {"jfi", kFiles},    {"fn", kFunctions},
                                  {"cfn", kFunctions}, {"jfn", kFunctions}};
  eq = line.find('=');
  if (eq < 2 || eq > 3) return -1;  // (npos too)
  const std::string_view key = line.substr(0, eq);
  for (const Key& k : kKeys)
    if (k.key == key) return k.space;
  return -1;
}

bool isCostLine(std::string_view line) {
  if (line.empty()) return false;
  const char c = line[0];
  return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*';
}

// The length of a calls=, jump= or jcnd= line's key with its '=', else 0.
size_t countKey(std::string_view line) {
  for (std::string_view k :
       {std::string_view("calls="), std::string_view("jump="), std::string_view("jcnd=")})
    if (line.substr(0, k.size()) == k) return k.size();
  return 0;
}

// A name the writer writes out in full, without a number: empty ("none") or with a leading
// blank, which a compressed definition would lose.
bool keptAsWritten(std::string_view name) { return name.empty() || isSpace(name[0]); }

// Calls f(line, offset) for each '\n'-terminated line of `text` (which ends in '\n').
template <class F>
void eachLine(std::string_view text, F&& f) {
  for (size_t p = 0; p < text.size();) {
    const size_t e = text.find('\n', p);
    f(text.substr(p, e - p), p);
    p = e + 1;
  }
}

// Where each cut-out text goes in the stream of them, by its line's place among the lines
// that have one. The stream holds them by function block, the blocks sorted by their fn=
// line's text (then by how many blocks of that text came before; the lines before the first
// fn= line first): the runs of a program write their functions in different orders, and their
// costs then meet the other members' in the same order.
std::vector<uint32_t> cutPositions(std::string_view skeleton) {
  std::vector<std::pair<std::string_view, uint32_t>> keys{{std::string_view(), 0}};
  std::unordered_map<std::string_view, uint32_t> seen;
  std::vector<uint32_t> cutBlock;
  eachLine(skeleton, [&](std::string_view line, size_t) {
    if (isCostLine(line) || countKey(line))
      cutBlock.push_back(static_cast<uint32_t>(keys.size() - 1));
    else if (line.substr(0, 3) == "fn=")
      keys.emplace_back(line, seen[line]++);
  });
  std::vector<uint32_t> order(keys.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  std::vector<uint32_t> start(keys.size(), 0);
  for (uint32_t b : cutBlock) ++start[b];
  uint32_t at = 0;
  for (uint32_t b : order) {
    const uint32_t n = start[b];
    start[b] = at;
    at += n;
  }
  for (uint32_t& b : cutBlock) b = start[b]++;  // (in place: the positions)
  return cutBlock;
}

}  // namespace

std::optional<std::string> callgrindArchiveCode(std::string_view file) {
  if (file.empty() || file.back() != '\n') return std::nullopt;
  std::string skeleton;
  std::vector<std::string_view> cuts;  // in line order
  std::unordered_map<uint64_t, std::string_view> names[kSpaces];
  bool codable = true;
  eachLine(file, [&](std::string_view line, size_t) {
    if (!codable) return;
    size_t eq = 0;
    if (isCostLine(line)) {
      const size_t b = std::min(line.find_first_of(" \t"), line.size());
      skeleton.append(line.substr(0, b));
      cuts.push_back(line.substr(b));
    } else if (const size_t k = countKey(line)) {
      const size_t b = std::min(line.find_first_of(" \t", k), line.size());
      skeleton.append(line.substr(0, k));
      skeleton.append(line.substr(b));
      cuts.push_back(line.substr(k, b - k));
    } else if (const int space = nameSpace(line, eq); space >= 0) {
      // "(N) name" defines N, "(N)" refers to it; anything else stays as written.
      const std::string_view v = line.substr(eq + 1);
      size_t q = 1;
      while (q < v.size() && v[q] >= '0' && v[q] <= '9' && q < 20) ++q;
      if (v.size() < 3 || v[0] != '(' || q == 1 || q == v.size() || v[q] != ')') {
        skeleton.append(line);
      } else {
        uint64_t id = 0;
        for (size_t i = 1; i < q; ++i) id = id * 10 + static_cast<uint64_t>(v[i] - '0');
        const std::string_view rest = v.substr(q + 1);
        std::string_view name;
        if (rest.empty()) {
          auto it = names[space].find(id);
          if (it == names[space].end()) {
            codable = false;  // a number used before its definition
            return;
          }
          name = it->second;
        } else if (rest[0] == ' ') {
          name = rest.substr(1);
          names[space][id] = name;
        } else {
          skeleton.append(line);
          skeleton += '\n';
          return;
        }
        skeleton.append(line.substr(0, eq + 1));
        skeleton.append(name);
      }
    } else {
      skeleton.append(line);
    }
    skeleton += '\n';
  });
  if (!codable) return std::nullopt;
  const std::vector<uint32_t> pos = cutPositions(skeleton);
  std::vector<std::string_view> stream(cuts.size());
  for (size_t i = 0; i < cuts.size(); ++i) stream[pos[i]] = cuts[i];
  std::string coded;
  coded.reserve(kHeaderBytes + file.size());
  coded += static_cast<char>(kCodingVersion);
  appendLe64(coded, skeleton.size());
  coded += skeleton;
  for (std::string_view c : stream) {
    coded.append(c);
    coded += '\n';
  }
  return ifDecodesTo(std::move(coded), file, callgrindArchiveDecode);
}

std::string callgrindArchiveDecode(std::string_view coded) {
  if (coded.size() < kHeaderBytes || static_cast<uint8_t>(coded[0]) != kCodingVersion)
    malformed(0, "not a Callgrind archive coding of version 1");
  const uint64_t s = rd64(reinterpret_cast<const uint8_t*>(coded.data()) + 1);
  if (s > coded.size() - kHeaderBytes)
    malformed(1, "a skeleton of " + std::to_string(s) + " bytes, past the end of the member (" +
                     std::to_string(coded.size()) + " bytes)");
  const std::string_view skeleton = coded.substr(kHeaderBytes, s);
  const std::string_view cut = coded.substr(kHeaderBytes + s);
  if (!skeleton.empty() && skeleton.back() != '\n')
    malformed(kHeaderBytes + s - 1, "a skeleton whose last line has no newline");
  // (Offsets and line counts below are 32-bit, 4 bytes a line of the coding at most.)
  if (coded.size() > UINT32_MAX)
    malformed(0, "a coding of " + std::to_string(coded.size()) + " bytes, 4 GiB or more");
  // The names, numbered as the writer numbers them: by rank in byte order among every name
  // the file holds (those it writes in full too), from 1.
  std::vector<std::string_view> names;
  eachLine(skeleton, [&](std::string_view line, size_t) {
    size_t eq = 0;
    if (!isCostLine(line) && !countKey(line) && nameSpace(line, eq) >= 0 && line.size() > eq + 1)
      names.push_back(line.substr(eq + 1));
  });
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  // Per id space, the part each name was last defined in (0: none yet): a new part is a
  // counter's step, not a pass over every name.
  std::vector<uint32_t> definedIn[kSpaces];
  for (auto& d : definedIn) d.assign(names.size(), 0);
  uint32_t part = 1;
  // The cut-out texts, one a line of the skeleton that has one: where each starts in `cut`, in
  // the stream's order (each ends before the next one's start, with its newline).
  const std::vector<uint32_t> pos = cutPositions(skeleton);
  std::vector<uint32_t> stream;
  stream.reserve(pos.size() + 1);
  for (size_t c = 0; c < cut.size();) {
    const size_t e = cut.find('\n', c);
    if (e == std::string_view::npos)
      malformed(kHeaderBytes + s + c, "a cut-out text without its newline");
    if (stream.size() == pos.size())
      malformed(kHeaderBytes + s + c, "cut-out texts left after the skeleton's " +
                                          std::to_string(pos.size()) + " lines took theirs");
    stream.push_back(static_cast<uint32_t>(c));
    c = e + 1;
  }
  auto cutText = [&](uint32_t j) {
    const size_t end = j + 1 < stream.size() ? stream[j + 1] : cut.size();
    return cut.substr(stream[j], end - 1 - stream[j]);
  };
  if (stream.size() < pos.size())
    malformed(coded.size(), "the cut-out texts end after " + std::to_string(stream.size()) +
                                " of the " + std::to_string(pos.size()) +
                                " the skeleton's lines take");
  std::string out;
  out.reserve(coded.size() + coded.size() / 4);
  size_t next = 0;  // the next line with a cut-out text
  eachLine(skeleton, [&](std::string_view line, size_t) {
    size_t eq = 0;
    int space = -1;
    if (isCostLine(line)) {
      out.append(line);
      out.append(cutText(pos[next++]));
    } else if (const size_t k = countKey(line)) {
      out.append(line.substr(0, k));
      out.append(cutText(pos[next++]));
      out.append(line.substr(k));
    } else if ((space = nameSpace(line, eq)) >= 0 && !keptAsWritten(line.substr(eq + 1))) {
      const std::string_view name = line.substr(eq + 1);
      const size_t rank =
          static_cast<size_t>(std::lower_bound(names.begin(), names.end(), name) - names.begin());
      out.append(line.substr(0, eq + 1));
      out += '(';
      appendDecimal(out, rank + 1);
      out += ')';
      if (definedIn[space][rank] != part) {
        definedIn[space][rank] = part;
        out += ' ';
        out.append(name);
      }
    } else {
      // A header or trailer line (not a name line, whatever its name): the writer starts
      // each part's body with no name defined.
      if (space < 0 && !line.empty() && line[0] != '#') ++part;
      out.append(line);
    }
    out += '\n';
  });
  return out;
}

}  // namespace profpack
