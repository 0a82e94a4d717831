// The public C ABI: every call, every error path, through libprofpack.so.
#include <fcntl.h>
#include <profpack/profpack.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "testlib.h"

namespace {
const char* kCg = "cachegrind/cachegrind.workload.out";

profpack_profile* readOk(const std::string& path) {
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_file(path.c_str(), nullptr, &p), PROFPACK_OK);
  CHECK(p != nullptr);
  CHECK_EQ(profpack_last_error()->code, PROFPACK_OK);
  return p;
}
std::string tmpPath(const char* name) {
  const char* d = std::getenv("TMPDIR");
  return std::string(d ? d : "/tmp") + "/profpack-capi-" + std::to_string(getpid()) + "-" + name;
}
// The self cost (first event) of the function named `name`; `none` if there is no such function.
uint64_t selfOf(profpack_profile* p, const char* name, uint64_t none) {
  size_t n = 0;
  uint64_t self = none;
  CHECK_EQ(profpack_profile_functions(p, nullptr, 0, &n), PROFPACK_OK);
  for (size_t i = 0; i < n; ++i) {
    profpack_function f;
    CHECK_EQ(profpack_profile_function(p, i, &f), PROFPACK_OK);
    if (std::strcmp(f.name, name) == 0)
      CHECK_EQ(profpack_profile_function_cost(p, i, 0, &self, nullptr), PROFPACK_OK);
  }
  return self;
}
// Options as a caller built against an older header passes them: initialised, then with bytes
// of 0xA5 past them, where its struct ends (the library must not read past struct_size).
template <class T>
struct Poisoned {
  T o;
  unsigned char poison[64];
  explicit Poisoned(void (*init)(T*)) {
    std::memset(static_cast<void*>(this), 0xA5, sizeof *this);
    init(&o);
  }
};
// Read options that name addresses from the binaries in `dirs` (one directory), with `flags`.
profpack_read_options namingFrom(const char* const* dirs, uint32_t flags) {
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  ro.flags = PROFPACK_READ_SYMBOLIZE | flags;
  ro.binary_path = dirs;
  ro.binary_path_count = 1;
  return ro;
}
// Whether two profiles write the same .ppk bytes.
bool samePpk(const profpack_profile* x, const profpack_profile* y) {
  void *a = nullptr, *b = nullptr;
  size_t na = 0, nb = 0;
  CHECK_EQ(profpack_write_memory(x, PROFPACK_FORMAT_PPK, nullptr, &a, &na), PROFPACK_OK);
  CHECK_EQ(profpack_write_memory(y, PROFPACK_FORMAT_PPK, nullptr, &b, &nb), PROFPACK_OK);
  const bool same = na == nb && std::memcmp(a, b, na) == 0;
  profpack_free(a);
  profpack_free(b);
  return same;
}
}  // namespace

TEST(version) {
  CHECK_EQ(profpack_version_number(), static_cast<unsigned>(PROFPACK_VERSION_NUMBER));
  CHECK(std::strcmp(profpack_version_string(), PROFPACK_VERSION_STRING) == 0);
  // The string is made of the numbers (and meson's project version, in PROFPACK_PROJECT_VERSION
  // of this test's build, is read from them).
  const std::string numbers = std::to_string(PROFPACK_VERSION_MAJOR) + "." +
                              std::to_string(PROFPACK_VERSION_MINOR) + "." +
                              std::to_string(PROFPACK_VERSION_PATCH);
  CHECK(numbers == PROFPACK_VERSION_STRING);
  CHECK(numbers == PROFPACK_PROJECT_VERSION);
}

// Every format described, and every file name it gives maps back to it.
TEST(format_describe) {
  size_t formats = 0, written = 0;
  for (int f = 1;; ++f) {
    profpack_format_info info;
    profpack_format_info_init(&info);
    const auto fmt = static_cast<profpack_format>(f);
    if (profpack_format_describe(fmt, &info) != PROFPACK_OK) {
      CHECK_EQ(profpack_last_error()->code, PROFPACK_ERROR_INVALID_ARGUMENT);
      break;
    }
    ++formats;
    CHECK(std::strcmp(info.name, profpack_format_name(fmt)) == 0);
    CHECK(*info.description);
    CHECK(info.flags & PROFPACK_FORMAT_READABLE);
    written += (info.flags & PROFPACK_FORMAT_WRITABLE) != 0;
    CHECK(*info.endings || *info.file_names);
    for (std::string rest = info.endings; !rest.empty();) {
      const size_t sp = std::min(rest.find(' '), rest.size());
      CHECK_EQ(profpack_format_for_path(("dir/x" + rest.substr(0, sp)).c_str()), fmt);
      rest.erase(0, std::min(sp + 1, rest.size()));
    }
    for (std::string rest = info.file_names; !rest.empty();) {
      const size_t sp = std::min(rest.find(' '), rest.size());
      std::string name = rest.substr(0, sp);
      CHECK(name.back() == '*');
      name.back() = '1';
      CHECK_EQ(profpack_format_for_path(("dir/" + name).c_str()), fmt);
      rest.erase(0, std::min(sp + 1, rest.size()));
    }
  }
  CHECK_EQ(formats, size_t{PROFPACK_FORMAT_PERF_SCRIPT});
  // A V8 profile, perf.data and `perf script` text are read only.
  CHECK_EQ(written, size_t{PROFPACK_FORMAT_PERF_SCRIPT} - 3);
  profpack_format_info info;
  profpack_format_info_init(&info);
  CHECK_EQ(profpack_format_describe(PROFPACK_FORMAT_CPUPROFILE, &info), PROFPACK_OK);
  CHECK_EQ(info.flags, PROFPACK_FORMAT_READABLE);
  CHECK(std::strcmp(info.endings, ".cpuprofile") == 0);
  CHECK_EQ(profpack_format_describe(PROFPACK_FORMAT_PERF, &info), PROFPACK_OK);
  CHECK_EQ(info.flags, PROFPACK_FORMAT_READABLE);
  CHECK(std::strcmp(info.file_names, "perf.data.*") == 0);
  CHECK_EQ(profpack_format_describe(PROFPACK_FORMAT_PERF_SCRIPT, &info), PROFPACK_OK);
  CHECK_EQ(info.flags, PROFPACK_FORMAT_READABLE);
  CHECK_EQ(profpack_format_describe(PROFPACK_FORMAT_CALLGRIND, &info), PROFPACK_OK);
  CHECK(std::strcmp(info.file_names, "callgrind.out.*") == 0);
  CHECK(info.flags & PROFPACK_FORMAT_WRITES_LINES);
  // Folded stacks and trace events hold names and costs, no file or line.
  CHECK_EQ(profpack_format_describe(PROFPACK_FORMAT_FOLDED, &info), PROFPACK_OK);
  CHECK_EQ(info.flags, PROFPACK_FORMAT_READABLE | PROFPACK_FORMAT_WRITABLE);
  CHECK_EQ(profpack_format_describe(PROFPACK_FORMAT_TRACE_EVENT, &info), PROFPACK_OK);
  CHECK_EQ(info.flags, PROFPACK_FORMAT_READABLE | PROFPACK_FORMAT_WRITABLE);
  CHECK_EQ(profpack_format_describe(PROFPACK_FORMAT_UNKNOWN, &info),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_format_describe(PROFPACK_FORMAT_PPK, nullptr), PROFPACK_ERROR_INVALID_ARGUMENT);
  // An older caller's struct: only what its struct_size covers is written.
  profpack_format_info old;
  std::memset(&old, 0xAB, sizeof old);
  old.struct_size = offsetof(profpack_format_info, name);
  CHECK_EQ(profpack_format_describe(PROFPACK_FORMAT_PPROF, &old), PROFPACK_OK);
  CHECK_EQ(old.flags,
           PROFPACK_FORMAT_READABLE | PROFPACK_FORMAT_WRITABLE | PROFPACK_FORMAT_WRITES_LINES);
  unsigned char tail[sizeof old - offsetof(profpack_format_info, name)];
  std::memcpy(tail, &old.name, sizeof tail);
  bool untouched = true;
  for (unsigned char b : tail) untouched &= b == 0xAB;
  CHECK(untouched);
  old.struct_size = 4;
  CHECK_EQ(profpack_format_describe(PROFPACK_FORMAT_PPROF, &old), PROFPACK_ERROR_INVALID_ARGUMENT);
}

TEST(format_names) {
  for (int f = PROFPACK_FORMAT_PPK; f <= PROFPACK_FORMAT_DCPI; ++f) {
    const char* n = profpack_format_name(static_cast<profpack_format>(f));
    CHECK_EQ(profpack_format_from_name(n), static_cast<profpack_format>(f));
  }
  CHECK_EQ(profpack_format_from_name("nope"), PROFPACK_FORMAT_UNKNOWN);
  CHECK_EQ(profpack_format_from_name(nullptr), PROFPACK_FORMAT_UNKNOWN);
  CHECK_EQ(profpack_format_for_path("dir.ppk/profile.pb.gz"), PROFPACK_FORMAT_PPROF);
  CHECK_EQ(profpack_format_for_path("/tmp/callgrind.out.1234"), PROFPACK_FORMAT_CALLGRIND);
  CHECK_EQ(profpack_format_for_path("cachegrind.out"), PROFPACK_FORMAT_CACHEGRIND);
  CHECK_EQ(profpack_format_for_path("merged.prof"), PROFPACK_FORMAT_GPERFTOOLS);
  CHECK_EQ(profpack_format_for_path("a.ppk"), PROFPACK_FORMAT_PPK);
  CHECK_EQ(profpack_format_for_path("trace.json"), PROFPACK_FORMAT_TRACE_EVENT);
  CHECK_EQ(profpack_format_for_path("sum.out"), PROFPACK_FORMAT_UNKNOWN);
  CHECK_EQ(profpack_format_for_path(".ppk"), PROFPACK_FORMAT_UNKNOWN);
  CHECK_EQ(profpack_format_for_path(nullptr), PROFPACK_FORMAT_UNKNOWN);
  CHECK(std::strcmp(profpack_format_name(static_cast<profpack_format>(99)), "unknown") == 0);
  for (int s = 0; s <= 7; ++s) CHECK(*profpack_status_name(static_cast<profpack_status>(s)));
}

TEST(detect_from_content) {
  std::string cg = testlib::slurp(testlib::data(kCg));
  CHECK_EQ(profpack_detect_format(cg.data(), cg.size()), PROFPACK_FORMAT_CACHEGRIND);
  CHECK_EQ(profpack_detect_format("hello", 5), PROFPACK_FORMAT_UNKNOWN);
  CHECK_EQ(profpack_detect_format(nullptr, 0), PROFPACK_FORMAT_UNKNOWN);
}

TEST(read_info_events_write_round_trip) {
  profpack_profile* p = readOk(testlib::data(kCg));
  CHECK_EQ(profpack_profile_format(p), PROFPACK_FORMAT_CACHEGRIND);
  profpack_info info;
  profpack_info_init(&info);
  CHECK_EQ(profpack_profile_info(p, &info), PROFPACK_OK);
  CHECK_EQ(info.parts, 1u);
  CHECK_EQ(info.events, 13u);
  CHECK(info.functions > 100 && info.files > 100);
  size_t n = 0;
  CHECK_EQ(profpack_profile_events(p, nullptr, 0, &n), PROFPACK_OK);
  CHECK_EQ(n, 13u);
  std::vector<profpack_event> ev(2);
  CHECK_EQ(profpack_profile_events(p, ev.data(), ev.size(), &n), PROFPACK_OK);
  CHECK_EQ(n, 13u);  // full count even when capacity is smaller
  CHECK(std::strcmp(ev[0].name, "Ir") == 0);
  CHECK_EQ(ev[0].total, 88804011u);

  profpack_write_options wo;
  profpack_write_options_init(&wo);
  profpack_write_options_set(&wo, PROFPACK_WRITE_PPK_LEVEL, 9);
  void* buf = nullptr;
  size_t size = 0;
  CHECK_EQ(profpack_write_memory(p, PROFPACK_FORMAT_PPK, &wo, &buf, &size), PROFPACK_OK);
  CHECK(buf && size > 32);
  CHECK_EQ(profpack_detect_format(buf, size), PROFPACK_FORMAT_PPK);
  profpack_profile* q = nullptr;
  CHECK_EQ(profpack_read_memory(buf, size, nullptr, &q), PROFPACK_OK);
  profpack_free(buf);
  int eq = 0;
  CHECK_EQ(profpack_profile_equal(p, q, &eq), PROFPACK_OK);
  CHECK_EQ(eq, 1);

  std::string out = tmpPath("rt.out");
  CHECK_EQ(profpack_write_file(q, PROFPACK_FORMAT_CACHEGRIND, out.c_str(), nullptr), PROFPACK_OK);
  CHECK(testlib::slurp(out) == testlib::slurp(testlib::data(kCg)));
  unlink(out.c_str());
  profpack_profile_free(q);
  profpack_profile_free(p);
  profpack_profile_free(nullptr);
  profpack_free(nullptr);
}

TEST(null_arguments_are_invalid_argument) {
  profpack_profile* p = reinterpret_cast<profpack_profile*>(1);
  CHECK_EQ(profpack_read_file(nullptr, nullptr, &p), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(p == nullptr);
  CHECK_EQ(profpack_last_error()->code, PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(*profpack_last_error()->message);
  CHECK_EQ(profpack_read_file("x", nullptr, nullptr), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_read_memory(nullptr, 5, nullptr, &p), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_write_file(nullptr, PROFPACK_FORMAT_PPK, "x", nullptr),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  void* buf = reinterpret_cast<void*>(1);
  size_t size = 7;
  CHECK_EQ(profpack_write_memory(nullptr, PROFPACK_FORMAT_PPK, nullptr, &buf, &size),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(buf == nullptr && size == 0);
  CHECK_EQ(profpack_profile_info(nullptr, nullptr), PROFPACK_ERROR_INVALID_ARGUMENT);
  size_t n = 3;
  CHECK_EQ(profpack_profile_events(nullptr, nullptr, 0, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(n, 0u);
  int eq = 5;
  CHECK_EQ(profpack_profile_equal(nullptr, nullptr, &eq), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_profile_format(nullptr), PROFPACK_FORMAT_UNKNOWN);
  size_t nw = 0;
  CHECK_EQ(profpack_profile_warnings(nullptr, nullptr, 0, &nw), PROFPACK_ERROR_INVALID_ARGUMENT);
}

TEST(bad_options) {
  profpack_profile* p = readOk(testlib::data(kCg));
  profpack_write_options wo;
  profpack_write_options_init(&wo);
  // Each parameter is checked when it is set, and the options stay as they were.
  CHECK_EQ(profpack_write_options_set(&wo, PROFPACK_WRITE_PPK_LEVEL, 23),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(profpack_last_error()->message, "PROFPACK_WRITE_PPK_LEVEL must be 1-22, not 23");
  int64_t lo = 0, hi = 0, def = 0;
  CHECK_EQ(profpack_write_param_bounds(PROFPACK_WRITE_PPK_LEVEL, &lo, &hi, &def), PROFPACK_OK);
  CHECK(lo == 1 && hi == 22 && def == 3);
  CHECK_EQ(profpack_write_param_bounds(PROFPACK_WRITE_DCPI_IMAGE, &lo, &hi, &def),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_write_options_set(&wo, PROFPACK_WRITE_DCPI_IMAGE, 1),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(profpack_last_error()->message, "profpack_write_options_set_string()");
  CHECK_EQ(profpack_write_options_set_string(&wo, PROFPACK_WRITE_PPK_LEVEL, "3"),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_write_options_set(&wo, static_cast<profpack_write_param>(999), 1),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(profpack_last_error()->message, "unknown write parameter 999");
  void* buf = nullptr;
  size_t size = 0;
  CHECK_EQ(profpack_write_memory(p, PROFPACK_FORMAT_PPK, &wo, &buf, &size), PROFPACK_OK);
  profpack_free(buf);
  // Values written around the setters are still refused at write time.
  wo.reserved_values[0] = 99;
  CHECK_EQ(profpack_write_memory(p, PROFPACK_FORMAT_PPK, &wo, &buf, &size),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_write_options_init(&wo);
  wo.struct_size = 2;
  CHECK_EQ(profpack_write_memory(p, PROFPACK_FORMAT_PPK, &wo, &buf, &size),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_write_memory(p, static_cast<profpack_format>(42), nullptr, &buf, &size),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_write_memory(p, PROFPACK_FORMAT_UNKNOWN, nullptr, &buf, &size),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  ro.flags = 0x80;
  profpack_profile* q = nullptr;
  CHECK_EQ(profpack_read_file(testlib::data(kCg).c_str(), &ro, &q),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_info info;
  info.struct_size = 4;
  CHECK_EQ(profpack_profile_info(p, &info), PROFPACK_ERROR_INVALID_ARGUMENT);
  size_t n = 0;
  CHECK_EQ(profpack_profile_events(p, nullptr, 3, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile_free(p);
}

// An old caller's option struct ends before the newer fields: nothing beyond its struct_size is
// read, whatever the memory after it holds (here: values each option would refuse).
TEST(options_read_only_struct_size_bytes) {
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  ro.struct_size = offsetof(profpack_read_options, output_format);  // before output_format
  std::memset(&ro.output_format, 0x7f, sizeof ro.output_format);
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_file(testlib::data(kCg).c_str(), &ro, &p), PROFPACK_OK);
  // The same bytes with a struct_size that covers them are refused.
  ro.struct_size = sizeof ro;
  profpack_profile* q = nullptr;
  CHECK_EQ(profpack_read_file(testlib::data(kCg).c_str(), &ro, &q),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(profpack_last_error()->message, "output_format");
  // Shorter than the oldest layout: refused, naming the init function.
  ro.struct_size = offsetof(profpack_read_options, format);
  CHECK_EQ(profpack_read_file(testlib::data(kCg).c_str(), &ro, &q),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(profpack_last_error()->message, "profpack_read_options_init()");
  // A view's options: a struct_size that covers them all reads them all.
  profpack_view_options vo;
  profpack_view_options_init(&vo);
  vo.struct_size = offsetof(profpack_view_options, binary);
  profpack_profile* v = nullptr;
  CHECK_EQ(profpack_profile_view(p, &vo, &v), PROFPACK_ERROR_INVALID_ARGUMENT);
  vo.struct_size = sizeof vo;
  CHECK_EQ(profpack_profile_view(p, &vo, &v), PROFPACK_OK);
  profpack_profile_free(v);
  profpack_profile_free(p);
}

// A view's tag selectors keep the samples whose labels match (pprof's -tagfocus); a caller
// whose struct_size ends before them gets every sample; formats without labels refuse.
TEST(view_tags) {
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_file(testlib::data("pprof/go-cpu.pb.gz").c_str(), nullptr, &p),
           PROFPACK_OK);
  auto samples = [](profpack_profile* q) {
    profpack_event e[2];
    size_t n = 0;
    CHECK_EQ(profpack_profile_events(q, e, 2, &n), PROFPACK_OK);
    return n ? e[0].total : uint64_t{0};
  };
  const char* hash[] = {"worker=^hash$"};
  profpack_view_options vo;
  profpack_view_options_init(&vo);
  vo.tags = hash;
  vo.tag_count = 1;
  profpack_profile* v = nullptr;
  CHECK_EQ(profpack_profile_view(p, &vo, &v), PROFPACK_OK);
  CHECK_EQ(samples(v), uint64_t{13});  // go tool pprof -tagfocus=worker=hash: 130ms of 270ms
  // A view of that view keeps its selector too.
  const char* squares[] = {"worker=squares"};
  vo.tags = squares;
  profpack_profile* vv = nullptr;
  CHECK_EQ(profpack_profile_view(v, &vo, &vv), PROFPACK_OK);
  CHECK_EQ(samples(vv), uint64_t{0});
  profpack_profile_free(vv);
  profpack_profile_free(v);
  vo.struct_size = offsetof(profpack_view_options, binary) + sizeof(const char*);
  CHECK_EQ(profpack_profile_view(p, &vo, &v), PROFPACK_OK);
  CHECK_EQ(samples(v), samples(p));
  profpack_profile_free(v);
  vo.struct_size = sizeof vo;
  const char* bad[] = {"=x", "worker", "worker=("};
  for (const char* b : bad) {
    vo.tags = &b;
    CHECK_EQ(profpack_profile_view(p, &vo, &v), PROFPACK_ERROR_INVALID_ARGUMENT);
  }
  vo.tags = nullptr;
  CHECK_EQ(profpack_profile_view(p, &vo, &v), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile_free(p);
  CHECK_EQ(profpack_read_file(testlib::data(kCg).c_str(), nullptr, &p), PROFPACK_OK);
  vo.tags = hash;
  CHECK_EQ(profpack_profile_view(p, &vo, &v), PROFPACK_ERROR_UNSUPPORTED);
  CHECK_CONTAINS(profpack_last_error()->message, "no labels");
  profpack_profile_free(p);
}

// Every write parameter describes itself; set_text takes a choice name or a number within the
// bounds and names the values it takes when refusing one.
TEST(write_params_describe_and_set_text) {
  const size_t n = profpack_write_param_count();
  CHECK(n >= 6);
  bool sawMode = false, sawImage = false;
  for (size_t i = 0; i < n; ++i) {
    profpack_write_param_info info;
    profpack_write_param_info_init(&info);
    CHECK_EQ(profpack_write_param_describe(i, &info), PROFPACK_OK);
    CHECK(info.name && *info.name && info.help && *info.help && info.values);
    if (std::strcmp(info.name, "xray-mode") == 0) {
      sawMode = true;
      CHECK_EQ(info.param, PROFPACK_WRITE_XRAY_MODE);
      CHECK_EQ(info.format, PROFPACK_FORMAT_XRAY);
      CHECK(info.choices && std::strcmp(info.choices, "basic=0,fdr=1") == 0);
      CHECK(info.lowest == -1 && info.highest == 1 && info.default_value == -1 && !info.is_string);
    }
    if (std::strcmp(info.name, "image") == 0) {
      sawImage = true;
      CHECK_EQ(info.param, PROFPACK_WRITE_DCPI_IMAGE);
      CHECK(info.is_string == 1 && info.choices == nullptr);
    }
    if (std::strcmp(info.name, "level") == 0) CHECK_EQ(info.param, PROFPACK_WRITE_PPK_LEVEL);
    if (std::strcmp(info.name, "slot-bytes") == 0)
      CHECK_EQ(info.param, PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES);
    if (std::strcmp(info.name, "byte-order") == 0)
      CHECK_EQ(info.param, PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER);
  }
  CHECK(sawMode && sawImage);
  profpack_write_param_info info;
  profpack_write_param_info_init(&info);
  CHECK_EQ(profpack_write_param_describe(n, &info), PROFPACK_ERROR_INVALID_ARGUMENT);
  info.struct_size = 8;
  CHECK_EQ(profpack_write_param_describe(0, &info), PROFPACK_ERROR_INVALID_ARGUMENT);

  profpack_write_options wo, same;
  profpack_write_options_init(&wo);
  CHECK_EQ(profpack_write_options_set_text(&wo, "xray-mode", "fdr"), PROFPACK_OK);
  CHECK_EQ(profpack_write_options_set_text(&wo, "byte-order", "big"), PROFPACK_OK);
  CHECK_EQ(profpack_write_options_set_text(&wo, "slot-bytes", "8"), PROFPACK_OK);
  CHECK_EQ(profpack_write_options_set_text(&wo, "level", "19"), PROFPACK_OK);
  CHECK_EQ(profpack_write_options_set_text(&wo, "image", "1"), PROFPACK_OK);
  profpack_write_options_init(&same);
  profpack_write_options_set(&same, PROFPACK_WRITE_XRAY_MODE, 1);
  profpack_write_options_set(&same, PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER, 2);
  profpack_write_options_set(&same, PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES, 8);
  profpack_write_options_set(&same, PROFPACK_WRITE_PPK_LEVEL, 19);
  profpack_write_options_set_string(&same, PROFPACK_WRITE_DCPI_IMAGE, "1");
  CHECK(std::memcmp(wo.reserved_values, same.reserved_values, sizeof wo.reserved_values) == 0);
  CHECK(std::strcmp(wo.reserved_strings[0], "1") == 0 && same.reserved_strings[0]);
  // Refusals leave the options as they were and name the values taken.
  const profpack_write_options before = wo;
  CHECK_EQ(profpack_write_options_set_text(&wo, "xray-mode", "fast"),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(profpack_last_error()->message, "xray-mode is basic or fdr, not 'fast'");
  CHECK_EQ(profpack_write_options_set_text(&wo, "slot-bytes", "6"),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(profpack_last_error()->message, "slot-bytes is 4 or 8");
  CHECK_EQ(profpack_write_options_set_text(&wo, "level", "23"), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_write_options_set_text(&wo, "level", "3x"), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_write_options_set_text(&wo, "level", ""), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_write_options_set_text(&wo, "speed", "1"), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(profpack_last_error()->message, "unknown write parameter 'speed'");
  CHECK_EQ(profpack_write_options_set_text(&wo, nullptr, "1"), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(std::memcmp(&before, &wo, sizeof wo) == 0);
}

TEST(io_errors) {
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_file("/nonexistent/x.out", nullptr, &p), PROFPACK_ERROR_IO);
  CHECK_CONTAINS(profpack_last_error()->message, "/nonexistent/x.out");
  CHECK_EQ(profpack_read_file("/", nullptr, &p), PROFPACK_ERROR_IO);
  p = readOk(testlib::data(kCg));
  CHECK_EQ(profpack_write_file(p, PROFPACK_FORMAT_PPK, "/nonexistent/dir/x.ppk", nullptr),
           PROFPACK_ERROR_IO);
  profpack_profile_free(p);
}

// Text outputs stream to the file in pieces (about every 1 MiB): a multi-piece Callgrind and
// Cachegrind output is the same bytes as profpack_write_memory gives, and replaces an older
// file only when whole.
TEST(streamed_text_output_equals_memory_output) {
  std::string text = "events: Ir\nfl=a.c\n";
  for (int f = 0; f < 50000; ++f) {
    text += "fn=function_number_" + std::to_string(f) + "\n";
    for (int i = 0; i < 8; ++i) text += std::to_string(i + 1) + " " + std::to_string(f + i) + "\n";
  }
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_memory(text.data(), text.size(), nullptr, &p), PROFPACK_OK);
  for (profpack_format f : {PROFPACK_FORMAT_CALLGRIND, PROFPACK_FORMAT_CACHEGRIND}) {
    void* mem = nullptr;
    size_t size = 0;
    CHECK_EQ(profpack_write_memory(p, f, nullptr, &mem, &size), PROFPACK_OK);
    CHECK(size > (size_t{2} << 20));  // several pieces
    const std::string path = tmpPath("streamed.out");
    {
      FILE* old = std::fopen(path.c_str(), "w");
      std::fputs("older", old);
      std::fclose(old);
    }
    CHECK_EQ(profpack_write_file(p, f, path.c_str(), nullptr), PROFPACK_OK);
    CHECK(testlib::slurp(path) == std::string(static_cast<const char*>(mem), size));
    // A failed write (gperftools output of a Callgrind profile) leaves the file as it was.
    CHECK_EQ(profpack_write_file(p, PROFPACK_FORMAT_GPERFTOOLS, path.c_str(), nullptr),
             PROFPACK_ERROR_UNSUPPORTED);
    CHECK(testlib::slurp(path) == std::string(static_cast<const char*>(mem), size));
    std::remove(path.c_str());
    profpack_free(mem);
  }
  profpack_profile_free(p);
}

// A writer that fails part-way (here on a crafted .ppk whose second part claims rows it does
// not hold, after over 1 MiB of the first part's text) emits nothing on standard output, and
// leaves neither the target nor a temporary file when writing to a path.
TEST(failed_write_emits_nothing) {
  profpack_profile* p = readOk(testlib::data("ppk/callgrind.bad-second-part.ppk"));
  const std::string captured = tmpPath("stdout.txt");
  std::fflush(stdout);
  const int saved = dup(1);
  const int fd = open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, 1);
  close(fd);
  const profpack_status st = profpack_write_file(p, PROFPACK_FORMAT_CALLGRIND, "-", nullptr);
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  CHECK_EQ(st, PROFPACK_ERROR_MALFORMED);
  CHECK(testlib::slurp(captured).empty());
  std::remove(captured.c_str());
  const std::string dir = tmpPath("failed-write-dir");
  CHECK_EQ(mkdir(dir.c_str(), 0755), 0);
  const std::string target = dir + "/out.callgrind";
  CHECK_EQ(profpack_write_file(p, PROFPACK_FORMAT_CALLGRIND, target.c_str(), nullptr),
           PROFPACK_ERROR_MALFORMED);
  CHECK_EQ(rmdir(dir.c_str()), 0);  // empty: no output, no temporary file
  profpack_profile_free(p);
}

// An output file gets the mode a new file gets under the caller's umask.
TEST(output_file_mode_follows_umask) {
  profpack_profile* p = readOk(testlib::data(kCg));
  const std::string path = tmpPath("mode.ppk");
  const mode_t old = umask(027);
  const profpack_status st = profpack_write_file(p, PROFPACK_FORMAT_PPK, path.c_str(), nullptr);
  umask(old);
  CHECK_EQ(st, PROFPACK_OK);
  struct stat info;
  CHECK_EQ(stat(path.c_str(), &info), 0);
  CHECK_EQ(info.st_mode & 0777, 0640u);
  std::remove(path.c_str());
  profpack_profile_free(p);
}

TEST(malformed_input_reports_format_line_offset) {
  std::string bad = "events: A\nfl=f.c\n3 4\n";
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_memory(bad.data(), bad.size(), nullptr, &p), PROFPACK_ERROR_MALFORMED);
  const profpack_error* e = profpack_last_error();
  CHECK_EQ(e->code, PROFPACK_ERROR_MALFORMED);
  CHECK(std::strcmp(e->format, "cachegrind") == 0);
  CHECK_EQ(e->line, 3u);
  CHECK_EQ(e->offset, 17u);
  CHECK_CONTAINS(e->message, "cachegrind: line 3, byte offset 17: count line before any fn=");
  CHECK_EQ(profpack_read_memory("", 0, nullptr, &p), PROFPACK_ERROR_MALFORMED);
  CHECK_CONTAINS(profpack_last_error()->message, "empty input");
  CHECK_EQ(profpack_read_memory("garbage\n", 8, nullptr, &p), PROFPACK_ERROR_MALFORMED);
  CHECK_CONTAINS(profpack_last_error()->message, "unrecognised input");
  // A success clears the error.
  CHECK_EQ(profpack_detect_format("x", 1), PROFPACK_FORMAT_UNKNOWN);
  p = readOk(testlib::data(kCg));
  CHECK_EQ(profpack_last_error()->code, PROFPACK_OK);
  CHECK(std::strcmp(profpack_last_error()->message, "") == 0);
  profpack_profile_free(p);
}

TEST(ppk_limit_and_corruption) {
  profpack_profile* p = readOk(testlib::data(kCg));
  void* buf = nullptr;
  size_t size = 0;
  CHECK_EQ(profpack_write_memory(p, PROFPACK_FORMAT_PPK, nullptr, &buf, &size), PROFPACK_OK);
  profpack_profile_free(p);
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  ro.max_ppk_size = 1000;
  profpack_profile* q = nullptr;
  CHECK_EQ(profpack_read_memory(buf, size, &ro, &q), PROFPACK_ERROR_LIMIT);
  CHECK_EQ(profpack_last_error()->offset, 16u);
  static_cast<unsigned char*>(buf)[size / 2] ^= 0xff;
  CHECK_EQ(profpack_read_memory(buf, size, nullptr, &q), PROFPACK_ERROR_MALFORMED);
  CHECK(std::strcmp(profpack_last_error()->format, "ppk") == 0);
  profpack_free(buf);
}

TEST(errors_are_per_thread) {
  std::string bad = "events: A\nfl=f.c\n3 4\n";
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_memory(bad.data(), bad.size(), nullptr, &p), PROFPACK_ERROR_MALFORMED);
  int otherCode = -1;
  std::thread t([&] {
    otherCode = profpack_last_error()->code;  // a new thread starts clean
  });
  t.join();
  CHECK_EQ(otherCode, PROFPACK_OK);
  CHECK_EQ(profpack_last_error()->code, PROFPACK_ERROR_MALFORMED);
}

TEST(unsupported_output_for_format) {
  profpack_profile* p = readOk(testlib::data(kCg));
  void* buf = nullptr;
  size_t size = 0;
  profpack_status s = profpack_write_memory(p, PROFPACK_FORMAT_GPERFTOOLS, nullptr, &buf, &size);
  CHECK(s == PROFPACK_ERROR_UNSUPPORTED);
  CHECK(buf == nullptr);
  profpack_profile_free(p);
}

TEST(xray_names_events_and_version_choice) {
  profpack_profile* p = readOk(testlib::data("xray/fdr-v5-st.xray"));
  size_t n = 0;
  profpack_event ev;
  CHECK_EQ(profpack_profile_events(p, &ev, 1, &n), PROFPACK_OK);
  CHECK_EQ(n, 1u);
  CHECK(std::strcmp(ev.name, "ticks") == 0);
  size_t top = 0;
  CHECK_EQ(profpack_profile_top_functions(p, 0, 0, &top, 1, &n), PROFPACK_OK);
  profpack_function f;
  CHECK_EQ(profpack_profile_function(p, top, &f), PROFPACK_OK);
  CHECK(std::strncmp(f.name, "function ", 9) == 0);  // no binary yet: ids
  profpack_view_options vo;
  profpack_view_options_init(&vo);
  vo.binary = "/nonexistent/bin";
  profpack_profile* named = nullptr;
  CHECK_EQ(profpack_profile_view(p, &vo, &named), PROFPACK_ERROR_IO);
  CHECK(named == nullptr);
  const std::string bin = testlib::data("xray/st.bin");
  vo.binary = bin.c_str();
  CHECK_EQ(profpack_profile_view(p, &vo, &named), PROFPACK_OK);
  profpack_profile_free(p);  // the view outlives the handle it was made from
  p = named;
  CHECK_EQ(profpack_profile_top_functions(p, 0, 0, &top, 1, &n), PROFPACK_OK);
  CHECK_EQ(profpack_profile_function(p, top, &f), PROFPACK_OK);
  CHECK(std::strcmp(f.name, "fib(int)") == 0);
  uint64_t calls = 0;
  CHECK_EQ(profpack_profile_function_calls(p, top, &calls), PROFPACK_OK);
  CHECK(calls > 0);
  double hz = 0;
  CHECK_EQ(profpack_profile_units_per_second(p, &hz), PROFPACK_OK);
  CHECK(hz == 1e9);  // the runtime's emulated TSC (st.cpp's trace header)

  profpack_write_options wo;
  profpack_write_options_init(&wo);
  profpack_write_options_set(&wo, PROFPACK_WRITE_XRAY_VERSION, 3);
  void* buf = nullptr;
  size_t size = 0;
  CHECK_EQ(profpack_write_memory(p, PROFPACK_FORMAT_XRAY, &wo, &buf, &size), PROFPACK_OK);
  CHECK(size > 32 && static_cast<unsigned char*>(buf)[0] == 3);  // header version 3
  profpack_free(buf);
  CHECK_EQ(profpack_write_options_set(&wo, PROFPACK_WRITE_XRAY_VERSION, 9),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile_free(p);

  p = readOk(testlib::data(kCg));
  CHECK_EQ(profpack_profile_view(p, &vo, &named), PROFPACK_ERROR_UNSUPPORTED);
  profpack_profile_free(p);
}

TEST(xray_threads) {
  profpack_profile* p = readOk(testlib::data("xray/fdr-v5-mt-manybuf.xray"));
  size_t n = 0;
  CHECK_EQ(profpack_profile_threads(p, nullptr, 0, &n), PROFPACK_OK);
  CHECK_EQ(n, 4u);  // ./mt 4
  std::vector<profpack_thread> threads(n);
  CHECK_EQ(profpack_profile_threads(p, threads.data(), n, &n), PROFPACK_OK);
  profpack_event ev;
  size_t ne = 0;
  CHECK_EQ(profpack_profile_events(p, &ev, 1, &ne), PROFPACK_OK);
  const uint64_t all = ev.total;
  uint64_t sum = 0;
  profpack_view_options vo;
  profpack_view_options_init(&vo);
  for (size_t t = 0; t < n; ++t) {
    vo.thread = t;
    profpack_profile* v = nullptr;
    CHECK_EQ(profpack_profile_view(p, &vo, &v), PROFPACK_OK);
    CHECK_EQ(profpack_profile_events(v, &ev, 1, &ne), PROFPACK_OK);
    CHECK(ev.total > 0 && ev.total < all);
    sum += ev.total;
    profpack_profile_free(v);
  }
  CHECK_EQ(sum, all);  // self time over all threads adds up to the whole trace's
  vo.thread = n;
  profpack_profile* v = nullptr;
  CHECK_EQ(profpack_profile_view(p, &vo, &v), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(v == nullptr);
  CHECK_EQ(profpack_profile_events(p, &ev, 1, &ne), PROFPACK_OK);
  CHECK_EQ(ev.total, all);  // the profile a view was made from is unchanged
  profpack_profile_free(p);
  p = readOk(testlib::data(kCg));
  CHECK_EQ(profpack_profile_threads(p, nullptr, 0, &n), PROFPACK_OK);
  CHECK_EQ(n, 0u);
  profpack_profile_free(p);
}

TEST(dcpi_events_and_image_choice) {
  profpack_profile* p = readOk(testlib::data("dcpi/small.dcpi"));
  size_t n = 0;
  profpack_event ev;
  CHECK_EQ(profpack_profile_events(p, &ev, 1, &n), PROFPACK_OK);
  CHECK_EQ(n, 1u);
  CHECK(std::strcmp(ev.name, "cycles") == 0);
  profpack_write_options wo;
  profpack_write_options_init(&wo);
  profpack_write_options_set_string(&wo, PROFPACK_WRITE_DCPI_IMAGE, "0");
  void* buf = nullptr;
  size_t size = 0;
  CHECK_EQ(profpack_write_memory(p, PROFPACK_FORMAT_DCPI, &wo, &buf, &size), PROFPACK_OK);
  CHECK(std::string(static_cast<char*>(buf), size) ==
        testlib::slurp(testlib::data("dcpi/small.dcpi")));
  profpack_free(buf);
  profpack_profile_free(p);
}

TEST(gperftools_width_and_byte_order_choice) {
  profpack_profile* p = readOk(testlib::data("gperftools/workload.64le.prof"));
  profpack_write_options wo;
  profpack_write_options_init(&wo);
  profpack_write_options_set(&wo, PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES, 8);
  profpack_write_options_set(&wo, PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER, 2);
  void* buf = nullptr;
  size_t size = 0;
  CHECK_EQ(profpack_write_memory(p, PROFPACK_FORMAT_GPERFTOOLS, &wo, &buf, &size), PROFPACK_OK);
  CHECK(std::string(static_cast<char*>(buf), size) ==
        testlib::slurp(testlib::data("gperftools/workload.64be.prof")));
  profpack_free(buf);
  profpack_write_options_set(&wo, PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES,
                             4);  // the corpus addresses do not fit 32 bits
  CHECK_EQ(profpack_write_memory(p, PROFPACK_FORMAT_GPERFTOOLS, &wo, &buf, &size),
           PROFPACK_ERROR_UNSUPPORTED);
  CHECK_CONTAINS(profpack_last_error()->message, "does not fit");
  CHECK_EQ(profpack_write_options_set(&wo, PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES, 3),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile_free(p);
}

namespace {
profpack_profile* readWith(const std::string& path, uint32_t flags) {
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  ro.flags = flags;
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_file(path.c_str(), &ro, &p), PROFPACK_OK);
  return p;
}
std::string written(const profpack_profile* p, profpack_format f) {
  void* buf = nullptr;
  size_t size = 0;
  CHECK_EQ(profpack_write_memory(p, f, nullptr, &buf, &size), PROFPACK_OK);
  std::string out(static_cast<char*>(buf), size);
  profpack_free(buf);
  return out;
}
}  // namespace

// PROFPACK_READ_DEFER_IR only moves work: every output of a profile read with it is the one of
// the same profile read without it, whichever is asked for first (the first conversion uses the
// reader's tree and no IR columns; later ones, .ppk and the format's own output build them).
TEST(defer_ir_changes_no_output) {
  const profpack_format kOrders[][6] = {
      {PROFPACK_FORMAT_PPROF, PROFPACK_FORMAT_PPK, PROFPACK_FORMAT_GPERFTOOLS,
       PROFPACK_FORMAT_CALLGRIND, PROFPACK_FORMAT_FOLDED, PROFPACK_FORMAT_CACHEGRIND},
      {PROFPACK_FORMAT_PPK, PROFPACK_FORMAT_PPROF, PROFPACK_FORMAT_CALLGRIND,
       PROFPACK_FORMAT_GPERFTOOLS, PROFPACK_FORMAT_CACHEGRIND, PROFPACK_FORMAT_FOLDED},
      {PROFPACK_FORMAT_CALLGRIND, PROFPACK_FORMAT_FOLDED, PROFPACK_FORMAT_CACHEGRIND,
       PROFPACK_FORMAT_PPROF, PROFPACK_FORMAT_GPERFTOOLS, PROFPACK_FORMAT_PPK},
      {PROFPACK_FORMAT_GPERFTOOLS, PROFPACK_FORMAT_CALLGRIND, PROFPACK_FORMAT_PPROF,
       PROFPACK_FORMAT_PPK, PROFPACK_FORMAT_FOLDED, PROFPACK_FORMAT_CACHEGRIND},
  };
  for (const char* rel : {"gperftools/perl-words.prof", "gperftools/workload.32be.prof",
                          "gperftools/workload.64le.prof", "cachegrind/cachegrind.workload.out"}) {
    const std::string path = testlib::data(rel);
    const bool gperf = std::string(rel).rfind("gperftools/", 0) == 0;
    profpack_profile* eager = readWith(path, 0);
    for (const auto& order : kOrders) {
      profpack_profile* deferred = readWith(path, PROFPACK_READ_DEFER_IR);
      for (profpack_format f : order) {
        // gperftools holds no lines for Cachegrind; Cachegrind no stacks for the other two.
        if (gperf ? f == PROFPACK_FORMAT_CACHEGRIND
                  : (f == PROFPACK_FORMAT_GPERFTOOLS || f == PROFPACK_FORMAT_FOLDED))
          continue;
        const std::string d = written(deferred, f), e = written(eager, f);
        if (d != e) std::fprintf(stderr, "%s as %s differs\n", rel, profpack_format_name(f));
        CHECK(d == e);
        CHECK(!d.empty());
      }
      // Read back, the same bytes again; and the IR compares equal to the eager reading's.
      if (gperf) CHECK(written(deferred, PROFPACK_FORMAT_GPERFTOOLS) == testlib::slurp(path));
      int equal = 0;
      CHECK_EQ(profpack_profile_equal(eager, deferred, &equal), PROFPACK_OK);
      CHECK(equal);
      profpack_profile_free(deferred);
    }
    // Figures that read the IR's columns (the record count) build them on a fresh profile.
    profpack_profile* deferred = readWith(path, PROFPACK_READ_DEFER_IR);
    profpack_info a, b;
    profpack_info_init(&a);
    profpack_info_init(&b);
    CHECK_EQ(profpack_profile_info(deferred, &a), PROFPACK_OK);
    CHECK_EQ(profpack_profile_info(eager, &b), PROFPACK_OK);
    CHECK(a.records == b.records && a.records > 0 && a.ir_bytes == b.ir_bytes &&
          a.functions == b.functions && a.objects == b.objects);
    profpack_profile_free(deferred);
    profpack_profile_free(eager);
  }
  // A malformed input is reported the same way with the hint.
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  ro.flags = PROFPACK_READ_DEFER_IR;
  const std::string cut =
      testlib::slurp(testlib::data("gperftools/workload.64le.prof")).substr(0, 4000);
  profpack_profile* q = nullptr;
  CHECK_EQ(profpack_read_memory(cut.data(), cut.size(), &ro, &q), PROFPACK_ERROR_MALFORMED);
  CHECK(q == nullptr);
  CHECK_CONTAINS(profpack_last_error()->message, "byte offset 3992: record's num_pcs 6");
}

TEST_MAIN()

// profpack_merge: the merged totals are the sums; the result is a profile like any other;
// zero inputs, a NULL input and different events are refused with the error channel.
TEST(merge_sums_and_refuses) {
  profpack_profile* a = readOk(testlib::data("merge/cachegrind.workload.run1.out"));
  profpack_profile* b = readOk(testlib::data("merge/cachegrind.workload.run2.out"));
  auto firstTotal = [](const profpack_profile* p) {
    profpack_event ev[16];
    size_t n = 0;
    CHECK_EQ(profpack_profile_events(p, ev, 16, &n), PROFPACK_OK);
    CHECK(n > 0);
    return ev[0].total;
  };
  const profpack_profile* both[] = {a, b};
  const char* names[] = {"run1", nullptr};
  profpack_profile* m = nullptr;
  CHECK_EQ(profpack_merge(both, names, 2, &m), PROFPACK_OK);
  CHECK(m != nullptr);
  CHECK_EQ(firstTotal(m), firstTotal(a) + firstTotal(b));
  CHECK(profpack_profile_format(m) == PROFPACK_FORMAT_CACHEGRIND);
  void* buf = nullptr;
  size_t size = 0;
  CHECK_EQ(profpack_write_memory(m, PROFPACK_FORMAT_PPK, nullptr, &buf, &size), PROFPACK_OK);
  profpack_free(buf);
  profpack_profile_free(m);

  m = reinterpret_cast<profpack_profile*>(1);
  CHECK_EQ(profpack_merge(both, nullptr, 0, &m), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(m == nullptr);
  const profpack_profile* withNull[] = {a, nullptr};
  CHECK_EQ(profpack_merge(withNull, nullptr, 2, &m), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile* x = readOk(testlib::data("xray/fdr-v5-st.xray"));
  const profpack_profile* mixed[] = {a, x};
  const char* mixedNames[] = {"run1", "trace"};
  CHECK_EQ(profpack_merge(mixed, mixedNames, 2, &m), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(std::strstr(profpack_last_error()->message, "input 2 (trace) has ticks") != nullptr);
  profpack_profile_free(x);
  profpack_profile_free(a);
  profpack_profile_free(b);
}

// profpack_diff: NEW - BASE with signed costs, reported by profpack_info; options checked.
TEST(diff_is_signed) {
  profpack_profile* a = readOk(testlib::data("merge/cachegrind.workload.run1.out"));
  profpack_profile* b = readOk(testlib::data("merge/cachegrind.workload.run2.out"));
  profpack_profile* d = nullptr;
  CHECK_EQ(profpack_diff(b, a, nullptr, &d), PROFPACK_OK);
  profpack_info info;
  profpack_info_init(&info);
  CHECK_EQ(profpack_profile_info(d, &info), PROFPACK_OK);
  CHECK_EQ(info.signed_costs, 1);
  profpack_event ev[16], ea[16], eb[16];
  size_t n = 0;
  CHECK_EQ(profpack_profile_events(d, ev, 16, &n), PROFPACK_OK);
  profpack_profile_events(a, ea, 16, &n);
  profpack_profile_events(b, eb, 16, &n);
  CHECK(static_cast<int64_t>(ev[0].total) < 0);
  CHECK_EQ(ev[0].total, ea[0].total - eb[0].total);
  profpack_profile_free(d);
  CHECK_EQ(profpack_profile_info(a, &info), PROFPACK_OK);
  CHECK_EQ(info.signed_costs, 0);

  profpack_diff_options o;
  profpack_diff_options_init(&o);
  const char* bad[] = {"s/(/x/"};
  o.mod_filename = bad;
  o.mod_filename_count = 1;
  d = reinterpret_cast<profpack_profile*>(1);
  CHECK_EQ(profpack_diff(a, b, &o, &d), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(d == nullptr);
  CHECK(std::strstr(profpack_last_error()->message, "bad regular expression") != nullptr);
  o.mod_filename = nullptr;  // a count without a list
  CHECK_EQ(profpack_diff(a, b, &o, &d), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile_free(a);
  profpack_profile_free(b);
}

// The streaming merger: inputs freed as they are added; errors name the input; one finish.
TEST(merger_streams) {
  profpack_merger* m = nullptr;
  CHECK_EQ(profpack_merger_new(&m), PROFPACK_OK);
  uint64_t want = 0;
  for (const char* f : {"merge/cachegrind.workload.run1.out", "merge/cachegrind.workload.run2.out",
                        "merge/cachegrind.workload.run1.out"}) {
    profpack_profile* p = readOk(testlib::data(f));
    profpack_event ev[16];
    size_t n = 0;
    profpack_profile_events(p, ev, 16, &n);
    want += ev[0].total;
    CHECK_EQ(profpack_merger_add(m, p, f), PROFPACK_OK);
    profpack_profile_free(p);
  }
  profpack_profile* x = readOk(testlib::data("xray/fdr-v5-st.xray"));
  CHECK_EQ(profpack_merger_add(m, x, "trace.xray"), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(std::strstr(profpack_last_error()->message, "input 4 (trace.xray)") != nullptr);
  profpack_profile_free(x);
  profpack_profile* out = nullptr;
  CHECK_EQ(profpack_merger_finish(m, &out), PROFPACK_OK);
  profpack_event ev[16];
  size_t n = 0;
  profpack_profile_events(out, ev, 16, &n);
  CHECK_EQ(ev[0].total, want);
  profpack_profile_free(out);
  CHECK_EQ(profpack_merger_finish(m, &out), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(out == nullptr);
  profpack_merger_free(m);
}

// PROFPACK_READ_SYMBOLIZE: a gperftools profile named from its binary as it is read (found
// through binary_path), as profpack_profile_symbolize names it; without the flag, or with a
// struct_size from before binary_path (which the library must not read), addresses only.
TEST(read_symbolize_names_on_read) {
  const std::string dir = testlib::data("symbolize"), prof = testlib::data("symbolize/hot.prof");
  const char* dirs[] = {dir.c_str()};
  auto mixSelf = [](profpack_profile* p) { return selfOf(p, "mix", ~uint64_t{0}); };
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  ro.flags = PROFPACK_READ_SYMBOLIZE;
  ro.binary_path = dirs;
  ro.binary_path_count = 1;
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_file(prof.c_str(), &ro, &p), PROFPACK_OK);
  CHECK_EQ(mixSelf(p), 700u);  // go tool pprof -top: mix 700 samples flat
  // The same IR as symbolize gives: equal .ppk bytes.
  profpack_profile* plain = readOk(prof);
  CHECK_EQ(mixSelf(plain), ~uint64_t{0});
  profpack_symbolize_options so;
  profpack_symbolize_options_init(&so);
  so.binary_path = dirs;
  so.binary_path_count = 1;
  profpack_profile* s = nullptr;
  CHECK_EQ(profpack_profile_symbolize(plain, &so, &s), PROFPACK_OK);
  CHECK(samePpk(p, s));
  profpack_profile_free(s);
  profpack_profile_free(plain);
  profpack_profile_free(p);
  // From memory too (no file time to check; the directory's file is not held to one).
  const std::string bytes = testlib::slurp(prof);
  CHECK_EQ(profpack_read_memory(bytes.data(), bytes.size(), &ro, &p), PROFPACK_OK);
  CHECK_EQ(mixSelf(p), 700u);
  profpack_profile_free(p);
  // A caller built before binary_path: the fields past its struct_size are not read.
  Poisoned<profpack_read_options> old(profpack_read_options_init);
  old.o.struct_size = offsetof(profpack_read_options, binary_path);
  old.o.flags = PROFPACK_READ_SYMBOLIZE;
  std::memset(reinterpret_cast<unsigned char*>(&old.o) + old.o.struct_size, 0xA5,
              sizeof old.o - old.o.struct_size);
  CHECK_EQ(profpack_read_file(prof.c_str(), &old.o, &p), PROFPACK_OK);
  CHECK_EQ(mixSelf(p), ~uint64_t{0});  // /tmp/psym/hot is gone and no directory was given
  profpack_profile_free(p);
  ro.binary_path = nullptr;
  CHECK_EQ(profpack_read_file(prof.c_str(), &ro, &p), PROFPACK_ERROR_INVALID_ARGUMENT);
}

// PROFPACK_READ_SYMBOL_TABLES_ONLY and symbol_tables_only: the same functions and costs from
// the symbol table alone, with no source lines; on read and by profpack_profile_symbolize alike
// (equal .ppk bytes). A caller whose struct_size ends before the field gets DWARF's names.
TEST(symbol_tables_only_names_without_lines) {
  const std::string dir = testlib::data("symbolize"), prof = testlib::data("symbolize/hot.prof");
  const char* dirs[] = {dir.c_str()};
  auto figures = [](profpack_profile* p, uint64_t& mix, uint64_t& lines) {
    mix = selfOf(p, "mix", 0);
    lines = 0;
    profpack_line_cost l[64];
    size_t count = 0;
    CHECK_EQ(profpack_profile_line_costs(p, "hot.c", 0, l, 64, &count), PROFPACK_OK);
    for (size_t i = 0; i < count && i < 64; ++i) lines += l[i].cost;
  };
  profpack_read_options ro = namingFrom(dirs, PROFPACK_READ_SYMBOL_TABLES_ONLY);
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_file(prof.c_str(), &ro, &p), PROFPACK_OK);
  uint64_t mix = 0, lines = 0;
  figures(p, mix, lines);
  CHECK_EQ(mix, 700u);  // go tool pprof -top: mix 700 samples flat
  CHECK_EQ(lines, 0u);  // no line of hot.c known
  profpack_profile* plain = readOk(prof);
  Poisoned<profpack_symbolize_options> so(profpack_symbolize_options_init);
  so.o.binary_path = dirs;
  so.o.binary_path_count = 1;
  so.o.symbol_tables_only = 1;
  profpack_profile* s = nullptr;
  CHECK_EQ(profpack_profile_symbolize(plain, &so.o, &s), PROFPACK_OK);
  CHECK(samePpk(p, s));
  profpack_profile_free(s);
  // A caller built before the field: its struct ends at kallsyms, and what follows is not read.
  so.o.struct_size = offsetof(profpack_symbolize_options, symbol_tables_only);
  CHECK_EQ(profpack_profile_symbolize(plain, &so.o, &s), PROFPACK_OK);
  figures(s, mix, lines);
  CHECK(mix == 700u && lines == 911u);  // every sample on a line of hot.c
  profpack_profile_free(s);
  profpack_profile_free(plain);
  profpack_profile_free(p);
  // Unknown flag bits are still refused.
  ro.flags = PROFPACK_READ_SYMBOLIZE | 0x80000000u;
  CHECK_EQ(profpack_read_file(prof.c_str(), &ro, &p), PROFPACK_ERROR_INVALID_ARGUMENT);
}

// PROFPACK_READ_NO_LINES: the functions DWARF names, inline frames included, and no source file
// or line. Folded stacks and trace events written from it are the bytes written without it;
// from the symbol tables alone the inlined function is missing.
TEST(no_lines_names_inline_frames_without_lines) {
  const std::string dir = testlib::data("symbolize");
  const std::string prof = testlib::data("symbolize/hot-inline.prof");
  const char* dirs[] = {dir.c_str()};
  auto read = [&](uint32_t flags) {
    const profpack_read_options ro = namingFrom(dirs, flags);
    profpack_profile* p = nullptr;
    CHECK_EQ(profpack_read_file(prof.c_str(), &ro, &p), PROFPACK_OK);
    return p;
  };
  auto hotLines = [](const profpack_profile* p) {
    profpack_line_cost l[64];
    size_t count = 0;
    uint64_t sum = 0;
    CHECK_EQ(profpack_profile_line_costs(p, "hot.c", 0, l, 64, &count), PROFPACK_OK);
    for (size_t i = 0; i < count && i < 64; ++i) sum += l[i].cost;
    return sum;
  };
  profpack_profile* full = read(0);
  profpack_profile* names = read(PROFPACK_READ_NO_LINES);
  profpack_profile* tables = read(PROFPACK_READ_SYMBOL_TABLES_ONLY);
  const std::string folded = written(full, PROFPACK_FORMAT_FOLDED);
  CHECK(folded.find(";work;fold ") != std::string::npos);  // fold is inlined into work
  CHECK(written(names, PROFPACK_FORMAT_FOLDED) == folded);
  CHECK(written(tables, PROFPACK_FORMAT_FOLDED) != folded);
  CHECK(hotLines(full) > 0u);
  CHECK_EQ(hotLines(names), 0u);
  size_t n = 0;
  CHECK_EQ(profpack_profile_functions(names, nullptr, 0, &n), PROFPACK_OK);
  CHECK(n > 0u);
  for (size_t i = 0; i < n; ++i) {
    profpack_function f;
    CHECK_EQ(profpack_profile_function(names, i, &f), PROFPACK_OK);
    CHECK_EQ(std::string(f.file), std::string());
  }
  profpack_profile_free(tables);
  profpack_profile_free(names);
  profpack_profile_free(full);
}

// profpack_profile_symbolize: names from the binary found through binary_path, kept through a
// .ppk round trip; a missing binary is a warning; bad arguments are errors.
TEST(symbolize_names_and_warns) {
  profpack_profile* p = readOk(testlib::data("symbolize/hot.prof"));
  const std::string dir = testlib::data("symbolize");
  const char* dirs[] = {dir.c_str()};
  profpack_symbolize_options o;
  profpack_symbolize_options_init(&o);
  o.binary_path = dirs;
  o.binary_path_count = 1;
  profpack_profile* s = nullptr;
  CHECK_EQ(profpack_profile_symbolize(p, &o, &s), PROFPACK_OK);
  // Through a .ppk in memory: the names live in the IR.
  void* buf = nullptr;
  size_t size = 0;
  CHECK_EQ(profpack_write_memory(s, PROFPACK_FORMAT_PPK, nullptr, &buf, &size), PROFPACK_OK);
  profpack_profile* q = nullptr;
  CHECK_EQ(profpack_read_memory(buf, size, nullptr, &q), PROFPACK_OK);
  profpack_free(buf);
  size_t n = 0;
  CHECK_EQ(profpack_profile_functions(q, nullptr, 0, &n), PROFPACK_OK);
  uint64_t mixSelf = 0;
  for (size_t i = 0; i < n; ++i) {
    profpack_function f;
    CHECK_EQ(profpack_profile_function(q, i, &f), PROFPACK_OK);
    if (std::strcmp(f.name, "mix") == 0)
      CHECK_EQ(profpack_profile_function_cost(q, i, 0, &mixSelf, nullptr), PROFPACK_OK);
  }
  CHECK_EQ(mixSelf, 700u);  // go tool pprof -top: mix 700 samples flat
  profpack_line_cost lines[64];
  size_t count = 0;
  CHECK_EQ(profpack_profile_line_costs(q, "hot.c", 0, lines, 64, &count), PROFPACK_OK);
  uint64_t sum = 0;
  for (size_t i = 0; i < count && i < 64; ++i) sum += lines[i].cost;
  CHECK_EQ(sum, 911u);  // every sample lands on a line of hot.c
  profpack_profile_free(q);
  profpack_profile_free(s);

  // No binary_path: the binary the profile names is gone, so its mapping is a warning.
  CHECK_EQ(profpack_profile_symbolize(p, nullptr, &s), PROFPACK_OK);
  bool warned = false;
  size_t nw = 0;
  CHECK_EQ(profpack_profile_warnings(s, nullptr, 0, &nw), PROFPACK_OK);
  std::vector<const char*> warnings(nw);
  CHECK_EQ(profpack_profile_warnings(s, warnings.data(), nw, &nw), PROFPACK_OK);
  for (size_t i = 0; i < nw; ++i)
    warned |= std::strstr(warnings[i], "(/tmp/psym/hot) not symbolized") != nullptr;
  CHECK(warned);
  profpack_profile_free(s);

  s = reinterpret_cast<profpack_profile*>(1);
  CHECK_EQ(profpack_profile_symbolize(nullptr, nullptr, &s), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(s == nullptr);
  CHECK_EQ(profpack_profile_symbolize(p, nullptr, nullptr), PROFPACK_ERROR_INVALID_ARGUMENT);
  o.struct_size = 4;
  CHECK_EQ(profpack_profile_symbolize(p, &o, &s), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_symbolize_options_init(&o);
  o.binary_path_count = 1;
  CHECK_EQ(profpack_profile_symbolize(p, &o, &s), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile_free(p);

  // XRay: ids need the binary; with it, names and the lines where the functions start.
  profpack_profile* x = readOk(testlib::data("xray/fdr-v5-st-g.xray"));
  CHECK_EQ(profpack_profile_symbolize(x, nullptr, &s), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(std::strstr(profpack_last_error()->message, "--binary") != nullptr);
  const std::string bin = testlib::data("xray/st-g.bin");
  profpack_symbolize_options_init(&o);
  o.binary = bin.c_str();
  CHECK_EQ(profpack_profile_symbolize(x, &o, &s), PROFPACK_OK);
  CHECK_EQ(profpack_profile_functions(s, nullptr, 0, &n), PROFPACK_OK);
  uint64_t fibLine = 0;
  for (size_t i = 0; i < n; ++i) {
    profpack_function f;
    CHECK_EQ(profpack_profile_function(s, i, &f), PROFPACK_OK);
    if (std::strcmp(f.name, "fib(int)") == 0)
      CHECK_EQ(profpack_profile_function_line(s, i, &fibLine), PROFPACK_OK);
  }
  CHECK_EQ(fibLine, 5u);  // st.cpp: `[[gnu::noinline]] int fib(int n) ...` on line 5
  CHECK_EQ(profpack_profile_function_line(s, n, &fibLine), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_profile_function_line(s, 0, nullptr), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile_free(s);
  profpack_profile_free(x);
}

namespace {
// Runs the CLI (PROFPACK_CLI) and returns its standard output.
std::string cli(const std::string& args) {
  const char* exe = std::getenv("PROFPACK_CLI");
  if (!exe) throw testlib::Failure{"PROFPACK_CLI is not set"};
  FILE* f = popen((std::string(exe) + " " + args + " 2>/dev/null").c_str(), "r");
  CHECK(f != nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  CHECK_EQ(pclose(f), 0);
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i; (i = s.find(sep, start)) != std::string::npos; start = i + 1)
    out.push_back(s.substr(start, i - start));
  out.push_back(s.substr(start));
  return out;
}

// profpack_profile_top()'s rows as `profpack top --tsv` prints them: self, inclusive,
// recursive (not compared: "-"), file, name, object; costs of event `k` of the rows.
std::vector<std::string> topTsv(profpack_profile* p, const profpack_top_options& o, size_t k) {
  size_t count = 0;
  CHECK_EQ(profpack_profile_top(p, &o, nullptr, nullptr, 0, &count), PROFPACK_OK);
  size_t ne = o.event_count;
  if (!o.events) CHECK_EQ(profpack_profile_events(p, nullptr, 0, &ne), PROFPACK_OK);
  std::vector<profpack_top_row> rows(count);
  std::vector<profpack_top_cost> costs(count * ne);
  size_t again = 0;
  CHECK_EQ(profpack_profile_top(p, &o, rows.data(), costs.data(), count, &again), PROFPACK_OK);
  CHECK_EQ(again, count);
  std::vector<std::string> lines;
  for (const profpack_top_row& r : rows) {
    CHECK(r.costs == costs.data() + (&r - rows.data()) * ne);
    lines.push_back(std::to_string(r.costs[k].self) + "\t" + std::to_string(r.costs[k].inclusive) +
                    "\t-\t" + r.file + "\t" + r.name + "\t" + r.object);
  }
  return lines;
}

std::vector<std::string> cliTsv(const std::string& args) {
  std::vector<std::string> lines;
  for (const std::string& l : split(cli("top " + args + " --tsv"), '\n')) {
    if (l.empty()) continue;
    auto cells = split(l, '\t');
    CHECK_EQ(cells.size(), 6u);
    cells[2] = "-";
    lines.push_back(cells[0] + "\t" + cells[1] + "\t" + cells[2] + "\t" + cells[3] + "\t" +
                    cells[4] + "\t" + cells[5]);
  }
  return lines;
}
}  // namespace

// One call gives the figures `profpack top` prints, for every event, ranking, thread and a
// difference's negative costs.
// `convert` reads without lines only for a format that holds none: to trace events and folded
// stacks a perf recording comes out as read with lines, to Callgrind it keeps its files.
TEST(convert_looks_lines_up_only_for_formats_that_hold_them) {
  const std::string perf = testlib::data("perf");
  const std::string data = testlib::data("perf/spin.data");
  const char* dirs[] = {perf.c_str()};
  const profpack_read_options full = namingFrom(dirs, 0),
                              names = namingFrom(dirs, PROFPACK_READ_NO_LINES);
  profpack_profile *a = nullptr, *b = nullptr;
  CHECK_EQ(profpack_read_file(data.c_str(), &full, &a), PROFPACK_OK);
  CHECK_EQ(profpack_read_file(data.c_str(), &names, &b), PROFPACK_OK);
  const std::string trace = written(a, PROFPACK_FORMAT_TRACE_EVENT);
  CHECK(trace.find("\"leaf\"") != std::string::npos);
  CHECK(written(b, PROFPACK_FORMAT_TRACE_EVENT) == trace);
  CHECK(written(b, PROFPACK_FORMAT_FOLDED) == written(a, PROFPACK_FORMAT_FOLDED));
  CHECK(written(b, PROFPACK_FORMAT_CALLGRIND).find("spin.c") == std::string::npos);
  CHECK(written(a, PROFPACK_FORMAT_CALLGRIND).find("spin.c") != std::string::npos);
  const std::string out = testlib::tempPath("no-lines");
  cli("convert " + data + " --binary-path " + perf + " --to callgrind -o " + out);
  CHECK(testlib::slurp(out).find("spin.c") != std::string::npos);
  cli("convert " + data + " --binary-path " + perf + " --to trace-event -o " + out);
  CHECK(testlib::slurp(out) == trace);
  std::remove(out.c_str());
  profpack_profile_free(b);
  profpack_profile_free(a);
}

TEST(top_rows_equal_the_cli) {
  profpack_top_options o;
  profpack_top_options_init(&o);
  CHECK_EQ(o.struct_size, sizeof o);
  CHECK_EQ(o.thread, PROFPACK_ALL_THREADS);
  CHECK(o.events == nullptr && o.limit == 0 && o.flags == 0 && o.sort_event == 0);

  // Cachegrind, 13 events in one call; ranked by each event and by inclusive cost.
  const std::string cg = testlib::data(kCg);
  profpack_profile* p = readOk(cg);
  o.limit = 12;
  const auto byIr = topTsv(p, o, 0);
  CHECK_EQ(byIr.size(), 12u);
  CHECK(byIr == cliTsv(cg + " -n 12"));
  o.sort_event = 3;  // Dr
  const size_t dr = 3, dlmr = 5;
  const size_t both[] = {dlmr, dr};
  o.events = both;
  o.event_count = 2;
  CHECK(topTsv(p, o, 1) == cliTsv(cg + " -n 12 --event Dr"));
  o.sort_event = dlmr;
  o.flags = PROFPACK_TOP_INCLUSIVE;
  CHECK(topTsv(p, o, 0) == cliTsv(cg + " -n 12 --event DLmr --inclusive"));
  // Every function without a limit; a capacity below the count writes the first rows.
  profpack_top_options_init(&o);
  size_t n = 0, functions = 0;
  CHECK_EQ(profpack_profile_top(p, &o, nullptr, nullptr, 0, &n), PROFPACK_OK);
  CHECK_EQ(profpack_profile_functions(p, nullptr, 0, &functions), PROFPACK_OK);
  CHECK_EQ(n, functions);
  profpack_top_row row[2];
  profpack_top_cost cost[2 * 13];
  CHECK_EQ(profpack_profile_top(p, &o, row, cost, 2, &n), PROFPACK_OK);
  CHECK_EQ(n, functions);
  CHECK(std::string(row[0].name) == "msort_with_tmp.part.0" && cost[0].self == 34023858);
  CHECK(row[1].costs == cost + 13);
  // Bad options.
  o.sort_event = 13;
  CHECK_EQ(profpack_profile_top(p, &o, row, cost, 2, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(std::strstr(profpack_last_error()->message, "13 events") != nullptr);
  profpack_top_options_init(&o);
  const size_t bad[] = {0, 99};
  o.events = bad;
  o.event_count = 2;
  CHECK_EQ(profpack_profile_top(p, &o, row, cost, 2, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_top_options_init(&o);
  o.flags = 0x80;
  CHECK_EQ(profpack_profile_top(p, &o, row, cost, 2, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  o.flags = 0;
  CHECK_EQ(profpack_profile_top(p, &o, row, nullptr, 2, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_profile_top(p, &o, nullptr, cost, 2, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_profile_top(nullptr, &o, row, cost, 2, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  o.struct_size = 8;
  CHECK_EQ(profpack_profile_top(p, &o, row, cost, 2, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  o.thread = 0;  // Cachegrind has no threads
  o.struct_size = sizeof o;
  CHECK_EQ(profpack_profile_top(p, &o, row, cost, 2, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  // NULL options: the defaults.
  CHECK_EQ(profpack_profile_top(p, nullptr, row, cost, 2, &n), PROFPACK_OK);
  CHECK(cost[0].self == 34023858);
  profpack_profile_free(p);

  // Callgrind by inclusive cost; an XRay thread, as `--thread` shows it.
  const std::string cgr = testlib::data("callgrind/callgrind.workload.out");
  p = readOk(cgr);
  profpack_top_options_init(&o);
  o.limit = 15;
  o.flags = PROFPACK_TOP_INCLUSIVE;
  CHECK(topTsv(p, o, 0) == cliTsv(cgr + " -n 15 --inclusive"));
  profpack_profile_free(p);
  const std::string mt = testlib::data("xray/fdr-v5-mt-manybuf.xray");
  p = readOk(mt);
  profpack_top_options_init(&o);
  o.limit = 10;
  for (size_t t = 0; t < 4; ++t) {
    o.thread = t;
    CHECK(topTsv(p, o, 0) == cliTsv(mt + " -n 10 --thread " + std::to_string(t)));
  }
  o.thread = 4;
  CHECK_EQ(profpack_profile_top(p, &o, row, cost, 2, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile_free(p);

  // A difference: signed costs, ranked by magnitude, as the CLI prints the same file.
  profpack_profile* a = readOk(testlib::data("merge/cachegrind.workload.run1.out"));
  profpack_profile* b = readOk(testlib::data("merge/cachegrind.workload.run2.out"));
  profpack_profile* d = nullptr;
  CHECK_EQ(profpack_diff(b, a, nullptr, &d), PROFPACK_OK);  // run 1 costs less: negative
  const std::string path = tmpPath("diff.cachegrind");
  CHECK_EQ(profpack_write_file(d, PROFPACK_FORMAT_CACHEGRIND, path.c_str(), nullptr), PROFPACK_OK);
  profpack_top_options_init(&o);
  o.limit = 20;
  const auto diff = topTsv(d, o, 0);
  CHECK(diff == cliTsv(path + " -n 20"));
  bool negative = false;
  for (const auto& l : diff) negative |= l[0] == '-';
  CHECK(negative);
  std::remove(path.c_str());
  profpack_profile_free(d);
  profpack_profile_free(b);
  profpack_profile_free(a);
}

namespace {

// A fresh archive path in the temporary directory.
std::string archivePath(const char* name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string p = std::string(tmp ? tmp : "/tmp") + "/profpack-test-" + std::to_string(getpid()) +
                  "-" + name + ".ppka";
  ::unlink(p.c_str());
  return p;
}

profpack_archive* openWritable(const std::string& path) {
  profpack_archive_options o;
  profpack_archive_options_init(&o);
  o.writable = 1;
  profpack_archive* a = nullptr;
  CHECK_EQ(profpack_archive_open(path.c_str(), &o, &a), PROFPACK_OK);
  return a;
}

int64_t memberTime(const profpack_archive* a, size_t i) {
  profpack_archive_member m{};
  m.struct_size = sizeof m;
  CHECK_EQ(profpack_archive_member_info(a, i, &m), PROFPACK_OK);
  return m.time;
}

}  // namespace

// A member's time: the profile's own (pprof time_nanos 1795728505616286501, go tool pprof's
// "Time: 2026-11-26 21:28:25.616286501 +0000 UTC"), else the given time, else the file's mtime.
TEST(archive_member_time) {
  const std::string path = archivePath("time");
  const std::string copy = path + ".prof";
  {
    std::ofstream(copy, std::ios::binary)
        << testlib::slurp(testlib::data("gperftools/workload.64le.prof"));
  }
  struct timespec times[2] = {{1500000000, 0}, {1500000000, 0}};
  CHECK_EQ(::utimensat(AT_FDCWD, copy.c_str(), times, 0), 0);
  profpack_profile* pprof = readOk(testlib::data("pprof/go-cpu.pb.gz"));
  profpack_profile* gperf = readOk(copy);
  profpack_archive* a = openWritable(path);
  const profpack_profile* both[] = {pprof, gperf};
  CHECK_EQ(profpack_archive_add(a, both, 2, nullptr, 0, 1700000000), PROFPACK_OK);
  CHECK_EQ(profpack_archive_add(a, both, 2, nullptr, 0, 0), PROFPACK_OK);
  CHECK_EQ(memberTime(a, 0), 1795728505);
  CHECK_EQ(memberTime(a, 1), 1700000000);
  CHECK_EQ(memberTime(a, 2), 1795728505);
  CHECK_EQ(memberTime(a, 3), 1500000000);
  profpack_archive_close(a);
  profpack_profile_free(pprof);
  profpack_profile_free(gperf);
  ::unlink(copy.c_str());
  ::unlink(path.c_str());
}

// A handle opened for reading neither adds nor compacts: its view may be older than the file,
// and a compact through it wrote the file anew from that view, losing a member another handle
// had added since.
TEST(archive_read_only_handle_does_not_write) {
  const std::string path = archivePath("readonly");
  profpack_archive* w = openWritable(path);
  profpack_archive_close(w);
  profpack_archive_options o;
  profpack_archive_options_init(&o);
  profpack_archive* r = nullptr;
  CHECK_EQ(profpack_archive_open(path.c_str(), &o, &r), PROFPACK_OK);
  profpack_profile* p = readOk(testlib::data("pprof/go-cpu.pb.gz"));
  const profpack_profile* one[] = {p};
  w = openWritable(path);
  CHECK_EQ(profpack_archive_add(w, one, 1, nullptr, 0, 0), PROFPACK_OK);
  profpack_archive_close(w);
  CHECK_EQ(profpack_archive_compact(r), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(profpack_last_error()->message).find("opened for writing") !=
        std::string::npos);
  CHECK_EQ(profpack_archive_add(r, one, 1, nullptr, 0, 0), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_archive_close(r);
  CHECK_EQ(profpack_archive_open(path.c_str(), &o, &r), PROFPACK_OK);
  size_t n = 0;
  CHECK_EQ(profpack_archive_count(r, &n), PROFPACK_OK);
  CHECK_EQ(n, size_t{1});
  profpack_archive_close(r);
  profpack_profile_free(p);
  ::unlink(path.c_str());
}

// Merge, diff and one function's cost over members, and their refusals.
TEST(archive_merge_diff_function_cost) {
  const std::string path = archivePath("queries");
  std::vector<profpack_profile*> ps;
  for (const char* n : {"01", "02", "03"})
    ps.push_back(
        readOk(testlib::data(std::string("callgrind-threads/callgrind.out.workload-") + n)));
  profpack_archive* a = openWritable(path);
  CHECK_EQ(profpack_archive_add(a, ps.data(), ps.size(), nullptr, 0, 5), PROFPACK_OK);
  const size_t base[] = {0, 1}, current[] = {2};
  profpack_profile *m = nullptr, *want = nullptr, *d = nullptr, *cur = nullptr, *wantD = nullptr;
  CHECK_EQ(profpack_archive_merge(a, base, 2, &m), PROFPACK_OK);
  CHECK_EQ(profpack_merge(ps.data(), nullptr, 2, &want), PROFPACK_OK);
  int eq = 0;
  CHECK_EQ(profpack_profile_equal(m, want, &eq), PROFPACK_OK);
  CHECK_EQ(eq, 1);
  CHECK_EQ(profpack_archive_diff(a, base, 2, current, 1, nullptr, &d), PROFPACK_OK);
  CHECK_EQ(profpack_merge(ps.data() + 2, nullptr, 1, &cur), PROFPACK_OK);
  CHECK_EQ(profpack_diff(want, cur, nullptr, &wantD), PROFPACK_OK);
  CHECK_EQ(profpack_profile_equal(d, wantD, &eq), PROFPACK_OK);
  CHECK_EQ(eq, 1);
  // callgrind_annotate: cmp 6,305,184 Ir in the second part, none in the first; "cmp" is not
  // a pattern: strcmp and memcmp in the first do not count.
  uint64_t self = 1, incl = 1;
  size_t matched = 1;
  CHECK_EQ(profpack_archive_function_cost(a, 0, "cmp", "Ir", &self, &incl, &matched), PROFPACK_OK);
  CHECK_EQ(self, 0u);
  CHECK_EQ(matched, 0u);
  CHECK_EQ(profpack_archive_function_cost(a, 1, "cmp", nullptr, &self, &incl, &matched),
           PROFPACK_OK);
  CHECK_EQ(self, 6305184u);
  CHECK_EQ(incl, 6305184u);
  CHECK_EQ(matched, 1u);
  CHECK_EQ(profpack_archive_function_cost(a, 1, "cmp", "nosuch", &self, &incl, nullptr),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_archive_function_cost(a, 9, "cmp", nullptr, &self, &incl, nullptr),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_archive_function_cost(a, 0, nullptr, nullptr, &self, &incl, nullptr),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile* none = nullptr;
  CHECK_EQ(profpack_archive_merge(a, base, 0, &none), PROFPACK_ERROR_INVALID_ARGUMENT);
  const size_t bad[] = {0, 7};
  CHECK_EQ(profpack_archive_merge(a, bad, 2, &none), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_archive_diff(a, base, 2, current, 0, nullptr, &none),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK(none == nullptr);
  for (profpack_profile* p : {m, want, d, cur, wantD}) profpack_profile_free(p);
  for (profpack_profile* p : ps) profpack_profile_free(p);
  profpack_archive_close(a);
  ::unlink(path.c_str());
}
