// The C ABI: every entry point resets the thread's error, runs the C++ core inside one
// catch-all guard, and returns a status. No C++ type or exception crosses this file.

#include "profpack/profpack.h"

#include <kj/exception.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>

#include "container/ppk.h"
#include "error.h"
#include "formats/registry.h"
#include "merge/merge.h"
#include "model/find.h"
#include "model/model.h"
#include "symbolize/symbolize.h"
#include "util/io.h"
#include "util/pages.h"

// A handle: the profile's data, shared by its views, and what this handle shows of it. Nothing
// in a handle changes after it is made but its model, built once on the first query.
struct profpack_profile {
  std::shared_ptr<const profpack::Profile> profile;
  profpack::ModelOptions options;  // a view's thread and binary
  std::mutex modelMutex;
  std::unique_ptr<profpack::Model> model;  // built on the first query, for `options`
};

namespace {

using profpack::Error;
using profpack::Status;

struct ThreadError {
  profpack_error pub{PROFPACK_OK, "", "", PROFPACK_UNKNOWN_POSITION, PROFPACK_UNKNOWN_POSITION};
  std::string message;
  std::string format;
};

ThreadError& threadError() {
  thread_local ThreadError e;
  return e;
}

void resetError() {
  ThreadError& e = threadError();
  e.message.clear();
  e.format.clear();
  e.pub = {PROFPACK_OK, "", "", PROFPACK_UNKNOWN_POSITION, PROFPACK_UNKNOWN_POSITION};
}

profpack_status setError(profpack_status code, const char* message, const char* format = "",
                         uint64_t offset = PROFPACK_UNKNOWN_POSITION,
                         uint64_t line = PROFPACK_UNKNOWN_POSITION) noexcept {
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

template <typename F>
profpack_status guard(F&& f) noexcept {
  resetError();
  try {
    f();
    return PROFPACK_OK;
  } catch (const Error& e) {
    return setError(static_cast<profpack_status>(e.status()), e.what(), e.format().c_str(),
                    e.offset(), e.line());
  } catch (const std::bad_alloc&) {
    return setError(PROFPACK_ERROR_NO_MEMORY, "out of memory");
  } catch (const kj::Exception& e) {
    // Cap'n Proto reports a malformed or oversized message this way.
    std::string m = std::string("invalid IR message: ") + e.getDescription().cStr();
    return setError(PROFPACK_ERROR_MALFORMED, m.c_str(), "ppk");
  } catch (const std::exception& e) {
    std::string m = std::string("internal error: ") + e.what();
    return setError(PROFPACK_ERROR_INTERNAL, m.c_str());
  } catch (...) {
    return setError(PROFPACK_ERROR_INTERNAL, "internal error: unknown exception");
  }
}

// A profpack_format from the caller as a plain integer, read without a typed enum load: a C
// caller may pass any int, which is undefined behaviour to load as the C++ enum.
int formatValue(const profpack_format& f) {
  std::underlying_type_t<profpack_format> v;
  std::memcpy(&v, &f, sizeof v);
  return static_cast<int>(v);
}

void require(bool ok, const char* what) {
  if (!ok) throw Error(Status::invalidArgument, "", what);
}

profpack::ReadOptions readOptions(const profpack_read_options* o) {
  profpack_read_options d;
  profpack_read_options_init(&d);
  if (o) {
    require(o->struct_size >= offsetof(profpack_read_options, format) + sizeof(profpack_format),
            "profpack_read_options.struct_size is too small: initialise it with "
            "profpack_read_options_init()");
    d = *o;
  }
  require((d.flags & ~(PROFPACK_READ_STRICT | PROFPACK_READ_DEFER_IR)) == 0,
          "unknown bits in profpack_read_options.flags");
  require(formatValue(d.format) >= PROFPACK_FORMAT_UNKNOWN &&
              formatValue(d.format) <= PROFPACK_FORMAT_CPUPROFILE,
          "unknown format in profpack_read_options.format");
  profpack::ReadOptions r;
  r.maxPpkMessage = d.max_ppk_size;
  r.strict = (d.flags & PROFPACK_READ_STRICT) != 0;
  r.deferIR = (d.flags & PROFPACK_READ_DEFER_IR) != 0;
  r.format = static_cast<profpack::FormatId>(formatValue(d.format));
  return r;
}

// The write parameters: a slot in profpack_write_options' reserved arrays, bounds, default.
struct WriteParam {
  profpack_write_param key;
  const char* name;
  bool isString;
  unsigned slot;
  int64_t lowest, highest, defaultValue;
  const char* range;         // for the error message
  bool (*allowed)(int64_t);  // a further check within the bounds, or null
};
constexpr WriteParam kWriteParams[] = {
    {PROFPACK_WRITE_PPK_LEVEL, "PROFPACK_WRITE_PPK_LEVEL", false, 0, 1, 22, 3, "1-22", nullptr},
    {PROFPACK_WRITE_XRAY_MODE, "PROFPACK_WRITE_XRAY_MODE", false, 1, -1, 1, -1,
     "-1 (as read), 0 (basic) or 1 (FDR)", nullptr},
    {PROFPACK_WRITE_XRAY_VERSION, "PROFPACK_WRITE_XRAY_VERSION", false, 2, 0, 5, 0,
     "0 (as read) or 1-5", nullptr},
    {PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES, "PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES", false, 3, 0, 8,
     0, "0 (as read), 4 or 8", [](int64_t v) { return v == 0 || v == 4 || v == 8; }},
    {PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER, "PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER", false, 4, 0, 2,
     0, "0 (as read), 1 (little-endian) or 2 (big-endian)", nullptr},
    {PROFPACK_WRITE_DCPI_IMAGE, "PROFPACK_WRITE_DCPI_IMAGE", true, 0, 0, 0, 0, "a string", nullptr},
};
static_assert(sizeof(profpack_write_options::reserved_values) / sizeof(int64_t) >= 5);

// `key` as passed by a caller may hold any integer: it is read through its underlying type,
// never as the enum (an out-of-range enum value is undefined behaviour).
const WriteParam& writeParam(const profpack_write_param& key, bool isString) {
  std::underlying_type_t<profpack_write_param> k;
  std::memcpy(&k, &key, sizeof k);
  for (const WriteParam& p : kWriteParams) {
    if (static_cast<std::underlying_type_t<profpack_write_param>>(p.key) != k) continue;
    if (p.isString != isString)
      throw Error(Status::invalidArgument, "",
                  std::string(p.name) + (p.isString ? " is a string parameter: set it with "
                                                      "profpack_write_options_set_string()"
                                                    : " is an integer parameter: set it with "
                                                      "profpack_write_options_set()"));
    return p;
  }
  throw Error(Status::invalidArgument, "", "unknown write parameter " + std::to_string(k));
}

int64_t intParam(const profpack_write_options& o, profpack_write_param key) {
  return o.reserved_values[writeParam(key, false).slot];
}

profpack::WriteOptions writeOptions(const profpack_write_options* o) {
  profpack_write_options d;
  profpack_write_options_init(&d);
  if (o) {
    require(o->struct_size >= sizeof *o,
            "profpack_write_options.struct_size is too small: initialise it with "
            "profpack_write_options_init()");
    d = *o;
  }
  // The setters checked each value; a caller who wrote the reserved members directly is
  // still stopped here.
  for (const WriteParam& p : kWriteParams) {
    if (p.isString) continue;
    const int64_t v = d.reserved_values[p.slot];
    require(v >= p.lowest && v <= p.highest && (!p.allowed || p.allowed(v)),
            "profpack_write_options holds a value out of bounds: set parameters with "
            "profpack_write_options_set()");
  }
  profpack::WriteOptions w;
  w.ppkLevel = static_cast<int>(intParam(d, PROFPACK_WRITE_PPK_LEVEL));
  w.xrayMode = static_cast<int>(intParam(d, PROFPACK_WRITE_XRAY_MODE));
  w.xrayVersion = static_cast<int>(intParam(d, PROFPACK_WRITE_XRAY_VERSION));
  const char* image = d.reserved_strings[writeParam(PROFPACK_WRITE_DCPI_IMAGE, true).slot];
  if (image) w.dcpiImage = image;
  w.gperfSlotBytes = static_cast<unsigned>(intParam(d, PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES));
  w.gperfByteOrder = static_cast<int>(intParam(d, PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER));
  return w;
}

profpack::FormatId outputFormat(const profpack_format& f) {
  require(formatValue(f) >= PROFPACK_FORMAT_PPK && formatValue(f) <= PROFPACK_FORMAT_CPUPROFILE,
          "unknown output format");
  return static_cast<profpack::FormatId>(formatValue(f));
}

const profpack::Model& modelOf(const profpack_profile* p) {
  auto* m = const_cast<profpack_profile*>(p);
  std::lock_guard<std::mutex> lock(m->modelMutex);
  if (!m->model) m->model = profpack::buildModel(*m->profile, m->options);
  return *m->model;
}

void requireEvent(const profpack::Model& g, size_t event) {
  if (event >= g.events())
    throw Error(Status::invalidArgument, "",
                "event index " + std::to_string(event) + " out of range: the profile has " +
                    std::to_string(g.events()) + " events");
}

void requireFunction(const profpack::Model& g, size_t id) {
  if (id >= g.functions())
    throw Error(Status::invalidArgument, "",
                "function id " + std::to_string(id) + " out of range: the profile has " +
                    std::to_string(g.functions()) + " functions");
}

profpack_status edges(const profpack_profile* profile, size_t id, size_t event,
                      profpack_call* calls, size_t capacity, size_t* count, bool callers) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profile and count must not be NULL");
    require(calls || capacity == 0, "calls is NULL but capacity > 0");
    const profpack::Model& g = modelOf(profile);
    requireFunction(g, id);
    requireEvent(g, event);
    auto list = callers ? g.callers(id) : g.callees(id);
    std::sort(list.begin(), list.end(), [&](auto* a, auto* b) {
      return a->inclusive[event] != b->inclusive[event]
                 ? a->inclusive[event] > b->inclusive[event]
                 : (callers ? a->caller < b->caller : a->callee < b->callee);
    });
    *count = list.size();
    for (size_t i = 0; i < capacity && i < list.size(); ++i)
      calls[i] = {static_cast<size_t>(callers ? list[i]->caller : list[i]->callee), list[i]->calls,
                  list[i]->inclusive[event]};
  });
}

profpack_profile* wrap(std::unique_ptr<profpack::Profile> p) {
  auto* h = new profpack_profile;
  h->profile = std::move(p);
  return h;
}

}  // namespace

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

profpack_format profpack_detect_format(const void* data, size_t size) {
  if (!data && size) return PROFPACK_FORMAT_UNKNOWN;
  return static_cast<profpack_format>(
      profpack::detectFormat({static_cast<const uint8_t*>(data), size}));
}

void profpack_read_options_init(profpack_read_options* options) {
  if (!options) return;
  options->struct_size = sizeof *options;
  options->flags = 0;
  options->max_ppk_size = profpack::kDefaultMaxPpkMessage;
  options->format = PROFPACK_FORMAT_UNKNOWN;
}

void profpack_write_options_init(profpack_write_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  for (const WriteParam& p : kWriteParams)
    if (!p.isString) options->reserved_values[p.slot] = p.defaultValue;
}

profpack_status profpack_write_options_set(profpack_write_options* options,
                                           profpack_write_param param, int64_t value) {
  return guard([&] {
    require(options && options->struct_size >= sizeof *options,
            "profpack_write_options_set: options must be set up by profpack_write_options_init()");
    const WriteParam& p = writeParam(param, false);
    if (value < p.lowest || value > p.highest || (p.allowed && !p.allowed(value)))
      throw Error(Status::invalidArgument, "",
                  std::string(p.name) + " must be " + p.range + ", not " + std::to_string(value));
    options->reserved_values[p.slot] = value;
    options->reserved_set |= 1u << p.slot;
  });
}

profpack_status profpack_write_options_set_string(profpack_write_options* options,
                                                  profpack_write_param param, const char* value) {
  return guard([&] {
    require(options && options->struct_size >= sizeof *options,
            "profpack_write_options_set_string: options must be set up by "
            "profpack_write_options_init()");
    const WriteParam& p = writeParam(param, true);
    options->reserved_strings[p.slot] = value;
  });
}

profpack_status profpack_write_param_bounds(profpack_write_param param, int64_t* lowest,
                                            int64_t* highest, int64_t* default_value) {
  return guard([&] {
    const WriteParam& p = writeParam(param, false);
    if (lowest) *lowest = p.lowest;
    if (highest) *highest = p.highest;
    if (default_value) *default_value = p.defaultValue;
  });
}

profpack_status profpack_read_file(const char* path, const profpack_read_options* options,
                                   profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(path && out, "profpack_read_file: path and out must not be NULL");
    auto opts = readOptions(options);
    profpack::InputFile in(path);  // its own errors name the file already
    profpack::FileMappingScope scope(in.mapped() ? in.bytes() : std::span<const uint8_t>());
    try {
      *out = wrap(profpack::readProfile(in.bytes(), opts));
    } catch (const profpack::Error& e) {
      throw e.inFile(path);
    }
  });
}

profpack_status profpack_read_files(const char* const* paths, size_t count,
                                    const profpack_read_options* options, profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(paths && out && count > 0,
            "profpack_read_files: paths and out must not be NULL, count not 0");
    for (size_t i = 0; i < count; ++i)
      require(paths[i] != nullptr, "profpack_read_files: a path is NULL");
    auto opts = readOptions(options);
    std::vector<std::unique_ptr<profpack::InputFile>> files;
    std::vector<std::span<const uint8_t>> bytes;
    for (size_t i = 0; i < count; ++i) {
      files.push_back(std::make_unique<profpack::InputFile>(paths[i]));
      bytes.push_back(files.back()->bytes());
    }
    try {
      *out = wrap(
          profpack::readProfileParts(bytes, opts, [&](size_t i) { return std::string(paths[i]); }));
    } catch (const profpack::Error& e) {
      if (count == 1) throw e.inFile(paths[0]);
      throw;
    }
  });
}

profpack_status profpack_read_memory(const void* data, size_t size,
                                     const profpack_read_options* options, profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(out && (data || size == 0), "profpack_read_memory: data and out must not be NULL");
    auto opts = readOptions(options);
    *out = wrap(profpack::readProfile({static_cast<const uint8_t*>(data), size}, opts));
  });
}

profpack_status profpack_write_file(const profpack_profile* profile, profpack_format format,
                                    const char* path, const profpack_write_options* options) {
  return guard([&] {
    require(profile && path, "profpack_write_file: profile and path must not be NULL");
    auto opts = writeOptions(options);
    if (std::strcmp(path, "-") == 0) {
      // Standard output cannot be taken back: nothing goes out before the writer succeeded.
      profpack::StringSink whole;
      profpack::writeProfile(*profile->profile, outputFormat(format), opts, whole);
      profpack::writeFileAtomic(path, whole.out);
      return;
    }
    // Text formats stream to the file as they are written; the file appears only when whole.
    profpack::AtomicFile file(path);
    profpack::writeProfile(*profile->profile, outputFormat(format), opts, file);
    file.commit();
  });
}

profpack_status profpack_write_memory(const profpack_profile* profile, profpack_format format,
                                      const profpack_write_options* options, void** out_data,
                                      size_t* out_size) {
  if (out_data) *out_data = nullptr;
  if (out_size) *out_size = 0;
  return guard([&] {
    require(profile && out_data && out_size,
            "profpack_write_memory: profile, out_data and out_size must not be NULL");
    auto opts = writeOptions(options);
    std::string bytes = profpack::writeProfile(*profile->profile, outputFormat(format), opts);
    void* buf = std::malloc(bytes.size() ? bytes.size() : 1);
    if (!buf) throw std::bad_alloc();
    std::memcpy(buf, bytes.data(), bytes.size());
    *out_data = buf;
    *out_size = bytes.size();
  });
}

void profpack_free(void* data) { std::free(data); }

void profpack_profile_free(profpack_profile* profile) { delete profile; }

profpack_format profpack_profile_format(const profpack_profile* profile) {
  if (!profile) return PROFPACK_FORMAT_UNKNOWN;
  return static_cast<profpack_format>(profpack::formatOf(*profile->profile));
}

void profpack_info_init(profpack_info* info) {
  if (!info) return;
  std::memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
  info->format_version = "";
}

// The model's capabilities the header names, with the same bits.
static_assert(uint32_t{PROFPACK_HAS_CALL_ARCS} == uint32_t{profpack::kCapCallArcs} &&
                  uint32_t{PROFPACK_HAS_CALL_COUNTS} == uint32_t{profpack::kCapCallCounts} &&
                  uint32_t{PROFPACK_HAS_LINES} == uint32_t{profpack::kCapLines} &&
                  uint32_t{PROFPACK_HAS_ADDRESSES} == uint32_t{profpack::kCapAddresses} &&
                  uint32_t{PROFPACK_HAS_STACKS} == uint32_t{profpack::kCapStacks} &&
                  uint32_t{PROFPACK_HAS_TIMELINE} == uint32_t{profpack::kCapTimeline} &&
                  uint32_t{PROFPACK_HAS_THREADS} == uint32_t{profpack::kCapThreads} &&
                  uint32_t{PROFPACK_HAS_NAMES} == uint32_t{profpack::kCapNames},
              "profpack_capability must keep the model's Capability bits");
constexpr uint32_t kPublicCapabilities = 0xff;

profpack_status profpack_profile_info(const profpack_profile* profile, profpack_info* info) {
  return guard([&] {
    require(profile && info, "profpack_profile_info: profile and info must not be NULL");
    require(info->struct_size >= offsetof(profpack_info, strings) + sizeof(uint64_t),
            "profpack_info.struct_size is too small: initialise it with profpack_info_init()");
    const profpack::Model& g = modelOf(profile);
    const profpack::Summary& s = g.summary();
    info->format = profpack_profile_format(profile);
    info->format_version = s.formatVersion.c_str();
    info->parts = s.parts;
    info->events = g.events();
    info->records = s.records;
    info->functions = s.functions;
    info->files = s.files;
    info->objects = s.objects;
    info->strings = s.strings;
    if (info->struct_size >= offsetof(profpack_info, ir_bytes) + sizeof(uint64_t))
      info->ir_bytes = profile->profile->flatSize();
    if (info->struct_size >= offsetof(profpack_info, signed_costs) + sizeof(int32_t))
      info->signed_costs = g.has(profpack::kCapSigned) ? 1 : 0;
    if (info->struct_size >= offsetof(profpack_info, capabilities) + sizeof(uint32_t))
      info->capabilities = g.capabilities() & kPublicCapabilities;
  });
}

profpack_status profpack_profile_events(const profpack_profile* profile, profpack_event* events,
                                        size_t capacity, size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profpack_profile_events: profile and count must not be NULL");
    require(events || capacity == 0, "profpack_profile_events: events is NULL but capacity > 0");
    const profpack::Model& g = modelOf(profile);
    *count = g.events();
    for (size_t i = 0; i < capacity && i < g.events(); ++i)
      events[i] = {g.eventNames()[i].c_str(), g.eventLongNames()[i].c_str(), g.total(i)};
  });
}

profpack_status profpack_profile_warnings(const profpack_profile* profile, const char** warnings,
                                          size_t capacity, size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profpack_profile_warnings: profile and count must not be NULL");
    require(warnings || capacity == 0,
            "profpack_profile_warnings: warnings is NULL but capacity > 0");
    const auto& list = profile->profile->warnings();
    *count = list.size();
    for (size_t i = 0; i < capacity && i < list.size(); ++i) warnings[i] = list[i].c_str();
  });
}

profpack_status profpack_profile_equal(const profpack_profile* a, const profpack_profile* b,
                                       int* equal) {
  if (equal) *equal = 0;
  return guard([&] {
    require(a && b && equal, "profpack_profile_equal: arguments must not be NULL");
    *equal = profpack::equalIR(*a->profile, *b->profile) ? 1 : 0;
  });
}

struct profpack_merger {
  profpack::EventRenames renames;
  std::unique_ptr<profpack::MergeStream> stream;  // made at the first add, with the renames
  bool finished = false;
};

profpack_status profpack_merger_new(profpack_merger** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(out != nullptr, "profpack_merger_new: out must not be NULL");
    *out = new profpack_merger;
  });
}

profpack_status profpack_merger_add(profpack_merger* merger, const profpack_profile* profile,
                                    const char* name) {
  return guard([&] {
    require(merger && profile, "profpack_merger_add: merger and profile must not be NULL");
    require(!merger->finished, "profpack_merger_add: the merger is finished");
    if (!merger->stream) merger->stream = std::make_unique<profpack::MergeStream>(merger->renames);
    merger->stream->add({profile->profile.get(), name ? name : ""});
  });
}

profpack_status profpack_merger_finish(profpack_merger* merger, profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(merger && out, "profpack_merger_finish: merger and out must not be NULL");
    require(!merger->finished, "profpack_merger_finish: the merger is finished");
    merger->finished = true;
    if (!merger->stream) merger->stream = std::make_unique<profpack::MergeStream>(merger->renames);
    *out = wrap(merger->stream->finish());
  });
}

profpack_status profpack_merger_rename_event(profpack_merger* merger, const char* from,
                                             const char* to) {
  return guard([&] {
    require(merger && from && to, "profpack_merger_rename_event: arguments must not be NULL");
    require(!merger->stream, "profpack_merger_rename_event: profiles were added already");
    merger->renames[from] = to;
  });
}

void profpack_merger_free(profpack_merger* merger) { delete merger; }

profpack_status profpack_merge(const profpack_profile* const* profiles, const char* const* names,
                               size_t count, profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(out && (profiles || count == 0), "profpack_merge: profiles and out must not be NULL");
    std::vector<profpack::MergeInput> inputs(count);
    for (size_t i = 0; i < count; ++i) {
      require(profiles[i] != nullptr, "profpack_merge: a profile is NULL");
      inputs[i].profile = profiles[i]->profile.get();
      if (names && names[i]) inputs[i].name = names[i];
    }
    *out = wrap(profpack::mergeProfiles(inputs));
  });
}

void profpack_diff_options_init(profpack_diff_options* options) {
  if (!options) return;
  *options = profpack_diff_options{};
  options->struct_size = sizeof *options;
}

profpack_status profpack_diff(const profpack_profile* base, const profpack_profile* current,
                              const profpack_diff_options* options, profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(base && current && out, "profpack_diff: base, current and out must not be NULL");
    profpack_diff_options o;
    profpack_diff_options_init(&o);
    if (options) {
      require(options->struct_size >=
                  offsetof(profpack_diff_options, event_renames_count) + sizeof(size_t),
              "profpack_diff_options.struct_size is too small: initialise it with "
              "profpack_diff_options_init()");
      o = *options;
    }
    require((o.mod_filename || o.mod_filename_count == 0) &&
                (o.mod_funcname || o.mod_funcname_count == 0),
            "profpack_diff_options: a rewrite list is NULL but its count is not 0");
    profpack::DiffOptions d;
    for (size_t i = 0; i < o.mod_filename_count; ++i) {
      require(o.mod_filename[i] != nullptr, "profpack_diff_options: a mod_filename is NULL");
      d.modFilename.emplace_back(o.mod_filename[i]);
    }
    for (size_t i = 0; i < o.mod_funcname_count; ++i) {
      require(o.mod_funcname[i] != nullptr, "profpack_diff_options: a mod_funcname is NULL");
      d.modFuncname.emplace_back(o.mod_funcname[i]);
    }
    require(o.event_renames || o.event_renames_count == 0,
            "profpack_diff_options: event_renames is NULL but its count is not 0");
    for (size_t i = 0; i < o.event_renames_count; ++i) {
      const char* r = o.event_renames[i];
      const char* eq = r ? std::strchr(r, '=') : nullptr;
      require(eq && eq != r && eq[1], "profpack_diff_options: an event rename is not FROM=TO");
      d.eventRenames[std::string(r, eq)] = eq + 1;
    }
    profpack::MergeInput b{base->profile.get(), o.base_name ? o.base_name : ""};
    profpack::MergeInput c{current->profile.get(), o.current_name ? o.current_name : ""};
    *out = wrap(profpack::diffProfiles(b, c, d));
  });
}

void profpack_symbolize_options_init(profpack_symbolize_options* options) {
  if (!options) return;
  *options = profpack_symbolize_options{};
  options->struct_size = sizeof *options;
}

profpack_status profpack_profile_symbolize(const profpack_profile* profile,
                                           const profpack_symbolize_options* options,
                                           profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(profile && out, "profpack_profile_symbolize: profile and out must not be NULL");
    profpack_symbolize_options o;
    profpack_symbolize_options_init(&o);
    if (options) {
      require(options->struct_size >=
                  offsetof(profpack_symbolize_options, binary) + sizeof(const char*),
              "profpack_symbolize_options.struct_size is too small: initialise it with "
              "profpack_symbolize_options_init()");
      o = *options;
    }
    require(o.binary_path || o.binary_path_count == 0,
            "profpack_symbolize_options: binary_path is NULL but its count is not 0");
    profpack::SymbolizeOptions so;
    for (size_t i = 0; i < o.binary_path_count; ++i) {
      require(o.binary_path[i] != nullptr, "profpack_symbolize_options: a binary_path is NULL");
      so.binaryPath.emplace_back(o.binary_path[i]);
    }
    if (o.binary) so.binary = o.binary;
    *out = wrap(profpack::symbolizeProfile(*profile->profile, so));
  });
}

profpack_status profpack_profile_event_index(const profpack_profile* profile, const char* name,
                                             size_t* index) {
  return guard([&] {
    require(profile && name && index, "profile, name and index must not be NULL");
    const profpack::Model& g = modelOf(profile);
    long i = g.eventIndex(name);
    if (i < 0) {
      std::string known;
      for (auto& e : g.eventNames()) known += (known.empty() ? "" : ", ") + e;
      throw Error(Status::invalidArgument, "",
                  std::string("no event named '") + name + "' (events: " + known + ")");
    }
    *index = static_cast<size_t>(i);
  });
}

profpack_status profpack_profile_functions(const profpack_profile* profile,
                                           profpack_function* functions, size_t capacity,
                                           size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profpack_profile_functions: profile and count must not be NULL");
    require(functions || capacity == 0,
            "profpack_profile_functions: functions is NULL but capacity > 0");
    const profpack::Model& g = modelOf(profile);
    *count = g.functions();
    for (size_t i = 0; i < capacity && i < g.functions(); ++i) {
      const profpack::FunctionRow& f = g.function(i);
      functions[i] = {f.name.c_str(), f.file.c_str(), f.object.c_str()};
    }
  });
}

profpack_status profpack_profile_find_functions(const profpack_profile* profile,
                                                const char* pattern, uint32_t flags, size_t* ids,
                                                size_t capacity, size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && pattern && count,
            "profpack_profile_find_functions: profile, pattern and count must not be NULL");
    require(ids || capacity == 0, "profpack_profile_find_functions: ids is NULL but capacity > 0");
    require((flags & ~uint32_t{PROFPACK_FIND_SIMILAR}) == 0,
            "profpack_profile_find_functions: unknown flags");
    const profpack::Model& g = modelOf(profile);
    const std::vector<uint64_t> found = (flags & PROFPACK_FIND_SIMILAR)
                                            ? profpack::similarFunctions(g, pattern, capacity)
                                            : profpack::findFunctions(g, pattern);
    *count = found.size();
    for (size_t i = 0; i < capacity && i < found.size(); ++i) ids[i] = found[i];
  });
}

profpack_status profpack_profile_function(const profpack_profile* profile, size_t id,
                                          profpack_function* out) {
  return guard([&] {
    require(profile && out, "profile and out must not be NULL");
    const profpack::Model& g = modelOf(profile);
    requireFunction(g, id);
    const profpack::FunctionRow& f = g.function(id);
    *out = {f.name.c_str(), f.file.c_str(), f.object.c_str()};
  });
}

profpack_status profpack_profile_function_line(const profpack_profile* profile, size_t id,
                                               uint64_t* line) {
  if (line) *line = 0;
  return guard([&] {
    require(profile && line, "profile and line must not be NULL");
    const profpack::Model& g = modelOf(profile);
    requireFunction(g, id);
    *line = g.function(id).line;
  });
}

profpack_status profpack_profile_function_cost(const profpack_profile* profile, size_t id,
                                               size_t event, uint64_t* self, uint64_t* inclusive) {
  return guard([&] {
    require(profile, "profile must not be NULL");
    const profpack::Model& g = modelOf(profile);
    requireFunction(g, id);
    requireEvent(g, event);
    if (self) *self = g.self(id, event);
    if (inclusive) *inclusive = g.inclusive(id, event);
  });
}

profpack_status profpack_profile_top_functions(const profpack_profile* profile, size_t event,
                                               uint32_t flags, size_t* ids, size_t capacity,
                                               size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profile and count must not be NULL");
    require(ids || capacity == 0, "ids is NULL but capacity > 0");
    require((flags & ~PROFPACK_TOP_INCLUSIVE) == 0, "unknown flags");
    const profpack::Model& g = modelOf(profile);
    requireEvent(g, event);
    *count = g.functions();
    if (capacity == 0) return;
    auto top = g.top(event, flags & PROFPACK_TOP_INCLUSIVE, capacity);
    for (size_t i = 0; i < top.size() && i < capacity; ++i) ids[i] = static_cast<size_t>(top[i]);
  });
}

profpack_status profpack_profile_line_costs(const profpack_profile* profile, const char* file,
                                            size_t event, profpack_line_cost* lines,
                                            size_t capacity, size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && file && count, "profile, file and count must not be NULL");
    require(lines || capacity == 0, "lines is NULL but capacity > 0");
    const profpack::Model& g = modelOf(profile);
    requireEvent(g, event);
    auto lc = g.lines(file);
    *count = lc.size();
    for (size_t i = 0; i < capacity && i < lc.size(); ++i)
      lines[i] = {lc[i].line, lc[i].cost[event]};
  });
}

profpack_status profpack_profile_callers(const profpack_profile* profile, size_t id, size_t event,
                                         profpack_call* calls, size_t capacity, size_t* count) {
  return edges(profile, id, event, calls, capacity, count, true);
}

profpack_status profpack_profile_callees(const profpack_profile* profile, size_t id, size_t event,
                                         profpack_call* calls, size_t capacity, size_t* count) {
  return edges(profile, id, event, calls, capacity, count, false);
}

profpack_status profpack_profile_function_calls(const profpack_profile* profile, size_t id,
                                                uint64_t* calls) {
  return guard([&] {
    require(profile && calls, "profile and calls must not be NULL");
    const profpack::Model& g = modelOf(profile);
    requireFunction(g, id);
    *calls = g.calls(id);
  });
}

profpack_status profpack_profile_units_per_second(const profpack_profile* profile,
                                                  double* per_second) {
  return guard([&] {
    require(profile && per_second, "profile and per_second must not be NULL");
    // A sampled profile's samples are time too: each stands for the sampling period.
    const profpack::Model& m = modelOf(profile);
    *per_second = m.unitsPerSecond() > 0      ? m.unitsPerSecond()
                  : m.samplePeriodNanos() > 0 ? 1e9 / static_cast<double>(m.samplePeriodNanos())
                                              : 0;
  });
}

profpack_status profpack_profile_threads(const profpack_profile* profile, profpack_thread* threads,
                                         size_t capacity, size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profile and count must not be NULL");
    require(threads || capacity == 0, "threads is NULL but capacity > 0");
    const auto& list = modelOf(profile).threads();
    *count = list.size();
    for (size_t i = 0; i < capacity && i < list.size(); ++i)
      threads[i] = {list[i].pid, list[i].threadId};
  });
}

void profpack_view_options_init(profpack_view_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->thread = PROFPACK_ALL_THREADS;
  options->binary = nullptr;
}

profpack_status profpack_profile_view(const profpack_profile* profile,
                                      const profpack_view_options* options,
                                      profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(profile && out, "profpack_profile_view: profile and out must not be NULL");
    profpack_view_options o;
    profpack_view_options_init(&o);
    if (options) {
      require(options->struct_size >= offsetof(profpack_view_options, binary) + sizeof(char*),
              "profpack_view_options.struct_size is too small: initialise it with "
              "profpack_view_options_init()");
      o = *options;
    }
    profpack::ModelOptions mo = profile->options;
    if (o.binary) mo.binary = o.binary;
    if (o.thread != PROFPACK_ALL_THREADS) {
      const size_t n = modelOf(profile).threads().size();
      if (o.thread >= n)
        throw Error(Status::invalidArgument, "",
                    "thread index " + std::to_string(o.thread) + " out of range: the profile has " +
                        std::to_string(n) + " threads");
      mo.thread = static_cast<long>(o.thread);
    }
    // Built now, so that a bad binary or thread fails here rather than in a later query.
    auto model = profpack::buildModel(*profile->profile, mo);
    auto h = std::make_unique<profpack_profile>();
    h->profile = profile->profile;
    h->options = mo;
    h->model = std::move(model);
    *out = h.release();
  });
}

}  // extern "C"
