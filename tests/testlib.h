// A minimal test harness: TEST(name) { CHECK(...); } and a main that runs every test, prints
// one line per test and "N passed, N failed" at the end. Each test binary is one meson test.
#pragma once

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

#define TEST_MAIN()                                                             \
  int main() {                                                                  \
    int passed = 0, failed = 0;                                                 \
    for (auto& c : testlib::registry()) {                                       \
      try {                                                                     \
        c.fn();                                                                 \
        ++passed;                                                               \
        std::printf("ok   %s\n", c.name);                                       \
      } catch (const testlib::Failure& f) {                                     \
        ++failed;                                                               \
        std::printf("FAIL %s\n  %s\n", c.name, f.what.c_str());                 \
      } catch (const std::exception& e) {                                       \
        ++failed;                                                               \
        std::printf("FAIL %s\n  unexpected exception: %s\n", c.name, e.what()); \
      }                                                                         \
    }                                                                           \
    std::printf("%d passed, %d failed\n", passed, failed);                      \
    return failed ? 1 : 0;                                                      \
  }
