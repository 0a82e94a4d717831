// What the C ABI's modules share: the handle, the per-thread error, the guard every entry
// point runs in, and the copy of a caller's option struct. No C++ type crosses the ABI.
#pragma once

#include <kj/exception.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "error.h"
#include "formats/registry.h"
#include "model/model.h"
#include "profpack/profpack.h"
#include "symbolize/source.h"
#include "symbolize/symbolize.h"

// A handle: the profile's data, shared by its views, and what this handle shows of it. Nothing
// in a handle changes after it is made but its models, each built once on first use.
struct profpack_profile {
  std::shared_ptr<const profpack::Profile> profile;
  profpack::ModelOptions options;  // a view's thread and binary
  std::mutex modelMutex;
  std::unique_ptr<profpack::Model> model;  // built on the first query, for `options`
  // Per thread, the model of that thread, built on the first query that names it
  // (profpack_profile_top's thread); under modelMutex.
  std::map<size_t, std::unique_ptr<profpack::Model>> threadModels;
  int64_t fileTime = 0;  // the profile file's modification time (ns since the epoch; 0: none)
};

namespace profpack::capi {

void resetError();
profpack_status setError(profpack_status code, const char* message, const char* format = "",
                         uint64_t offset = PROFPACK_UNKNOWN_POSITION,
                         uint64_t line = PROFPACK_UNKNOWN_POSITION) noexcept;

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
inline int formatValue(const profpack_format& f) {
  std::underlying_type_t<profpack_format> v;
  std::memcpy(&v, &f, sizeof v);
  return static_cast<int>(v);
}

// Whether `f` is one of the registry's formats (PROFPACK_FORMAT_UNKNOWN is not).
inline bool knownFormat(const profpack_format& f) {
  return std::strcmp(profpack::formatName(static_cast<profpack::FormatId>(formatValue(f))),
                     "unknown") != 0;
}

inline void require(bool ok, const char* what) {
  if (!ok) throw Error(Status::invalidArgument, "", what);
}

inline void require(bool ok, const std::string& what) { require(ok, what.c_str()); }

// A caller's option struct `T` as this library reads it: the defaults `init` sets, with the
// first `struct_size` bytes of `*given` over them. A caller built against an older header
// passes a shorter struct, and nothing beyond its struct_size is read. `minimum` is the size
// of the oldest layout accepted; `name` the struct's type name, for the error. NULL: defaults.
template <typename T>
T callerOptions(const T* given, void (*init)(T*), size_t minimum, const char* name) {
  T o;
  init(&o);
  if (!given) return o;
  uint32_t size = 0;
  std::memcpy(&size, given, sizeof size);
  require(size >= minimum,
          std::string(name) + ".struct_size is too small: initialise it with " + name + "_init()");
  std::memcpy(static_cast<void*>(&o), given, std::min<size_t>(size, sizeof o));
  o.struct_size = sizeof o;
  return o;
}

// The end of member `m` of `T`: the smallest struct_size that covers it.
#define PROFPACK_CAPI_END_OF(T, m) (offsetof(T, m) + sizeof(T::m))

profpack::ReadOptions readOptions(const profpack_read_options* o);
// The directories of an options struct's binary_path array of `count` strings; `what`: the
// struct's name, for the error a NULL array or string gets.
std::vector<std::string> binaryPathOf(const char* const* paths, size_t count, const char* what);
// Where `o` asks for naming (PROFPACK_READ_SYMBOLIZE) and the format of `bytes` lists its
// binaries ahead of its samples: those binaries being opened on a thread while `bytes` is read
// (else null). `opts`: readOptions(o); `fileTime` as for wrapRead.
std::unique_ptr<profpack::NamingAhead> namingAhead(std::span<const uint8_t> bytes,
                                                   const profpack_read_options* o,
                                                   const profpack::ReadOptions& opts,
                                                   int64_t fileTime);
// A profile just read, named from its binaries where `o` asks for it (PROFPACK_READ_SYMBOLIZE),
// as a new handle. `fileTime`: the profile file's modification time (0: unknown). `ahead`:
// namingAhead()'s for the same bytes and options, or null.
profpack_profile* wrapRead(std::unique_ptr<profpack::Profile> p, const profpack_read_options* o,
                           int64_t fileTime, profpack::NamingAhead* ahead = nullptr);
profpack::WriteOptions writeOptions(const profpack_write_options* o);
profpack::FormatId outputFormat(const profpack_format& f);

// The model of a handle, built on its first query.
inline const profpack::Model& modelOf(const profpack_profile* p) {
  auto* m = const_cast<profpack_profile*>(p);
  std::lock_guard<std::mutex> lock(m->modelMutex);
  if (!m->model) m->model = profpack::buildModel(*m->profile, m->options);
  return *m->model;
}
inline profpack_profile* wrap(std::unique_ptr<profpack::Profile> p) {
  profpack::nameBySymbolSection(*p);
  auto* h = new profpack_profile;
  h->profile = std::move(p);
  return h;
}

}  // namespace profpack::capi
