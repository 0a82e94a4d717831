// The C ABI's queries and views: every entry point resets the thread's error, runs the C++
// core inside one catch-all guard (internal.h), and returns a status. The other calls are in
// errors.cpp, options.cpp, io.cpp and profiles.cpp.

#include <string_view>

#include "internal.h"
#include "model/find.h"

namespace {

using namespace profpack::capi;
using profpack::Error;
using profpack::Status;

void requireEvent(const profpack::Model& g, size_t event) {
  if (event >= g.events())
    throw Error(Status::invalidArgument, "",
                "event index " + std::to_string(event) + " out of range: the profile has " +
                    std::to_string(g.events()) + " events");
}

void requireFunction(const profpack::Model& g, size_t id) {
  if (id >= g.functions())
    throw Error(Status::invalidArgument, "",
                "function id " + std::to_string(id) + " out of range: the profile has " +
                    std::to_string(g.functions()) + " functions");
}

profpack_status edges(const profpack_profile* profile, size_t id, size_t event,
                      profpack_call* calls, size_t capacity, size_t* count, bool callers) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profile and count must not be NULL");
    require(calls || capacity == 0, "calls is NULL but capacity > 0");
    const profpack::Model& g = modelOf(profile);
    requireFunction(g, id);
    requireEvent(g, event);
    auto list = callers ? g.callers(id) : g.callees(id);
    std::sort(list.begin(), list.end(), [&](auto* a, auto* b) {
      return a->inclusive[event] != b->inclusive[event]
                 ? a->inclusive[event] > b->inclusive[event]
                 : (callers ? a->caller < b->caller : a->callee < b->callee);
    });
    *count = list.size();
    for (size_t i = 0; i < capacity && i < list.size(); ++i)
      calls[i] = {static_cast<size_t>(callers ? list[i]->caller : list[i]->callee), list[i]->calls,
                  list[i]->inclusive[event]};
  });
}

}  // namespace

extern "C" {

profpack_status profpack_profile_event_index(const profpack_profile* profile, const char* name,
                                             size_t* index) {
  return guard([&] {
    require(profile && name && index, "profile, name and index must not be NULL");
    const profpack::Model& g = modelOf(profile);
    long i = g.eventIndex(name);
    if (i < 0) {
      std::string known;
      for (auto& e : g.eventNames()) known += (known.empty() ? "" : ", ") + e;
      throw Error(Status::invalidArgument, "",
                  std::string("no event named '") + name + "' (events: " + known + ")");
    }
    *index = static_cast<size_t>(i);
  });
}

profpack_status profpack_profile_functions(const profpack_profile* profile,
                                           profpack_function* functions, size_t capacity,
                                           size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profpack_profile_functions: profile and count must not be NULL");
    require(functions || capacity == 0,
            "profpack_profile_functions: functions is NULL but capacity > 0");
    const profpack::Model& g = modelOf(profile);
    *count = g.functions();
    for (size_t i = 0; i < capacity && i < g.functions(); ++i) {
      const profpack::FunctionRow& f = g.function(i);
      functions[i] = {f.name.c_str(), f.file.c_str(), f.object.c_str()};
    }
  });
}

profpack_status profpack_profile_find_functions(const profpack_profile* profile,
                                                const char* pattern, uint32_t flags, size_t* ids,
                                                size_t capacity, size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && pattern && count,
            "profpack_profile_find_functions: profile, pattern and count must not be NULL");
    require(ids || capacity == 0, "profpack_profile_find_functions: ids is NULL but capacity > 0");
    require((flags & ~uint32_t{PROFPACK_FIND_SIMILAR}) == 0,
            "profpack_profile_find_functions: unknown flags");
    const profpack::Model& g = modelOf(profile);
    const std::vector<uint64_t> found = (flags & PROFPACK_FIND_SIMILAR)
                                            ? profpack::similarFunctions(g, pattern, capacity)
                                            : profpack::findFunctions(g, pattern);
    *count = found.size();
    for (size_t i = 0; i < capacity && i < found.size(); ++i) ids[i] = found[i];
  });
}

profpack_status profpack_profile_function(const profpack_profile* profile, size_t id,
                                          profpack_function* out) {
  return guard([&] {
    require(profile && out, "profile and out must not be NULL");
    const profpack::Model& g = modelOf(profile);
    requireFunction(g, id);
    const profpack::FunctionRow& f = g.function(id);
    *out = {f.name.c_str(), f.file.c_str(), f.object.c_str()};
  });
}

profpack_status profpack_profile_function_line(const profpack_profile* profile, size_t id,
                                               uint64_t* line) {
  if (line) *line = 0;
  return guard([&] {
    require(profile && line, "profile and line must not be NULL");
    const profpack::Model& g = modelOf(profile);
    requireFunction(g, id);
    *line = g.function(id).line;
  });
}

profpack_status profpack_profile_function_cost(const profpack_profile* profile, size_t id,
                                               size_t event, uint64_t* self, uint64_t* inclusive) {
  return guard([&] {
    require(profile, "profile must not be NULL");
    const profpack::Model& g = modelOf(profile);
    requireFunction(g, id);
    requireEvent(g, event);
    if (self) *self = g.self(id, event);
    if (inclusive) *inclusive = g.inclusive(id, event);
  });
}

profpack_status profpack_profile_top_functions(const profpack_profile* profile, size_t event,
                                               uint32_t flags, size_t* ids, size_t capacity,
                                               size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profile and count must not be NULL");
    require(ids || capacity == 0, "ids is NULL but capacity > 0");
    require((flags & ~PROFPACK_TOP_INCLUSIVE) == 0, "unknown flags");
    const profpack::Model& g = modelOf(profile);
    requireEvent(g, event);
    *count = g.functions();
    if (capacity == 0) return;
    auto top = g.top(event, flags & PROFPACK_TOP_INCLUSIVE, capacity);
    for (size_t i = 0; i < top.size() && i < capacity; ++i) ids[i] = static_cast<size_t>(top[i]);
  });
}

profpack_status profpack_profile_line_costs(const profpack_profile* profile, const char* file,
                                            size_t event, profpack_line_cost* lines,
                                            size_t capacity, size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && file && count, "profile, file and count must not be NULL");
    require(lines || capacity == 0, "lines is NULL but capacity > 0");
    const profpack::Model& g = modelOf(profile);
    requireEvent(g, event);
    auto lc = g.lines(file);
    *count = lc.size();
    for (size_t i = 0; i < capacity && i < lc.size(); ++i)
      lines[i] = {lc[i].line, lc[i].cost[event]};
  });
}

profpack_status profpack_profile_source_files(const profpack_profile* profile, const char** files,
                                              size_t capacity, size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profile and count must not be NULL");
    require(files || capacity == 0, "files is NULL but capacity > 0");
    const auto names = modelOf(profile).sourceFileNames();
    *count = names.size();
    for (size_t i = 0; i < capacity && i < names.size(); ++i) files[i] = names[i]->c_str();
  });
}

profpack_status profpack_profile_callers(const profpack_profile* profile, size_t id, size_t event,
                                         profpack_call* calls, size_t capacity, size_t* count) {
  return edges(profile, id, event, calls, capacity, count, true);
}

profpack_status profpack_profile_callees(const profpack_profile* profile, size_t id, size_t event,
                                         profpack_call* calls, size_t capacity, size_t* count) {
  return edges(profile, id, event, calls, capacity, count, false);
}

profpack_status profpack_profile_function_calls(const profpack_profile* profile, size_t id,
                                                uint64_t* calls) {
  return guard([&] {
    require(profile && calls, "profile and calls must not be NULL");
    const profpack::Model& g = modelOf(profile);
    requireFunction(g, id);
    *calls = g.calls(id);
  });
}

profpack_status profpack_profile_units_per_second(const profpack_profile* profile,
                                                  double* per_second) {
  return guard([&] {
    require(profile && per_second, "profile and per_second must not be NULL");
    *per_second = modelOf(profile).timeUnitsPerSecond();
  });
}

profpack_status profpack_profile_event_units_per_second(const profpack_profile* profile,
                                                        size_t event, double* per_second) {
  return guard([&] {
    require(profile && per_second,
            "profpack_profile_event_units_per_second: profile and per_second must not be NULL");
    const profpack::Model& m = modelOf(profile);
    require(event < m.events(),
            "profpack_profile_event_units_per_second: event index out of range");
    *per_second = m.eventUnitsPerSecond(event);
  });
}

profpack_status profpack_profile_threads(const profpack_profile* profile, profpack_thread* threads,
                                         size_t capacity, size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profile and count must not be NULL");
    require(threads || capacity == 0, "threads is NULL but capacity > 0");
    const auto& list = modelOf(profile).threads();
    *count = list.size();
    for (size_t i = 0; i < capacity && i < list.size(); ++i)
      threads[i] = {list[i].pid, list[i].threadId};
  });
}

void profpack_view_options_init(profpack_view_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->thread = PROFPACK_ALL_THREADS;
  options->binary = nullptr;
}

profpack_status profpack_profile_view(const profpack_profile* profile,
                                      const profpack_view_options* options,
                                      profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(profile && out, "profpack_profile_view: profile and out must not be NULL");
    const profpack_view_options o =
        callerOptions(options, profpack_view_options_init,
                      PROFPACK_CAPI_END_OF(profpack_view_options, binary), "profpack_view_options");
    profpack::ModelOptions mo = profile->options;
    if (o.binary) mo.binary = o.binary;
    require(o.tags || o.tag_count == 0, "profpack_view_options.tags is NULL but tag_count > 0");
    for (size_t i = 0; i < o.tag_count; ++i) {
      require(o.tags[i] != nullptr, "profpack_view_options.tags holds a NULL selector");
      const std::string_view sel = o.tags[i];
      const size_t eq = sel.find('=');
      if (eq == sel.npos || eq == 0)
        throw Error(Status::invalidArgument, "",
                    "tag selector '" + std::string(sel) + "' is not KEY=REGEX");
      mo.tags.emplace_back(std::string(sel.substr(0, eq)), std::string(sel.substr(eq + 1)));
    }
    if (o.thread != PROFPACK_ALL_THREADS) {
      const size_t n = modelOf(profile).threads().size();
      if (o.thread >= n)
        throw Error(Status::invalidArgument, "",
                    "thread index " + std::to_string(o.thread) + " out of range: the profile has " +
                        std::to_string(n) + " threads");
      mo.thread = static_cast<long>(o.thread);
    }
    // Built now, so that a bad binary or thread fails here rather than in a later query.
    auto model = profpack::buildModel(*profile->profile, mo);
    auto h = std::make_unique<profpack_profile>();
    h->profile = profile->profile;
    h->fileTime = profile->fileTime;
    h->options = mo;
    h->model = std::move(model);
    *out = h.release();
  });
}

}  // extern "C"
