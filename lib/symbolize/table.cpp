#include "symbolize/table.h"

#include "error.h"
#include "ir/column.h"

namespace profpack {

SymbolTable::SymbolTable(ir::Symbols::Reader s) {
  auto fail = [](const std::string& what) {
    throw Error(Status::malformed, "ppk", "symbol section: " + what);
  };
  const uint64_t mappings = s.getMappings().size();
  for (auto b : s.getMappings()) loadBias.push_back(b.hasPath() ? b.getLoadBias() : 0);
  for (auto n : s.getNames()) names.emplace_back(n.cStr(), n.size());
  if (names.empty()) names.emplace_back();
  std::vector<uint64_t> mapping = decodeColumn(s.getMapping());
  std::vector<uint64_t> address = decodeColumn(s.getAddress());
  std::vector<uint64_t> ret = decodeColumn(s.getReturnAddress());
  std::vector<uint64_t> count = decodeColumn(s.getFrameCount());
  if (address.size() != mapping.size() || ret.size() != mapping.size() ||
      count.size() != mapping.size())
    fail("per-entry columns differ in length");
  std::vector<uint64_t> function = decodeColumn(s.getFunction());
  std::vector<uint64_t> file = decodeColumn(s.getFile());
  std::vector<uint64_t> line = decodeColumn(s.getLine());
  std::vector<uint64_t> declaration = decodeColumn(s.getDeclaration());
  if (file.size() != function.size() || line.size() != function.size() ||
      (!declaration.empty() && declaration.size() != function.size()))
    fail("per-frame columns differ in length");
  uint64_t first = 0;
  for (size_t i = 0; i < mapping.size(); ++i) {
    if (mapping[i] >= mappings) fail("entry " + std::to_string(i) + " names no mapping");
    if (count[i] == 0 || count[i] > function.size() - first)
      fail("entry " + std::to_string(i) + " has frames beyond the frame columns");
    entries.set({static_cast<int64_t>(mapping[i]), address[i], ret[i] != 0}, {first, count[i]});
    first += count[i];
  }
  if (first != function.size()) fail("frames no entry holds");
  frames.reserve(function.size());
  for (size_t i = 0; i < function.size(); ++i) {
    if (function[i] >= names.size() || file[i] >= names.size())
      fail("frame " + std::to_string(i) + " names a string beyond the name list");
    frames.push_back({function[i], file[i], line[i], declaration.empty() ? 0 : declaration[i]});
  }
}

}  // namespace profpack
