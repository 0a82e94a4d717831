// V8 CPU profiles, the JSON form of the DevTools protocol's Profiler.Profile:
//
//   { "nodes": [ { "id": N, "callFrame": { "functionName", "scriptId", "url", "lineNumber",
//                  "columnNumber" }, "hitCount": N, "children": [N...],
//                  "positionTicks": [ { "line": N, "ticks": N } ... ] } ... ],
//     "startTime": us, "endTime": us, "samples": [node id ...], "timeDeltas": [us ...] }
//
// Member order is free; unknown members are skipped. A node may name its parent ("parent")
// instead of its children. Line and column numbers are 0-based in the file (-1: unknown) and
// 1-based in the IR. A function without a name is "(anonymous)", as DevTools shows it. The tree
// root "(root)" is the IR's root, not a frame, unless a sample is at it. Each sample's time is
// startTime plus the time deltas up to it (one beyond 2^63 nanoseconds is an error); a sample
// lasts to the next one, the last to endTime. In a profile cut short inside its samples, their
// deltas or before its endTime, the profile ends at the last loaded sample's time, which is
// given no time: the total is the time the loaded deltas cover.

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "error.h"
#include "formats/callgrind/text_end.h"
#include "formats/calltree/calltree.h"
#include "formats/cpuprofile/cpuprofile.h"
#include "util/json.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "cpuprofile";
constexpr uint64_t kNoFrame = ~uint64_t{0};  // a "(root)" node's, until it needs one
// The latest (and, negated, earliest) time read: 2^63 nanoseconds, as for trace events, so that
// every time and difference of times has a 64-bit count of nanoseconds.
constexpr int64_t kMaxMicros = INT64_MAX / 1000;
constexpr const char* kBeyond = "a time beyond 2^63 nanoseconds";

struct Node {
  int64_t id = 0;
  uint64_t frame = 0, hits = 0, offset = 0;
  int64_t parent = INT64_MIN;               // the "parent" member, if given
  bool rootName = false;                    // its function is "(root)"
  uint64_t childStart = 0, childCount = 0;  // in Parse::children
  uint64_t tickStart = 0, tickCount = 0;    // in Parse::ticks
};

struct Parse {
  CallTreeBuilder tree;
  std::vector<Node> nodes;
  std::vector<int64_t> children;
  std::vector<std::pair<uint64_t, uint64_t>> ticks;  // line, ticks
  std::vector<int64_t> samples, deltas;
  uint64_t samplesAt = 0, deltasAt = 0;
  int64_t startTime = 0, endTime = 0;
  bool haveNodes = false;
  // Read whole: the two arrays and endTime (a profile cut before their end has only part).
  bool samplesWhole = false, deltasWhole = false, haveEndTime = false;
};

void readCallFrame(JsonReader& json, Parse& p, Node& node) {
  std::string name, url, script;
  int64_t line = -1, column = -1;
  std::string_view key;
  json.beginObject();
  while (json.member(key)) {
    if (key == "functionName") {
      name = json.string();
    } else if (key == "url") {
      url = json.string();
    } else if (key == "scriptId") {
      if (json.peek() == '"')
        script = json.string();
      else
        script = std::to_string(json.integer());
    } else if (key == "lineNumber") {
      line = json.integer();
    } else if (key == "columnNumber") {
      column = json.integer();
    } else {
      json.skip();
    }
  }
  if (name.empty()) name = "(anonymous)";
  // The tree's root gets a frame only if a sample is at it (see build).
  node.rootName = name == "(root)" && url.empty();
  if (node.rootName) {
    node.frame = kNoFrame;
    return;
  }
  auto oneBased = [](int64_t v) {
    return v >= 0 && v < INT64_MAX ? static_cast<uint64_t>(v) + 1 : 0;
  };
  node.frame = p.tree.frame(name, url, oneBased(line), oneBased(column), script);
}

void readNode(JsonReader& json, Parse& p) {
  Node node;
  node.offset = json.offset();
  bool haveId = false, haveFrame = false;
  std::string_view key;
  json.beginObject();
  while (json.member(key)) {
    if (key == "id") {
      node.id = json.integer();
      haveId = true;
    } else if (key == "callFrame") {
      readCallFrame(json, p, node);
      haveFrame = true;
    } else if (key == "hitCount") {
      const int64_t h = json.integer();
      node.hits = h > 0 ? static_cast<uint64_t>(h) : 0;
    } else if (key == "parent") {
      node.parent = json.integer();
    } else if (key == "children") {
      node.childStart = p.children.size();
      json.beginArray();
      while (json.element()) p.children.push_back(json.integer());
      node.childCount = p.children.size() - node.childStart;
    } else if (key == "positionTicks") {
      node.tickStart = p.ticks.size();
      json.beginArray();
      while (json.element()) {
        int64_t line = 0, ticks = 0;
        json.beginObject();
        while (json.member(key)) {
          if (key == "line")
            line = json.integer();
          else if (key == "ticks")
            ticks = json.integer();
          else
            json.skip();
        }
        if (line > 0 && ticks > 0)
          p.ticks.push_back({static_cast<uint64_t>(line), static_cast<uint64_t>(ticks)});
      }
      node.tickCount = p.ticks.size() - node.tickStart;
    } else {
      json.skip();
    }
  }
  if (!haveId) json.fail(node.offset, "a node without an \"id\"");
  if (!haveFrame)
    json.fail(node.offset, "node " + std::to_string(node.id) + " has no \"callFrame\"");
  p.nodes.push_back(node);
}

void readTop(JsonReader& json, Parse& p) {
  std::string_view key;
  json.beginObject();
  while (json.member(key)) {
    if (key == "nodes") {
      json.beginArray();
      while (json.element()) readNode(json, p);
      p.haveNodes = true;
    } else if (key == "startTime" || key == "endTime") {
      json.peek();
      const uint64_t at = json.offset();
      const int64_t v = json.integer();
      if (v > kMaxMicros || v < -kMaxMicros) json.fail(at, kBeyond);
      (key == "startTime" ? p.startTime : p.endTime) = v;
      if (key == "endTime") p.haveEndTime = true;
    } else if (key == "samples" || key == "timeDeltas") {
      const bool samples = key == "samples";
      std::vector<int64_t>& v = samples ? p.samples : p.deltas;
      json.peek();  // past the blanks: the offset of the array itself
      (samples ? p.samplesAt : p.deltasAt) = json.offset();
      json.beginArray();
      while (json.element()) v.push_back(json.integer());
      (samples ? p.samplesWhole : p.deltasWhole) = true;
    } else {
      json.skip();
    }
  }
  json.expectEnd();
}

// The tree: parents from the children lists (or "parent" members), nodes numbered so that a
// parent comes before its children; then the samples, times and line ticks. `cut`: the samples
// were cut short, so the profile's end is the last loaded sample's time, not its endTime.
std::unique_ptr<Profile> build(Parse& p, JsonReader& json, size_t bytes, bool cut) {
  std::unordered_map<int64_t, uint64_t> index;
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (!index.emplace(p.nodes[i].id, i).second)
      json.fail(p.nodes[i].offset, "a second node with id " + std::to_string(p.nodes[i].id));
  const uint64_t kNoParent = ~uint64_t{0};
  std::vector<uint64_t> parent(p.nodes.size(), kNoParent);
  auto find = [&](int64_t id, uint64_t at, const std::string& what) {
    auto it = index.find(id);
    if (it == index.end())
      json.fail(at, what + " names node id " + std::to_string(id) + ", which no node has");
    return it->second;
  };
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = p.nodes[i];
    for (uint64_t k = 0; k < n.childCount; ++k) {
      const uint64_t c = find(p.children[n.childStart + k], n.offset, "a node's children");
      if (parent[c] != kNoParent && parent[c] != i)
        json.fail(n.offset, "node " + std::to_string(p.nodes[c].id) + " is the child of two nodes");
      parent[c] = i;
    }
    if (n.parent != INT64_MIN) {
      const uint64_t q = find(n.parent, n.offset, "a node's parent");
      if (parent[i] != kNoParent && parent[i] != q)
        json.fail(n.offset, "node " + std::to_string(n.id) + " is the child of two nodes");
      parent[i] = q;
    }
  }
  // Samples by node index; whether one is at a root.
  std::vector<uint64_t> sampleIndex(p.samples.size());
  std::vector<uint8_t> sampled(p.nodes.size(), 0);
  for (size_t s = 0; s < p.samples.size(); ++s) {
    sampleIndex[s] = find(p.samples[s], p.samplesAt, "sample " + std::to_string(s));
    sampled[sampleIndex[s]] = 1;
  }
  // Preorder from the roots, without recursion: the IR's node numbers.
  std::vector<uint64_t> childStart(p.nodes.size() + 1, 0), kids(p.nodes.size());
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (parent[i] != kNoParent) ++childStart[parent[i] + 1];
  for (size_t i = 0; i < p.nodes.size(); ++i) childStart[i + 1] += childStart[i];
  std::vector<uint64_t> fill(childStart.begin(), childStart.end() - 1);
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (parent[i] != kNoParent) kids[fill[parent[i]]++] = i;
  std::vector<uint64_t> number(p.nodes.size(), kNoParent), stack;
  auto frameOf = [&](uint64_t i) {
    if (p.nodes[i].frame == kNoFrame) p.nodes[i].frame = p.tree.frame("(root)");
    return p.nodes[i].frame;
  };
  for (size_t r = 0; r < p.nodes.size(); ++r) {
    if (parent[r] != kNoParent) continue;
    // The one "(root)" no sample is at stands for the IR's root.
    const bool hidden = p.nodes[r].rootName && !sampled[r];
    number[r] = hidden ? 0
                       : p.tree.addNode(0, frameOf(r), static_cast<uint64_t>(p.nodes[r].id),
                                        p.nodes[r].hits);
    stack.push_back(r);
    while (!stack.empty()) {
      const uint64_t n = stack.back();
      stack.pop_back();
      for (uint64_t k = childStart[n + 1]; k-- > childStart[n];) {
        const uint64_t c = kids[k];
        number[c] = p.tree.addNode(number[n], frameOf(c), static_cast<uint64_t>(p.nodes[c].id),
                                   p.nodes[c].hits);
        stack.push_back(c);
      }
    }
  }
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (number[i] == kNoParent)
      json.fail(p.nodes[i].offset, "node " + std::to_string(p.nodes[i].id) +
                                       " is on a cycle of children: no root leads to it");
  // A sample's time is startTime plus the deltas up to it; one beyond 2^63 nanoseconds is
  // refused rather than wrapped around.
  int64_t t = p.startTime, last = p.startTime;
  for (size_t s = 0; s < sampleIndex.size(); ++s) {
    p.tree.sampleNode.push(number[sampleIndex[s]]);
    if (__builtin_add_overflow(t, p.deltas[s], &t) || t > kMaxMicros || t < -kMaxMicros)
      json.fail(p.deltasAt, "\"timeDeltas\" entry " + std::to_string(s) + " puts sample " +
                                std::to_string(s) + " at " + kBeyond +
                                " (startTime plus the time deltas up to it, in microseconds)");
    p.tree.sampleTime.push(static_cast<uint64_t>(t));
    last = std::max(last, t);
  }
  // Without samples, the hit counts are the costs: their sum must not wrap around either.
  uint64_t hits = 0;
  for (const Node& n : p.nodes)
    if (__builtin_add_overflow(hits, n.hits, &hits))
      json.fail(n.offset, "node " + std::to_string(n.id) +
                              "'s \"hitCount\" makes the nodes' hit counts add up to more than "
                              "2^64 - 1");
  for (size_t i = 0; i < p.nodes.size(); ++i)
    for (uint64_t k = 0; k < p.nodes[i].tickCount; ++k) {
      if (number[i] == 0) continue;
      p.tree.lineNode.push_back(number[i]);
      p.tree.lineNumber.push_back(p.ticks[p.nodes[i].tickStart + k].first);
      p.tree.lineTicks.push_back(p.ticks[p.nodes[i].tickStart + k].second);
    }
  p.tree.startTime = p.startTime;
  p.tree.endTime = cut ? last : p.endTime;
  p.tree.timeUnitsPerSecond = 1000000;
  return p.tree.build(ir::Format::CPUPROFILE, "", bytes);
}

}  // namespace

bool isCpuprofile(std::span<const uint8_t> data) {
  JsonReader json(data.subspan(0, std::min<size_t>(data.size(), 1 << 20)), kFmt);
  try {
    if (json.peek() != '{') return false;
    std::string_view key;
    json.beginObject();
    while (json.member(key)) {
      if (key == "nodes") return true;
      if (key == "traceEvents") return false;
      json.skip();
    }
  } catch (const Error&) {
  }
  return false;
}

std::unique_ptr<Profile> readCpuprofile(std::span<const uint8_t> data, const ReadOptions& options) {
  JsonReader json(data, kFmt);
  Parse p;
  std::string cut;
  uint64_t cutAt = 0;
  bool cutSamples = false;  // the samples, their deltas or endTime were cut short
  try {
    readTop(json, p);
  } catch (const JsonTruncated& e) {
    // Cut short: what is complete is kept if the nodes are.
    if (options.strict || !p.haveNodes) throw;
    cut = "the profile ends early, inside its JSON; loaded its nodes and the samples before";
    cutAt = e.offset();
    if (!p.samplesWhole || !p.deltasWhole || !p.haveEndTime) {
      cutSamples = true;
      cut +=
          ", which end at the last one's time (it is given no time; the profile's endTime is not "
          "used)";
    }
  }
  if (!p.haveNodes) json.fail(0, "a JSON object without \"nodes\": not a V8 CPU profile");
  if (p.deltas.size() != p.samples.size()) {
    if (cut.empty())
      json.fail(p.samplesAt, "\"samples\" has " + std::to_string(p.samples.size()) +
                                 " entries and \"timeDeltas\" " + std::to_string(p.deltas.size()) +
                                 ": expected one time delta per sample");
    const size_t n = std::min(p.samples.size(), p.deltas.size());
    p.samples.resize(n);
    p.deltas.resize(n);
  }
  std::unique_ptr<Profile> profile = build(p, json, data.size(), cutSamples);
  if (!cut.empty())
    profile->warnings().push_back("byte offset " + std::to_string(cutAt) + ": " + cut);
  return profile;
}

}  // namespace profpack
