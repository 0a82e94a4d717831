#include "formats/callgrind/costs.h"

#include <algorithm>
#include <iterator>

#include "error.h"
#include "util/text.h"

namespace profpack {

namespace {
using Enc = ir::Column::Encoding;
[[noreturn]] void corrupt(const std::string& what) { throw Error(Status::malformed, "ppk", what); }

// The residual coding of CostTable.predicted: zigzag of a wrapping difference, and the fold of
// a condJump's taken count j against its executed count m.
uint64_t zigzag(uint64_t value, uint64_t predicted) {
  const auto d = static_cast<int64_t>(value - predicted);
  return (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);
}
uint64_t unzigzag(uint64_t stored, uint64_t predicted) {
  return predicted +
         static_cast<uint64_t>(static_cast<int64_t>((stored >> 1) ^ (~(stored & 1) + 1)));
}
uint64_t foldJumped(uint64_t j, uint64_t m) {
  if (j > m) return j;
  return j <= m - j ? 2 * j : 2 * (m - j) + 1;
}
uint64_t unfoldJumped(uint64_t s, uint64_t m) {
  if (s > m) return s;
  return s % 2 == 0 ? s / 2 : m - (s - 1) / 2;
}
bool isCostOrCall(uint64_t kind) {
  return kind == static_cast<uint64_t>(ir::RecordKind::COST) ||
         kind == static_cast<uint64_t>(ir::RecordKind::CALL);
}
}  // namespace

void setHeaderLines(ir::Part::Builder part, const std::vector<HeaderLineText>& lines) {
  auto hl = part.initHeaderLines(static_cast<unsigned>(lines.size()));
  for (size_t i = 0; i < lines.size(); ++i) {
    auto b = hl[static_cast<unsigned>(i)];
    b.setText(lines[i].text);
    b.setKey(lines[i].key);
    b.setValue(lines[i].value);
    b.setPlacement(lines[i].placement);
  }
}

std::vector<std::string> writeHeaderLines(ir::Part::Reader part, std::string& out) {
  std::vector<std::string> trailer;
  for (auto l : part.getHeaderLines()) {
    if (l.getPlacement() == ir::HeaderLine::Placement::TRAILER) {
      trailer.emplace_back(l.getText().cStr());
    } else {
      out += l.getText().cStr();
      endLine(out);
    }
  }
  return trailer;
}

uint64_t ContextTable::get(uint64_t object, uint64_t file, uint64_t function) {
  auto [it, inserted] = index_.try_emplace({object, file, function}, object_.size());
  if (inserted) {
    object_.push_back(object);
    file_.push_back(file);
    function_.push_back(function);
  }
  return it->second;
}

void ContextTable::markUsed(std::vector<bool>& used) const {
  for (auto* col : {&object_, &file_, &function_})
    for (uint64_t s : *col) used[s] = true;
}

void ContextTable::build(ir::Contexts::Builder out, const std::vector<uint64_t>& remap) const {
  auto put = [&](ir::Column::Builder b, const std::vector<uint64_t>& v) {
    ColumnWriter w(Enc::VARINT);
    for (uint64_t s : v) w.push(remap[s]);
    w.build(b);
  };
  put(out.initObject(), object_);
  put(out.initFile(), file_);
  put(out.initFunction(), function_);
}

uint64_t RowSums::keyOf(uint64_t context, uint64_t file) {
  auto fresh = [&] {
    keys.emplace_back(context, file);
    self.resize(self.size() + events, 0);
    return static_cast<uint64_t>(keys.size() - 1);
  };
  if (file == 0) {
    // Contexts are numbered densely in order of first use, so this grows with the contexts.
    if (context >= keyOfContext_.size())
      keyOfContext_.resize(std::max<size_t>(context + 1, 2 * keyOfContext_.size()), 0);
    uint64_t& k = keyOfContext_[context];
    if (k == 0) k = fresh() + 1;
    return k - 1;
  }
  if (context == lastContext_ && file == lastFile_) return lastKey_;  // runs of inlined rows
  bool inserted;
  uint64_t& k = fileKeys_.findOrInsert(context, file, 0, inserted);
  if (inserted) k = fresh();
  lastContext_ = context;
  lastFile_ = file;
  return lastKey_ = k;
}

void RowSums::add(size_t n, const uint64_t* kind, const uint64_t* context,
                  const uint64_t* sourceFile, const uint64_t* costCount, const uint64_t* costs,
                  const uint64_t* target, const uint64_t* count) {
  if (!usable) return;
  // Within the bound (see usable) after each key or edge added.
  auto tooLarge = [&] { return self.size() + edgeCosts.size() > rows_ + (uint64_t{1} << 20); };
  for (size_t r = 0, a = 0; r < n; ++r) {
    ++rows_;
    const uint64_t nc = costCount[r];
    const uint64_t* c = costs;
    costs += nc;
    if (nc > events) return giveUp();
    const uint64_t key = keyOf(context[r], sourceFile[r]);
    if (tooLarge()) return giveUp();
    if (kind[r] == static_cast<uint64_t>(ir::RecordKind::COST)) {
      uint64_t* s = self.data() + key * events;
      for (size_t i = 0; i < nc; ++i) s[i] += c[i];
      continue;
    }
    const size_t assoc = a++;
    if (kind[r] != static_cast<uint64_t>(ir::RecordKind::CALL)) continue;  // jumps
    const uint64_t callee = keyOf(target[assoc], 0);
    if (tooLarge()) return giveUp();
    bool inserted;
    const uint64_t e = edgeOf_.findOrInsert(key, callee, edgeCalls.size(), inserted);
    if (inserted) {
      edgeCaller.push_back(key);
      edgeCallee.push_back(callee);
      edgeCalls.push_back(0);
      edgeCosts.resize(edgeCosts.size() + events, 0);
      if (tooLarge()) return giveUp();
    }
    edgeCalls[e] += count[assoc];
    uint64_t* ec = edgeCosts.data() + e * events;
    for (size_t i = 0; i < nc; ++i) ec[i] += c[i];
  }
}

void RowSums::giveUp() {
  RowSums none;  // moved in, so that every vector's memory goes (clear() keeps it)
  none.events = events;
  none.usable = false;
  *this = std::move(none);
}

void RowSums::renumberFiles(const std::vector<uint64_t>& remap) {
  for (auto& [context, file] : keys) {
    if (file == 0) continue;
    if (file >= remap.size()) return giveUp();
    file = remap[file];
  }
}

// Record kinds, cost counts, contexts and source files are nearly constant from row to row, and
// costs repeat along a basic block (instruction-level dumps): run-length coded, they take a
// fraction of a byte per row. (Measured on a 17 MB instr-level dump: IR 12.1 -> 6.5 MB, .ppk
// -5%; run-length subpositions made the .ppk larger, so positions stay plain zigzag deltas.)
CostTableBuilder::CostTableBuilder(size_t positions, uint64_t threadFromRows)
    : npos_(positions),
      threadFromRows_(threadFromRows),
      kind_(Enc::VARINT_RUNS),
      context_(Enc::ZIGZAG_DELTA_RUNS),
      costCount_(Enc::VARINT_RUNS),
      costs_(Enc::VARINT_RUNS),
      target_(Enc::VARINT) {
  for (size_t i = 0; i < positions; ++i) {
    positions_.emplace_back(Enc::ZIGZAG_DELTA);
    targetPositions_.emplace_back(Enc::VARINT);
  }
}

CostTableBuilder::~CostTableBuilder() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abort_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void CostTableBuilder::row(ir::RecordKind kind, uint64_t context, uint64_t sourceFile,
                           const uint64_t* pos, const uint64_t* costs, size_t ncosts,
                           uint64_t target, const uint64_t* targetPos, uint64_t count,
                           uint64_t jumped) {
  stage(kind, context, sourceFile, pos, costs, ncosts);
  if (kind != ir::RecordKind::COST) {
    Batch& b = *cur_;
    const size_t a = b.assocs++;
    b.target[a] = target;
    for (size_t k = 0; k < npos_; ++k) b.targetPositions[k][a] = targetPos[k];
    b.count[a] = count;
    b.jumped[a] = jumped;
  }
}

void CostTableBuilder::next(size_t room) {
  if (cur_ && cur_->rows > 0) {
    if (!worker_.joinable() && !threadFailed_ && rows_ >= threadFromRows_) {
      try {
        for (auto& b : ring_)
          if (!b) b = std::unique_ptr<Batch>(new Batch);  // (arrays not zeroed)
        closing_ = abort_ = false;
        worker_ = std::thread([this] { work(); });
      } catch (const std::system_error&) {
        threadFailed_ = true;  // no thread to be had: carry on without one
      }
    }
    if (worker_.joinable()) {
      std::unique_lock<std::mutex> lock(mutex_);
      ++filled_;
      changed_.notify_all();
      changed_.wait(lock, [&] { return filled_ - encoded_ < kRing || error_; });
      if (error_) std::rethrow_exception(error_);
      cur_ = ring_[filled_ % kRing].get();
    } else {
      encode(*cur_);
    }
    cur_->rows = cur_->costs = cur_->assocs = 0;
  }
  if (!cur_) {
    if (!ring_[0]) ring_[0] = std::unique_ptr<Batch>(new Batch);
    cur_ = ring_[0].get();
  }
  const size_t want = std::max(room, 4 * kBatchRows);
  if (cur_->costCapacity < want) {
    cur_->costValues.reset(new uint64_t[want]);
    cur_->costCapacity = want;
  }
  rowRoom_ = kBatchRows;
  costRoom_ = cur_->costCapacity;
}

void CostTableBuilder::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return encoded_ < filled_ || closing_ || abort_; });
    if (abort_ || encoded_ == filled_) return;
    Batch& b = *ring_[encoded_ % kRing];
    lock.unlock();
    try {
      encode(b);
    } catch (...) {
      lock.lock();
      error_ = std::current_exception();
      changed_.notify_all();
      return;
    }
    lock.lock();
    ++encoded_;
    changed_.notify_all();
  }
}

void CostTableBuilder::finish() {
  if (worker_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
    }
    changed_.notify_all();
    worker_.join();
    if (error_) std::rethrow_exception(error_);
    filled_ = encoded_ = 0;
  }
  if (cur_ && cur_->rows > 0) encode(*cur_);
  // The batches and the columns' growth slack go: a finished part's builder stays until the
  // reader builds the message, and a file can have many parts.
  for (auto& b : ring_) b.reset();
  cur_ = nullptr;
  rowRoom_ = costRoom_ = 0;
  for (auto* c : {&kind_, &context_, &costCount_, &costs_, &target_, &count_, &jumped_})
    c->shrink();
  for (auto& c : positions_) c.shrink();
  for (auto& c : targetPositions_) c.shrink();
  sourceRuns_.shrink_to_fit();
}

void CostTableBuilder::encode(Batch& b) {
  const size_t n = b.rows;
  if (sums_)  // before the loop below turns cost counts into residuals
    sums_->add(n, b.kind, b.context, b.sourceFile, b.costCount, b.costValues.get(), b.target,
               b.count);
  kind_.pushMany(b.kind, n);
  context_.pushMany(b.context, n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t v = b.sourceFile[i];
    if (!sourceRuns_.empty() && sourceRuns_.back().value == v)
      ++sourceRuns_.back().rows;
    else
      sourceRuns_.push_back({v, 1});
    unsigned len = 1;
    for (uint64_t x = v; x >= 0x80; x >>= 7) ++len;
    sourceBytes_ += len;
  }
  for (size_t k = 0; k < npos_; ++k) positions_[k].pushMany(b.positions[k], n);
  // The residuals, in row order: an association's count against the last cost row's first
  // cost, its target against its own context, its target positions against the last call to
  // the same target (calls) or its own positions; cost counts against the previous cost or
  // call row's.
  const uint64_t* costs = b.costValues.get();
  for (size_t i = 0, a = 0; i < n; ++i) {
    const uint64_t kind = b.kind[i], ncosts = b.costCount[i];
    if (kind == static_cast<uint64_t>(ir::RecordKind::COST)) {
      if (ncosts > 0) lastCost_ = costs[0];
    } else {
      const uint64_t target = b.target[a];
      target_.push(zigzag(target, b.context[i]));
      uint64_t landed[kMaxPositions] = {0, 0, 0};
      for (size_t k = 0; k < npos_; ++k) landed[k] = b.targetPositions[k][a];
      if (kind == static_cast<uint64_t>(ir::RecordKind::CALL)) {
        const uint64_t* last = lastCallTarget_.find(target);
        for (size_t k = 0; k < npos_; ++k)
          targetPositions_[k].push(zigzag(landed[k], last ? last[k] : b.positions[k][i]));
        lastCallTarget_.record(target, landed, npos_);
      } else {
        for (size_t k = 0; k < npos_; ++k)
          targetPositions_[k].push(zigzag(landed[k], b.positions[k][i]));
      }
      count_.push(zigzag(b.count[a], lastCost_));
      if (kind == static_cast<uint64_t>(ir::RecordKind::COND_JUMP))
        jumped_.push(foldJumped(b.jumped[a], b.count[a]));
      ++a;
    }
    costs += ncosts;
    if (isCostOrCall(kind)) {
      b.costCount[i] = zigzag(ncosts, lastCount_);
      lastCount_ = ncosts;
    } else {
      b.costCount[i] = zigzag(ncosts, 0);
    }
  }
  costCount_.pushMany(b.costCount, n);
  costs_.pushMany(b.costValues.get(), b.costs);
}

uint64_t CostTableBuilder::bytes() {
  finish();
  uint64_t n = sourceBytes_;
  for (auto* c : {&kind_, &context_, &costCount_, &costs_, &target_, &count_, &jumped_})
    n += c->bytes();
  for (auto& c : positions_) n += c.bytes();
  for (auto& c : targetPositions_) n += c.bytes();
  return n;
}

void CostTableBuilder::markUsed(std::vector<bool>& used) {
  finish();
  for (const SourceRun& r : sourceRuns_) used[r.value] = true;
}

void CostTableBuilder::build(ir::CostTable::Builder out, const std::vector<uint64_t>& remap) {
  buildColumns(out);
  buildSourceFiles(out, remap);
}

void CostTableBuilder::buildColumns(ir::CostTable::Builder out) {
  finish();
  out.setRows(rows_);
  out.setPredicted(true);
  kind_.build(out.initKind());
  context_.build(out.initContext());
  auto pos = out.initPositions(static_cast<unsigned>(npos_));
  auto tpos = out.initTargetPositions(static_cast<unsigned>(npos_));
  for (size_t i = 0; i < npos_; ++i) {
    positions_[i].build(pos[static_cast<unsigned>(i)]);
    targetPositions_[i].build(tpos[static_cast<unsigned>(i)]);
  }
  costCount_.build(out.initCostCount());
  costs_.build(out.initCosts());
  target_.build(out.initTarget());
  count_.build(out.initCount());
  jumped_.build(out.initJumped());
}

void CostTableBuilder::buildSourceFiles(ir::CostTable::Builder out,
                                        const std::vector<uint64_t>& remap) {
  ColumnWriter w(Enc::VARINT_RUNS);
  uint64_t same[256];
  for (const SourceRun& r : sourceRuns_) {
    if (r.value >= remap.size())
      throw Error(Status::malformed, "ppk",
                  "cost table names source file string " + std::to_string(r.value) + " of " +
                      std::to_string(remap.size()));
    std::fill(std::begin(same), std::end(same), remap[r.value]);
    for (uint64_t left = r.rows; left > 0;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left, std::size(same)));
      w.pushMany(same, n);
      left -= n;
    }
  }
  w.build(out.initSourceFile());
  sourceRuns_ = {};
}

DecodedCosts::DecodedCosts(ir::CostTable::Reader t, size_t npos, size_t events, size_t contexts) {
  // The batch reader's rows concatenated: one place checks the table and undoes its residuals.
  CostTableBatches b(t, npos, events, contexts, /*withPositions=*/true);
  positions.resize(npos);
  targetPositions.resize(npos);
  auto append = [](std::vector<uint64_t>& to, const std::vector<uint64_t>& from, size_t n) {
    to.insert(to.end(), from.begin(), from.begin() + static_cast<std::ptrdiff_t>(n));
  };
  while (b.next()) {
    for (auto [to, from] :
         {std::pair{&kind, &b.kind}, std::pair{&context, &b.context},
          std::pair{&sourceFile, &b.sourceFile}, std::pair{&costCount, &b.costCount}})
      append(*to, *from, b.rows);
    append(costs, b.costs, b.costs.size());
    append(target, b.target, b.target.size());
    append(count, b.count, b.count.size());
    for (size_t k = 0; k < npos; ++k) {
      append(positions[k], b.positions[k], b.rows);
      append(targetPositions[k], b.targetPositions[k], b.targetPositions[k].size());
    }
    append(jumped, b.jumped, b.jumped.size());
  }
}

CostTableBatches::CostTableBatches(ir::CostTable::Reader t, size_t npos, size_t events,
                                   size_t contexts, bool withPositions)
    : kind_(t.getKind()),
      context_(t.getContext()),
      sourceFile_(t.getSourceFile()),
      costCount_(t.getCostCount()),
      costs_(t.getCosts()),
      target_(t.getTarget()),
      count_(t.getCount()),
      left_(t.getRows()),
      npos_(npos),
      events_(events),
      contexts_(contexts),
      jumpedCount_(t.getJumped().getCount()) {
  // IR revision 2 stores every table with the residuals of `predicted`; plain columns were a
  // pre-release coding.
  if (!t.getPredicted() && left_ > 0)
    corrupt("cost table is not stored predicted (predicted false)");
  if (t.getPositions().size() != npos || t.getTargetPositions().size() != npos)
    corrupt("cost table has a position column count that differs from positionKinds");
  if (npos > kMaxPositions) corrupt("cost table has more than 3 position kinds");
  if (withPositions) {
    for (auto c : t.getPositions()) positions_.emplace_back(c);
    for (auto c : t.getTargetPositions()) targetPositions_.emplace_back(c);
    jumped_.emplace_back(t.getJumped());
    positions.assign(npos, std::vector<uint64_t>(kBatch));
    targetPositions.resize(npos);
  }
  for (ColumnCursor* c : {&kind_, &context_, &sourceFile_, &costCount_})
    if (c->size() != left_) corrupt("cost table columns disagree with its row count");
  for (auto c : t.getPositions())
    if (c.getCount() != left_) corrupt("cost table position column disagrees with its row count");
  if (target_.size() != count_.size())
    corrupt("cost table association columns disagree with the rows");
  for (auto c : t.getTargetPositions())
    if (c.getCount() != target_.size())
      corrupt("cost table target positions disagree with the rows");
  for (auto* v : {&kind, &context, &sourceFile, &costCount}) v->resize(kBatch);
}

bool CostTableBatches::next() {
  rows = static_cast<size_t>(std::min<uint64_t>(left_, kBatch));
  if (rows == 0) {
    for (ColumnCursor* c :
         {&kind_, &context_, &sourceFile_, &costCount_, &costs_, &target_, &count_})
      c->finish();
    for (auto* v : {&positions_, &targetPositions_, &jumped_})
      for (ColumnCursor& c : *v) c.finish();
    if (jumpedCount_ != conds_) corrupt("cost table association columns disagree with the rows");
    return false;
  }
  left_ -= rows;
  kind_.read(kind.data(), rows);
  context_.read(context.data(), rows);
  sourceFile_.read(sourceFile.data(), rows);
  costCount_.read(costCount.data(), rows);
  for (size_t r = 0; r < rows; ++r) {
    if (isCostOrCall(kind[r]))
      lastCount_ = costCount[r] = unzigzag(costCount[r], lastCount_);
    else
      costCount[r] = unzigzag(costCount[r], 0);
  }
  // Branch-free reductions (the compiler vectorises them); the checks follow on the results.
  uint64_t assoc = 0, ncost = 0, conds = 0, maxKind = 0, maxContext = 0, maxCount = 0;
  for (size_t r = 0; r < rows; ++r) {
    maxKind = std::max(maxKind, kind[r]);
    maxContext = std::max(maxContext, context[r]);
    maxCount = std::max(maxCount, costCount[r]);
    ncost += costCount[r];
    assoc += kind[r] != static_cast<uint64_t>(ir::RecordKind::COST);
    conds += kind[r] == static_cast<uint64_t>(ir::RecordKind::COND_JUMP);
  }
  if (maxKind > static_cast<uint64_t>(ir::RecordKind::COND_JUMP))
    corrupt("cost table row has unknown kind");
  if (maxContext >= contexts_) corrupt("cost table row refers to a missing context");
  if (maxCount > events_) corrupt("cost table row has more costs than events");
  conds_ += conds;
  // Both sizes are checked against the columns (whose counts their bytes bound) before use.
  if (ncost > costs_.remaining()) corrupt("cost table cost values disagree with cost counts");
  if (assoc > target_.remaining()) corrupt("cost table association columns disagree with the rows");
  costs.resize(ncost);
  costs_.read(costs.data(), ncost);
  target.resize(assoc);
  count.resize(assoc);
  target_.read(target.data(), assoc);
  count_.read(count.data(), assoc);
  const bool withPositions = !jumped_.empty();
  if (withPositions) {
    for (size_t k = 0; k < npos_; ++k) {
      positions_[k].read(positions[k].data(), rows);
      if (assoc > targetPositions_[k].remaining())
        corrupt("cost table target positions disagree with the rows");
      targetPositions[k].resize(assoc);
      targetPositions_[k].read(targetPositions[k].data(), assoc);
    }
    if (conds > jumped_[0].remaining())
      corrupt("cost table association columns disagree with the rows");
    jumped.resize(conds);
    jumped_[0].read(jumped.data(), conds);
  }
  {  // the residuals of CostTable.predicted undone
    for (size_t r = 0, ci = 0, a = 0, j = 0; r < rows; ci += costCount[r], ++r) {
      const uint64_t k = kind[r];
      if (k == static_cast<uint64_t>(ir::RecordKind::COST)) {
        if (costCount[r] > 0) lastCost_ = costs[ci];
        continue;
      }
      count[a] = unzigzag(count[a], lastCost_);
      target[a] = unzigzag(target[a], context[r]);
      if (target[a] >= contexts_) corrupt("cost table association refers to a missing context");
      if (withPositions) {
        if (k == static_cast<uint64_t>(ir::RecordKind::COND_JUMP)) {
          jumped[j] = unfoldJumped(jumped[j], count[a]);
          ++j;
        }
        const uint64_t* last = k == static_cast<uint64_t>(ir::RecordKind::CALL)
                                   ? lastCallTarget_.find(target[a])
                                   : nullptr;
        uint64_t landed[kMaxPositions];
        for (size_t i = 0; i < npos_; ++i)
          landed[i] = targetPositions[i][a] =
              unzigzag(targetPositions[i][a], last ? last[i] : positions[i][r]);
        if (k == static_cast<uint64_t>(ir::RecordKind::CALL))
          lastCallTarget_.record(target[a], landed, npos_);
      }
      ++a;
    }
  }
  for (uint64_t x : target)
    if (x >= contexts_) corrupt("cost table association refers to a missing context");
  return true;
}

DecodedContexts::DecodedContexts(ir::Contexts::Reader c, uint64_t strings) {
  object = decodeColumn(c.getObject());
  file = decodeColumn(c.getFile());
  function = decodeColumn(c.getFunction());
  if (file.size() != object.size() || function.size() != object.size())
    corrupt("context columns have different lengths");
  for (auto* col : {&object, &file, &function})
    for (uint64_t s : *col)
      if (s >= strings) corrupt("context refers to a missing string");
}

}  // namespace profpack
