// The per-thread error of the C ABI, and the calls that name versions, statuses and formats.

#include "internal.h"

namespace profpack::capi {
namespace {

struct ThreadError {
  profpack_error pub{PROFPACK_OK, "", "", PROFPACK_UNKNOWN_POSITION, PROFPACK_UNKNOWN_POSITION};
  std::string message;
  std::string format;
};

ThreadError& threadError() {
  thread_local ThreadError e;
  return e;
}

}  // namespace

void resetError() {
  ThreadError& e = threadError();
  e.message.clear();
  e.format.clear();
  e.pub = {PROFPACK_OK, "", "", PROFPACK_UNKNOWN_POSITION, PROFPACK_UNKNOWN_POSITION};
}

profpack_status setError(profpack_status code, const char* message, const char* format,
                         uint64_t offset, uint64_t line) noexcept {
  ThreadError& e = threadError();
  try {
    e.message = message;
    e.format = format;
    e.pub = {code, e.message.c_str(), e.format.c_str(), offset, line};
  } catch (...) {
    e.pub = {code, "out of memory while reporting an error", "", offset, line};
  }
  return code;
}

}  // namespace profpack::capi

using namespace profpack::capi;

extern "C" {

unsigned profpack_version_number(void) { return PROFPACK_VERSION_NUMBER; }
const char* profpack_version_string(void) { return PROFPACK_VERSION_STRING; }

const profpack_error* profpack_last_error(void) { return &threadError().pub; }

const char* profpack_status_name(profpack_status status) {
  switch (status) {
    case PROFPACK_OK: return "ok";
    case PROFPACK_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case PROFPACK_ERROR_IO: return "i/o error";
    case PROFPACK_ERROR_MALFORMED: return "malformed input";
    case PROFPACK_ERROR_UNSUPPORTED: return "unsupported";
    case PROFPACK_ERROR_LIMIT: return "limit exceeded";
    case PROFPACK_ERROR_NO_MEMORY: return "out of memory";
    case PROFPACK_ERROR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

const char* profpack_format_name(profpack_format format) {
  return profpack::formatName(static_cast<profpack::FormatId>(formatValue(format)));
}

profpack_format profpack_format_from_name(const char* name) {
  if (!name) return PROFPACK_FORMAT_UNKNOWN;
  return static_cast<profpack_format>(profpack::formatFromName(name));
}

profpack_format profpack_format_for_path(const char* path) {
  if (!path) return PROFPACK_FORMAT_UNKNOWN;
  return static_cast<profpack_format>(profpack::formatForFileName(path));
}

void profpack_format_info_init(profpack_format_info* info) {
  if (!info) return;
  std::memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
}

profpack_status profpack_format_describe(profpack_format format, profpack_format_info* info) {
  return guard([&] {
    require(info != nullptr, "profpack_format_describe: info must not be NULL");
    uint32_t size = 0;
    std::memcpy(&size, info, sizeof size);
    require(size >= PROFPACK_CAPI_END_OF(profpack_format_info, flags),
            "profpack_format_info.struct_size is too small: initialise it with "
            "profpack_format_info_init()");
    profpack::FormatFacts facts;
    if (!profpack::formatFacts(static_cast<profpack::FormatId>(formatValue(format)), facts))
      throw profpack::Error(profpack::Status::invalidArgument, "",
                            "no format has the value " + std::to_string(formatValue(format)));
    profpack_format_info full;
    profpack_format_info_init(&full);
    full.flags = (facts.readable ? PROFPACK_FORMAT_READABLE : 0u) |
                 (facts.writable ? PROFPACK_FORMAT_WRITABLE : 0u) |
                 (facts.writesLines ? PROFPACK_FORMAT_WRITES_LINES : 0u);
    full.name = profpack_format_name(format);
    full.description = facts.about;
    full.endings = facts.endings;
    full.file_names = facts.fileNames;
    full.struct_size = size;
    std::memcpy(static_cast<void*>(info), &full, std::min<size_t>(size, sizeof full));
  });
}

profpack_format profpack_detect_format(const void* data, size_t size) {
  if (!data && size) return PROFPACK_FORMAT_UNKNOWN;
  return static_cast<profpack_format>(
      profpack::detectFormat({static_cast<const uint8_t*>(data), size}));
}

}  // extern "C"
