// Reading and writing profiles through the C ABI.

#include "util/io.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "internal.h"
#include "symbolize/symbolize.h"
#include "util/pages.h"

using namespace profpack::capi;

namespace {

// A file's modification time in nanoseconds since the epoch; 0 for standard input or where
// unknown.
int64_t modifiedTime(const char* path) {
  struct stat st;
  if (std::strcmp(path, "-") == 0 || ::stat(path, &st) != 0) return 0;
  return int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
}

// A file of `path` read to be a profile: a stream that starts as no profile
// (profpack::checkStreamStart) is refused before the rest is read, the error naming the file.
std::unique_ptr<profpack::InputFile> profileInput(const char* path,
                                                  const profpack::ReadOptions& opts) {
  return std::make_unique<profpack::InputFile>(path, [path, &opts](std::span<const uint8_t> start) {
    try {
      profpack::checkStreamStart(start, opts);
    } catch (const profpack::Error& e) {
      throw e.inFile(path);
    }
  });
}

bool isDirectory(const char* path) {
  struct stat st;
  return std::strcmp(path, "-") != 0 && ::stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

// A directory read as one profile (perf record --threads makes one): its regular files, by
// name, to the format whose directories they make.
std::unique_ptr<profpack::Profile> readDirectory(const std::string& path,
                                                 const profpack::ReadOptions& opts) {
  constexpr size_t kMaxFiles = 65536;  // perf writes one per recording thread
  std::vector<std::string> names;
  if (DIR* d = ::opendir(path.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      struct stat st;
      const std::string name = e->d_name;
      if (::stat((path + "/" + name).c_str(), &st) == 0 && S_ISREG(st.st_mode))
        names.push_back(name);
      if (names.size() > kMaxFiles) break;
    }
    ::closedir(d);
  } else {
    throw profpack::Error(profpack::Status::io, "", "cannot read the directory '" + path + "'");
  }
  if (names.size() > kMaxFiles)
    throw profpack::Error(profpack::Status::limit, "",
                          "'" + path + "' holds more than " + std::to_string(kMaxFiles) + " files");
  std::sort(names.begin(), names.end());
  std::vector<std::unique_ptr<profpack::InputFile>> inputs(names.size());
  profpack::DirectoryFiles dir{names, [&](size_t i) {
                                 if (!inputs.at(i))
                                   inputs[i] =
                                       std::make_unique<profpack::InputFile>(path + "/" + names[i]);
                                 return inputs[i]->bytes();
                               }};
  return profpack::readProfileDirectory(dir, opts);
}

}  // namespace

namespace profpack::capi {

namespace {

profpack_read_options callerReadOptions(const profpack_read_options* o) {
  return callerOptions(o, profpack_read_options_init,
                       PROFPACK_CAPI_END_OF(profpack_read_options, format),
                       "profpack_read_options");
}

// Whether a profile of `format` read with `d` is named from its binaries: asked for, and not a
// rewrite in the profile's own format (which keeps its addresses).
bool namesFromBinaries(const profpack_read_options& d, int format) {
  const bool rewrite = formatValue(d.output_format) != PROFPACK_FORMAT_UNKNOWN &&
                       format == formatValue(d.output_format);
  return (d.flags & PROFPACK_READ_SYMBOLIZE) && !rewrite;
}

profpack::SymbolizeOptions symbolizeOptions(const profpack_read_options& d, int64_t fileTime,
                                            profpack::FormatId format) {
  profpack::SymbolizeOptions so;
  so.namesWithoutParameters = profpack::namesWithoutParameters(format);
  so.binaryPath = binaryPathOf(d.binary_path, d.binary_path_count, "profpack_read_options");
  so.profileTime = fileTime;
  so.symbolTablesOnly = (d.flags & PROFPACK_READ_SYMBOL_TABLES_ONLY) != 0;
  so.noLines = (d.flags & PROFPACK_READ_NO_LINES) != 0;
  return so;
}

}  // namespace

std::unique_ptr<profpack::NamingAhead> namingAhead(std::span<const uint8_t> bytes,
                                                   const profpack_read_options* o,
                                                   const profpack::ReadOptions& opts,
                                                   int64_t fileTime) {
  const profpack_read_options d = callerReadOptions(o);
  if (!(d.flags & PROFPACK_READ_SYMBOLIZE)) return nullptr;
  profpack::FormatId format = profpack::FormatId::unknown;
  const std::vector<profpack::Mapping> binaries = profpack::binariesAhead(bytes, opts, format);
  if (binaries.empty() || !namesFromBinaries(d, static_cast<int>(format))) return nullptr;
  return profpack::namingAhead(binaries, symbolizeOptions(d, fileTime, format));
}

profpack_profile* wrapRead(std::unique_ptr<profpack::Profile> p, const profpack_read_options* o,
                           int64_t fileTime, profpack::NamingAhead* ahead) {
  const profpack_read_options d = callerReadOptions(o);
  if (namesFromBinaries(d, static_cast<int>(profpack::formatOf(*p)))) {
    profpack::SymbolizeOptions so = symbolizeOptions(d, fileTime, profpack::formatOf(*p));
    // Queried or converted, not written as .ppk: the section may wait as the IR's rest does.
    so.deferSection = profpack::readDefersIR(readOptions(o), profpack::formatOf(*p));
    p = profpack::nameFromBinaries(std::move(p), so, ahead);
  }
  profpack_profile* h = wrap(std::move(p));
  h->fileTime = fileTime;
  return h;
}

}  // namespace profpack::capi

extern "C" {

profpack_status profpack_read_file(const char* path, const profpack_read_options* options,
                                   profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(path && out, "profpack_read_file: path and out must not be NULL");
    auto opts = readOptions(options);
    if (isDirectory(path)) {
      try {
        const int64_t fileTime = modifiedTime(path);
        std::unique_ptr<profpack::Profile> p = readDirectory(path, opts);
        p->setFileName(path);
        *out = wrapRead(std::move(p), options, fileTime, nullptr);
        return;
      } catch (const profpack::Error& e) {
        throw e.inFile(path);
      }
    }
    const std::unique_ptr<profpack::InputFile> file = profileInput(path, opts);
    const profpack::InputFile& in = *file;  // its own errors name the file already
    profpack::FileMappingScope scope(in.mapped() ? in.bytes() : std::span<const uint8_t>());
    try {
      // The binaries to name the profile from are opened while it is read, where its format
      // lists them ahead.
      const int64_t fileTime = modifiedTime(path);
      std::unique_ptr<profpack::NamingAhead> ahead =
          namingAhead(in.bytes(), options, opts, fileTime);
      std::unique_ptr<profpack::Profile> p = profpack::readProfile(in.bytes(), opts);
      p->setFileName(path);  // errors of a .ppk's IR read later name the file too
      *out = wrapRead(std::move(p), options, fileTime, ahead.get());
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
      files.push_back(profileInput(paths[i], opts));
      bytes.push_back(files.back()->bytes());
    }
    try {
      int64_t newest = 0;
      for (size_t i = 0; i < count; ++i) newest = std::max(newest, modifiedTime(paths[i]));
      *out = wrapRead(
          profpack::readProfileParts(bytes, opts, [&](size_t i) { return std::string(paths[i]); }),
          options, newest);
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
    const std::span<const uint8_t> bytes(static_cast<const uint8_t*>(data), size);
    std::unique_ptr<profpack::NamingAhead> ahead = namingAhead(bytes, options, opts, 0);
    *out = wrapRead(profpack::readProfile(bytes, opts), options, 0, ahead.get());
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

}  // extern "C"
