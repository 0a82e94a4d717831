// Whole-profile calls of the C ABI: inspection, merges, differences and symbolization.

#include "internal.h"
#include "merge/merge.h"
#include "symbolize/symbolize.h"

using namespace profpack::capi;
using profpack::Error;
using profpack::Status;

extern "C" {

profpack_format profpack_profile_format(const profpack_profile* profile) {
  if (!profile) return PROFPACK_FORMAT_UNKNOWN;
  return static_cast<profpack_format>(profpack::formatOf(*profile->profile));
}

void profpack_info_init(profpack_info* info) {
  if (!info) return;
  std::memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
  info->format_version = "";
}

// The model's capabilities the header names, with the same bits.
static_assert(uint32_t{PROFPACK_HAS_CALL_ARCS} == uint32_t{profpack::kCapCallArcs} &&
                  uint32_t{PROFPACK_HAS_CALL_COUNTS} == uint32_t{profpack::kCapCallCounts} &&
                  uint32_t{PROFPACK_HAS_LINES} == uint32_t{profpack::kCapLines} &&
                  uint32_t{PROFPACK_HAS_ADDRESSES} == uint32_t{profpack::kCapAddresses} &&
                  uint32_t{PROFPACK_HAS_STACKS} == uint32_t{profpack::kCapStacks} &&
                  uint32_t{PROFPACK_HAS_TIMELINE} == uint32_t{profpack::kCapTimeline} &&
                  uint32_t{PROFPACK_HAS_THREADS} == uint32_t{profpack::kCapThreads} &&
                  uint32_t{PROFPACK_HAS_NAMES} == uint32_t{profpack::kCapNames},
              "profpack_capability must keep the model's Capability bits");
constexpr uint32_t kPublicCapabilities = 0xff;

profpack_status profpack_profile_info(const profpack_profile* profile, profpack_info* info) {
  return guard([&] {
    require(profile && info, "profpack_profile_info: profile and info must not be NULL");
    require(info->struct_size >= offsetof(profpack_info, strings) + sizeof(uint64_t),
            "profpack_info.struct_size is too small: initialise it with profpack_info_init()");
    const profpack::Model& g = modelOf(profile);
    const profpack::Summary& s = g.summary();
    info->format = profpack_profile_format(profile);
    info->format_version = s.formatVersion.c_str();
    info->parts = s.parts;
    info->events = g.events();
    info->records = s.records;
    info->functions = s.functions;
    info->files = s.files;
    info->objects = s.objects;
    info->strings = s.strings;
    if (info->struct_size >= offsetof(profpack_info, ir_bytes) + sizeof(uint64_t))
      info->ir_bytes = profile->profile->flatSize();
    if (info->struct_size >= offsetof(profpack_info, signed_costs) + sizeof(int32_t))
      info->signed_costs = g.has(profpack::kCapSigned) ? 1 : 0;
    if (info->struct_size >= offsetof(profpack_info, capabilities) + sizeof(uint32_t))
      info->capabilities = g.capabilities() & kPublicCapabilities;
  });
}

profpack_status profpack_profile_events(const profpack_profile* profile, profpack_event* events,
                                        size_t capacity, size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profpack_profile_events: profile and count must not be NULL");
    require(events || capacity == 0, "profpack_profile_events: events is NULL but capacity > 0");
    const profpack::Model& g = modelOf(profile);
    *count = g.events();
    for (size_t i = 0; i < capacity && i < g.events(); ++i)
      events[i] = {g.eventNames()[i].c_str(), g.eventLongNames()[i].c_str(), g.total(i)};
  });
}

profpack_status profpack_profile_event_base_total(const profpack_profile* profile, size_t event,
                                                  uint64_t* total) {
  if (total) *total = 0;
  return guard([&] {
    require(profile && total,
            "profpack_profile_event_base_total: profile and total must not be NULL");
    const profpack::Model& g = modelOf(profile);
    require(event < g.events(), "profpack_profile_event_base_total: event index out of range");
    *total = g.baseTotal(event);
  });
}

profpack_status profpack_profile_warnings(const profpack_profile* profile, const char** warnings,
                                          size_t capacity, size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(profile && count, "profpack_profile_warnings: profile and count must not be NULL");
    require(warnings || capacity == 0,
            "profpack_profile_warnings: warnings is NULL but capacity > 0");
    const auto& list = profile->profile->warnings();
    *count = list.size();
    for (size_t i = 0; i < capacity && i < list.size(); ++i) warnings[i] = list[i].c_str();
  });
}

profpack_status profpack_profile_equal(const profpack_profile* a, const profpack_profile* b,
                                       int* equal) {
  if (equal) *equal = 0;
  return guard([&] {
    require(a && b && equal, "profpack_profile_equal: arguments must not be NULL");
    *equal = profpack::equalIR(*a->profile, *b->profile) ? 1 : 0;
  });
}

struct profpack_merger {
  profpack::EventRenames renames;
  std::unique_ptr<profpack::MergeStream> stream;  // made at the first add, with the renames
  bool finished = false;
};

profpack_status profpack_merger_new(profpack_merger** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(out != nullptr, "profpack_merger_new: out must not be NULL");
    *out = new profpack_merger;
  });
}

profpack_status profpack_merger_add(profpack_merger* merger, const profpack_profile* profile,
                                    const char* name) {
  return guard([&] {
    require(merger && profile, "profpack_merger_add: merger and profile must not be NULL");
    require(!merger->finished, "profpack_merger_add: the merger is finished");
    if (!merger->stream) merger->stream = std::make_unique<profpack::MergeStream>(merger->renames);
    merger->stream->add({profile->profile.get(), name ? name : ""});
  });
}

profpack_status profpack_merger_finish(profpack_merger* merger, profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(merger && out, "profpack_merger_finish: merger and out must not be NULL");
    require(!merger->finished, "profpack_merger_finish: the merger is finished");
    merger->finished = true;
    if (!merger->stream) merger->stream = std::make_unique<profpack::MergeStream>(merger->renames);
    *out = wrap(merger->stream->finish());
  });
}

profpack_status profpack_merger_rename_event(profpack_merger* merger, const char* from,
                                             const char* to) {
  return guard([&] {
    require(merger && from && to, "profpack_merger_rename_event: arguments must not be NULL");
    require(!merger->stream, "profpack_merger_rename_event: profiles were added already");
    merger->renames[from] = to;
  });
}

void profpack_merger_free(profpack_merger* merger) { delete merger; }

profpack_status profpack_merge(const profpack_profile* const* profiles, const char* const* names,
                               size_t count, profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(out && (profiles || count == 0), "profpack_merge: profiles and out must not be NULL");
    std::vector<profpack::MergeInput> inputs(count);
    for (size_t i = 0; i < count; ++i) {
      require(profiles[i] != nullptr, "profpack_merge: a profile is NULL");
      inputs[i].profile = profiles[i]->profile.get();
      if (names && names[i]) inputs[i].name = names[i];
    }
    *out = wrap(profpack::mergeProfiles(inputs));
  });
}

void profpack_diff_options_init(profpack_diff_options* options) {
  if (!options) return;
  *options = profpack_diff_options{};
  options->struct_size = sizeof *options;
}

profpack_status profpack_diff(const profpack_profile* base, const profpack_profile* current,
                              const profpack_diff_options* options, profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(base && current && out, "profpack_diff: base, current and out must not be NULL");
    const profpack_diff_options o = callerOptions(
        options, profpack_diff_options_init,
        PROFPACK_CAPI_END_OF(profpack_diff_options, event_renames_count), "profpack_diff_options");
    require((o.mod_filename || o.mod_filename_count == 0) &&
                (o.mod_funcname || o.mod_funcname_count == 0),
            "profpack_diff_options: a rewrite list is NULL but its count is not 0");
    profpack::DiffOptions d;
    for (size_t i = 0; i < o.mod_filename_count; ++i) {
      require(o.mod_filename[i] != nullptr, "profpack_diff_options: a mod_filename is NULL");
      d.modFilename.emplace_back(o.mod_filename[i]);
    }
    for (size_t i = 0; i < o.mod_funcname_count; ++i) {
      require(o.mod_funcname[i] != nullptr, "profpack_diff_options: a mod_funcname is NULL");
      d.modFuncname.emplace_back(o.mod_funcname[i]);
    }
    require(o.event_renames || o.event_renames_count == 0,
            "profpack_diff_options: event_renames is NULL but its count is not 0");
    for (size_t i = 0; i < o.event_renames_count; ++i) {
      const char* r = o.event_renames[i];
      const char* eq = r ? std::strchr(r, '=') : nullptr;
      require(eq && eq != r && eq[1], "profpack_diff_options: an event rename is not FROM=TO");
      d.eventRenames[std::string(r, eq)] = eq + 1;
    }
    profpack::MergeInput b{base->profile.get(), o.base_name ? o.base_name : ""};
    profpack::MergeInput c{current->profile.get(), o.current_name ? o.current_name : ""};
    *out = wrap(profpack::diffProfiles(b, c, d));
  });
}

void profpack_symbolize_options_init(profpack_symbolize_options* options) {
  if (!options) return;
  *options = profpack_symbolize_options{};
  options->struct_size = sizeof *options;
}

profpack_status profpack_profile_symbolize(const profpack_profile* profile,
                                           const profpack_symbolize_options* options,
                                           profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(profile && out, "profpack_profile_symbolize: profile and out must not be NULL");
    const profpack_symbolize_options o = callerOptions(
        options, profpack_symbolize_options_init,
        PROFPACK_CAPI_END_OF(profpack_symbolize_options, kallsyms), "profpack_symbolize_options");
    profpack::SymbolizeOptions so;
    so.binaryPath = binaryPathOf(o.binary_path, o.binary_path_count, "profpack_symbolize_options");
    if (o.binary) so.binary = o.binary;
    if (o.kallsyms) so.kallsyms = o.kallsyms;
    so.symbolTablesOnly = o.symbol_tables_only != 0;
    so.profileTime = profile->fileTime;
    so.namesWithoutParameters =
        profpack::namesWithoutParameters(profpack::formatOf(*profile->profile));
    *out = wrap(profpack::symbolizeProfile(*profile->profile, so));
  });
}

}  // extern "C"
