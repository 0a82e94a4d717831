// A minimal test harness: TEST(name) { CHECK(...); } and a main that runs every test, prints
// one line per test and "N passed, N failed" at the end. Each test binary is one meson test.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace testlib {

struct Case {
  const char* name;
  std::function<void()> fn;
};
inline std::vector<Case>& registry() {
  static std::vector<Case> r;
  return r;
}
struct Register {
  Register(const char* name, std::function<void()> fn) { registry().push_back({name, fn}); }
};
struct Failure {
  std::string what;
};
// Thrown by SKIP(why): the case could not run here. It counts as skipped, never as passed.
struct Skip {
  std::string why;
};
inline int failures = 0;

// Directory of test data (tests/data), from PROFPACK_TEST_DATA set by meson.
inline std::string dataDir() {
  const char* d = std::getenv("PROFPACK_TEST_DATA");
  return d ? d : "tests/data";
}
inline std::string data(const std::string& rel) { return dataDir() + "/" + rel; }
inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Failure{"cannot open " + path};
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// A directory for scratch files (TMPDIR, else /tmp), and a file name there unique to this
// process (builds' test runs share the directory).
inline std::string tempDir() {
  const char* d = std::getenv("TMPDIR");
  return d && *d ? d : "/tmp";
}
inline std::string tempPath(const std::string& name) {
  return tempDir() + "/profpack-test-" + std::to_string(::getpid()) + "-" + name;
}
inline void spit(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f) throw Failure{"cannot write " + path};
}

}  // namespace testlib

#define TEST(name)                                         \
  static void test_##name();                               \
  static testlib::Register reg_##name(#name, test_##name); \
  static void test_##name()

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      std::ostringstream os_;                                            \
      os_ << __FILE__ << ":" << __LINE__ << ": CHECK(" #cond ") failed"; \
      throw testlib::Failure{os_.str()};                                 \
    }                                                                    \
  } while (0)

// Ends the case as skipped, saying why (e.g. what this machine lacks).
#define SKIP(why) \
  throw testlib::Skip { why }

#define CHECK_EQ(a, b)                                                                   \
  do {                                                                                   \
    auto va_ = (a);                                                                      \
    auto vb_ = (b);                                                                      \
    if (!(va_ == vb_)) {                                                                 \
      std::ostringstream os_;                                                            \
      os_ << __FILE__ << ":" << __LINE__ << ": CHECK_EQ(" #a ", " #b ") failed: " << va_ \
          << " != " << vb_;                                                              \
      throw testlib::Failure{os_.str()};                                                 \
    }                                                                                    \
  } while (0)

// CHECK that `haystack` contains `needle`.
#define CHECK_CONTAINS(haystack, needle)                                                      \
  do {                                                                                        \
    std::string h_ = (haystack);                                                              \
    std::string n_ = (needle);                                                                \
    if (h_.find(n_) == std::string::npos) {                                                   \
      std::ostringstream os_;                                                                 \
      os_ << __FILE__ << ":" << __LINE__ << ": expected \"" << h_ << "\" to contain \"" << n_ \
          << "\"";                                                                            \
      throw testlib::Failure{os_.str()};                                                      \
    }                                                                                         \
  } while (0)

// The test binary's main: runs every case, or with arguments only the cases named (NAME) or all
// but those named (-NAME). Prints one line per case, then "N passed, N failed" (", N skipped"
// when a case was skipped). Exits 1 if a case failed, else 77 (meson: SKIP) if one was skipped,
// else 0: a case that can skip gets a meson test of its own, so its skip hides no other result.
#define TEST_MAIN()                                                                   \
  int main(int argc, char** argv) {                                                   \
    int passed = 0, failed = 0, skipped = 0;                                          \
    std::vector<std::string> only, except;                                            \
    for (int i = 1; i < argc; ++i)                                                    \
      (argv[i][0] == '-' ? except : only).push_back(argv[i] + (argv[i][0] == '-'));   \
    auto named = [](const std::vector<std::string>& v, const char* n) {               \
      for (auto& s : v)                                                               \
        if (s == n) return true;                                                      \
      return false;                                                                   \
    };                                                                                \
    for (auto& c : testlib::registry()) {                                             \
      if ((!only.empty() && !named(only, c.name)) || named(except, c.name)) continue; \
      try {                                                                           \
        c.fn();                                                                       \
        ++passed;                                                                     \
        std::printf("ok   %s\n", c.name);                                             \
      } catch (const testlib::Skip& s) {                                              \
        ++skipped;                                                                    \
        std::printf("skip %s: %s\n", c.name, s.why.c_str());                          \
      } catch (const testlib::Failure& f) {                                           \
        ++failed;                                                                     \
        std::printf("FAIL %s\n  %s\n", c.name, f.what.c_str());                       \
      } catch (const std::exception& e) {                                             \
        ++failed;                                                                     \
        std::printf("FAIL %s\n  unexpected exception: %s\n", c.name, e.what());       \
      }                                                                               \
    }                                                                                 \
    if (passed + failed + skipped == 0) {                                             \
      std::printf("FAIL no case matched the arguments\n");                            \
      ++failed;                                                                       \
    }                                                                                 \
    if (skipped)                                                                      \
      std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);     \
    else                                                                              \
      std::printf("%d passed, %d failed\n", passed, failed);                          \
    return failed ? 1 : skipped ? 77 : 0;                                             \
  }
