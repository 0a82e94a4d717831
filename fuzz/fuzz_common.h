// Shared body of every harness: read the input through the public C ABI as one format; if
// that succeeds, write it back in the same format, read that again, and require the two IRs
// to be equal. Any crash, sanitizer report, leak, or IR difference is a finding.
#pragma once

#include <profpack/profpack.h>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>

namespace fuzz {

inline void findingIf(bool bad, const char* what) {
  if (bad) {
    std::fprintf(stderr, "FINDING: %s (%s)\n", what, profpack_last_error()->message);
    std::abort();
  }
}

// `back`: the format written and read back (default: `format`, or .ppk where that is unknown).
inline int roundTrip(const uint8_t* data, size_t size, profpack_format format,
                     bool alsoWriteSourceFormat = false,
                     profpack_format back = PROFPACK_FORMAT_UNKNOWN) {
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  ro.format = format;
  ro.max_ppk_size = 256u << 20;  // within the harnesses' -malloc_limit_mb
  profpack_profile* first = nullptr;
  profpack_status s = profpack_read_memory(data, size, &ro, &first);
  if (s != PROFPACK_OK) {
    // Bad input must be reported as such, never as an internal error, with a message.
    findingIf(s == PROFPACK_ERROR_INTERNAL, "internal error on bad input");
    findingIf(first != nullptr, "failed read returned a profile");
    findingIf(*profpack_last_error()->message == '\0', "error without a message");
    return 0;
  }
  // Exercise the summaries and queries too. An IR a format reader built must always answer
  // them. A .ppk's IR is only checked structurally when read (every pointer of the right
  // kind); columns and trees are decoded when a query needs them, and a damaged one must then
  // be reported as such.
  profpack_info info;
  profpack_info_init(&info);
  s = profpack_profile_info(first, &info);
  if (s != PROFPACK_OK) {
    findingIf(format != PROFPACK_FORMAT_PPK, "info failed on a read profile");
    findingIf(s == PROFPACK_ERROR_INTERNAL, "internal error from info on a .ppk's IR");
    findingIf(*profpack_last_error()->message == '\0', "error without a message");
  }
  size_t nf = 0, ids[4], n = 0;
  if (s == PROFPACK_OK && info.events > 0 &&
      profpack_profile_top_functions(first, 0, PROFPACK_TOP_INCLUSIVE, ids, 4, &n) == PROFPACK_OK)
    profpack_profile_functions(first, nullptr, 0, &nf);

  profpack_write_options wo;
  profpack_write_options_init(&wo);
  profpack_write_options_set(&wo, PROFPACK_WRITE_PPK_LEVEL, 1);
  void* out = nullptr;
  size_t outSize = 0;
  if (alsoWriteSourceFormat && profpack_profile_format(first) != PROFPACK_FORMAT_UNKNOWN) {
    // Merging the profile with itself and taking its difference with itself: an error is
    // fine (a damaged IR), a crash or an internal error is not; a result must be writable.
    const profpack_profile* twice[] = {first, first};
    profpack_profile* merged = nullptr;
    s = profpack_merge(twice, nullptr, 2, &merged);
    findingIf(s == PROFPACK_ERROR_INTERNAL, "internal error merging a profile with itself");
    profpack_profile* diff = nullptr;
    s = profpack_diff(first, first, nullptr, &diff);
    findingIf(s == PROFPACK_ERROR_INTERNAL, "internal error diffing a profile with itself");
    for (profpack_profile* p : {merged, diff}) {
      if (!p) continue;
      s = profpack_write_memory(p, PROFPACK_FORMAT_PPK, &wo, &out, &outSize);
      findingIf(s != PROFPACK_OK, "a merge or difference could not be stored as .ppk");
      profpack_free(out);
      out = nullptr;
      profpack_profile_free(p);
    }
    // Every format the profile can be written as (its own and the cross-format writers): an
    // error is fine, a crash or an internal error is not.
    for (int f = PROFPACK_FORMAT_CALLGRIND; f <= PROFPACK_FORMAT_PPROF; ++f) {
      s = profpack_write_memory(first, static_cast<profpack_format>(f), &wo, &out, &outSize);
      findingIf(s == PROFPACK_ERROR_INTERNAL, "internal error writing another format");
      profpack_free(out);
      out = nullptr;
    }
  }
  if (back == PROFPACK_FORMAT_UNKNOWN)
    back = format == PROFPACK_FORMAT_UNKNOWN ? PROFPACK_FORMAT_PPK : format;
  s = profpack_write_memory(first, back, &wo, &out, &outSize);
  if (s != PROFPACK_OK && format == PROFPACK_FORMAT_PPK) {
    // A .ppk that keeps its function layer is opened without decompressing its IR (docs/
    // formats.md): a damaged IR is reported by the first use of it, as malformed at the IR
    // frame's offset (32), and is no finding. Any other failure is.
    const profpack_error* e = profpack_last_error();
    findingIf(s != PROFPACK_ERROR_MALFORMED || e->offset != 32,
              "writing a .ppk that was read failed other than on its IR");
    profpack_profile_free(first);
    return 0;
  }
  findingIf(s != PROFPACK_OK, "writing a profile that was read failed");
  ro.max_ppk_size = 1u << 30;
  ro.format = back;
  profpack_profile* second = nullptr;
  s = profpack_read_memory(out, outSize, &ro, &second);
  findingIf(s != PROFPACK_OK, "reading back what was written failed");
  int equal = 0;
  findingIf(profpack_profile_equal(first, second, &equal) != PROFPACK_OK || !equal,
            "round trip changed the IR");
  profpack_free(out);
  profpack_profile_free(second);
  profpack_profile_free(first);
  return 0;
}

}  // namespace fuzz
