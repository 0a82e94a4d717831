// The CallTree's IR coding: built by the readers of collapsed stacks, V8 CPU profiles and
// Chrome trace events, decoded and checked for the model.

#include "formats/calltree/calltree.h"

#include <algorithm>
#include <string>

#include "error.h"

namespace profpack {

using Enc = ir::Column::Encoding;

CallTreeBuilder::CallTreeBuilder() : sampleCount(Enc::VARINT_RUNS) {}

uint64_t CallTreeBuilder::frame(std::string_view name, std::string_view file, uint64_t line,
                                uint64_t column, std::string_view script) {
  const FrameKey key{strings_.intern(name), file.empty() ? 0 : strings_.intern(file), line, column,
                     script.empty() ? 0 : strings_.intern(script)};
  auto [it, added] = frameIndex_.try_emplace(key, frames_.size());
  if (added) frames_.push_back(key);
  return it->second;
}

uint64_t CallTreeBuilder::child(uint64_t parent, uint64_t frame) {
  auto slotOf = [](uint64_t p, uint64_t f) {
    uint64_t h = (p * 0x9e3779b97f4a7c15ull) ^ (f + 0x632be59bd9b4e019ull + (p << 6));
    return h ^ (h >> 29);
  };
  if (2 * (nodeParent_.size() + 1) > childSlots_.size()) {
    if (nodeParent_.size() >= UINT32_MAX - 1)
      throw Error(Status::limit, "", "more than 2^32 distinct stack prefixes");
    std::vector<uint32_t> slots(std::max<size_t>(1024, 2 * childSlots_.size()), 0);
    const size_t mask = slots.size() - 1;
    for (uint32_t n : childSlots_)
      if (n) {
        size_t i = slotOf(nodeParent_[n - 1], nodeFrame_[n - 1]) & mask;
        while (slots[i]) i = (i + 1) & mask;
        slots[i] = n;
      }
    childSlots_ = std::move(slots);
  }
  const size_t mask = childSlots_.size() - 1;
  for (size_t i = slotOf(parent, frame) & mask;; i = (i + 1) & mask) {
    const uint32_t n = childSlots_[i];
    if (n == 0) {
      nodeParent_.push_back(parent);
      nodeFrame_.push_back(frame);
      childSlots_[i] = static_cast<uint32_t>(nodeParent_.size());
      return nodeParent_.size();
    }
    if (nodeParent_[n - 1] == parent && nodeFrame_[n - 1] == frame) return n;
  }
}

uint64_t CallTreeBuilder::addNode(uint64_t parent, uint64_t frame, uint64_t id, uint64_t hits) {
  nodeParent_.push_back(parent);
  nodeFrame_.push_back(frame);
  nodeId_.push_back(id);
  nodeHits_.push_back(hits);
  return nodeParent_.size();
}

uint32_t CallTreeBuilder::thread(int64_t pid, int64_t tid) {
  std::string key(reinterpret_cast<const char*>(&pid), 8);
  key.append(reinterpret_cast<const char*>(&tid), 8);
  auto [it, added] = threadIndex_.try_emplace(key, static_cast<uint32_t>(threads_.size()));
  if (added) threads_.push_back({pid, tid, {}, {}});
  return it->second;
}

std::unique_ptr<Profile> CallTreeBuilder::build(ir::Format format, std::string_view formatVersion,
                                                size_t expectedBytes) {
  auto message = newMessage(expectedBytes);
  auto root = message->getRoot<ir::Profile>();
  root.setFormat(format);
  root.setFormatVersion(std::string(formatVersion));
  // Strings sorted (equal profiles give equal IR whatever order names came in).
  std::vector<bool> used(strings_.size(), false);
  for (const FrameKey& f : frames_) used[f.name] = used[f.file] = used[f.script] = true;
  const std::vector<uint64_t> remap = strings_.sortAndCompact(used);
  strings_.build(root.initStrings());
  auto t = root.initCallTree();
  std::vector<uint64_t> col(frames_.size());
  auto frameColumn = [&](ir::Column::Builder out, auto field, bool isString, Enc enc) {
    for (size_t i = 0; i < frames_.size(); ++i) {
      const uint64_t v = field(frames_[i]);
      col[i] = isString ? remap[v] : v;
    }
    encodeColumn(out, col, enc);
  };
  frameColumn(
      t.initFrameName(), [](const FrameKey& k) { return k.name; }, true, Enc::VARINT);
  frameColumn(
      t.initFrameFile(), [](const FrameKey& k) { return k.file; }, true, Enc::VARINT_RUNS);
  frameColumn(
      t.initFrameLine(), [](const FrameKey& k) { return k.line; }, false, Enc::VARINT);
  frameColumn(
      t.initFrameColumn(), [](const FrameKey& k) { return k.column; }, false, Enc::VARINT);
  frameColumn(
      t.initFrameScript(), [](const FrameKey& k) { return k.script; }, true, Enc::VARINT_RUNS);
  encodeColumn(t.initNodeParent(), nodeParent_, Enc::ZIGZAG_DELTA);
  encodeColumn(t.initNodeFrame(), nodeFrame_, Enc::VARINT);
  encodeColumn(t.initNodeId(), nodeId_, Enc::ZIGZAG_DELTA_RUNS);
  encodeColumn(t.initNodeHits(), nodeHits_, Enc::VARINT_RUNS);
  sampleNode.build(t.initSampleNode());
  sampleCount.build(t.initSampleCount());
  sampleTime.build(t.initSampleTime());
  encodeColumn(t.initLineNode(), lineNode, Enc::ZIGZAG_DELTA);
  encodeColumn(t.initLineNumber(), lineNumber, Enc::VARINT);
  encodeColumn(t.initLineTicks(), lineTicks, Enc::VARINT);
  t.setStartTime(startTime);
  t.setEndTime(endTime);
  t.setTimeUnitsPerSecond(timeUnitsPerSecond);
  auto threads = t.initThreads(static_cast<unsigned>(threads_.size()));
  for (size_t i = 0; i < threads_.size(); ++i) {
    auto th = threads[static_cast<unsigned>(i)];
    th.setPid(threads_[i].pid);
    th.setTid(threads_[i].tid);
    th.setName(threads_[i].name);
    th.setProcessName(threads_[i].process);
  }
  spanThread.build(t.initSpanThread());
  spanFrame.build(t.initSpanFrame());
  spanBegin.build(t.initSpanBegin());
  spanDuration.build(t.initSpanDuration());
  return std::make_unique<Profile>(std::move(message));
}

namespace {
[[noreturn]] void corrupt(const std::string& what) {
  throw Error(Status::malformed, "ppk", "call tree: " + what);
}
void sameLength(size_t a, size_t b, const char* what) {
  if (a != b) corrupt(std::string(what) + " columns have different lengths");
}
}  // namespace

CallTreeData decodeCallTree(const Profile& profile) {
  const auto root = profile.root();
  if (!root.hasCallTree()) return {};
  const auto t = root.getCallTree();
  const StringTableReader& strings = profile.strings();
  CallTreeData d;
  const std::vector<uint64_t> name = decodeColumn(t.getFrameName()),
                              file = decodeColumn(t.getFrameFile()),
                              line = decodeColumn(t.getFrameLine()),
                              column = decodeColumn(t.getFrameColumn()),
                              script = decodeColumn(t.getFrameScript());
  for (size_t n : {file.size(), line.size(), column.size(), script.size()})
    sameLength(name.size(), n, "frame");
  d.frames.resize(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    // strings.get throws on an index out of range.
    d.frames[i] = {std::string(strings.get(name[i])), std::string(strings.get(file[i])),
                   std::string(strings.get(script[i])), line[i], column[i]};
  }
  d.nodeParent = decodeColumn(t.getNodeParent());
  d.nodeFrame = decodeColumn(t.getNodeFrame());
  d.nodeId = decodeColumn(t.getNodeId());
  d.nodeHits = decodeColumn(t.getNodeHits());
  const size_t nodes = d.nodeParent.size();
  sameLength(nodes, d.nodeFrame.size(), "node");
  if (!d.nodeId.empty()) sameLength(nodes, d.nodeId.size(), "node");
  if (!d.nodeHits.empty()) sameLength(nodes, d.nodeHits.size(), "node");
  for (size_t i = 0; i < nodes; ++i) {
    if (d.nodeParent[i] > i) corrupt("a node's parent does not come before it");
    if (d.nodeFrame[i] >= d.frames.size()) corrupt("a node names a frame that does not exist");
  }
  d.sampleNode = decodeColumn(t.getSampleNode());
  d.sampleCount = decodeColumn(t.getSampleCount());
  d.sampleTime = decodeColumn(t.getSampleTime());
  if (!d.sampleCount.empty()) sameLength(d.sampleNode.size(), d.sampleCount.size(), "sample");
  if (!d.sampleTime.empty()) sameLength(d.sampleNode.size(), d.sampleTime.size(), "sample");
  for (uint64_t n : d.sampleNode)
    if (n > nodes) corrupt("a sample names a node that does not exist");
  d.lineNode = decodeColumn(t.getLineNode());
  d.lineNumber = decodeColumn(t.getLineNumber());
  d.lineTicks = decodeColumn(t.getLineTicks());
  sameLength(d.lineNode.size(), d.lineNumber.size(), "line tick");
  sameLength(d.lineNode.size(), d.lineTicks.size(), "line tick");
  for (uint64_t n : d.lineNode)
    if (n == 0 || n > nodes) corrupt("a line tick names a node that does not exist");
  d.startTime = t.getStartTime();
  d.endTime = t.getEndTime();
  d.timeUnitsPerSecond = t.getTimeUnitsPerSecond();
  for (auto th : t.getThreads())
    d.threads.push_back({static_cast<uint32_t>(th.getPid()), static_cast<uint32_t>(th.getTid()),
                         th.getProcessName().cStr(), th.getName().cStr()});
  d.spanThread = decodeColumn(t.getSpanThread());
  d.spanFrame = decodeColumn(t.getSpanFrame());
  d.spanBegin = decodeColumn(t.getSpanBegin());
  d.spanDuration = decodeColumn(t.getSpanDuration());
  for (size_t n : {d.spanFrame.size(), d.spanBegin.size(), d.spanDuration.size()})
    sameLength(d.spanThread.size(), n, "span");
  for (size_t i = 0; i < d.spanThread.size(); ++i) {
    if (d.spanThread[i] >= d.threads.size()) corrupt("a span names a thread that does not exist");
    if (d.spanFrame[i] >= d.frames.size()) corrupt("a span names a frame that does not exist");
    if (d.spanDuration[i] > kMaxSpanUnits) corrupt("a span lasts longer than 2^62 time units");
  }
  return d;
}

}  // namespace profpack
