// Merging gperftools CPU profiles into one, as pprof merges them: samples summed per identical
// call chain, the addresses of every later profile moved into the first one's address space
// where a mapping of the same object (path, file offset and size) was loaded elsewhere, as a
// program's libraries (and a PIE program itself) are in every run.

#include <map>
#include <unordered_map>

#include "error.h"
#include "formats/gperftools/gperftools.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "gperftools";

struct Relocation {
  uint64_t start, limit;
  int64_t delta;
};

std::vector<std::string_view> textLines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    out.push_back(text.substr(0, nl == text.npos ? text.size() : nl + 1));
    text.remove_prefix(nl == text.npos ? text.size() : nl + 1);
  }
  return out;
}

}  // namespace

std::unique_ptr<Profile> mergeGperftools(std::span<const Profile* const> profiles) {
  if (profiles.empty())
    throw Error(Status::invalidArgument, "", "merge needs at least one profile");
  auto first = profiles[0]->root().getStacks();
  const unsigned w = first.getSlotBytes();
  const bool be = first.getBigEndian();
  if (w != 4 && w != 8) throw Error(Status::malformed, "ppk", "gperftools slot width not 4 or 8");
  const auto firstText = first.getMapsText();
  std::string maps(reinterpret_cast<const char*>(firstText.begin()), firstText.size());
  const std::vector<GperfMapping> base = parseMappings(first);

  // Chains, innermost first, with their summed counts, in order of first appearance.
  std::map<std::vector<uint64_t>, uint64_t> index;
  std::vector<std::pair<std::vector<uint64_t>, uint64_t>> chains;
  uint64_t slots = 0;
  constexpr uint64_t kMaxSlots = uint64_t{1} << 27;  // 1 GiB of 8-byte slots
  for (size_t i = 0; i < profiles.size(); ++i) {
    auto st = profiles[i]->root().getStacks();
    if (st.getSamplingPeriodUs() != first.getSamplingPeriodUs())
      throw Error(Status::invalidArgument, kFmt,
                  "cannot merge profiles of different sampling periods: input " +
                      std::to_string(i + 1) + " samples every " +
                      std::to_string(st.getSamplingPeriodUs()) + " us, input 1 every " +
                      std::to_string(first.getSamplingPeriodUs()) + " us");
    std::vector<Relocation> moves;
    if (i > 0) {
      const auto text = st.getMapsText();
      const std::vector<std::string_view> lines =
          textLines({reinterpret_cast<const char*>(text.begin()), text.size()});
      for (const GperfMapping& m : parseMappings(st)) {
        const GperfMapping* same = nullptr;
        for (const GperfMapping& b : base)
          if (!m.path.empty() && b.path == m.path && b.offset == m.offset &&
              b.limit - b.start == m.limit - m.start)
            same = &b;
        if (same) {
          moves.push_back({m.start, m.limit,
                           static_cast<int64_t>(same->start) - static_cast<int64_t>(m.start)});
        } else if (m.line < lines.size() &&
                   maps.find(std::string(lines[m.line])) == std::string::npos) {
          // An object the first profile did not load: its addresses stay, its line joins.
          if (!maps.empty() && maps.back() != '\n') maps += '\n';
          maps += lines[m.line];
        }
      }
    }
    const DecodedStacks d = decodeStacks(st);
    std::vector<uint64_t> chain;
    for (size_t r = 0; r < d.count.size(); ++r) {
      chain.clear();
      for (uint64_t n = d.node[r]; n != 0; n = d.parentOf(n)) {
        uint64_t pc = d.addressOf(n);
        for (const Relocation& m : moves)
          if (pc >= m.start && pc < m.limit) {
            pc = static_cast<uint64_t>(static_cast<int64_t>(pc) + m.delta);
            break;
          }
        chain.push_back(pc);
      }
      auto [it, added] = index.try_emplace(chain, chains.size());
      if (added) {
        slots += 2 + chain.size();
        if (slots > kMaxSlots)
          throw Error(Status::limit, kFmt, "the merged profile would exceed 1 GiB");
        chains.push_back({chain, 0});
      }
      chains[it->second].second += d.count[r];
    }
  }

  // The file: the first profile's header, the chains, its trailer, the maps text.
  std::string out;
  auto put = [&](uint64_t v) {
    if (w == 4 && v > UINT32_MAX)
      throw Error(Status::unsupported, kFmt,
                  "a merged value does not fit the first profile's 4-byte slots");
    for (unsigned b = 0; b < w; ++b) {
      const unsigned shift = 8 * (be ? w - 1 - b : b);
      out += static_cast<char>(shift < 64 ? (v >> shift) & 0xff : 0);
    }
  };
  for (uint64_t v : first.getHeaderSlots()) put(v);
  for (const auto& [pcs, count] : chains) {
    put(count);
    put(pcs.size());
    for (uint64_t pc : pcs) put(pc);
  }
  for (uint64_t v : first.getTrailerSlots()) put(v);
  out += maps;
  return readGperftools({reinterpret_cast<const uint8_t*>(out.data()), out.size()});
}

}  // namespace profpack
