// Pieces of the pprof writer's profile.proto that are not the message's wire format: its
// string table, and costs as the nanoseconds pprof's values hold.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace profpack::pprofwire {

// The string table: each string once, numbered in the order first used ("" is 0).
class Strings {
 public:
  Strings() { index(""); }
  uint64_t index(const std::string& s) {
    auto [it, added] = ids_.try_emplace(s, table_.size());
    if (added) table_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& table() const { return table_; }

 private:
  std::unordered_map<std::string, uint64_t> ids_;
  std::vector<std::string> table_;
};

// The unit of a time counted `perSecond` times a second, as pprof names it; else `name`.
inline std::string timeUnitName(double perSecond, const std::string& name) {
  if (perSecond == 1) return "seconds";
  if (perSecond == 1e3) return "milliseconds";
  if (perSecond == 1e6) return "microseconds";
  if (perSecond == 1e9) return "nanoseconds";
  return name;
}

// `v` (samples of `period` ns each, else units of 1/`perSecond` s) in nanoseconds. pprof's
// values are int64: a time beyond that (or a corrupt .ppk's) is capped; a difference's
// negative costs (`isSigned`) give negative times.
inline uint64_t nanosOf(uint64_t v, bool isSigned, uint64_t period, double perSecond) {
  const bool negative = isSigned && static_cast<int64_t>(v) < 0;
  const uint64_t magnitude = negative ? ~v + 1 : v;
  // A whole period's product below 2^53 is what the rounding below makes of it on any
  // platform's long double (exact there, even as a double): one multiplication, where the
  // long double arithmetic was 3% of the pprof writer's instructions for a gperftools profile.
  uint64_t product;
  if (period > 0 && !__builtin_mul_overflow(magnitude, period, &product) &&
      product < (uint64_t{1} << 53))
    return negative ? ~product + 1 : product;
  const long double x = period > 0 ? static_cast<long double>(magnitude) * period
                                   : static_cast<long double>(magnitude) * 1e9L / perSecond;
  const uint64_t r = x >= 9.2e18L ? INT64_MAX : static_cast<uint64_t>(x + 0.5L);
  return negative ? ~r + 1 : r;
}

}  // namespace profpack::pprofwire
