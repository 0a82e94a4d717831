// Which of a profile's objects is its program, from the command the profile records: pprof
// takes a profile's first mapping for the main binary (`File:`), so the writer puts it first.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace profpack {

// The program's path as the profile's command names it (Callgrind's and Cachegrind's `cmd:`
// line, its first word), "" where it names none.
inline std::string commandPath(
    const std::vector<std::pair<std::string, std::string>>& description) {
  for (const auto& [key, value] : description) {
    if (key != "cmd") continue;
    const size_t from = value.find_first_not_of(" \t");
    if (from == std::string::npos) return "";
    return value.substr(from, value.find_first_of(" \t", from) - from);
  }
  return "";
}

// Of `count` objects (`path(i)`), the program's: the one that is `command`, else the first of
// its file name; `count` where none is (or `command` is "").
template <class Path>
size_t programObject(const std::string& command, size_t count, Path path) {
  if (command.empty()) return count;
  const auto baseName = [](std::string_view p) {
    const size_t slash = p.rfind('/');
    return slash == std::string_view::npos ? p : p.substr(slash + 1);
  };
  size_t program = count;
  for (size_t i = 0; i < count; ++i) {
    const std::string& object = path(i);
    if (object == command) return i;
    if (program == count && !object.empty() && baseName(object) == baseName(command)) program = i;
  }
  return program;
}

}  // namespace profpack
