// Queries through the C ABI: totals, top N, per-line costs, callers/callees, bad arguments.
#include <profpack/profpack.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "testlib.h"

namespace {
profpack_profile* open(const char* rel) {
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_file(testlib::data(rel).c_str(), nullptr, &p), PROFPACK_OK);
  return p;
}
size_t findFunction(profpack_profile* p, const char* name) {
  size_t n = 0;
  CHECK_EQ(profpack_profile_functions(p, nullptr, 0, &n), PROFPACK_OK);
  for (size_t i = 0; i < n; ++i) {
    profpack_function f;
    CHECK_EQ(profpack_profile_function(p, i, &f), PROFPACK_OK);
    if (std::strcmp(f.name, name) == 0) return i;
  }
  throw testlib::Failure{std::string("no function ") + name};
}
}  // namespace

TEST(cachegrind_top_and_costs_match_cg_annotate) {
  profpack_profile* p = open("cachegrind/cachegrind.workload.out");
  size_t ev = 99;
  CHECK_EQ(profpack_profile_event_index(p, "Dr", &ev), PROFPACK_OK);
  CHECK_EQ(ev, 3u);
  CHECK_EQ(profpack_profile_event_index(p, "Nope", &ev), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(profpack_last_error()->message, "events: Ir, I1mr");
  size_t ids[3], n = 0;
  CHECK_EQ(profpack_profile_top_functions(p, 0, 0, ids, 3, &n), PROFPACK_OK);
  CHECK(n > 3u);  // every function is ranked; the first three are written
  // cg_annotate --threshold=0 on this file: msort_with_tmp.part.0 34,023,858 Ir; cmp
  // 12,964,176 Ir and 4,861,566 Dr; __vfprintf_internal (vfprintf-internal.c) 7,710,222.
  profpack_function f;
  CHECK_EQ(profpack_profile_function(p, ids[0], &f), PROFPACK_OK);
  CHECK(std::strcmp(f.name, "msort_with_tmp.part.0") == 0);
  CHECK(std::strcmp(f.file, "./stdlib/./stdlib/msort.c") == 0);
  uint64_t self = 0, incl = 0;
  CHECK_EQ(profpack_profile_function_cost(p, ids[0], 0, &self, &incl), PROFPACK_OK);
  CHECK_EQ(self, 34023858u);
  CHECK_EQ(incl, self);  // no call information in Cachegrind
  CHECK_EQ(profpack_profile_function(p, ids[1], &f), PROFPACK_OK);
  CHECK(std::strcmp(f.name, "cmp") == 0);
  CHECK_EQ(profpack_profile_function_cost(p, ids[1], 3, &self, nullptr), PROFPACK_OK);
  CHECK_EQ(self, 4861566u);
  // With ids NULL: the number of functions, as for every enumeration.
  CHECK_EQ(profpack_profile_top_functions(p, 0, 0, nullptr, 0, &n), PROFPACK_OK);
  size_t count = 0;
  CHECK_EQ(profpack_profile_functions(p, nullptr, 0, &count), PROFPACK_OK);
  CHECK_EQ(n, count);
  profpack_profile_free(p);
}

TEST(line_costs_by_exact_and_foreign_path) {
  profpack_profile* p = open("cachegrind/cachegrind.workload.out");
  size_t n = 0;
  CHECK_EQ(
      profpack_profile_line_costs(p, "/usr/src/profpack-samples/workload.c", 0, nullptr, 0, &n),
      PROFPACK_OK);
  CHECK(n > 10);
  std::vector<profpack_line_cost> lines(n);
  size_t m = 0;
  CHECK_EQ(
      profpack_profile_line_costs(p, "/srv/elsewhere/checkout/workload.c", 0, lines.data(), n, &m),
      PROFPACK_OK);
  CHECK_EQ(m, n);
  bool saw7 = false;
  for (size_t i = 0; i < m; ++i) {
    if (i) CHECK(lines[i - 1].line < lines[i].line);
    if (lines[i].line == 7) {
      saw7 = true;
      CHECK_EQ(lines[i].cost, 12964176u);  // cmp() is on line 7
    }
  }
  CHECK(saw7);
  CHECK_EQ(profpack_profile_line_costs(p, "nothing.c", 0, nullptr, 0, &n), PROFPACK_OK);
  CHECK_EQ(n, 0u);
  profpack_profile_free(p);
}

// One header, two spellings: valgrind names it by the path each unit included it by,
// /tmp/hunt/inc/hdr.h (main.c) and /tmp/hunt/inc/sub/../hdr.h (sub/part.c). Every name of
// the file counts, however it is asked for: callgrind_annotate prints 7,000 Ir on line 6
// under the one and 8,000, 2,000 and 6,000 on lines 4-6 under the other.
TEST(line_costs_of_one_file_under_several_spellings) {
  profpack_profile* p = open("annotate/callgrind.incl.out");
  for (const char* path : {"/tmp/hunt/inc/hdr.h", "/tmp/hunt/inc/sub/../hdr.h", "hdr.h",
                           "sub/../hdr.h", "/srv/checkout/./hdr.h"}) {
    profpack_line_cost lines[8];
    size_t n = 0;
    CHECK_EQ(profpack_profile_line_costs(p, path, 0, lines, 8, &n), PROFPACK_OK);
    CHECK_EQ(n, 3u);
    CHECK_EQ(lines[0].line, 4u);
    CHECK_EQ(lines[0].cost, 8000u);
    CHECK_EQ(lines[1].line, 5u);
    CHECK_EQ(lines[1].cost, 2000u);
    CHECK_EQ(lines[2].line, 6u);
    CHECK_EQ(lines[2].cost, 13000u);
  }
  // The two units' own files stay apart.
  size_t n = 0;
  CHECK_EQ(profpack_profile_line_costs(p, "/tmp/hunt/inc/sub/part.c", 0, nullptr, 0, &n),
           PROFPACK_OK);
  CHECK(n > 0);
  std::vector<profpack_line_cost> part(n);
  CHECK_EQ(profpack_profile_line_costs(p, "/tmp/hunt/inc/sub/part.c", 0, part.data(), n, &n),
           PROFPACK_OK);
  for (auto& l : part) CHECK(l.line <= 6);
  profpack_profile_free(p);
}

// Two files of one name in two directories (/tmp/twofiles/a/util.c and b/util.c): a
// path that both fit equally is refused with the names, not answered with the lines of both
// added up; a path that fits one better gets that one's lines (callgrind_annotate --auto=yes:
// 9,004 and 3,000 Ir on lines 4-5 of a/util.c, 15,005 and 20,000 on those of b/util.c).
TEST(line_costs_of_two_files_of_one_name) {
  profpack_profile* p = open("annotate/callgrind.two-util.out");
  auto costs = [&](const char* path) {
    std::vector<profpack_line_cost> lines(16);
    size_t n = 0;
    CHECK_EQ(profpack_profile_line_costs(p, path, 0, lines.data(), lines.size(), &n), PROFPACK_OK);
    lines.resize(n);
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (auto& l : lines) out.emplace_back(l.line, l.cost);
    return out;
  };
  using Lines = std::vector<std::pair<uint64_t, uint64_t>>;
  CHECK(costs("a/util.c") == (Lines{{3, 1}, {4, 9004}, {5, 3000}, {7, 2}}));
  CHECK(costs("/home/me/checkout/b/util.c") == (Lines{{3, 1}, {4, 15005}, {5, 20000}, {7, 2}}));
  for (const char* path : {"util.c", "/srv/elsewhere/util.c", "./util.c"}) {
    size_t n = 7;
    CHECK_EQ(profpack_profile_line_costs(p, path, 0, nullptr, 0, &n),
             PROFPACK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(n, 0u);
    const std::string message = profpack_last_error()->message;
    CHECK(message.find("names 2 files of the profile: /tmp/twofiles/a/util.c, "
                       "/tmp/twofiles/b/util.c") != std::string::npos);
  }
  profpack_profile_free(p);
}

// A relative name the profile lists beside two absolute names it ends: asked for exactly (as a
// caller going through the profile's files does), it is that name's lines alone; asked for
// by a path that is none of the names, it is still ambiguous; and it is added to neither
// absolute name, being either's.
TEST(line_costs_of_a_listed_relative_name_beside_two_files) {
  const std::string text =
      "# callgrind format\nversion: 1\nevents: Ir\n"
      "fl=/x/a/util.c\nfn=f\n3 10\nfl=/x/b/util.c\nfn=g\n3 20\nfl=util.c\nfn=h\n3 5\n4 6\n";
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_memory(text.data(), text.size(), nullptr, &p), PROFPACK_OK);
  std::vector<profpack_line_cost> lines(8);
  size_t n = 0;
  CHECK_EQ(profpack_profile_line_costs(p, "util.c", 0, lines.data(), lines.size(), &n),
           PROFPACK_OK);
  CHECK_EQ(n, 2u);
  CHECK(lines[0].line == 3 && lines[0].cost == 5 && lines[1].line == 4 && lines[1].cost == 6);
  CHECK_EQ(profpack_profile_line_costs(p, "/x/a/util.c", 0, lines.data(), lines.size(), &n),
           PROFPACK_OK);
  CHECK(n == 1 && lines[0].line == 3 && lines[0].cost == 10);  // not util.c's: b's or a's?
  CHECK_EQ(profpack_profile_line_costs(p, "./util.c", 0, nullptr, 0, &n), PROFPACK_OK);
  CHECK_EQ(n, 2u);  // "." resolved: the same name
  CHECK_EQ(profpack_profile_line_costs(p, "/elsewhere/util.c", 0, nullptr, 0, &n),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile_free(p);
}

// The source files, one name each: every line cost in one of them, once. Callgrind files give
// each cost a file, so their line costs add up to the events' totals.
TEST(source_files_partition_the_line_costs) {
  auto files = [](profpack_profile* p) {
    size_t n = 0;
    CHECK_EQ(profpack_profile_source_files(p, nullptr, 0, &n), PROFPACK_OK);
    std::vector<const char*> names(n);
    CHECK_EQ(profpack_profile_source_files(p, names.data(), n, &n), PROFPACK_OK);
    return std::vector<std::string>(names.begin(), names.end());
  };
  auto sum = [](profpack_profile* p, const std::string& f) {
    size_t n = 0;
    CHECK_EQ(profpack_profile_line_costs(p, f.c_str(), 0, nullptr, 0, &n), PROFPACK_OK);
    std::vector<profpack_line_cost> lines(n);
    CHECK_EQ(profpack_profile_line_costs(p, f.c_str(), 0, lines.data(), n, &n), PROFPACK_OK);
    uint64_t s = 0;
    for (auto& l : lines) s += l.cost;
    return s;
  };
  for (const char* data :
       {"annotate/callgrind.incl.out", "annotate/callgrind.two-util.out",
        "callgrind/callgrind.workload.out", "callgrind/callgrind.rec.instr.out"}) {
    profpack_profile* p = open(data);
    const std::vector<std::string> names = files(p);
    CHECK(!names.empty());
    CHECK(std::is_sorted(names.begin(), names.end()));
    uint64_t total = 0;
    for (const std::string& f : names) total += sum(p, f);
    profpack_event ev{};
    size_t n = 1;
    CHECK_EQ(profpack_profile_events(p, &ev, 1, &n), PROFPACK_OK);
    CHECK_EQ(total, ev.total);
    if (std::string(data) == "annotate/callgrind.incl.out")  // one header, two spellings
      CHECK_EQ(std::count_if(names.begin(), names.end(),
                             [](auto& f) { return f.find("hdr.h") != std::string::npos; }),
               1);
    profpack_profile_free(p);
  }
  const std::string text =
      "# callgrind format\nversion: 1\nevents: Ir\n"
      "fl=/x/a/util.c\nfn=f\n3 10\nfl=/x/b/util.c\nfn=g\n3 20\nfl=util.c\nfn=h\n3 5\n"
      "fl=/x/c/hdr.h\nfn=i\n1 1\nfl=c/hdr.h\nfn=j\n1 2\nfl=hdr.h\nfn=k\n1 4\n";
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_memory(text.data(), text.size(), nullptr, &p), PROFPACK_OK);
  CHECK(
      (files(p) == std::vector<std::string>{"/x/a/util.c", "/x/b/util.c", "/x/c/hdr.h", "util.c"}));
  CHECK_EQ(sum(p, "/x/c/hdr.h"), 7u);  // c/hdr.h and hdr.h can only be its
  CHECK_EQ(sum(p, "hdr.h"), 7u);
  CHECK_EQ(sum(p, "util.c"), 5u);
  profpack_profile_free(p);
}

TEST(callers_callees_empty_without_calls) {
  profpack_profile* p = open("cachegrind/cachegrind.workload.out");
  size_t id = findFunction(p, "cmp"), n = 7;
  CHECK_EQ(profpack_profile_callers(p, id, 0, nullptr, 0, &n), PROFPACK_OK);
  CHECK_EQ(n, 0u);
  CHECK_EQ(profpack_profile_callees(p, id, 0, nullptr, 0, &n), PROFPACK_OK);
  CHECK_EQ(n, 0u);
  profpack_profile_free(p);
}

TEST(find_functions_by_name_file_and_regex) {
  profpack_profile* p = open("callgrind/callgrind.workload.out");
  auto find = [&](const char* pattern, uint32_t flags = 0) {
    size_t n = 0;
    CHECK_EQ(profpack_profile_find_functions(p, pattern, flags, nullptr, 0, &n), PROFPACK_OK);
    std::vector<size_t> ids(n);
    CHECK_EQ(profpack_profile_find_functions(p, pattern, flags, ids.data(), n, &n), PROFPACK_OK);
    std::vector<std::string> names;
    for (size_t id : ids) {
      profpack_function f;
      CHECK_EQ(profpack_profile_function(p, id, &f), PROFPACK_OK);
      names.push_back(f.name);
    }
    return names;
  };
  CHECK(find("cmp") == std::vector<std::string>{"cmp"});
  CHECK(find("workload.c:cmp") == std::vector<std::string>{"cmp"});
  CHECK(find("profpack-samples/workload.c:cmp").size() == 1);
  CHECK(find("orkload.c:cmp").empty());  // a file matches by whole path components
  CHECK(find("^msort_with_tmp").size() == 2);
  CHECK(find("no_such_function").empty());
  CHECK(find("(").empty());  // not a valid expression: no match, no error
  std::vector<size_t> near(3);
  size_t n = 0;
  CHECK_EQ(profpack_profile_find_functions(p, "cpm", PROFPACK_FIND_SIMILAR, near.data(), 3, &n),
           PROFPACK_OK);
  CHECK(n >= 1);
  profpack_function f;
  CHECK_EQ(profpack_profile_function(p, near[0], &f), PROFPACK_OK);
  CHECK(std::string(f.name) == "cmp");
  CHECK_EQ(profpack_profile_find_functions(p, "cmp", 0x80, nullptr, 0, &n),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_profile_find_functions(p, nullptr, 0, nullptr, 0, &n),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile_free(p);
}

TEST(per_thread_files_read_as_one_profile) {
  const std::string dir = testlib::data("callgrind-threads/callgrind.out.workload-0");
  const std::string one = dir + "1", two = dir + "2", three = dir + "3";
  const char* paths[] = {one.c_str(), two.c_str(), three.c_str()};
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_files(paths, 3, nullptr, &p), PROFPACK_OK);
  size_t n = 0;
  CHECK_EQ(profpack_profile_threads(p, nullptr, 0, &n), PROFPACK_OK);
  CHECK_EQ(n, 3u);
  // Each thread's view has the figures of its own file.
  for (size_t t = 0; t < 3; ++t) {
    profpack_profile* view = nullptr;
    profpack_view_options vo;
    profpack_view_options_init(&vo);
    vo.thread = t;
    CHECK_EQ(profpack_profile_view(p, &vo, &view), PROFPACK_OK);
    profpack_profile* alone = nullptr;
    CHECK_EQ(profpack_read_file(paths[t], nullptr, &alone), PROFPACK_OK);
    profpack_event a, b;
    size_t na = 1, nb = 1;
    CHECK_EQ(profpack_profile_events(view, &a, 1, &na), PROFPACK_OK);
    CHECK_EQ(profpack_profile_events(alone, &b, 1, &nb), PROFPACK_OK);
    CHECK_EQ(a.total, b.total);
    profpack_profile_free(alone);
    profpack_profile_free(view);
  }
  profpack_profile_free(p);
  // Files that are whole profiles each do not join; a defect names its file.
  const std::string prof = testlib::data("gperftools/workload.64le.prof");
  const char* mixed[] = {one.c_str(), prof.c_str()};
  CHECK_EQ(profpack_read_files(mixed, 2, nullptr, &p), PROFPACK_ERROR_UNSUPPORTED);
  CHECK(p == nullptr);
  CHECK(std::string(profpack_last_error()->message).find(prof) != std::string::npos);
  CHECK_EQ(profpack_read_files(paths, 0, nullptr, &p), PROFPACK_ERROR_INVALID_ARGUMENT);
  // A corrupt part is reported in its own file: its path, its line and byte offset there.
  const std::string bad = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                          "/profpack-test-bad-part.out";
  {
    std::ofstream f(bad, std::ios::binary);
    f << "# callgrind format\nevents: Ir\nfl=a.c\nfn=f\nx y\n";
  }
  const char* withBad[] = {one.c_str(), bad.c_str()};
  CHECK_EQ(profpack_read_files(withBad, 2, nullptr, &p), PROFPACK_ERROR_MALFORMED);
  const profpack_error* e = profpack_last_error();
  CHECK(std::string(e->message).rfind(bad + ": callgrind: line 5", 0) == 0);
  CHECK_EQ(e->line, 5u);
  std::remove(bad.c_str());
}

TEST(bad_query_arguments) {
  profpack_profile* p = open("cachegrind/cachegrind.workload.out");
  uint64_t self;
  CHECK_EQ(profpack_profile_function_cost(p, 1u << 30, 0, &self, nullptr),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(profpack_last_error()->message, "function id");
  CHECK_EQ(profpack_profile_function_cost(p, 0, 13, &self, nullptr),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(profpack_last_error()->message, "event index 13 out of range");
  size_t ids[2], n;
  CHECK_EQ(profpack_profile_top_functions(p, 0, 0x10, ids, 2, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_profile_top_functions(p, 0, 0, nullptr, 2, &n),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_profile_line_costs(p, nullptr, 0, nullptr, 0, &n),
           PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_profile_callers(p, 0, 0, nullptr, 1, &n), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_function f;
  CHECK_EQ(profpack_profile_function(p, 1u << 30, &f), PROFPACK_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(profpack_profile_function(nullptr, 0, &f), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_profile_free(p);
}

TEST_MAIN()

// callgrind --separate-threads=yes --combine-dumps=yes: one part per thread, each with its
// `thread:` line and the `summary:` callgrind wrote for that thread.
profpack_profile* threadView(const profpack_profile* p, size_t thread) {
  profpack_view_options vo;
  profpack_view_options_init(&vo);
  vo.thread = thread;
  profpack_profile* v = nullptr;
  CHECK_EQ(profpack_profile_view(p, &vo, &v), PROFPACK_OK);
  return v;
}

TEST(callgrind_threads_are_selectable_like_xray_threads) {
  profpack_profile* p = open("callgrind/callgrind.workload.threads-combined.out");
  size_t n = 0;
  CHECK_EQ(profpack_profile_threads(p, nullptr, 0, &n), PROFPACK_OK);
  CHECK_EQ(n, 3u);
  profpack_thread threads[3];
  CHECK_EQ(profpack_profile_threads(p, threads, 3, &n), PROFPACK_OK);
  const uint64_t summary[3] = {133073, 43481139, 45128590};
  uint64_t all = 0;
  for (size_t t = 0; t < 3; ++t) {
    CHECK_EQ(threads[t].pid, 16706u);
    CHECK_EQ(threads[t].thread_id, static_cast<uint32_t>(t + 1));
    profpack_profile* v = threadView(p, t);
    profpack_event ev;
    size_t ne = 0;
    CHECK_EQ(profpack_profile_events(v, &ev, 1, &ne), PROFPACK_OK);
    CHECK_EQ(ev.total, summary[t]);
    all += ev.total;
    profpack_profile_free(v);
  }
  // Thread 1 only: the first thread never calls cmp (the workers sort).
  profpack_profile* first = threadView(p, 0);
  size_t count = 0;
  CHECK_EQ(profpack_profile_functions(first, nullptr, 0, &count), PROFPACK_OK);
  for (size_t i = 0; i < count; ++i) {
    profpack_function f;
    CHECK_EQ(profpack_profile_function(first, i, &f), PROFPACK_OK);
    CHECK(std::strcmp(f.name, "cmp") != 0);
  }
  profpack_profile_free(first);
  profpack_view_options vo;
  profpack_view_options_init(&vo);
  vo.thread = 3;
  profpack_profile* none = nullptr;
  CHECK_EQ(profpack_profile_view(p, &vo, &none), PROFPACK_ERROR_INVALID_ARGUMENT);
  profpack_event ev;
  size_t ne = 0;
  CHECK_EQ(profpack_profile_events(p, &ev, 1, &ne), PROFPACK_OK);
  CHECK_EQ(ev.total, all);
  // A file of one part names no threads.
  profpack_profile* one = open("callgrind/callgrind.workload.out");
  CHECK_EQ(profpack_profile_threads(one, nullptr, 0, &n), PROFPACK_OK);
  CHECK_EQ(n, 0u);
  profpack_profile_free(one);
  profpack_profile_free(p);
}
