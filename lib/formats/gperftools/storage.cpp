// The IR's coding of gperftools stacks, read back: the tree, the addresses, the records and a
// sorted tail in file order (StackSamples in lib/ir/profile.capnp), and the mappings the
// mapped-objects text holds.

#include "formats/gperftools/storage.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <system_error>

#include "error.h"
#include "formats/gperftools/gperftools.h"
#include "util/text.h"

namespace profpack {

namespace gperf {

void RecordFeed::start(bool threaded, size_t maxRecords) {
  if (!threaded) return;
  constexpr uint64_t kAhead = 8;  // the samples of a record this far ahead are prefetched
  feed_.start(maxRecords, [this](uint64_t i, uint64_t n) {
    if (i + kAhead < n) body_.prefetchSamples(feed_.at(i + kAhead).node);
    body_.apply(feed_.at(i));
  });
}

}  // namespace gperf

using gperf::kTailMax;
using gperf::RecentCallees;
using gperf::TableHash;

namespace {

// Parses "start-end perms offset dev inode [path]"; false if the line is not such a line.
bool parseMapping(std::string_view s, GperfMapping& m) {
  auto hexNum = [&](size_t& i, uint64_t& v) {
    size_t b = i;
    v = 0;
    while (i < s.size()) {
      char c = s[i];
      unsigned d;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        break;
      if (v >> 60) return false;
      v = v << 4 | d;
      ++i;
    }
    return i > b;
  };
  auto blanks = [&](size_t& i) {
    size_t b = i;
    while (i < s.size() && isSpace(s[i])) ++i;
    return i > b;
  };
  auto token = [&](size_t& i, std::string_view& t) {
    size_t b = i;
    while (i < s.size() && !isSpace(s[i])) ++i;
    t = s.substr(b, i - b);
    return i > b;
  };
  size_t i = 0;
  uint64_t start, limit, offset, inode = 0;
  std::string_view perms, dev;
  if (!hexNum(i, start) || i >= s.size() || s[i++] != '-' || !hexNum(i, limit)) return false;
  if (!blanks(i) || !token(i, perms) || !blanks(i) || !hexNum(i, offset) || !blanks(i) ||
      !token(i, dev) || !blanks(i))
    return false;
  size_t b = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    if (inode > (UINT64_MAX - 9) / 10) return false;
    inode = inode * 10 + static_cast<uint64_t>(s[i] - '0');
    ++i;
  }
  if (i == b || (i < s.size() && !isSpace(s[i]))) return false;
  blanks(i);
  m.start = start;
  m.limit = limit;
  m.offset = offset;
  m.inode = inode;
  m.permissions = perms;
  m.device = dev;
  m.path = s.substr(i);
  return true;
}

}  // namespace

std::vector<GperfMapping> parseMappings(std::string_view text) {
  std::vector<GperfMapping> maps;
  size_t pos = 0;
  for (uint32_t line = 0; pos < text.size(); ++line) {
    const size_t eol = text.find('\n', pos);
    const size_t end = eol == text.npos ? text.size() : eol;
    GperfMapping m;
    m.line = line;
    if (parseMapping(text.substr(pos, end - pos), m)) maps.push_back(m);
    pos = eol == text.npos ? text.size() : eol + 1;
  }
  return maps;
}

std::vector<GperfMapping> parseMappings(ir::StackSamples::Reader stacks) {
  auto t = stacks.getMapsText();
  return parseMappings(std::string_view(reinterpret_cast<const char*>(t.begin()), t.size()));
}

namespace {

// Puts the records of a sorted tail (see sortedTail in profile.capnp) back in file order.
void restoreFileOrder(ir::StackSamples::Reader stacks, DecodedStacks& d) {
  auto bad = [](const std::string& what) { throw Error(Status::malformed, "ppk", what); };
  const uint64_t records = d.node.size(), t = stacks.getSortedTail();
  if (t > records)
    bad("stack samples: sortedTail " + std::to_string(t) + " is more than the " +
        std::to_string(records) + " records");
  const size_t first = records - t;
  std::vector<std::pair<uint32_t, uint32_t>> byBucket(t);  // bucket, stored index
  for (size_t i = 0; i < t; ++i) {
    TableHash h(stacks.getSlotBytes());
    for (uint64_t n = d.node[first + i]; n != 0; n = d.parentOf(n)) h.add(d.addressOf(n));
    byBucket[i] = {h.bucket(), static_cast<uint32_t>(i)};
  }
  std::sort(byBucket.begin(), byBucket.end());  // stable: ties keep stored order
  const std::vector<uint64_t> ranks = decodeColumn(stacks.getTailRanks());
  size_t used = 0;
  std::vector<uint64_t> count(t), node(t);
  std::vector<uint32_t> left;
  for (size_t s = 0, e, f = 0; s < t; s = e) {
    for (e = s + 1; e < t && byBucket[e].first == byBucket[s].first;) ++e;
    left.clear();
    for (size_t k = s; k < e; ++k) left.push_back(byBucket[k].second);
    while (!left.empty()) {
      uint64_t v = 0;
      if (left.size() > 1) {
        if (used == ranks.size()) bad("stack samples: tailRanks has too few values");
        v = ranks[used++];
        if (v >= left.size())
          bad("stack samples: tail rank " + std::to_string(v) + " in a run of " +
              std::to_string(left.size()) + " records left");
      }
      const uint32_t i = left[v];
      left.erase(left.begin() + static_cast<ptrdiff_t>(v));
      count[f] = d.count[first + i];
      node[f] = d.node[first + i];
      ++f;
    }
  }
  if (used != ranks.size()) bad("stack samples: tailRanks holds unused values");
  std::copy(count.begin(), count.end(), d.count.begin() + static_cast<ptrdiff_t>(first));
  std::copy(node.begin(), node.end(), d.node.begin() + static_cast<ptrdiff_t>(first));
}

}  // namespace

DecodedStacks decodeStacks(ir::StackSamples::Reader stacks, bool fileOrder) {
  auto bad = [](const std::string& what) { throw Error(Status::malformed, "ppk", what); };
  DecodedStacks d;
  // IR revision 2 writes treeCoding 1 and addressCoding 1 (the pre-release 0s are not read).
  const unsigned tree = stacks.getTreeCoding();
  const unsigned coding = stacks.getAddressCoding();
  if (tree != 1 || coding != 1)
    bad(std::string("stack tree: ") + (tree != 1 ? "treeCoding " : "addressCoding ") +
        std::to_string(tree != 1 ? tree : coding) + " is not the coding IR revision 2 stores (1)");
  if (stacks.getMappings().size() != 0)
    bad("stack samples: mappings are stored (IR revision 2 derives them from mapsText)");
  std::vector<uint64_t> branch = decodeColumn(stacks.getNodeParent());
  d.address = decodeColumn(stacks.getNodeAddress());
  d.count = decodeColumn(stacks.getSampleCount());
  d.node = decodeColumn(stacks.getSampleNode());
  if (d.count.size() != d.node.size())
    bad("stack samples: sampleCount and sampleNode differ in length");
  const size_t nodes = d.address.size();
  if (nodes >= UINT32_MAX) bad("stack tree: more than 2^32 nodes");

  // Records and the parents of the nodes they add.
  d.parent.resize(nodes);
  size_t branches = 0;
  uint64_t newest = 0;
  for (size_t r = 0; r < d.node.size(); ++r) {
    const uint64_t v = d.node[r];
    if (v & 1) {
      if ((v >> 1) == 0 || (v >> 1) > newest)
        bad("stack samples: record " + std::to_string(r) + " names node " + std::to_string(v >> 1) +
            " before it was created");
      d.node[r] = v >> 1;
      continue;
    }
    if ((v >> 1) >= nodes - newest)
      bad("stack samples: record " + std::to_string(r) + " names a node past the last of " +
          std::to_string(nodes));
    const uint64_t added = (v >> 1) + 1;
    if (branches == branch.size())
      bad("stack tree: record " + std::to_string(r) +
          " adds nodes but nodeParent has no value left");
    const uint64_t par = branch[branches++];
    if (par > newest)
      bad("stack tree: record " + std::to_string(r) + " adds nodes below node " +
          std::to_string(par) + ", which no earlier record created");
    d.parent[newest] = static_cast<uint32_t>(par);  // par <= newest < nodes < 2^32
    for (uint64_t k = 1; k < added; ++k) d.parent[newest + k] = static_cast<uint32_t>(newest + k);
    newest = d.node[r] = newest + added;
  }
  if (branches != branch.size())
    bad("stack tree: nodeParent holds " + std::to_string(branch.size() - branches) +
        " values no record uses");
  if (newest != nodes)
    bad("stack tree: " + std::to_string(nodes - newest) + " nodes that no record adds");

  // Addresses, given every node's parent.
  const std::vector<uint64_t> escapes = decodeColumn(stacks.getNodeAddressEscapes());
  size_t escaped = 0;
  RecentCallees callees;
  std::vector<uint32_t> lastChild(nodes + 1, 0);
  for (size_t i = 0; i < nodes; ++i) {
    const uint64_t id = i + 1;
    const uint64_t par = d.parent[i];
    const uint32_t sib = lastChild[par];
    const uint64_t v = d.address[i];
    const uint64_t parentPc = par ? d.address[par - 1] : 0;
    const uint64_t ref = sib ? d.address[sib - 1] : parentPc;
    if (v == RecentCallees::kEscape && escaped == escapes.size())
      bad("stack tree: more escaped addresses than nodeAddressEscapes holds");
    const uint64_t e = v == RecentCallees::kEscape ? escapes[escaped++] : 0;
    if (!callees.decode(parentPc, v, ref, e, d.address[i]))
      bad("stack tree: node " + std::to_string(id) + " names recent callee " + std::to_string(v) +
          " of a call site with fewer");
    lastChild[par] = static_cast<uint32_t>(id);
  }
  if (escaped != escapes.size()) bad("stack tree: nodeAddressEscapes holds unused addresses");
  if (stacks.getSortedTail() > kTailMax)
    bad("stack samples: sortedTail " + std::to_string(stacks.getSortedTail()) +
        " is more than the " + std::to_string(kTailMax) + " records a reader sorts");
  if (fileOrder && stacks.getSortedTail() != 0) restoreFileOrder(stacks, d);
  return d;
}

}  // namespace profpack
