// Building and decoding the cost tables of the Callgrind family (Callgrind, Cachegrind).
#pragma once

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "ir/column.h"
#include "profile.h"
#include "util/pairmap.h"

namespace profpack {

inline constexpr size_t kMaxPositions = 3;  // instr, line, bb

// A header or trailer line of a part as a reader keeps it (IR HeaderLine).
struct HeaderLineText {
  std::string text, key, value;
  ir::HeaderLine::Placement placement;
};
// Stores `lines` as the part's headerLines.
void setHeaderLines(ir::Part::Builder part, const std::vector<HeaderLineText>& lines);
// Writes the part's header lines (placement HEADER) to `out`, each ended as endLine() ends
// it, and returns the text of its trailer lines, which go after the body.
std::vector<std::string> writeHeaderLines(ir::Part::Reader part, std::string& out);

// The (object, file, function) contexts of a profile, numbered in order of first use.
class ContextTable {
 public:
  uint64_t get(uint64_t object, uint64_t file, uint64_t function);
  size_t size() const { return object_.size(); }
  void markUsed(std::vector<bool>& used) const;
  void build(ir::Contexts::Builder out, const std::vector<uint64_t>& remap) const;

 private:
  struct Hash {
    size_t operator()(const std::tuple<uint64_t, uint64_t, uint64_t>& t) const {
      auto [a, b, c] = t;
      return std::hash<uint64_t>()(a * 0x9e3779b97f4a7c15ull ^ b * 0xc2b2ae3d27d4eb4full ^ c);
    }
  };
  std::unordered_map<std::tuple<uint64_t, uint64_t, uint64_t>, uint64_t, Hash> index_;
  std::vector<uint64_t> object_, file_, function_;
};

// Where the last call to each target context landed: the prediction of a call's target
// positions in CostTable.predicted. Hashed by context, not a vector indexed by it: each part
// has its own, and a part calling a context of a high number must not cost a vector of all
// the contexts before it (many such parts would make that quadratic).
class LastCallTargets {
 public:
  // The positions recorded for `target`, or null if none were.
  const uint64_t* find(uint64_t target) const {
    const uint64_t* i = index_.find(target, 0);
    return i ? pos_[*i].data() : nullptr;
  }
  void record(uint64_t target, const uint64_t* pos, size_t n) {
    bool inserted;
    const uint64_t i = index_.findOrInsert(target, 0, pos_.size(), inserted);
    if (inserted) pos_.emplace_back();
    std::copy(pos, pos + n, pos_[i].begin());
  }

 private:
  PairMap index_;
  std::vector<std::array<uint64_t, kMaxPositions>> pos_;
};

// What the function layer sums from the cost rows, gathered as the rows are encoded, so that
// the model of a profile just read needs no second pass over its decoded cost tables (a fifth
// of a Callgrind -> .ppk conversion's time, on the thread that delays the write). A key is a
// context with the source file its rows are in (0: the context's own); `keys` are in order of
// first use by a row or as a call's target, and edges in order of first use, which is the
// order the model numbers functions and edges in. One per reader, fed by each part's builder
// in turn (never two at once: a part's builder finishes before the next one starts).
struct RowSums {
  size_t events = 0;                                // per key and edge; set before the first row
  std::vector<std::pair<uint64_t, uint64_t>> keys;  // (context, source file)
  std::vector<uint64_t> self;                       // keys x events
  std::vector<uint64_t> edgeCaller, edgeCallee;     // keys, per edge
  std::vector<uint64_t> edgeCalls, edgeCosts;       // per edge; edges x events
  // False if a row had more costs than events, or if the sums outgrew their bound: the model
  // reads the IR. The bound: a value per event per key and per edge, and a key or an edge can
  // cost a single row, so with many events the sums could be far larger than the layer they
  // give (many keys of one function) or than the input; past one word per row added (plus
  // 2^20) they are dropped.
  bool usable = true;
  // Adds `n` rows (columns as CostTableBuilder stages them; `costs` concatenated, `target` and
  // `count` per association row).
  void add(size_t n, const uint64_t* kind, const uint64_t* context, const uint64_t* sourceFile,
           const uint64_t* costCount, const uint64_t* costs, const uint64_t* target,
           const uint64_t* count);
  // The source files' string indexes as `remap` renumbers them (StringInterner::sortAndCompact).
  void renumberFiles(const std::vector<uint64_t>& remap);

 private:
  uint64_t keyOf(uint64_t context, uint64_t file);
  void giveUp();  // usable = false, and the sums' memory freed
  uint64_t rows_ = 0;
  std::vector<uint64_t> keyOfContext_;  // context -> 1 + its key with file 0 (0: none yet)
  PairMap fileKeys_;                    // (context, file) -> key, for rows with a source file
  PairMap edgeOf_;                      // (caller key, callee key) -> edge
  uint64_t lastContext_ = ~uint64_t{0}, lastFile_ = 0, lastKey_ = 0;
};

// RowSums as a reader hands them to its profile's model (Profile::keepDecoded).
struct DecodedRowSums : Profile::Decoded {
  RowSums sums;
};

// Accumulates the rows of one part's CostTable.
//
// Rows are staged column by column, a batch at a time, and each full batch is encoded into the
// columns (ColumnWriter::pushMany, whose loop keeps the writer's state in registers). Encoding
// is about half of what a reader spends per row, so once a table is large it moves to a worker
// thread: the reader fills one batch while the worker encodes the ones before. The columns
// come out the same either way. Not thread-safe: one thread adds rows; the worker is private.
class CostTableBuilder {
 public:
  // Below `threadFromRows` rows, batches are encoded on the adding thread: a thread costs more
  // than a small table. (Tests pass 0 or UINT64_MAX to force either way.)
  static constexpr uint64_t kThreadFromRows = uint64_t{1} << 14;
  explicit CostTableBuilder(size_t positions, uint64_t threadFromRows = kThreadFromRows);
  ~CostTableBuilder();  // stops the worker, if any
  CostTableBuilder(const CostTableBuilder&) = delete;
  CostTableBuilder& operator=(const CostTableBuilder&) = delete;

  // One row. `costs` holds `ncosts` values; for associations `target`, `targetPos` and `count`
  // are stored too, and `jumped` for conditional jumps.
  void row(ir::RecordKind kind, uint64_t context, uint64_t sourceFile, const uint64_t* pos,
           const uint64_t* costs, size_t ncosts, uint64_t target = 0,
           const uint64_t* targetPos = nullptr, uint64_t count = 0, uint64_t jumped = 0);
  // A cost row (the common case), inline for the readers' hot loops.
  void cost(uint64_t context, uint64_t sourceFile, const uint64_t* pos, const uint64_t* costs,
            size_t ncosts) {
    stage(ir::RecordKind::COST, context, sourceFile, pos, costs, ncosts);
  }
  uint64_t rows() const { return rows_; }
  // Also adds every row to `sums` (null: none), on whichever thread encodes. Set before the
  // first row.
  void sumInto(RowSums* sums) { sums_ = sums; }
  // Encodes every row added so far and ends the worker (a reader calls it when a part ends,
  // so that a file of many parts never has more than one worker). Rows may still be added.
  // Rethrows what the worker failed with (std::bad_alloc).
  void finish();
  uint64_t bytes();  // encoded bytes of all columns so far
  void markUsed(std::vector<bool>& used);
  void build(ir::CostTable::Builder out, const std::vector<uint64_t>& remap);
  // build() in two steps, for a reader that sorts its strings meanwhile: every column but the
  // source files, then those, which need the strings' final numbering (`remap`).
  void buildColumns(ir::CostTable::Builder out);
  void buildSourceFiles(ir::CostTable::Builder out, const std::vector<uint64_t>& remap);

 private:
  static constexpr size_t kBatchRows = 4096;
  static constexpr size_t kRing = 3;  // batches in flight between the reader and the worker
  struct Batch {
    size_t rows = 0, costs = 0, assocs = 0;
    uint64_t kind[kBatchRows], context[kBatchRows], sourceFile[kBatchRows];
    uint64_t costCount[kBatchRows], positions[kMaxPositions][kBatchRows];
    // By association (row whose kind is not COST), in row order.
    uint64_t target[kBatchRows], count[kBatchRows], jumped[kBatchRows];
    uint64_t targetPositions[kMaxPositions][kBatchRows];
    std::unique_ptr<uint64_t[]> costValues;  // costCapacity values, not zeroed
    size_t costCapacity = 0;
  };
  void stage(ir::RecordKind kind, uint64_t context, uint64_t sourceFile, const uint64_t* pos,
             const uint64_t* costs, size_t ncosts) {
    if (rowRoom_ == 0 || costRoom_ < ncosts) [[unlikely]]
      next(ncosts);
    --rowRoom_;
    costRoom_ -= ncosts;
    Batch& b = *cur_;
    ++rows_;
    const size_t i = b.rows++;
    b.kind[i] = static_cast<uint64_t>(kind);
    b.context[i] = context;
    b.sourceFile[i] = sourceFile;
    for (size_t k = 0; k < npos_; ++k) b.positions[k][i] = pos[k];
    b.costCount[i] = ncosts;
    uint64_t* c = b.costValues.get() + b.costs;
    if (ncosts == 1)  // the usual case: a store, not a memcpy call
      c[0] = costs[0];
    else
      for (size_t k = 0; k < ncosts; ++k) c[k] = costs[k];
    b.costs += ncosts;
  }
  // Hands the full batch on (to the worker, or encodes it here) and makes room for a row of
  // `room` costs in the next.
  void next(size_t room);
  void encode(Batch& b);  // into the columns, on the worker or the adding thread
  void work();            // the worker's loop

  size_t npos_;
  uint64_t threadFromRows_;
  uint64_t rows_ = 0;
  // Batches exist only while rows are added: a reader keeps the builders of every part until
  // it builds the message, and a file can have many parts.
  std::unique_ptr<Batch> ring_[kRing];
  Batch* cur_ = nullptr;  // the batch being filled (ring_[filled_ % kRing]), or none yet
  size_t rowRoom_ = 0, costRoom_ = 0;  // what cur_ has left
  // Between the reader and the worker: batches [encoded_, filled_) wait for the worker.
  std::thread worker_;
  bool threadFailed_ = false;  // could not start one: encode on the adding thread
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t filled_ = 0, encoded_ = 0;
  bool closing_ = false;  // the worker ends once all filled batches are encoded
  bool abort_ = false;    // the worker ends now
  std::exception_ptr error_;

  // Everything below belongs to whichever thread encodes (the worker while it runs).
  ColumnWriter kind_, context_, costCount_, costs_, target_, count_, jumped_;
  // Source files (string indexes before sortAndCompact, remapped at build time) as runs of
  // equal values: nearly all rows have none, so a run covers thousands of rows.
  struct SourceRun {
    uint64_t value, rows;
  };
  std::vector<SourceRun> sourceRuns_;
  uint64_t sourceBytes_ = 0;  // what a plain varint column of the raw indexes would take
  std::vector<ColumnWriter> positions_, targetPositions_;
  // The predictions of CostTable.predicted (see profile.capnp).
  uint64_t lastCost_ = 0, lastCount_ = 0;
  LastCallTargets lastCallTarget_;
  RowSums* sums_ = nullptr;
};

// A CostTable decoded into vectors, with each row's first cost value and association index.
struct DecodedCosts {
  std::vector<uint64_t> kind, context, sourceFile, costCount, costs, target, count, jumped;
  std::vector<std::vector<uint64_t>> positions, targetPositions;
  // Validates every cross-reference against the profile (context indexes, cost counts, column
  // lengths), so users may index without further checks. Throws Status::malformed otherwise.
  // Holds the whole table: passes over large tables read CostTableBatches instead.
  DecodedCosts(ir::CostTable::Reader table, size_t positionKinds, size_t events, size_t contexts);
};

// The rows of a CostTable a batch at a time, every cross-reference checked and the residuals of
// CostTable.predicted undone: passes over a table (aggregations, writers) then touch a few
// kilobytes of decoded values instead of every column at once. DecodedCosts is built on it.
class CostTableBatches {
 public:
  // With `withPositions` the batches also hold positions, target positions and taken counts
  // (what a writer needs); without, those columns are only checked for their lengths.
  CostTableBatches(ir::CostTable::Reader table, size_t positionKinds, size_t events,
                   size_t contexts, bool withPositions = false);
  // Decodes the next batch into the members below; false once every row was read (after
  // checking that every column ends where the rows say).
  bool next();
  size_t rows = 0;  // in this batch
  // Per row of the batch: kind, context, sourceFile, costCount; `costs` holds the batch's cost
  // values concatenated; `target` and `count` one value per association row of the batch.
  std::vector<uint64_t> kind, context, sourceFile, costCount, costs, target, count;
  // withPositions only: per row, per association row and per condJump row of the batch.
  std::vector<std::vector<uint64_t>> positions, targetPositions;
  std::vector<uint64_t> jumped;

 private:
  static constexpr size_t kBatch = 4096;
  ColumnCursor kind_, context_, sourceFile_, costCount_, costs_, target_, count_;
  std::vector<ColumnCursor> positions_, targetPositions_, jumped_;  // withPositions only
  uint64_t left_, conds_ = 0;
  size_t npos_, events_, contexts_;
  uint64_t jumpedCount_;
  uint64_t lastCount_ = 0, lastCost_ = 0;  // the predictions' state across batches
  LastCallTargets lastCallTarget_;
};

// Decoded Contexts columns.
struct DecodedContexts {
  std::vector<uint64_t> object, file, function;
  DecodedContexts(ir::Contexts::Reader contexts, uint64_t strings);
  size_t size() const { return object.size(); }
};

}  // namespace profpack
