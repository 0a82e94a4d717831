// Building and decoding the cost tables of the Callgrind family (Callgrind, Cachegrind).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "column.h"

namespace profpack {

inline constexpr size_t kMaxPositions = 3;  // instr, line, bb

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

// Where the last call to each target context landed, by context index (dense, so a vector):
// the prediction of a call's target positions in CostTable.predicted.
class LastCallTargets {
 public:
  // The positions recorded for `target`, or null if none were.
  const uint64_t* find(uint64_t target) const {
    return target < seen_.size() && seen_[target] ? pos_[target].data() : nullptr;
  }
  void record(uint64_t target, const uint64_t* pos, size_t n) {
    if (target >= seen_.size()) {
      seen_.resize(target + 1, false);
      pos_.resize(target + 1);
    }
    seen_[target] = true;
    std::copy(pos, pos + n, pos_[target].begin());
  }

 private:
  std::vector<bool> seen_;
  std::vector<std::array<uint64_t, kMaxPositions>> pos_;
};

// Accumulates the rows of one part's CostTable.
class CostTableBuilder {
 public:
  explicit CostTableBuilder(size_t positions);

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
  uint64_t bytes();  // encoded bytes of all columns so far
  void markUsed(std::vector<bool>& used);
  void build(ir::CostTable::Builder out, const std::vector<uint64_t>& remap);

 private:
  // Rows are staged column by column and encoded a batch at a time: each column's loop then
  // keeps its writer's state in registers (see ColumnWriter::pushMany).
  static constexpr size_t kBatchRows = 1024;
  void stage(ir::RecordKind kind, uint64_t context, uint64_t sourceFile, const uint64_t* pos,
             const uint64_t* costs, size_t ncosts) {
    if (staged_ == kBatchRows || sCosts_.size() - stagedCosts_ < ncosts) [[unlikely]]
      flush(ncosts);
    ++rows_;
    const size_t i = staged_++;
    sKind_[i] = static_cast<uint64_t>(kind);
    sContext_[i] = context;
    sSourceFile_[i] = sourceFile;
    for (size_t k = 0; k < npos_; ++k) sPositions_[k][i] = pos[k];
    sCostCount_[i] = ncosts;
    uint64_t* c = sCosts_.data() + stagedCosts_;
    if (ncosts == 1)  // the usual case: a store, not a memcpy call
      c[0] = costs[0];
    else
      for (size_t k = 0; k < ncosts; ++k) c[k] = costs[k];
    stagedCosts_ += ncosts;
    if (kind == ir::RecordKind::COST && ncosts > 0) lastCost_ = costs[0];  // predicts `count`
  }
  void flush(size_t room = 0);  // encodes the staged rows; leaves room for `room` costs

  size_t npos_;
  uint64_t rows_ = 0;
  size_t staged_ = 0, stagedCosts_ = 0;
  uint64_t sKind_[kBatchRows], sContext_[kBatchRows], sSourceFile_[kBatchRows];
  uint64_t sCostCount_[kBatchRows], sPositions_[kMaxPositions][kBatchRows];
  std::vector<uint64_t> sCosts_;
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
  bool predicted_;
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
