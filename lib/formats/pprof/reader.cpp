// Reading pprof: gzip (any number of members, as Go's gzip reader takes them) or a bare
// profile.proto message, decoded, checked as pprof checks it, and kept in the IR.

#include <zlib.h>

#include <algorithm>
#include <string>

#include "error.h"
#include "formats/pprof/data.h"
#include "formats/pprof/pprof.h"
#include "ir/column.h"

namespace profpack {

void buildPprofIR(const PprofData& d, const std::vector<uint64_t>& str, ir::Pprof::Builder b);

namespace {

bool gzipMagic(std::span<const uint8_t> data) {
  return data.size() >= 3 && data[0] == 0x1f && data[1] == 0x8b && data[2] == 8;
}

// Inflates `data` (gzip members back to back) up to `limit` bytes of output, or, where
// `prefixOnly`, as much of the first `limit` bytes as the input gives (no error for a cut).
std::string gunzip(std::span<const uint8_t> data, uint64_t limit, bool prefixOnly) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw Error(Status::internal, "pprof", "zlib: inflate");
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&z};
  std::string out;
  // The output grows with what inflate gives, never by the size a trailer claims.
  out.resize(static_cast<size_t>(std::min<uint64_t>(
      limit, std::max<uint64_t>(uint64_t{64} << 10, uint64_t{data.size()} * 4))));
  size_t used = 0, in = 0;
  for (;;) {
    if (used == out.size()) {
      if (used >= limit) {
        if (prefixOnly) break;
        throw Error(
            Status::limit, "pprof",
            "gzip data inflates to more than the limit of " + std::to_string(limit) + " bytes", in);
      }
      out.resize(static_cast<size_t>(std::min<uint64_t>(limit, uint64_t{out.size()} * 2)));
    }
    z.next_in = const_cast<Bytef*>(data.data() + in);
    const size_t inChunk = std::min<size_t>(data.size() - in, 1u << 30);
    z.avail_in = static_cast<uInt>(inChunk);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + used);
    const size_t outChunk = std::min<size_t>(out.size() - used, 1u << 30);
    z.avail_out = static_cast<uInt>(outChunk);
    const int r = inflate(&z, Z_NO_FLUSH);
    in += inChunk - z.avail_in;
    used += outChunk - z.avail_out;
    if (r == Z_STREAM_END) {
      if (in == data.size()) break;
      if (!gzipMagic(data.subspan(in)))
        throw Error(Status::malformed, "pprof", "bytes after the gzip data are no gzip member", in);
      inflateReset(&z);
      continue;
    }
    if (r == Z_BUF_ERROR && in == data.size()) {
      if (prefixOnly) break;
      throw Error(Status::malformed, "pprof", "gzip data cut short", in);
    }
    if (r != Z_OK && r != Z_BUF_ERROR) {
      if (prefixOnly) return {};
      throw Error(Status::malformed, "pprof",
                  std::string("gzip data corrupt: ") + (z.msg ? z.msg : "inflate failed"), in);
    }
  }
  out.resize(used);
  return out;
}

// Whether a message starts with fields of profile.proto, each of its wire type, as far as
// the first `window` bytes go (the last may end past the data: a prefix, or a message cut
// short, which the reader refuses at its place).
bool plausible(std::span<const uint8_t> data, size_t window) {
  size_t p = 0, fields = 0;
  const size_t end = std::min(data.size(), window);
  // 1: read; 0: over 10 bytes; -1: the data ends inside it.
  auto varint = [&](uint64_t& v) {
    v = 0;
    for (unsigned i = 0; i < 10; ++i) {
      if (p >= data.size()) return -1;
      const uint8_t b = data[p++];
      v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if (!(b & 0x80)) return 1;
    }
    return 0;
  };
  while (p < end) {
    uint64_t key = 0, v = 0;
    if (int r = varint(key); r != 1) return r < 0 && fields > 0;
    const uint64_t number = key >> 3, wire = key & 7;
    if (number < 1 || number > 15) return false;
    const bool message = number <= 6 || number == 11;
    if (message ? wire != 2 : number == 13 ? wire != 0 && wire != 2 : wire != 0) return false;
    if (int r = varint(v); r != 1) return r < 0 && fields > 0;
    if (wire == 2) {
      // A field past the end: a cut prefix, or a message cut short (the reader says where).
      if (v > data.size() - p) return fields > 0;
      p += static_cast<size_t>(v);
    }
    ++fields;
  }
  return fields > 0;
}

}  // namespace

bool isPprof(std::span<const uint8_t> data) {
  if (gzipMagic(data)) {
    const std::string head = gunzip(data, 4096, true);
    const auto* b = reinterpret_cast<const uint8_t*>(head.data());
    return plausible(std::span<const uint8_t>(b, head.size()), 4096);
  }
  return plausible(data, 4096);
}

// Hands the decoded message to the profile's model (Profile::keepDecoded) in the IR's terms,
// so that the model need not decode the IR the reader has just built from it.
void keepForModel(Profile& profile, PprofData d, const std::vector<uint64_t>& interned) {
  for (uint64_t* s : {&d.dropFrames, &d.keepFrames, &d.periodType, &d.periodUnit,
                      &d.defaultSampleType, &d.docUrl})
    *s = interned[*s];
  for (auto* v :
       {&d.sampleType, &d.sampleUnit, &d.labelKey, &d.labelStr, &d.labelUnit, &d.mappingFile,
        &d.mappingBuildId, &d.functionName, &d.functionSystemName, &d.functionFile, &d.comments})
    for (uint64_t& s : *v) s = interned[s];
  const StringTableReader& table = profile.strings();
  d.strings.clear();
  for (uint64_t i = 0; i < table.size(); ++i) d.strings.push_back(table.get(i));
  if (d.strings.empty()) d.strings.emplace_back();
  for (auto* v : {&d.sampleAt, &d.locationAt, &d.mappingAt, &d.functionAt}) *v = {};
  d.maxString = d.maxStringAt = 0;
  auto decoded = std::make_unique<DecodedPprof>();
  decoded->data = std::move(d);
  profile.keepDecoded(std::move(decoded));
}

std::unique_ptr<Profile> readPprof(std::span<const uint8_t> data, const ReadOptions& options) {
  PprofData d;
  std::string inflated;
  std::span<const uint8_t> message = data;
  if (gzipMagic(data)) {
    inflated = gunzip(data, options.maxPpkMessage, false);
    message = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(inflated.data()),
                                       inflated.size());
    d.gzipped = true;
  }
  if (message.empty()) throw Error(Status::malformed, "pprof", "empty profile.proto message", 0);
  try {
    decodePprofMessage(message, d);
    checkPprof(d, "pprof");
  } catch (const Error& e) {
    if (!d.gzipped) throw;
    throw Error(e.status(), e.format(), e.message() + " (offset in the gunzipped message)",
                e.offset());
  }
  // Strings interned in the IR's sorted table; only those a field uses are kept.
  StringInterner interner;
  std::vector<uint64_t> interned(d.strings.size(), 0);
  for (size_t i = 1; i < d.strings.size(); ++i)
    if (!d.strings[i].empty()) interned[i] = interner.intern(d.strings[i]);
  std::vector<bool> used(interner.size(), false);
  auto use = [&](uint64_t s) { used[interned[s]] = true; };
  use(d.dropFrames);
  for (const auto* v :
       {&d.sampleType, &d.sampleUnit, &d.labelKey, &d.labelStr, &d.labelUnit, &d.mappingFile,
        &d.mappingBuildId, &d.functionName, &d.functionSystemName, &d.functionFile, &d.comments})
    for (uint64_t s : *v) use(s);
  for (uint64_t s : {d.keepFrames, d.periodType, d.periodUnit, d.defaultSampleType, d.docUrl})
    use(s);
  const std::vector<uint64_t> remap = interner.sortAndCompact(used);
  for (uint64_t& s : interned) s = remap[s];
  auto msg = newMessage(message.size() * 2);
  auto root = msg->getRoot<ir::Profile>();
  root.setFormat(ir::Format::PPROF);
  interner.build(root.initStrings());
  buildPprofIR(d, interned, root.initPprof());
  auto profile = std::make_unique<Profile>(std::move(msg));
  keepForModel(*profile, std::move(d), interned);
  return profile;
}

}  // namespace profpack
