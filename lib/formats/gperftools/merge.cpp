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

namespace {

class GperfMerge : public FormatMerge {
 public:
  void add(const Profile& profile) override {
    auto st = profile.root().getStacks();
    const size_t i = inputs_++;
    if (i == 0) {
      slotBytes_ = st.getSlotBytes();
      bigEndian_ = st.getBigEndian();
      periodUs_ = st.getSamplingPeriodUs();
      if (slotBytes_ != 4 && slotBytes_ != 8)
        throw Error(Status::malformed, "ppk", "gperftools slot width not 4 or 8");
      for (uint64_t v : st.getHeaderSlots()) header_.push_back(v);
      for (uint64_t v : st.getTrailerSlots()) trailer_.push_back(v);
      const auto text = st.getMapsText();
      maps_.assign(reinterpret_cast<const char*>(text.begin()), text.size());
      for (const GperfMapping& m : parseMappings(maps_))
        base_.push_back({std::string(m.path), m.start, m.limit, m.offset});
    }
    if (st.getSamplingPeriodUs() != periodUs_)
      throw Error(Status::invalidArgument, kFmt,
                  "cannot merge profiles of different sampling periods: input " +
                      std::to_string(i + 1) + " samples every " +
                      std::to_string(st.getSamplingPeriodUs()) + " us, input 1 every " +
                      std::to_string(periodUs_) + " us");
    std::vector<Relocation> moves;
    if (i > 0) {
      const auto text = st.getMapsText();
      const std::vector<std::string_view> lines =
          textLines({reinterpret_cast<const char*>(text.begin()), text.size()});
      for (const GperfMapping& m : parseMappings(st)) {
        const BaseMapping* same = nullptr;
        for (const BaseMapping& b : base_)
          if (!m.path.empty() && b.path == m.path && b.offset == m.offset &&
              b.limit - b.start == m.limit - m.start)
            same = &b;
        if (same) {
          moves.push_back({m.start, m.limit,
                           static_cast<int64_t>(same->start) - static_cast<int64_t>(m.start)});
        } else if (m.line < lines.size() &&
                   maps_.find(std::string(lines[m.line])) == std::string::npos) {
          // An object the first profile did not load: its addresses stay, its line joins.
          if (!maps_.empty() && maps_.back() != '\n') maps_ += '\n';
          maps_ += lines[m.line];
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
      auto [it, added] = index_.try_emplace(chain, chains_.size());
      if (added) {
        slots_ += 2 + chain.size();
        if (slots_ > kMaxSlots)
          throw Error(Status::limit, kFmt, "the merged profile would exceed 1 GiB");
        chains_.push_back({chain, 0});
      }
      chains_[it->second].second += d.count[r];
    }
  }

  std::unique_ptr<Profile> finish() override {
    if (inputs_ == 0) throw Error(Status::invalidArgument, "", "merge needs at least one profile");
    // The file: the first profile's header, the chains, its trailer, the maps text.
    std::string out;
    auto put = [&](uint64_t v) {
      if (slotBytes_ == 4 && v > UINT32_MAX)
        throw Error(Status::unsupported, kFmt,
                    "a merged value does not fit the first profile's 4-byte slots");
      for (unsigned b = 0; b < slotBytes_; ++b) {
        const unsigned shift = 8 * (bigEndian_ ? slotBytes_ - 1 - b : b);
        out += static_cast<char>((v >> shift) & 0xff);
      }
    };
    for (uint64_t v : header_) put(v);
    for (const auto& [pcs, count] : chains_) {
      put(count);
      put(pcs.size());
      for (uint64_t pc : pcs) put(pc);
    }
    for (uint64_t v : trailer_) put(v);
    out += maps_;
    return readGperftools({reinterpret_cast<const uint8_t*>(out.data()), out.size()});
  }

 private:
  struct BaseMapping {
    std::string path;
    uint64_t start, limit, offset;
  };
  static constexpr uint64_t kMaxSlots = uint64_t{1} << 27;  // 1 GiB of 8-byte slots
  size_t inputs_ = 0;
  unsigned slotBytes_ = 8;
  bool bigEndian_ = false;
  uint64_t periodUs_ = 0;
  std::vector<uint64_t> header_, trailer_;
  std::string maps_;
  std::vector<BaseMapping> base_;
  // Chains, innermost first, with their summed counts, in order of first appearance.
  std::map<std::vector<uint64_t>, uint64_t> index_;
  std::vector<std::pair<std::vector<uint64_t>, uint64_t>> chains_;
  uint64_t slots_ = 0;
};

}  // namespace

std::unique_ptr<FormatMerge> gperftoolsMerge() { return std::make_unique<GperfMerge>(); }

}  // namespace profpack
