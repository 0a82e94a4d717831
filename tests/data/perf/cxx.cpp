// A C++ program whose functions perf names without their parameters or return type: an
// anonymous namespace, function templates, operators, a lambda. Built and recorded by
// tests/check_perf.py --record (g++ -O1 -g -fno-omit-frame-pointer).
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

int main() {
  const Cost a{3000000}, b{2000000};
  std::vector<int> v;
  auto both = [&](int k) { return a(k) + (a < b); };
  const long sum = static_cast<long>(byName("abc", v, 20000)) + both(4) + twice<long>(3, 20000000) +
                   static_cast<long>(twice<double>(2.0, 30000000));
  return static_cast<int>(sum & 1);
}
