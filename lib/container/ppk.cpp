#include "container/ppk.h"

#include <capnp/dynamic.h>
#include <capnp/serialize.h>
#include <zstd.h>

#include <cstring>
#include <limits>
#include <vector>

#include "error.h"
#include "model/stored.h"
#include "util/bytes.h"
#include "util/zstd_ctx.h"

namespace profpack {

namespace {

constexpr size_t kParallelBytes = size_t{16} << 20;
constexpr uint8_t kMagic[8] = {0x89, 'P', 'P', 'K', '\r', '\n', 0x1a, '\n'};
// zstd's skippable frames: magic 0x184D2A50-0x184D2A5F, a u32 size, that many bytes (RFC 8878
// 3.1.2). The stored model's is 0x184D2A5B, its payload starting with kModelTag.
constexpr uint32_t kSkippableMask = 0xFFFFFFF0u, kSkippable = 0x184D2A50u;
constexpr uint32_t kModelFrame = 0x184D2A5Bu;
constexpr char kModelTag[4] = {'P', 'P', 'K', 'M'};
constexpr size_t kModelHeader = 16;  // tag, 0, decompressed size

uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
uint64_t le64(const uint8_t* p) { return uint64_t{le32(p)} | uint64_t{le32(p + 4)} << 32; }

using CCtx = ZstdCCtx;
using DCtx = ZstdDCtx;

// Reads every pointer of the message as the schema types it (struct, list of the right kind,
// text), so that a message whose pointers disagree with the schema is refused here, at read
// time, and not by whichever query first follows the bad pointer.
void validate(capnp::DynamicValue::Reader value);

// Pointers the schema does not know (a struct's pointer section may be longer than its
// schema's) are copied along by a deep copy, such as equalIR makes: they may hold structs and
// lists but no capability, which a message reader without capabilities cannot copy.
void noCapabilities(capnp::AnyPointer::Reader p) {
  switch (p.getPointerType()) {
    case capnp::PointerType::CAPABILITY: KJ_FAIL_REQUIRE("capability pointer in a profile message");
    case capnp::PointerType::STRUCT:
      for (auto q : p.getAs<capnp::AnyStruct>().getPointerSection()) noCapabilities(q);
      break;
    case capnp::PointerType::LIST: {
      auto list = p.getAs<capnp::AnyList>();
      if (list.getElementSize() == capnp::ElementSize::POINTER) {
        for (auto q : list.as<capnp::List<capnp::AnyPointer>>()) noCapabilities(q);
      } else if (list.getElementSize() == capnp::ElementSize::INLINE_COMPOSITE) {
        for (auto element : list.as<capnp::List<capnp::AnyStruct>>())
          for (auto q : element.getPointerSection()) noCapabilities(q);
      }
      break;
    }
    case capnp::PointerType::NULL_: break;
  }
}

void validate(capnp::DynamicStruct::Reader s) {
  const auto pointers = s.as<capnp::AnyStruct>().getPointerSection();
  const unsigned known = s.getSchema().getProto().getStruct().getPointerCount();
  for (unsigned i = known; i < pointers.size(); ++i) noCapabilities(pointers[i]);
  for (auto field : s.getSchema().getFields())
    if (s.has(field)) validate(s.get(field));
}
void validate(capnp::DynamicValue::Reader value) {
  switch (value.getType()) {
    case capnp::DynamicValue::STRUCT: validate(value.as<capnp::DynamicStruct>()); break;
    case capnp::DynamicValue::LIST: {
      auto list = value.as<capnp::DynamicList>();
      switch (list.getSchema().whichElementType()) {
        case capnp::schema::Type::STRUCT:
        case capnp::schema::Type::LIST:
        case capnp::schema::Type::TEXT:
        case capnp::schema::Type::DATA:
          for (auto element : list) validate(element);
          break;
        default: break;  // primitives: reading the list checked its element size
      }
      break;
    }
    case capnp::DynamicValue::TEXT: value.as<capnp::Text>(); break;
    default: break;
  }
}

void check(size_t rc, const char* what) {
  if (ZSTD_isError(rc))
    throw Error(Status::internal, "ppk", std::string(what) + ": " + ZSTD_getErrorName(rc));
}

// Appends the skippable frame of a stored model's message (nothing for "", or for one whose
// frame would pass the 4 GiB a skippable frame can hold).
void appendStoredModel(std::string& out, const std::string& message, int level) {
  if (message.empty()) return;
  CCtx cctx;
  if (!cctx.p) throw std::bad_alloc();
  check(ZSTD_CCtx_setParameter(cctx.p, ZSTD_c_compressionLevel, level), "zstd level");
  check(ZSTD_CCtx_setParameter(cctx.p, ZSTD_c_checksumFlag, 1), "zstd checksum");
  std::string frame(ZSTD_compressBound(message.size()), '\0');
  const size_t n =
      ZSTD_compress2(cctx.p, frame.data(), frame.size(), message.data(), message.size());
  check(n, "zstd compression");
  if (kModelHeader + n > std::numeric_limits<uint32_t>::max()) return;
  appendLe32(out, kModelFrame);
  appendLe32(out, static_cast<uint32_t>(kModelHeader + n));
  out.append(kModelTag, sizeof kModelTag);
  appendLe32(out, 0);
  appendLe64(out, message.size());
  out.append(frame.data(), n);
}

// Reads the frames after the IR's, from `at` (bytes from the file's start) to the end: zstd
// skippable frames only. Returns the stored model's message where this build computed it.
std::shared_ptr<const kj::Array<capnp::word>> readTrailingFrames(std::span<const uint8_t> data,
                                                                 size_t at,
                                                                 uint64_t maxMessageBytes) {
  std::shared_ptr<const kj::Array<capnp::word>> stored;
  while (at < data.size()) {
    const uint8_t* p = data.data() + at;
    const size_t left = data.size() - at;
    if (left < 8)
      fail("ppk", at, kUnknown,
           "truncated frame after the IR: " + std::to_string(left) + " bytes, expected 8 or more");
    const uint32_t magic = le32(p), size = le32(p + 4);
    if ((magic & kSkippableMask) != kSkippable)
      fail("ppk", at, kUnknown, "data after the IR's zstd frame that is not a skippable frame");
    if (size > left - 8)
      fail("ppk", at + 4, kUnknown,
           "skippable frame of " + std::to_string(size) + " bytes, but " +
               std::to_string(left - 8) + " follow (file truncated)");
    if (magic == kModelFrame && size >= kModelHeader && std::memcmp(p + 8, kModelTag, 4) == 0) {
      const uint64_t bytes = le64(p + 16);
      const uint8_t* z = p + 8 + kModelHeader;
      const size_t zBytes = size - kModelHeader;
      if (bytes > maxMessageBytes || bytes % sizeof(capnp::word) != 0 || bytes == 0)
        fail("ppk", at + 16, kUnknown,
             "stored model size " + std::to_string(bytes) +
                 " is not a positive multiple of 8 within the limit of " +
                 std::to_string(maxMessageBytes));
      if (ZSTD_getFrameContentSize(z, zBytes) != bytes)
        fail("ppk", at + 24, kUnknown, "the stored model's zstd frame is not of its declared size");
      auto words = kj::heapArray<capnp::word>(bytes / sizeof(capnp::word));
      DCtx dctx;
      if (!dctx.p) throw std::bad_alloc();
      const size_t n = ZSTD_decompressDCtx(dctx.p, words.begin(), bytes, z, zBytes);
      if (ZSTD_isError(n) || n != bytes)
        fail("ppk", at + 24, kUnknown,
             std::string("corrupt stored model: ") +
                 (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short frame"));
      if (checkStoredModel(words, at, "ppk"))
        stored = std::make_shared<const kj::Array<capnp::word>>(std::move(words));
    }
    at += 8 + size;
  }
  return stored;
}

// Decompresses the IR's zstd frame (checked to declare `msgBytes`) into its words.
kj::Array<capnp::word> decompressIR(const uint8_t* frame, size_t frameBytes, uint64_t msgBytes) {
  auto words = kj::heapArray<capnp::word>(msgBytes / sizeof(capnp::word));
  DCtx dctx;
  if (!dctx.p) throw std::bad_alloc();
  size_t n = ZSTD_decompressDCtx(dctx.p, words.begin(), msgBytes, frame, frameBytes);
  if (ZSTD_isError(n))
    fail("ppk", kPpkHeaderSize, kUnknown,
         std::string("corrupt compressed data: ") + ZSTD_getErrorName(n));
  if (n != msgBytes)
    fail("ppk", kPpkHeaderSize, kUnknown,
         "decompressed " + std::to_string(n) + " bytes, expected " + std::to_string(msgBytes));
  return words;
}

// Checks a message as profileFromMessage does: Status::malformed at `offset` of `container`.
void checkMessage(const kj::Array<capnp::word>& words, uint64_t offset, const char* container) {
  try {
    // One pass over everything, with a budget of twice the message's own size: a message
    // whose pointers share data (read many times over, an amplification attack) fails here.
    // (Once its size was too little: Cap'n Proto counts each read in whole words, and an 11 MB
    // perf IR of many small lists needed 1.0-1.5 times its words, so it was refused.)
    capnp::ReaderOptions once;
    once.traversalLimitInWords = 2 * words.size() + 1024;
    capnp::FlatArrayMessageReader check(words.asPtr(), once);
    validate(capnp::DynamicStruct::Reader(check.getRoot<ir::Profile>()));
    // And every pointer the schema walk does not follow (a deep copy, as equalIR and the
    // writers make, follows them all): the size computation bounds-checks each one.
    capnp::FlatArrayMessageReader sizes(words.asPtr(), once);  // a budget of its own
    sizes.getRoot<capnp::AnyPointer>().targetSize();
  } catch (const kj::Exception& e) {
    fail(container, offset, kUnknown,
         std::string("invalid Cap'n Proto message: ") + e.getDescription().cStr());
  }
}

// The IR of a .ppk with a stored model, kept compressed until a query needs more than the
// stored layer.
class PendingIR : public Profile::Pending {
 public:
  PendingIR(const uint8_t* frame, size_t frameBytes, const Profile::Basics& basics)
      : frame_(frame, frame + frameBytes), basics_(basics) {}
  kj::Array<capnp::word> load() override {
    kj::Array<capnp::word> words = decompressIR(frame_.data(), frame_.size(), basics_.flatBytes);
    checkMessage(words, kPpkHeaderSize, "ppk");
    capnp::FlatArrayMessageReader reader(words.asPtr(), checkedMessageOptions());
    const ir::Profile::Reader root = reader.getRoot<ir::Profile>();
    auto differs = [&](const char* what, auto stored, auto ir) {
      if (stored != ir)
        fail("ppk", kPpkHeaderSize, kUnknown,
             std::string("the function layer stored beside the IR describes another profile: ") +
                 what + " " + std::to_string(static_cast<unsigned>(stored)) + " stored, " +
                 std::to_string(static_cast<unsigned>(ir)) + " in the IR");
    };
    differs("format", basics_.format, root.getFormat());
    differs("signed costs", basics_.signedCosts, root.getSignedCosts());
    differs("symbols", basics_.hasSymbols, root.hasSymbols());
    return words;
  }

 private:
  std::vector<uint8_t> frame_;
  Profile::Basics basics_;
};

}  // namespace

bool isPpk(std::span<const uint8_t> data) {
  return data.size() >= sizeof kMagic && std::memcmp(data.data(), kMagic, sizeof kMagic) == 0;
}

std::string encodePpk(const Profile& profile, int level,
                      const std::function<std::string()>& storedModel) {
  if (level < 1 || level > ZSTD_maxCLevel())
    throw Error(Status::invalidArgument, "ppk",
                "zstd level " + std::to_string(level) + " is outside 1.." +
                    std::to_string(ZSTD_maxCLevel()));
  const size_t msgBytes = profile.flatSize();

  CCtx cctx;
  if (!cctx.p) throw std::bad_alloc();
  check(ZSTD_CCtx_setParameter(cctx.p, ZSTD_c_compressionLevel, level), "zstd level");
  check(ZSTD_CCtx_setParameter(cctx.p, ZSTD_c_checksumFlag, 1), "zstd checksum");
  check(ZSTD_CCtx_setParameter(cctx.p, ZSTD_c_contentSizeFlag, 1), "zstd content size");
  // Messages of 16 MB and more compress on two worker threads (the output stays deterministic
  // for a given level: zstd's multithreaded format does not depend on timing). Below that the
  // workers' buffers (~3-7 MB) would cost more memory than they save time: for the 5.7 MB IR of
  // a 17 MB Callgrind profile they took peak RSS from 1.40x to 1.6-1.8x the input.
  const bool parallel = msgBytes >= kParallelBytes;
  if (parallel) ZSTD_CCtx_setParameter(cctx.p, ZSTD_c_nbWorkers, 2);
  check(ZSTD_CCtx_setPledgedSrcSize(cctx.p, msgBytes), "zstd pledged size");

  std::string out;
  out.reserve(kPpkHeaderSize + msgBytes / 4 + 4096);
  out.append(reinterpret_cast<const char*>(kMagic), sizeof kMagic);
  appendLe32(out, kPpkVersion);
  appendLe32(out, 0);
  appendLe64(out, msgBytes);
  appendLe64(out, 0);  // compressed size, patched below

  // Stream the message's pieces through zstd: no flat copy of the message is made.
  std::vector<char> buf(ZSTD_CStreamOutSize());
  if (parallel) {
    // The workers start with the stream. Where no thread can be had (a process limit, a
    // sandbox), zstd cannot start them: compress on this thread instead, the same message.
    ZSTD_inBuffer none{nullptr, 0, 0};
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    if (ZSTD_isError(ZSTD_compressStream2(cctx.p, &o, &none, ZSTD_e_continue))) {
      ZSTD_CCtx_reset(cctx.p, ZSTD_reset_session_only);
      check(ZSTD_CCtx_setParameter(cctx.p, ZSTD_c_nbWorkers, 0), "zstd workers");
      check(ZSTD_CCtx_setPledgedSrcSize(cctx.p, msgBytes), "zstd pledged size");
    } else {
      out.append(buf.data(), o.pos);
    }
  }
  auto pump = [&](const void* data, size_t size, ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{data, size, 0};
    for (;;) {
      ZSTD_outBuffer o{buf.data(), buf.size(), 0};
      size_t left = ZSTD_compressStream2(cctx.p, &o, &in, mode);
      check(left, "zstd compression");
      out.append(buf.data(), o.pos);
      if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) break;
    }
  };
  profile.forEachFlatPiece([&](const void* p, size_t n) { pump(p, n, ZSTD_e_continue); });
  pump(nullptr, 0, ZSTD_e_end);
  if (storedModel) appendStoredModel(out, storedModel(), level);
  const uint64_t n = out.size() - kPpkHeaderSize;
  for (int i = 0; i < 8; ++i) out[24 + i] = static_cast<char>(n >> (8 * i));
  return out;
}

std::unique_ptr<Profile> decodePpk(std::span<const uint8_t> data, uint64_t maxMessageBytes) {
  if (!isPpk(data)) fail("ppk", 0, kUnknown, "not a .ppk file (magic number missing)");
  if (data.size() < kPpkHeaderSize)
    fail("ppk", data.size(), kUnknown,
         "truncated header: expected 32 bytes, found " + std::to_string(data.size()));
  const uint8_t* h = data.data();
  uint32_t version = le32(h + 8);
  if (version != kPpkVersion)
    throw Error(Status::unsupported, "ppk",
                "this .ppk holds IR revision " + std::to_string(version) + ", written by " +
                    (version < kPpkVersion ? std::string("a pre-release profpack")
                                           : std::string("a newer profpack")) +
                    "; this build reads IR revision " + std::to_string(kPpkVersion) +
                    (version < kPpkVersion ? ": convert the original profile again" : ""),
                8);
  uint64_t msgBytes = le64(h + 16);
  uint64_t frameBytes = le64(h + 24);
  if (msgBytes > maxMessageBytes)
    throw Error(Status::limit, "ppk",
                "declared message size " + std::to_string(msgBytes) +
                    " bytes exceeds the limit of " + std::to_string(maxMessageBytes) + " bytes",
                16);
  if (msgBytes % sizeof(capnp::word) != 0 || msgBytes == 0)
    fail("ppk", 16, kUnknown,
         "message size " + std::to_string(msgBytes) + " is not a positive multiple of 8");
  const uint64_t have = data.size() - kPpkHeaderSize;
  if (frameBytes != have)
    fail("ppk", 24, kUnknown,
         "compressed size field says " + std::to_string(frameBytes) + " bytes but " +
             std::to_string(have) + " bytes follow the header" +
             (frameBytes > have ? " (file truncated)" : " (trailing data)"));
  const uint8_t* frame = h + kPpkHeaderSize;
  unsigned long long content = ZSTD_getFrameContentSize(frame, have);
  if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN)
    fail("ppk", kPpkHeaderSize, kUnknown, "invalid zstd frame header");
  if (content != msgBytes)
    fail("ppk", kPpkHeaderSize, kUnknown,
         "zstd frame holds " + std::to_string(content) + " bytes, header declares " +
             std::to_string(msgBytes));

  const size_t irFrame = ZSTD_findFrameCompressedSize(frame, have);
  if (ZSTD_isError(irFrame))
    fail("ppk", kPpkHeaderSize, kUnknown,
         std::string("corrupt compressed data: ") + ZSTD_getErrorName(irFrame));

  std::shared_ptr<const kj::Array<capnp::word>> stored =
      readTrailingFrames(data, kPpkHeaderSize + irFrame, maxMessageBytes);
  std::unique_ptr<Profile> profile;
  Profile::Basics basics;
  if (stored && storedProfileBasics(*stored, basics)) {
    basics.flatBytes = msgBytes;
    // The IR is decompressed when a query first needs more than the stored layer (`top` and
    // `info` need only the layer): most of their time was the decompression.
    profile =
        std::make_unique<Profile>(std::make_unique<PendingIR>(frame, irFrame, basics), basics);
  } else {
    profile = profileFromMessage(decompressIR(frame, irFrame, msgBytes), kPpkHeaderSize, "ppk");
  }
  if (stored) profile->setStoredModel(std::move(stored));
  return profile;
}

std::unique_ptr<Profile> profileFromMessage(kj::Array<capnp::word> words, uint64_t offset,
                                            const char* container) {
  checkMessage(words, offset, container);
  // Having passed, a full traversal costs at most the message's size, so each query or writer
  // is bounded by it.
  return std::make_unique<Profile>(std::move(words), checkedMessageOptions());
}

}  // namespace profpack
