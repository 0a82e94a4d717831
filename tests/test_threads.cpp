// Eight threads convert different files at once through the C ABI, and several threads query
// one shared profile. Run under ThreadSanitizer by scripts/test.sh (build-tsan).
#include <profpack/profpack.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "testlib.h"

namespace {
const char* kFiles[] = {
    "cachegrind/cachegrind.workload.out",
    "cachegrind/cachegrind.workload.ir-only.out",
    "xray/fdr-v5-st.xray",
    "xray/basic-v3-st.xray",
    "dcpi/small.dcpi",
    "dcpi/medium.dcpi",
    "xray/fdr-v5-tailexit.xray",
    "dcpi/padded-unknown.dcpi",
};
}  // namespace

TEST(eight_threads_convert_different_files) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (const char* rel : kFiles) {
    threads.emplace_back([&failures, rel] {
      for (int round = 0; round < 3; ++round) {
        profpack_profile* p = nullptr;
        if (profpack_read_file(testlib::data(rel).c_str(), nullptr, &p) != PROFPACK_OK) {
          ++failures;
          return;
        }
        void* ppk = nullptr;
        size_t size = 0;
        profpack_profile* q = nullptr;
        int equal = 0;
        if (profpack_write_memory(p, PROFPACK_FORMAT_PPK, nullptr, &ppk, &size) != PROFPACK_OK ||
            profpack_read_memory(ppk, size, nullptr, &q) != PROFPACK_OK ||
            profpack_profile_equal(p, q, &equal) != PROFPACK_OK || !equal)
          ++failures;
        void* back = nullptr;
        if (q && profpack_write_memory(q, profpack_profile_format(p), nullptr, &back, &size) !=
                     PROFPACK_OK)
          ++failures;
        // Errors stay on their thread.
        profpack_profile* bad = nullptr;
        if (profpack_read_memory("x", 1, nullptr, &bad) != PROFPACK_ERROR_MALFORMED ||
            profpack_last_error()->code != PROFPACK_ERROR_MALFORMED)
          ++failures;
        profpack_free(back);
        profpack_free(ppk);
        profpack_profile_free(q);
        profpack_profile_free(p);
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK_EQ(failures.load(), 0);
}

// A Callgrind profile large enough for the reader's own threads (the cost-table encoder from
// 16,384 rows, the string sort from 4,096 names), read by four threads at once: under
// ThreadSanitizer this checks those threads too. Every read gives the same .ppk bytes.
TEST(threads_read_large_callgrind) {
  std::string text = "events: Ir Dr\npositions: instr line\nob=(1) /bin/x\nfl=(1) a.c\n";
  for (int f = 0; f < 6000; ++f) {
    text += "fn=(" + std::to_string(f + 1) + ") ns::function_" + std::to_string(f * 7919 % 6000) +
            "\n0x" + std::to_string(4000 + f) + "0 " + std::to_string(f) + " 3 1\n";
    for (int i = 0; i < 4; ++i) text += "+2 +1 " + std::to_string(i + f % 5) + "\n";
    if (f > 0) text += "cfn=(" + std::to_string(f) + ")\ncalls=2 0x4000 1\n+1 * 9 2\n";
    text += "jcnd=1/3 +4 +1\n* * 1\n";
  }
  std::atomic<int> failures{0};
  std::vector<std::string> ppks(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < ppks.size(); ++t) {
    threads.emplace_back([&, t] {
      profpack_profile* p = nullptr;
      void* ppk = nullptr;
      size_t size = 0;
      if (profpack_read_memory(text.data(), text.size(), nullptr, &p) != PROFPACK_OK ||
          profpack_write_memory(p, PROFPACK_FORMAT_PPK, nullptr, &ppk, &size) != PROFPACK_OK)
        ++failures;
      else
        ppks[t].assign(static_cast<const char*>(ppk), size);
      profpack_free(ppk);
      profpack_profile_free(p);
    });
  }
  for (auto& t : threads) t.join();
  CHECK_EQ(failures.load(), 0);
  for (const std::string& x : ppks) CHECK(x == ppks[0] && !x.empty());
}

// A .ppk of a large IR stores the whole profile's function layer, computed on a thread of its
// own while the IR compresses (lib/formats/registry_ppk.cpp): four threads write one profile
// while others query it, and each .ppk reads back with the same top functions.
TEST(threads_write_a_ppk_with_its_function_layer) {
  std::string text = "events: Ir\npositions: line\nob=(1) /bin/x\nfl=(1) a.c\n";
  for (int f = 0; f < 40000; ++f) {
    text += "fn=(" + std::to_string(f + 1) + ") f" + std::to_string(f) + "\n";
    for (int i = 0; i < 12; ++i)
      text += std::to_string(f % 97 + i) + " " + std::to_string(f * 13 % 1009 + i) + "\n";
    if (f > 0)
      text +=
          "cfn=(" + std::to_string(f * 7 % f + 1) + ")\ncalls=2 1\n5 " + std::to_string(f) + "\n";
  }
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_memory(text.data(), text.size(), nullptr, &p), PROFPACK_OK);
  profpack_info info;
  profpack_info_init(&info);
  CHECK_EQ(profpack_profile_info(p, &info), PROFPACK_OK);
  CHECK(info.ir_bytes >= (uint64_t{1} << 20));
  std::atomic<int> failures{0};
  std::vector<std::string> ppks(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      if (t >= ppks.size()) {  // queries while the others write
        size_t ids[8], n = 0;
        if (profpack_profile_top_functions(p, 0, PROFPACK_TOP_INCLUSIVE, ids, 8, &n) != PROFPACK_OK)
          ++failures;
        return;
      }
      void* ppk = nullptr;
      size_t size = 0;
      if (profpack_write_memory(p, PROFPACK_FORMAT_PPK, nullptr, &ppk, &size) != PROFPACK_OK)
        ++failures;
      else
        ppks[t].assign(static_cast<const char*>(ppk), size);
      profpack_free(ppk);
    });
  }
  for (auto& t : threads) t.join();
  CHECK_EQ(failures.load(), 0);
  size_t want[20], wantN = 0;
  CHECK_EQ(profpack_profile_top_functions(p, 0, 0, want, 20, &wantN), PROFPACK_OK);
  for (const std::string& x : ppks) {
    CHECK(x == ppks[0] && !x.empty());
    CHECK(x.find("PPKM") != std::string::npos);  // the stored layer's frame
    profpack_profile* q = nullptr;
    CHECK_EQ(profpack_read_memory(x.data(), x.size(), nullptr, &q), PROFPACK_OK);
    size_t got[20], gotN = 0;
    CHECK_EQ(profpack_profile_top_functions(q, 0, 0, got, 20, &gotN), PROFPACK_OK);
    CHECK_EQ(gotN, wantN);
    for (size_t i = 0; i < 20; ++i) CHECK_EQ(got[i], want[i]);
    profpack_profile_free(q);
  }
  // Such a .ppk's IR is decompressed when first needed: threads that need it at once (a writer,
  // the call arcs) each see the one IR, while others answer from the stored layer.
  profpack_profile* q = nullptr;
  CHECK_EQ(profpack_read_memory(ppks[0].data(), ppks[0].size(), nullptr, &q), PROFPACK_OK);
  std::vector<std::string> written(3);
  std::vector<size_t> callees(3);
  threads.clear();
  for (size_t t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      if (t < written.size()) {
        void* out = nullptr;
        size_t size = 0;
        if (profpack_write_memory(q, PROFPACK_FORMAT_CALLGRIND, nullptr, &out, &size) !=
            PROFPACK_OK)
          ++failures;
        else
          written[t].assign(static_cast<const char*>(out), size);
        profpack_free(out);
      } else if (t < written.size() + callees.size()) {
        profpack_call calls[64];
        if (profpack_profile_callees(q, want[0], 0, calls, 64, &callees[t - written.size()]) !=
            PROFPACK_OK)
          ++failures;
      } else {
        size_t ids[8], n = 0;
        if (profpack_profile_top_functions(q, 0, 0, ids, 8, &n) != PROFPACK_OK || n != wantN ||
            !std::equal(ids, ids + 8, want))
          ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK_EQ(failures.load(), 0);
  void* direct = nullptr;
  size_t directSize = 0;
  CHECK_EQ(profpack_write_memory(p, PROFPACK_FORMAT_CALLGRIND, nullptr, &direct, &directSize),
           PROFPACK_OK);
  for (const std::string& w : written)
    CHECK(w == std::string(static_cast<const char*>(direct), directSize));
  profpack_free(direct);
  size_t directCallees = 0;
  profpack_call calls[64];
  CHECK_EQ(profpack_profile_callees(p, want[0], 0, calls, 64, &directCallees), PROFPACK_OK);
  for (size_t n : callees) CHECK_EQ(n, directCallees);
  profpack_profile_free(q);
  profpack_profile_free(p);
}

namespace {
// A 64-bit little-endian gperftools profile of `records` records with distinct chains 8 deep,
// and the binary trailer; `truncate` cuts it inside the last record.
// `p` written in `f` into `out`.
bool writeAs(const profpack_profile* p, profpack_format f, std::string& out) {
  void* data = nullptr;
  size_t size = 0;
  const bool ok = profpack_write_memory(p, f, nullptr, &data, &size) == PROFPACK_OK;
  if (ok) out.assign(static_cast<const char*>(data), size);
  profpack_free(data);
  return ok;
}

// Six threads write `p` in each of `n` formats at once, each starting at another one (shifted
// by `round`; `each` formats per thread at most), then run `after`; the writes that fail or
// differ from `expected`, and the `after` calls that return false.
template <class After>
int writeFromThreads(const profpack_profile* p, const profpack_format* formats,
                     const std::string* expected, size_t n, int round, After after,
                     size_t each = SIZE_MAX) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (size_t k = 0; k < std::min(n, each); ++k) {
        const size_t i = (t + k + static_cast<size_t>(round)) % n;
        std::string out;
        if (!writeAs(p, formats[i], out) || out != expected[i]) ++failures;
      }
      if (!after()) ++failures;
    });
  }
  for (auto& t : threads) t.join();
  return failures.load();
}

std::string syntheticGperftools(size_t records, bool truncate) {
  std::string out;
  auto slot = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  };
  for (uint64_t v : {0, 3, 0, 10000, 0}) slot(v);
  for (size_t r = 0; r < records; ++r) {
    slot(1 + r % 7);
    slot(8);
    for (uint64_t k = 0; k < 8; ++k)
      slot(0x400000 + ((r * 2654435761u) >> (k * 3) & 0xfff) * 16 + k);
  }
  if (truncate) {
    out.resize(out.size() - 12);
    return out;
  }
  for (uint64_t v : {0, 1, 0}) slot(v);
  return out + "00400000-00500000 r-xp 00000000 08:01 42 /bin/synthetic\n";
}
}  // namespace

// Threads that read (or write) one large profile at once, each with the library's own threads
// inside: two are enough to race them (four took twice as long under TSan and found no more).
constexpr size_t kReaders = 2;

// The gperftools reader walks the records on a thread of its own, the model finds call edges on
// another, and the pprof writer compresses chunks side by side: two threads read one large
// profile at once (and a truncated copy, whose error comes from the walk's thread) and must all
// write the same bytes.
TEST(threads_read_and_write_large_gperftools) {
  // 24,000 records: 1.9 MB, over the reader's thread threshold (1 MB) and several gzip chunks.
  const std::string whole = syntheticGperftools(24000, false);
  const std::string cut = syntheticGperftools(24000, true);
  std::vector<std::string> pprof(kReaders), callgrind(kReaders);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kReaders; ++t) {
    threads.emplace_back([&, t] {
      profpack_profile* p = nullptr;
      if (profpack_read_memory(whole.data(), whole.size(), nullptr, &p) != PROFPACK_OK) {
        ++failures;
        return;
      }
      for (auto [format, out] : {std::pair{PROFPACK_FORMAT_PPROF, &pprof[t]},
                                 std::pair{PROFPACK_FORMAT_CALLGRIND, &callgrind[t]}}) {
        void* data = nullptr;
        size_t size = 0;
        if (profpack_write_memory(p, format, nullptr, &data, &size) != PROFPACK_OK) ++failures;
        if (data) out->assign(static_cast<const char*>(data), size);
        profpack_free(data);
      }
      profpack_profile_free(p);
      profpack_profile* bad = nullptr;
      if (profpack_read_memory(cut.data(), cut.size(), nullptr, &bad) != PROFPACK_ERROR_MALFORMED ||
          std::strstr(profpack_last_error()->message, "num_pcs") == nullptr)
        ++failures;
    });
  }
  for (auto& t : threads) t.join();
  CHECK_EQ(failures.load(), 0);
  CHECK(pprof[0].size() > 100000);  // several gzip chunks before compression
  for (size_t t = 1; t < kReaders; ++t) {
    CHECK(pprof[t] == pprof[0]);
    CHECK(callgrind[t] == callgrind[0]);
  }
}

// The pprof model sums a profile of 65,536 samples or more in two halves on two threads: two
// threads write one such profile (made from the synthetic gperftools one: 70,000 distinct
// stacks) as Callgrind and folded stacks at once, each building its own model, and must all
// write the same bytes.
TEST(threads_write_a_large_pprof) {
  const std::string gperf = syntheticGperftools(70000, false);
  profpack_profile* g = nullptr;
  CHECK_EQ(profpack_read_memory(gperf.data(), gperf.size(), nullptr, &g), PROFPACK_OK);
  void* pb = nullptr;
  size_t pbSize = 0;
  CHECK_EQ(profpack_write_memory(g, PROFPACK_FORMAT_PPROF, nullptr, &pb, &pbSize), PROFPACK_OK);
  profpack_profile_free(g);
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_memory(pb, pbSize, nullptr, &p), PROFPACK_OK);
  profpack_free(pb);
  profpack_info info;
  profpack_info_init(&info);
  CHECK_EQ(profpack_profile_info(p, &info), PROFPACK_OK);
  CHECK(info.records >= 65536);
  std::vector<std::string> callgrind(kReaders), folded(kReaders);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kReaders; ++t) {
    threads.emplace_back([&, t] {
      for (auto [format, out] : {std::pair{PROFPACK_FORMAT_CALLGRIND, &callgrind[t]},
                                 std::pair{PROFPACK_FORMAT_FOLDED, &folded[t]}}) {
        void* data = nullptr;
        size_t size = 0;
        if (profpack_write_memory(p, format, nullptr, &data, &size) != PROFPACK_OK) ++failures;
        if (data) out->assign(static_cast<const char*>(data), size);
        profpack_free(data);
      }
    });
  }
  for (auto& t : threads) t.join();
  profpack_profile_free(p);
  CHECK_EQ(failures.load(), 0);
  CHECK(callgrind[0].find("calls=") != std::string::npos);
  for (size_t t = 1; t < kReaders; ++t) {
    CHECK(callgrind[t] == callgrind[0]);
    CHECK(folded[t] == folded[0]);
  }
}

// A profile read with PROFPACK_READ_DEFER_IR builds its stack columns when first asked for:
// six threads ask one such profile for every output at once, in different orders, so that the
// build races with model builds that read the rest of the IR (and with other builds). Each
// output must be the eagerly read profile's.
TEST(threads_share_a_profile_read_with_defer_ir) {
  // 14,000 records: 1.1 MB, just over the reader's thread threshold (1 MB).
  const std::string whole = syntheticGperftools(14000, false);
  const profpack_format kFormats[] = {PROFPACK_FORMAT_PPK, PROFPACK_FORMAT_PPROF,
                                      PROFPACK_FORMAT_GPERFTOOLS, PROFPACK_FORMAT_CALLGRIND,
                                      PROFPACK_FORMAT_FOLDED};
  constexpr size_t kN = sizeof kFormats / sizeof kFormats[0];
  std::string expected[kN];
  profpack_profile* eager = nullptr;
  CHECK_EQ(profpack_read_memory(whole.data(), whole.size(), nullptr, &eager), PROFPACK_OK);
  for (size_t i = 0; i < kN; ++i) CHECK(writeAs(eager, kFormats[i], expected[i]));
  profpack_profile_free(eager);
  CHECK(expected[2] == whole);

  for (int round = 0; round < 2; ++round) {
    profpack_read_options ro;
    profpack_read_options_init(&ro);
    ro.flags = PROFPACK_READ_DEFER_IR;
    profpack_profile* p = nullptr;
    CHECK_EQ(profpack_read_memory(whole.data(), whole.size(), &ro, &p), PROFPACK_OK);
    // Each thread's first two outputs: the six threads start on every one of the five at
    // once, and the deferred columns are built by the first of them to ask; writing the rest
    // again would only repeat work done after the build (and take a minute under TSan).
    const int failures = writeFromThreads(
        p, kFormats, expected, kN, round,
        [p] {
          profpack_info info;
          profpack_info_init(&info);
          return profpack_profile_info(p, &info) == PROFPACK_OK && info.records == 14000;
        },
        2);
    profpack_profile_free(p);
    CHECK_EQ(failures, 0);
  }
}

// A perf recording named as it is read for conversions (PROFPACK_READ_DEFER_IR) keeps its IR
// and builds the symbol section on the first .ppk write; threads converting and writing it at
// once get what symbolize and then the write give, as they do without the flag.
TEST(threads_share_a_profile_named_on_read) {
  const std::string file = testlib::data("perf/threads.data"), dir = testlib::data("perf");
  const char* dirs[] = {dir.c_str()};
  const profpack_format kFormats[] = {PROFPACK_FORMAT_PPK, PROFPACK_FORMAT_PPROF,
                                      PROFPACK_FORMAT_CALLGRIND, PROFPACK_FORMAT_FOLDED,
                                      PROFPACK_FORMAT_TRACE_EVENT};
  constexpr size_t kN = sizeof kFormats / sizeof kFormats[0];
  profpack_profile *plain = nullptr, *named = nullptr;
  CHECK_EQ(profpack_read_file(file.c_str(), nullptr, &plain), PROFPACK_OK);
  profpack_symbolize_options so;
  profpack_symbolize_options_init(&so);
  so.binary_path = dirs;
  so.binary_path_count = 1;
  CHECK_EQ(profpack_profile_symbolize(plain, &so, &named), PROFPACK_OK);
  std::string expected[kN];
  for (size_t i = 0; i < kN; ++i) CHECK(writeAs(named, kFormats[i], expected[i]));
  CHECK(expected[3].find(";work_a ") != std::string::npos);
  profpack_profile_free(named);
  profpack_profile_free(plain);

  for (int round = 0; round < 2; ++round) {
    profpack_read_options ro;
    profpack_read_options_init(&ro);
    // With PROFPACK_READ_DEFER_IR the symbol section waits for the first .ppk write.
    ro.flags = PROFPACK_READ_SYMBOLIZE | (round == 0 ? PROFPACK_READ_DEFER_IR : 0u);
    ro.binary_path = dirs;
    ro.binary_path_count = 1;
    profpack_profile* p = nullptr;
    CHECK_EQ(profpack_read_file(file.c_str(), &ro, &p), PROFPACK_OK);
    const int failures = writeFromThreads(p, kFormats, expected, kN, round, [] { return true; });
    profpack_profile_free(p);
    CHECK_EQ(failures, 0);
  }
}

TEST(threads_query_one_profile) {
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_file(testlib::data(kFiles[0]).c_str(), nullptr, &p), PROFPACK_OK);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&failures, p, t] {
      size_t ids[5], n = 0;
      profpack_info info;
      profpack_info_init(&info);
      if (profpack_profile_top_functions(p, static_cast<size_t>(t % 13), 0, ids, 5, &n) !=
              PROFPACK_OK ||
          n < 5 || profpack_profile_info(p, &info) != PROFPACK_OK || info.events != 13)
        ++failures;
      size_t lines = 0;
      if (profpack_profile_line_costs(p, "workload.c", 0, nullptr, 0, &lines) != PROFPACK_OK ||
          lines == 0)
        ++failures;
    });
  }
  for (auto& t : threads) t.join();
  profpack_profile_free(p);
  CHECK_EQ(failures.load(), 0);
}

// Views of one trace's threads made and queried from eight threads at once, while the
// profile they come from is queried too: a profile never changes after it is read.
TEST(threads_view_one_profile) {
  profpack_profile* p = nullptr;
  CHECK_EQ(profpack_read_file(testlib::data("xray/fdr-v5-mt-manybuf.xray").c_str(), nullptr, &p),
           PROFPACK_OK);
  profpack_event all;
  size_t ne = 0;
  CHECK_EQ(profpack_profile_events(p, &all, 1, &ne), PROFPACK_OK);
  std::atomic<uint64_t> sum{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      profpack_view_options vo;
      profpack_view_options_init(&vo);
      vo.thread = static_cast<size_t>(t % 4);
      profpack_profile* v = nullptr;
      profpack_event ev;
      size_t n = 0, ids[3];
      if (profpack_profile_view(p, &vo, &v) != PROFPACK_OK ||
          profpack_profile_events(v, &ev, 1, &n) != PROFPACK_OK ||
          profpack_profile_top_functions(v, 0, 0, ids, 3, &n) != PROFPACK_OK ||
          profpack_profile_top_functions(p, 0, 0, ids, 3, &n) != PROFPACK_OK)
        ++failures;
      else
        sum += ev.total;
      profpack_profile_free(v);
    });
  }
  for (auto& t : threads) t.join();
  CHECK_EQ(failures.load(), 0);
  CHECK_EQ(sum.load(), 2 * all.total);  // each of the 4 threads viewed twice
  profpack_profile_free(p);
}

TEST_MAIN()
