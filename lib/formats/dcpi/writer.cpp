// DCPI profile writer: an image as read, byte for byte, or images made from another profile's
// instruction addresses (dcpiFromModel).

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "formats/dcpi/common.h"
#include "ir/column.h"
#include "util/text.h"

namespace profpack {

using namespace dcpi;

namespace {

using Enc = ir::Column::Encoding;

inline void putLe32(char* p, uint32_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}

// Serialises one image exactly as stored. The counts are decoded straight into the output.
std::string writeImage(ir::ImageHistogram::Reader image) {
  DcpiImage d;
  const uint64_t counts = decodeChunks(image, d);
  size_t headerBytes = image.getTerminator().size() + 1;
  for (auto l : image.getHeaderLines()) headerBytes += l.getText().size() + 1;
  // Each stored count takes at least one byte: a count not backed by the message is refused
  // before the output is sized from it.
  uint64_t stored = 0;
  for (auto c : image.getCounts().getChunks()) stored += c.size();
  if (counts > stored) corruptImage("counts column declares more values than it has bytes");
  std::string out;
  out.resize(headerBytes + 8 * d.offset.size() + 4 * counts + 8);
  char* w = out.data();
  auto put = [&](kj::StringPtr s) {
    std::memcpy(w, s.cStr(), s.size());
    w += s.size();
    *w++ = '\n';
  };
  for (auto l : image.getHeaderLines()) {
    if (l.getText().findFirst('\n') != nullptr) corruptImage("a header line contains a newline");
    put(l.getText());
  }
  {
    std::string_view t(image.getTerminator().cStr(), image.getTerminator().size());
    if (!t.starts_with("samples") || t.find_first_not_of(" \t", 7) != t.npos)
      corruptImage("the terminator is not a samples line");
  }
  put(image.getTerminator());
  ColumnCursor values(image.getCounts());
  uint64_t batch[4096];
  for (size_t k = 0; k < d.offset.size(); ++k) {
    putLe32(w, static_cast<uint32_t>(d.offset[k]));
    putLe32(w + 4, static_cast<uint32_t>(d.number[k]));
    w += 8;
    for (uint64_t left = d.number[k]; left > 0;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left, std::size(batch)));
      values.read(batch, n);
      for (size_t i = 0; i < n; ++i, w += 4) {
        if (batch[i] > 0xffffffffu) corruptImage("a count does not fit in 32 bits");
        putLe32(w, static_cast<uint32_t>(batch[i]));
      }
      left -= n;
    }
  }
  values.finish();
  putLe32(w, d.footerAddresses);
  putLe32(w + 4, d.footerSamples);
  return out;
}

std::string imagePath(ir::ImageHistogram::Reader image) {
  for (auto l : image.getHeaderLines())
    if (l.getKey() == "path") return l.getValue().cStr();
  return "";
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

namespace {

// One line that starts with no blank: a header value DCPI can hold.
bool oneLine(const std::string& s) {
  return !s.empty() && !isSpace(s[0]) && s.find('\n') == s.npos;
}

// What dcpiFromModel can write: a model with per-address costs and no negative ones, and
// options DCPI can hold. Returns the index of the event written.
size_t checkedEvent(const Model& model, const DcpiConvertOptions& o) {
  if (!model.has(kCapAddresses) || model.events() == 0)
    throw Error(Status::unsupported, kFmt,
                model.sourceFormat() +
                    " holds no costs per instruction address, and DCPI's sample counts are per "
                    "instruction");
  if (model.has(kCapSigned))
    throw Error(Status::unsupported, kFmt,
                "the profile is a difference of profiles, whose costs can be negative, and DCPI's "
                "sample counts cannot");
  size_t event = 0;
  if (!o.event.empty()) {
    const long e = model.eventIndex(o.event);
    if (e < 0) {
      std::string names;
      for (const std::string& n : model.eventNames()) names += (names.empty() ? "" : ", ") + n;
      throw Error(Status::invalidArgument, kFmt,
                  "no event named '" + o.event + "' in the profile (its events: " + names + ")");
    }
    event = static_cast<size_t>(e);
  }
  uint64_t major = 0;
  if (!parseVersion(o.version, major) || major != 0)
    throw Error(
        Status::invalidArgument, kFmt,
        "DCPI version must be pdb-0.<minor> (the documented layout), not '" + o.version + "'");
  if (!allOf(o.epoch, isDigit) || (o.epoch.size() != 10 && o.epoch.size() != 14))
    throw Error(Status::invalidArgument, kFmt,
                "DCPI epoch must be YYMMDDHHMM or YYYYMMDDHHMMSS, not '" + o.epoch + "'");
  if (!oneLine(o.platform))
    throw Error(Status::invalidArgument, kFmt, "DCPI platform must be one non-blank line");
  if (!oneLine(model.eventNames()[event]))
    throw Error(Status::unsupported, kFmt,
                "event name '" + model.eventNames()[event] + "' cannot be a DCPI event");
  return event;
}

}  // namespace

std::unique_ptr<Profile> dcpiFromModel(const Model& model, const DcpiConvertOptions& o) {
  const size_t event = checkedEvent(model, o);
  const std::string& eventName = model.eventNames()[event];
  const LocationLayer& layer = model.locations();
  // Objects ranked by name (locations in no mapping: the object ""): the rank of each mapping.
  std::vector<std::string_view> objects{""};
  for (const Mapping& m : layer.mappings) objects.push_back(m.path);
  std::sort(objects.begin(), objects.end());
  objects.erase(std::unique(objects.begin(), objects.end()), objects.end());
  auto rankOf = [&](int64_t mapping) {
    const std::string_view path =
        mapping < 0 ? std::string_view() : std::string_view(layer.mappings[mapping].path);
    return static_cast<uint64_t>(std::lower_bound(objects.begin(), objects.end(), path) -
                                 objects.begin());
  };
  // (object rank, slot address, cost) of every location.
  struct Row {
    uint64_t object, slot, cost;
  };
  std::vector<Row> rows;
  rows.reserve(layer.locations.size());
  const size_t ne = model.events();
  for (size_t l = 0; l < layer.locations.size(); ++l)
    if (!layer.locations[l].callSite)  // a caller's frame, where no sample is
      rows.push_back({rankOf(layer.locations[l].mapping), layer.locations[l].address & ~uint64_t{3},
                      layer.self[l * ne + event]});
  // Objects in name order, addresses ascending.
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.object != b.object ? a.object < b.object : a.slot < b.slot;
  });

  auto message = newMessage(rows.size() * 8);
  auto out = message->getRoot<ir::Profile>();
  out.setFormat(ir::Format::DCPI);
  out.setFormatVersion(o.version);
  StringInterner none;
  none.build(out.initStrings());
  size_t nimages = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    if (i == 0 || rows[i].object != rows[i - 1].object) ++nimages;
  auto images = out.initImages(static_cast<unsigned>(nimages));
  size_t img = 0;
  for (size_t i = 0; i < rows.size();) {
    size_t j = i;
    const std::string_view object = objects[rows[i].object];
    while (j < rows.size() && rows[j].object == rows[i].object) ++j;
    const uint64_t tstart = rows[i].slot;
    if (rows[j - 1].slot - tstart > 0xfffffffbull)
      throw Error(Status::limit, kFmt,
                  "object '" + std::string(object) + "' spans more than 4 GiB of addresses, " +
                      "beyond DCPI's 32-bit chunk offsets");
    ColumnWriter offsets(Enc::ZIGZAG_DELTA), numbers, counts;
    uint64_t nonzero = 0, sum = 0, chunkStart = 0, chunkLen = 0;
    for (size_t r = i; r < j;) {
      uint64_t slot = rows[r].slot, cost = 0;
      for (; r < j && rows[r].slot == slot; ++r) {
        cost += rows[r].cost;
        if (cost < rows[r].cost || cost > 0xffffffffu)
          throw Error(Status::limit, kFmt,
                      "object '" + std::string(object) + "', address 0x" + hexDigits(slot) + ": " +
                          eventName + " cost exceeds DCPI's 32-bit sample count");
      }
      if (chunkLen > 0 && slot != chunkStart + 4 * chunkLen) {
        offsets.push(chunkStart - tstart);
        numbers.push(chunkLen);
        chunkLen = 0;
      }
      if (chunkLen == 0) chunkStart = slot;
      ++chunkLen;
      counts.push(cost);
      nonzero += cost != 0;
      sum += cost;
    }
    offsets.push(chunkStart - tstart);
    numbers.push(chunkLen);

    std::vector<std::pair<std::string, std::string>> kv = {
        {"version", o.version},
        {"image", hexDigits(fnv1a(object))},
        {"epoch", o.epoch},
        {"platform", o.platform},
        {"event", eventName},
        {"period", std::to_string(o.period)},
        {"tstart", hexDigits(tstart)},
        {"tsize", std::to_string(rows[j - 1].slot + 4 - tstart)},
        {"cpuspeed", std::to_string(o.cpuspeed)},
    };
    if (oneLine(std::string(object))) kv.emplace_back("path", std::string(object));
    size_t headerBytes = std::string_view("samples\n").size();
    for (auto& [k, v] : kv) headerBytes += k.size() + 1 + v.size() + 1;
    auto image = images[static_cast<unsigned>(img++)];
    auto hl = image.initHeaderLines(static_cast<unsigned>(kv.size()));
    for (size_t k = 0; k < kv.size(); ++k) {
      std::string line = kv[k].first + " " + kv[k].second;
      if (k + 1 == kv.size()) line.append((4 - headerBytes % 4) % 4, ' ');  // align the binary
      setHeaderLine(hl[static_cast<unsigned>(k)], line, kv[k].first, kv[k].second);
    }
    image.setTerminator("samples");
    image.setTextStart(tstart);
    offsets.build(image.initChunkOffset());
    numbers.build(image.initChunkLength());
    counts.build(image.initCounts());
    image.setFooterAddresses(static_cast<uint32_t>(nonzero));
    image.setFooterSamples(static_cast<uint32_t>(sum));
    i = j;
  }
  return std::make_unique<Profile>(std::move(message));
}

std::string writeDcpi(const Profile& profile, const std::string& select) {
  auto images = profile.root().getImages();
  if (images.size() == 1 && select.empty()) return writeImage(images[0]);
  for (unsigned i = 0; i < images.size(); ++i)
    if (!select.empty() && (select == std::to_string(i) || select == imagePath(images[i])))
      return writeImage(images[i]);
  std::string list;
  for (unsigned i = 0; i < images.size(); ++i) {
    std::string path = imagePath(images[i]);
    list += "\n  " + std::to_string(i) + ": " + (path.empty() ? "(no path)" : path);
  }
  throw Error(Status::invalidArgument, kFmt,
              (select.empty() ? "the profile has " + std::to_string(images.size()) +
                                    " images and a DCPI file holds one: select one by path or "
                                    "index. Images:"
                              : "no image with path or index '" + select + "'. Images:") +
                  list);
}

std::string writeDcpi(const Model& model, const std::string& image) {
  auto converted = dcpiFromModel(model, DcpiConvertOptions{});
  if (converted->root().getImages().size() == 0)
    throw Error(Status::unsupported, kFmt,
                "the profile has no instruction costs, so there is no DCPI image to write");
  return writeDcpi(*converted, image);
}

}  // namespace profpack
