#include "costs.h"

#include "../error.h"

namespace profpack {

namespace {
using Enc = ir::Column::Encoding;
[[noreturn]] void corrupt(const std::string& what) { throw Error(Status::malformed, "ppk", what); }
}  // namespace

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

// Record kinds, cost counts, contexts and source files are nearly constant from row to row, and
// costs repeat along a basic block (instruction-level dumps): run-length coded, they take a
// fraction of a byte per row. (Measured on a 17 MB instr-level dump: IR 12.1 -> 6.5 MB, .ppk
// -5%; run-length subpositions made the .ppk larger, so positions stay plain zigzag deltas.)
CostTableBuilder::CostTableBuilder(size_t positions)
    : npos_(positions),
      kind_(Enc::VARINT_RUNS),
      context_(Enc::ZIGZAG_DELTA_RUNS),
      costCount_(Enc::VARINT_RUNS),
      costs_(Enc::VARINT_RUNS),
      target_(Enc::ZIGZAG_DELTA) {
  for (size_t i = 0; i < positions; ++i) {
    positions_.emplace_back(Enc::ZIGZAG_DELTA);
    targetPositions_.emplace_back(Enc::ZIGZAG_DELTA);
  }
}

void CostTableBuilder::row(ir::RecordKind kind, uint64_t context, uint64_t sourceFile,
                           const uint64_t* pos, const uint64_t* costs, size_t ncosts,
                           uint64_t target, const uint64_t* targetPos, uint64_t count,
                           uint64_t jumped) {
  ++rows_;
  kind_.push(static_cast<uint64_t>(kind));
  context_.push(context);
  sourceFile_.push(sourceFile);
  for (size_t i = 0; i < npos_; ++i) positions_[i].push(pos[i]);
  costCount_.push(ncosts);
  for (size_t i = 0; i < ncosts; ++i) costs_.push(costs[i]);
  if (kind != ir::RecordKind::COST) {
    target_.push(target);
    for (size_t i = 0; i < npos_; ++i) targetPositions_[i].push(targetPos[i]);
    count_.push(count);
    if (kind == ir::RecordKind::COND_JUMP) jumped_.push(jumped);
  }
}

uint64_t CostTableBuilder::bytes() const {
  uint64_t n = sourceFile_.bytes();
  for (auto* c : {&kind_, &context_, &costCount_, &costs_, &target_, &count_, &jumped_})
    n += c->bytes();
  for (auto& c : positions_) n += c.bytes();
  for (auto& c : targetPositions_) n += c.bytes();
  return n;
}

void CostTableBuilder::markUsed(std::vector<bool>& used) const {
  sourceFile_.forEach([&](uint64_t s) { used[s] = true; });
}

void CostTableBuilder::build(ir::CostTable::Builder out, const std::vector<uint64_t>& remap) {
  out.setRows(rows_);
  kind_.build(out.initKind());
  context_.build(out.initContext());
  {
    ColumnWriter w(Enc::VARINT_RUNS);
    sourceFile_.forEach([&](uint64_t s) { w.push(remap[s]); });
    w.build(out.initSourceFile());
    sourceFile_ = ColumnWriter(Enc::VARINT);
  }
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

DecodedCosts::DecodedCosts(ir::CostTable::Reader t, size_t npos, size_t events, size_t contexts,
                           bool withPositions) {
  const uint64_t rows = t.getRows();
  kind = decodeColumn(t.getKind());
  context = decodeColumn(t.getContext());
  sourceFile = decodeColumn(t.getSourceFile());
  costCount = decodeColumn(t.getCostCount());
  costs = decodeColumn(t.getCosts());
  target = decodeColumn(t.getTarget());
  count = decodeColumn(t.getCount());
  jumped = decodeColumn(t.getJumped());
  if (t.getPositions().size() != npos || t.getTargetPositions().size() != npos)
    corrupt("cost table has a position column count that differs from positionKinds");
  if (withPositions) {
    for (auto c : t.getPositions()) positions.push_back(decodeColumn(c));
    for (auto c : t.getTargetPositions()) targetPositions.push_back(decodeColumn(c));
  }
  if (kind.size() != rows || context.size() != rows || sourceFile.size() != rows ||
      costCount.size() != rows)
    corrupt("cost table columns disagree with its row count");
  for (auto& p : positions)
    if (p.size() != rows) corrupt("cost table position column disagrees with its row count");
  uint64_t assoc = 0, cond = 0, ncost = 0;
  for (uint64_t r = 0; r < rows; ++r) {
    if (kind[r] > static_cast<uint64_t>(ir::RecordKind::COND_JUMP))
      corrupt("cost table row " + std::to_string(r) + " has unknown kind");
    if (context[r] >= contexts) corrupt("cost table row refers to a missing context");
    if (costCount[r] > events) corrupt("cost table row has more costs than events");
    ncost += costCount[r];
    if (kind[r] != static_cast<uint64_t>(ir::RecordKind::COST)) ++assoc;
    if (kind[r] == static_cast<uint64_t>(ir::RecordKind::COND_JUMP)) ++cond;
  }
  if (ncost != costs.size()) corrupt("cost table cost values disagree with cost counts");
  if (target.size() != assoc || count.size() != assoc || jumped.size() != cond)
    corrupt("cost table association columns disagree with the rows");
  for (auto& p : targetPositions)
    if (p.size() != assoc) corrupt("cost table target positions disagree with the rows");
  for (uint64_t x : target)
    if (x >= contexts) corrupt("cost table association refers to a missing context");
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
