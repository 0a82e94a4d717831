// profpack_profile_top(): the ranked functions with their costs of several events in one call,
// what `profpack top` prints and what each binding would otherwise rebuild from three calls.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "error.h"
#include "formats/registry.h"
#include "internal.h"

namespace {

using profpack::Error;
using profpack::Model;
using profpack::Status;

void require(bool ok, const std::string& what) {
  if (!ok) throw Error(Status::invalidArgument, "", "profpack_profile_top: " + what);
}

// The caller's options over the defaults, reading no byte beyond its struct_size.
profpack_top_options topOptions(const profpack_top_options* o) {
  return profpack::capi::callerOptions(o, profpack_top_options_init,
                                       PROFPACK_CAPI_END_OF(profpack_top_options, limit),
                                       "profpack_top_options");
}

// The model the rows come from: the handle's, or that of one of its threads (kept with the
// handle, so that the rows' strings live as long as it).
const Model& modelFor(const profpack_profile* p, size_t thread) {
  const Model& whole = profpack::capi::modelOf(p);
  if (thread == PROFPACK_ALL_THREADS) return whole;
  const size_t n = whole.threads().size();
  if (thread >= n)
    throw Error(Status::invalidArgument, "",
                "profpack_profile_top: thread index " + std::to_string(thread) +
                    " out of range: the profile has " + std::to_string(n) + " threads");
  auto* h = const_cast<profpack_profile*>(p);
  std::lock_guard<std::mutex> lock(h->modelMutex);
  auto& slot = h->threadModels[thread];
  if (!slot) {
    profpack::ModelOptions mo = h->options;
    mo.thread = static_cast<long>(thread);
    slot = profpack::buildModel(*h->profile, mo);
  }
  return *slot;
}

int64_t signedCost(uint64_t v, bool isSigned) {
  if (isSigned) return static_cast<int64_t>(v);
  return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
}

}  // namespace

extern "C" {

void profpack_top_options_init(profpack_top_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->thread = PROFPACK_ALL_THREADS;
}

profpack_status profpack_profile_top(const profpack_profile* profile,
                                     const profpack_top_options* options, profpack_top_row* rows,
                                     profpack_top_cost* costs, size_t capacity, size_t* count) {
  if (count) *count = 0;
  return profpack::capi::guard([&] {
    require(profile && count, "profile and count must not be NULL");
    require(rows || capacity == 0, "rows is NULL but capacity > 0");
    const profpack_top_options o = topOptions(options);
    require((o.flags & ~PROFPACK_TOP_INCLUSIVE) == 0, "unknown flags");
    require(o.events || o.event_count == 0, "events is NULL but event_count > 0");
    const Model& g = modelFor(profile, o.thread);
    const size_t ne = g.events();
    auto requireEvent = [&](size_t e, const char* what) {
      require(e < ne, std::string(what) + " " + std::to_string(e) +
                          " out of range: the profile has " + std::to_string(ne) + " events");
    };
    requireEvent(o.sort_event, "sort_event");
    std::vector<size_t> events;
    if (o.events) {
      events.assign(o.events, o.events + o.event_count);
    } else {
      for (size_t e = 0; e < ne; ++e) events.push_back(e);
    }
    for (size_t e : events) requireEvent(e, "event");
    require(costs || capacity == 0 || events.empty(), "costs is NULL but capacity > 0");
    const size_t n = o.limit ? std::min<size_t>(o.limit, g.functions()) : g.functions();
    *count = n;
    if (capacity == 0) return;
    const bool isSigned = g.has(profpack::kCapSigned);
    const auto top = g.top(o.sort_event, o.flags & PROFPACK_TOP_INCLUSIVE, std::min(n, capacity));
    for (size_t i = 0; i < top.size(); ++i) {
      const uint64_t f = top[i];
      const profpack::FunctionRow& fn = g.function(f);
      profpack_top_cost* c = costs ? costs + i * events.size() : nullptr;
      for (size_t k = 0; k < events.size(); ++k)
        c[k] = {signedCost(g.self(f, events[k]), isSigned),
                signedCost(g.inclusive(f, events[k]), isSigned)};
      rows[i] = {static_cast<size_t>(f),
                 fn.name.c_str(),
                 fn.file.c_str(),
                 fn.object.c_str(),
                 fn.line,
                 signedCost(g.calls(f), isSigned),
                 c};
    }
  });
}

}  // extern "C"
