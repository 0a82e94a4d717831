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

std::vector<LineCost> Model::lines(std::string_view file) const {
  const auto& index = lineIndex();
  // One file may have several names in a profile: the compiler spells a header by the path
  // each unit included it by ("/src/a/../hdr.h" and "/src/hdr.h"), so names are compared with
  // their "." and ".." components resolved, and every name of the file is taken.
  // A relative name is relative to a directory the profile may not record: one that ends the
  // path asked for is the same file (a unit's "hdr.h" beside another's "/src/hdr.h", asked for
  // as "/src/hdr.h"), and so is every name a relative path asked for ends.
  const std::string wanted = lexicalPath(file);
  std::vector<std::pair<std::string, const std::vector<LineCost>*>> names;
  names.reserve(index.size());
  bool exact = false;
  for (auto& [name, lc] : index) {
    names.emplace_back(lexicalPath(name), &lc);
    exact = exact || names.back().first == wanted;
  }
  auto components = [](const std::string& path) {
    return path.empty() ? 0 : 1 + static_cast<size_t>(std::count(path.begin(), path.end(), '/'));
  };
  const bool wantedRelative = !wanted.empty() && wanted[0] != '/';
  auto endsWanted = [&](const std::string& name) {  // or is ended by it, where `file` is relative
    const size_t common = commonComponents(name, wanted);
    if (common == 0) return false;
    return (name[0] != '/' && common == components(name)) ||
           (wantedRelative && common == components(wanted));
  };
  // An editor knows the file by its path on this machine; the profile may name it by the
  // path it had where the program was built. Failing the name itself, take the names sharing
  // the most trailing path components with `file` (at least the base name), merging several
  // equally good ones.
  size_t best = 0;
  if (!exact)
    for (auto& [name, lc] : names) best = std::max(best, commonComponents(name, wanted));
  if (!exact && best == 0) return {};
  std::vector<const std::pair<std::string, const std::vector<LineCost>*>*> taken;
  for (auto& n : names)
    if ((exact ? n.first == wanted : commonComponents(n.first, wanted) == best) ||
        endsWanted(n.first))
      taken.push_back(&n);
  // A relative name that ends the names of two files (util.c beside /x/a/util.c and
  // /x/b/util.c) could be either: it is not added to one of them. (Each is compared with the
  // absolute names of the wanted base name only, one pass to find them.)
  if (!wantedRelative && !wanted.empty()) {
    const size_t slash = wanted.rfind('/');
    const std::string_view base = std::string_view(wanted).substr(slash + 1);
    std::vector<const std::string*> sameBase;
    for (auto& n : names)
      if (n.first[0] == '/' && n.first.size() > base.size() &&
          n.first.compare(n.first.size() - base.size(), base.size(), base) == 0 &&
          n.first[n.first.size() - base.size() - 1] == '/')
        sameBase.push_back(&n.first);
    std::sort(sameBase.begin(), sameBase.end(), [](auto* a, auto* b) { return *a < *b; });
    sameBase.erase(
        std::unique(sameBase.begin(), sameBase.end(), [](auto* a, auto* b) { return *a == *b; }),
        sameBase.end());
    if (sameBase.size() > 1)
      taken.erase(std::remove_if(taken.begin(), taken.end(),
                                 [&](auto* n) {
                                   if (n->first[0] == '/' || n->first == wanted) return false;
                                   size_t ends = 0;
                                   for (auto* a : sameBase)
                                     ends += commonComponents(n->first, *a) == components(n->first);
                                   return ends > 1;
                                 }),
                  taken.end());
  }
  // Names of two files are never added up: asked for "util.c" where the profile has
  // /src/a/util.c and /src/b/util.c, the lines of both would read as one file's. Two absolute
  // names (resolved as above) are two files; a relative name is the file of every name it ends.
  // So the names taken are one file's where one of them (the absolute one, if any) is ended by
  // all the others.
  const std::string* whole = nullptr;
  for (auto* n : taken)
    if (!whole || (n->first[0] == '/' && (*whole)[0] != '/') ||
        ((*whole)[0] != '/' && components(n->first) > components(*whole)))
      whole = &n->first;
  std::vector<std::string> files;
  for (auto* n : taken)
    if (n->first != *whole &&
        (n->first[0] == '/' || commonComponents(n->first, *whole) != components(n->first)))
      files.push_back(n->first);
  if (!files.empty() && exact) {
    // A relative name the profile lists, asked for exactly (as a caller listing the profile's
    // files asks for each): it ends the names of several files, so it cannot be counted as one
    // of them, but it is a file of the profile by that name. Its own lines, alone.
    taken.erase(
        std::remove_if(taken.begin(), taken.end(), [&](auto* n) { return n->first != wanted; }),
        taken.end());
    files.clear();
  }
  if (!files.empty()) {
    files.insert(files.begin(), *whole);
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    std::string list;
    for (size_t i = 0; i < files.size() && i < 8; ++i) list += (i ? ", " : "") + files[i];
    if (files.size() > 8) list += " and " + std::to_string(files.size() - 8) + " more";
    throw Error(Status::invalidArgument, "",
                "source '" + std::string(file) + "' names " + std::to_string(files.size()) +
                    " files of the profile: " + list + "; give more of its path");
  }
  std::vector<LineCost> merged;
  for (auto* n : taken) merged.insert(merged.end(), n->second->begin(), n->second->end());
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
