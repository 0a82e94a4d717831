// A C++ program whose functions perf names without their parameters or return type: an
// anonymous namespace, function templates, operators, a lambda; and calls through the
// procedure linkage table, whose entry perf names "rand@plt". Built and recorded by
// tests/check_perf.py --record (g++ -O1 -g -fno-omit-frame-pointer).
#include <cstdlib>
#include <string>
#include <vector>

namespace {
__attribute__((noinline)) int spin(int n) {
  volatile int s = 0;
  for (int i = 0; i < n; ++i) s = s + i;
  return s;
}
}  // namespace

template <typename T>
__attribute__((noinline)) T twice(T v, int n) {
  volatile T s{};
  for (int i = 0; i < n; ++i) s = s + v;
  return s;
}

struct Cost {
  int n;
  __attribute__((noinline)) int operator()(int k) const { return spin(n * k); }
  __attribute__((noinline)) bool operator<(const Cost& o) const { return spin(n) < spin(o.n); }
};

__attribute__((noinline)) size_t byName(const std::string& s, std::vector<int>& v, int n) {
  size_t total = 0;
  for (int i = 0; i < 300; ++i) {
    v.push_back(i);
    total += s.size() + static_cast<size_t>(spin(n));
  }
  return total;
}

// A libc call in a loop: some samples land in the program's PLT entry for rand.
__attribute__((noinline)) int viaPlt(int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += std::rand() & 1;
  return s;
}

int main() {
  const Cost a{3000000}, b{2000000};
  std::vector<int> v;
  auto both = [&](int k) { return a(k) + (a < b); };
  const long sum = static_cast<long>(byName("abc", v, 20000)) + both(4) + twice<long>(3, 20000000) +
                   static_cast<long>(twice<double>(2.0, 30000000)) + viaPlt(20000000);
  return sum == 0;  // never: the result is used, and the exit status stays 0
}
