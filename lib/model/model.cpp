#include "model/model.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "error.h"
#include "util/pairmap.h"
#include "util/text.h"

namespace profpack {

uint64_t FunctionLayer::addFunction(FunctionRow row) {
  functions.push_back(std::move(row));
  self.resize(functions.size() * events(), 0);
  inclusive.resize(functions.size() * events(), 0);
  return functions.size() - 1;
}

size_t FunctionLayer::addEdge(uint64_t caller, uint64_t callee, uint64_t count) {
  edges.push_back({caller, callee, count, nullptr});
  edgeCosts.resize(edgeCosts.size() + events(), 0);
  return edges.size() - 1;
}

Model::Model(std::unique_ptr<ModelSource> source, std::string sourceFormat)
    : source_(std::move(source)), sourceFormat_(std::move(sourceFormat)) {
  capabilities_ = source_->capabilities();
  source_->functions(f_);
  f_.eventLongNames.resize(f_.eventNames.size());
  const size_t ne = events();
  f_.self.resize(functions() * ne, 0);
  f_.inclusive.resize(functions() * ne, 0);
  linkEdges();
  totals_.assign(ne, 0);
  for (size_t f = 0; f < functions(); ++f)
    for (size_t e = 0; e < ne; ++e) totals_[e] += self(f, e);
}

void Model::linkEdges() {
  f_.edgeCosts.resize(f_.edges.size() * events(), 0);
  for (size_t e = 0; e < f_.edges.size(); ++e) f_.edges[e].inclusive = f_.edgeCost(e);
}

void Model::loadEdges() const {
  std::lock_guard<std::mutex> lock(sourceMutex_);
  // Called once, under edgesOnce_, by edgesNow() before any reader of the edges: the model
  // itself is not const (it is made only by make_unique), so this write is defined.
  auto& self = const_cast<Model&>(*this);
  source_->edges(self.f_);
  self.linkEdges();
}

long Model::eventIndex(std::string_view name) const {
  for (size_t i = 0; i < f_.eventNames.size(); ++i)
    if (f_.eventNames[i] == name) return static_cast<long>(i);
  return -1;
}

std::vector<const CallEdge*> Model::callers(uint64_t f) const {
  edgesNow();
  std::vector<const CallEdge*> out;
  for (const CallEdge& e : f_.edges)
    if (e.callee == f) out.push_back(&e);
  return out;
}

std::vector<const CallEdge*> Model::callees(uint64_t f) const {
  edgesNow();
  std::vector<const CallEdge*> out;
  for (const CallEdge& e : f_.edges)
    if (e.caller == f) out.push_back(&e);
  return out;
}

std::vector<uint64_t> Model::top(size_t event, bool incl, size_t n) const {
  std::vector<uint64_t> order(functions());
  std::iota(order.begin(), order.end(), 0);
  // Signed costs (a difference) sort by magnitude, as cg_annotate does: the largest change
  // first, whichever its direction.
  const bool isSigned = has(kCapSigned);
  auto cost = [&](uint64_t f) {
    const uint64_t v = incl ? inclusive(f, event) : self(f, event);
    return isSigned && static_cast<int64_t>(v) < 0 ? ~v + 1 : v;
  };
  n = std::min(n, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(n), order.end(),
                    [&](uint64_t a, uint64_t b) {
                      if (cost(a) != cost(b)) return cost(a) > cost(b);
                      if (f_.functions[a].name != f_.functions[b].name)
                        return f_.functions[a].name < f_.functions[b].name;
                      return f_.functions[a].file < f_.functions[b].file;
                    });
  order.resize(n);
  return order;
}

namespace {
// Number of trailing path components two file names share ("a/b/c.c" and "x/b/c.c": 2).
size_t commonComponents(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (!a.empty() && !b.empty()) {
    size_t sa = a.rfind('/'), sb = b.rfind('/');
    std::string_view ca = sa == a.npos ? a : a.substr(sa + 1);
    std::string_view cb = sb == b.npos ? b : b.substr(sb + 1);
    if (ca != cb || ca.empty()) break;
    ++n;
    a = sa == a.npos ? std::string_view() : a.substr(0, sa);
    b = sb == b.npos ? std::string_view() : b.substr(0, sb);
  }
  return n;
}
}  // namespace

const std::unordered_map<std::string, std::vector<LineCost>>& Model::lineIndex() const {
  std::call_once(linesOnce_, [&] {
    std::lock_guard<std::mutex> lock(sourceMutex_);
    source_->lines(lines_);
  });
  return lines_;
}

namespace {
size_t componentsOf(std::string_view path) {
  return path.empty() ? 0 : 1 + static_cast<size_t>(std::count(path.begin(), path.end(), '/'));
}
}  // namespace

// Which names of the line index are one file. One file may have several names in a profile:
// the compiler spells a header by the path each unit included it by ("/src/a/../hdr.h" and
// "/src/hdr.h"), so names are compared with their "." and ".." components resolved. A relative
// name is relative to a directory the profile may not record: where it ends the names of one
// file only (a unit's "hdr.h" beside another's "/src/hdr.h"), it is that file; where it ends
// those of two ("util.c" beside /src/a/util.c and /src/b/util.c), it could be either, and it is
// a file of its own, never added to one of them.
const Model::SourceFiles& Model::sourceFiles() const {
  std::call_once(sourceFilesOnce_, [&] {
    const auto& index = lineIndex();
    SourceFiles& sf = sourceFiles_;
    std::vector<const std::pair<const std::string, std::vector<LineCost>>*> names;
    names.reserve(index.size());
    for (auto& entry : index) names.push_back(&entry);
    std::sort(names.begin(), names.end(), [](auto* a, auto* b) { return a->first < b->first; });
    // Names resolved alike are one file from the start.
    std::vector<std::string> paths;  // the distinct resolved names
    std::unordered_map<std::string, uint32_t> pathIndex;
    std::vector<uint32_t> pathOf(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      auto [it, added] =
          pathIndex.try_emplace(lexicalPath(names[i]->first), static_cast<uint32_t>(paths.size()));
      if (added) paths.push_back(it->first);
      pathOf[i] = it->second;
    }
    // Each resolved name's file: absolute names their own; relative ones, longest first, the
    // one file of the longer names they end, if there is one. The names each suffix (by whole
    // components, the last 64 of a name at most) ends, as up to two files.
    constexpr uint32_t kNone = UINT32_MAX;
    std::vector<uint32_t> fileOf(paths.size());
    for (uint32_t p = 0; p < paths.size(); ++p) fileOf[p] = p;
    std::vector<uint32_t> order(paths.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const bool absA = paths[a][0] == '/', absB = paths[b][0] == '/';
      if (absA != absB) return absA;
      return componentsOf(paths[a]) > componentsOf(paths[b]);
    });
    std::unordered_map<std::string_view, std::pair<uint32_t, uint32_t>> endedBy;
    auto note = [&](std::string_view path, uint32_t file) {
      size_t at = path.size();
      for (int k = 0; k < 64 && at != path.npos && at > 0; ++k) {
        at = path.rfind('/', at - 1);
        const std::string_view suffix = at == path.npos ? path : path.substr(at + 1);
        if (suffix.empty()) break;
        auto [it, added] = endedBy.try_emplace(suffix, file, kNone);
        if (!added && it->second.first != file && it->second.second == kNone)
          it->second.second = file;
      }
    };
    for (uint32_t p : order) {
      if (paths[p].empty()) continue;
      if (paths[p][0] != '/') {
        auto it = endedBy.find(paths[p]);
        if (it != endedBy.end() && it->second.second == kNone) fileOf[p] = it->second.first;
      }
      note(paths[p], fileOf[p]);
    }
    // Files numbered in the order of their names' first (sorted) name; each answers to its
    // absolute name, else its longest (of the most components resolved), and takes every name
    // of its own.
    std::vector<uint32_t> number(paths.size(), kNone);
    std::vector<size_t> shown;  // per file: the name it answers to, an index into `names`
    sf.fileOfName.resize(names.size());
    auto better = [&](size_t a, size_t b) {  // name a over name b
      const std::string &pa = paths[pathOf[a]], &pb = paths[pathOf[b]];
      const bool absA = !pa.empty() && pa[0] == '/', absB = !pb.empty() && pb[0] == '/';
      return absA != absB ? absA : componentsOf(pa) > componentsOf(pb);
    };
    for (size_t i = 0; i < names.size(); ++i) {
      const uint32_t f = fileOf[pathOf[i]];
      if (number[f] == kNone) {
        number[f] = static_cast<uint32_t>(sf.files.size());
        sf.files.emplace_back();
        shown.push_back(i);
      } else if (better(i, shown[number[f]])) {
        shown[number[f]] = i;
      }
      sf.files[number[f]].names.push_back(&names[i]->second);
      sf.fileOfName[i] = number[f];
    }
    for (size_t k = 0; k < sf.files.size(); ++k) sf.files[k].name = &names[shown[k]]->first;
    sf.pathOfName.reserve(names.size());
    for (size_t i = 0; i < names.size(); ++i) sf.pathOfName.push_back(paths[pathOf[i]]);
  });
  return sourceFiles_;
}

std::vector<const std::string*> Model::sourceFileNames() const {
  const SourceFiles& sf = sourceFiles();
  std::vector<const std::string*> out;
  out.reserve(sf.files.size());
  for (const SourceFile& f : sf.files) out.push_back(f.name);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return *a < *b; });
  return out;
}

std::vector<LineCost> Model::lines(std::string_view file) const {
  const SourceFiles& sf = sourceFiles();
  const std::string wanted = lexicalPath(file);
  // The name itself (as resolved); failing that, the names sharing the most trailing path
  // components with `file` (at least the base name): an editor knows the file by its path on
  // this machine, the profile by the path it had where the program was built. Those names
  // must be one file's: asked for "util.c" where the profile has /src/a/util.c and
  // /src/b/util.c, the lines of both would read as one file's.
  std::vector<uint32_t> files;
  for (size_t i = 0; i < sf.pathOfName.size(); ++i)
    if (sf.pathOfName[i] == wanted) files.push_back(sf.fileOfName[i]);
  if (files.empty()) {
    size_t best = 0;
    for (const std::string& p : sf.pathOfName) best = std::max(best, commonComponents(p, wanted));
    if (best == 0) return {};
    for (size_t i = 0; i < sf.pathOfName.size(); ++i)
      if (commonComponents(sf.pathOfName[i], wanted) == best) files.push_back(sf.fileOfName[i]);
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  if (files.size() > 1) {
    std::vector<std::string> list;
    for (uint32_t f : files) list.push_back(*sf.files[f].name);
    std::sort(list.begin(), list.end());
    std::string text;
    for (size_t i = 0; i < list.size() && i < 8; ++i) text += (i ? ", " : "") + list[i];
    if (list.size() > 8) text += " and " + std::to_string(list.size() - 8) + " more";
    throw Error(Status::invalidArgument, "",
                "source '" + std::string(file) + "' names " + std::to_string(list.size()) +
                    " files of the profile: " + text + "; give more of its path");
  }
  std::vector<LineCost> merged;
  for (auto* lc : sf.files[files[0]].names) merged.insert(merged.end(), lc->begin(), lc->end());
  std::sort(merged.begin(), merged.end(), [](auto& a, auto& b) { return a.line < b.line; });
  std::vector<LineCost> out;
  for (auto& l : merged) {
    if (!out.empty() && out.back().line == l.line) {
      for (size_t i = 0; i < l.cost.size(); ++i) out.back().cost[i] += l.cost[i];
    } else {
      out.push_back(l);
    }
  }
  return out;
}

const FunctionLineLayer& Model::functionLines() const {
  std::call_once(functionLinesOnce_, [&] {
    std::lock_guard<std::mutex> lock(sourceMutex_);
    source_->functionLines(functionLines_);
    functionLines_.self.resize(functionLines_.rows.size() * events(), 0);
  });
  return functionLines_;
}

const LocationLayer& Model::locations() const {
  std::call_once(locationsOnce_, [&] {
    std::lock_guard<std::mutex> lock(sourceMutex_);
    source_->locations(locations_);
    locations_.self.resize(locations_.locations.size() * events(), 0);
    if (locations_.inlineStart.size() != locations_.locations.size() + 1) {
      locations_.inlined.clear();
      locations_.inlineStart.clear();
    }
  });
  return locations_;
}

const StackLayer& Model::stacks() const {
  std::call_once(stacksOnce_, [&] {
    std::lock_guard<std::mutex> lock(sourceMutex_);
    source_->stacks(stacks_);
    stacks_.values.resize(stacks_.stacks() * events(), 0);
    if (stacks_.locationsOnly() && stacks_.start.back() > stacks_.locations.size())
      throw Error(Status::internal, sourceFormat_,
                  "a stack layer of locations alone with fewer locations than its stacks hold");
    if (!stacks_.frames.empty() && stacks_.locations.size() != stacks_.frames.size())
      stacks_.locations.clear();
    // Rows of stack, thread and values, each in range; else none (a source's defect, not the
    // profile's: the figures above stand without them).
    const size_t row = 2 + events();
    bool valid = stacks_.threadValues.size() % row == 0;
    for (size_t r = 0; valid && r < stacks_.threadValues.size(); r += row)
      valid = stacks_.threadValues[r] < stacks_.stacks() &&
              stacks_.threadValues[r + 1] < threads().size();
    if (!valid) stacks_.threadValues.clear();
  });
  return stacks_;
}

Model::Layers Model::releaseLayers() {
  locations();
  if (has(kCapStacks)) stacks();
  return {std::move(f_), std::move(locations_), std::move(stacks_)};
}

uint64_t Model::timelineOrigin() const {
  std::lock_guard<std::mutex> lock(sourceMutex_);
  return source_->timelineOrigin();
}

void Model::spans(SpanSink& sink) const {
  std::lock_guard<std::mutex> lock(sourceMutex_);
  source_->spans(sink);
}

const Summary& Model::summary() const {
  std::call_once(summaryOnce_, [&] {
    std::lock_guard<std::mutex> lock(sourceMutex_);
    summary_ = source_->summary();
  });
  return summary_;
}

void addStackFigures(const StackLayer& stacks, FunctionLayer& out) {
  const size_t ne = out.events();
  std::vector<uint64_t> seen(out.functions.size(), ~uint64_t{0});
  PairMap edgeIndex;  // (caller, callee) -> edge: one lookup per frame
  std::vector<uint64_t> edgeSeen;
  for (size_t s = 0; s < stacks.stacks(); ++s) {
    const uint64_t* v = stacks.values.data() + s * ne;
    const uint64_t b = stacks.start[s], e = stacks.start[s + 1];
    if (b == e) continue;
    const uint64_t leaf = stacks.frames[e - 1];
    for (size_t ev = 0; ev < ne; ++ev) out.self[leaf * ne + ev] += v[ev];
    for (uint64_t k = b; k < e; ++k) {
      const uint64_t f = stacks.frames[k];
      if (seen[f] != s) {
        seen[f] = s;
        for (size_t ev = 0; ev < ne; ++ev) out.inclusive[f * ne + ev] += v[ev];
      }
      if (k == b) continue;
      const uint64_t caller = stacks.frames[k - 1];
      bool added = false;
      const uint64_t edge = edgeIndex.findOrInsert(caller, f, out.edges.size(), added);
      if (added) {
        out.addEdge(caller, f, 0);
        edgeSeen.push_back(~uint64_t{0});
      }
      if (edgeSeen[edge] != s) {
        edgeSeen[edge] = s;
        uint64_t* cost = out.edgeCost(edge);
        for (size_t ev = 0; ev < ne; ++ev) cost[ev] += v[ev];
      }
    }
  }
}

}  // namespace profpack
