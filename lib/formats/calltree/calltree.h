// The IR's CallTree (lib/ir/profile.capnp), shared by the formats that hold named frames rather
// than addresses or cost tables: collapsed stacks, V8 CPU profiles and Chrome trace events.
// Readers fill a CallTreeBuilder; the model (calltree/model.cpp) reads a decoded CallTreeData.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/column.h"
#include "model/model.h"
#include "profile.h"

namespace profpack {

// Collects a CallTree while a reader parses; build() makes the profile.
// The longest span the IR keeps, in time units (a trace's nanoseconds: 146 years); a reader
// skips longer ones with a warning, and a .ppk holding one is corrupt.
inline constexpr uint64_t kMaxSpanUnits = uint64_t{1} << 62;

class CallTreeBuilder {
 public:
  CallTreeBuilder();
  // A frame: the same (name, file, line, column, script) is one frame.
  uint64_t frame(std::string_view name, std::string_view file = {}, uint64_t line = 0,
                 uint64_t column = 0, std::string_view script = {});
  // The child of `parent` (0: the root) for `frame`, made on first use (a prefix tree).
  uint64_t child(uint64_t parent, uint64_t frame);
  // A node of its own (V8: every node is the source's), with the source's id and hitCount.
  uint64_t addNode(uint64_t parent, uint64_t frame, uint64_t id, uint64_t hits);
  uint64_t nodes() const { return nodeParent_.size(); }
  void setNodeParent(uint64_t node, uint64_t parent) { nodeParent_[node - 1] = parent; }
  void setNodeFrame(uint64_t node, uint64_t frame) { nodeFrame_[node - 1] = frame; }

  ColumnWriter sampleNode, sampleCount, sampleTime{ir::Column::Encoding::ZIGZAG_DELTA};
  std::vector<uint64_t> lineNode, lineNumber, lineTicks;
  int64_t startTime = 0, endTime = 0;
  uint64_t timeUnitsPerSecond = 0;

  // A thread by (pid, tid), made on first use; returns its index.
  uint32_t thread(int64_t pid, int64_t tid);
  void nameThread(uint32_t thread, std::string_view name) { threads_[thread].name = name; }
  void nameProcess(uint32_t thread, std::string_view name) { threads_[thread].process = name; }
  uint64_t threads() const { return threads_.size(); }
  int64_t threadPid(uint32_t thread) const { return threads_[thread].pid; }
  void span(uint32_t thread, uint64_t frame, int64_t begin, uint64_t duration) {
    spanThread.push(thread);
    spanFrame.push(frame);
    spanBegin.push(static_cast<uint64_t>(begin));
    spanDuration.push(duration);
  }
  uint64_t spans() const { return spanThread.size(); }

  std::unique_ptr<Profile> build(ir::Format format, std::string_view formatVersion,
                                 size_t expectedBytes);

 private:
  StringInterner strings_;
  struct FrameKey {
    uint64_t name, file, line, column, script;
    bool operator==(const FrameKey&) const = default;
  };
  struct FrameHash {
    size_t operator()(const FrameKey& k) const {
      uint64_t h = k.name * 0x9e3779b97f4a7c15ull;
      for (uint64_t v : {k.file, k.line, k.column, k.script})
        h = (h ^ v) * 0x100000001b3ull + (h >> 29);
      return static_cast<size_t>(h);
    }
  };
  std::unordered_map<FrameKey, uint64_t, FrameHash> frameIndex_;
  std::vector<FrameKey> frames_;
  // (parent, frame) -> node: open addressing over node numbers (0: empty), the keys being the
  // nodes' own parent and frame, so a node costs 4 to 8 bytes here rather than a whole entry.
  std::vector<uint32_t> childSlots_;
  std::vector<uint64_t> nodeParent_, nodeFrame_, nodeId_, nodeHits_;
  struct Thread {
    int64_t pid, tid;
    std::string name, process;
  };
  std::vector<Thread> threads_;
  std::unordered_map<std::string, uint32_t> threadIndex_;
  ColumnWriter spanThread, spanFrame, spanBegin{ir::Column::Encoding::ZIGZAG_DELTA}, spanDuration;
};

// A CallTree decoded and checked (Status::malformed, format "ppk", for one that breaks the
// schema's invariants).
struct CallTreeData {
  struct Frame {
    std::string name, file, script;
    uint64_t line = 0, column = 0;
  };
  std::vector<Frame> frames;
  std::vector<uint64_t> nodeParent, nodeFrame, nodeId, nodeHits;  // index node - 1
  std::vector<uint64_t> sampleNode, sampleCount, sampleTime;
  std::vector<uint64_t> lineNode, lineNumber, lineTicks;
  int64_t startTime = 0, endTime = 0;
  uint64_t timeUnitsPerSecond = 0;
  std::vector<ThreadRow> threads;
  std::vector<uint64_t> spanThread, spanFrame, spanBegin, spanDuration;
};
CallTreeData decodeCallTree(const Profile& profile);

// The model of a profile whose IR is a CallTree.
std::unique_ptr<ModelSource> callTreeModel(const Profile& profile, const ModelOptions& options);

}  // namespace profpack
