// Read and write options of the C ABI. The write parameters are the registry's: each format
// declares its own (key, name, bounds, default, choices) and this file only stores them in
// profpack_write_options' reserved members and hands them to the writers by key.

#include <cerrno>
#include <cstdlib>
#include <string_view>

#include "container/ppk.h"
#include "internal.h"

using profpack::Error;
using profpack::Status;
using profpack::WriteParam;
using namespace profpack::capi;

namespace {

// A parameter's slot in profpack_write_options: its place among the registry's integer (or
// string) parameters.
constexpr size_t kIntSlots = sizeof(profpack_write_options::reserved_values) / sizeof(int64_t);
constexpr size_t kStringSlots =
    sizeof(profpack_write_options::reserved_strings) / sizeof(const char*);

unsigned slotOf(const WriteParam& p) {
  unsigned slot = 0;
  for (const WriteParam* q : profpack::writeParams()) {
    if (q == &p) break;
    slot += q->isString == p.isString;
  }
  if (slot >= (p.isString ? kStringSlots : kIntSlots))
    throw Error(Status::internal, "",
                "profpack_write_options has no room for " + std::string(p.cName));
  return slot;
}

// `key` as passed by a caller may hold any integer: it is read through its underlying type,
// never as the enum (an out-of-range enum value is undefined behaviour).
const WriteParam& writeParam(const profpack_write_param& key, bool isString) {
  std::underlying_type_t<profpack_write_param> k;
  std::memcpy(&k, &key, sizeof k);
  for (const WriteParam* p : profpack::writeParams()) {
    if (p->key != static_cast<int>(k)) continue;
    if (p->isString != isString)
      throw Error(Status::invalidArgument, "",
                  std::string(p->cName) + (p->isString ? " is a string parameter: set it with "
                                                         "profpack_write_options_set_string()"
                                                       : " is an integer parameter: set it with "
                                                         "profpack_write_options_set()"));
    return *p;
  }
  throw Error(Status::invalidArgument, "", "unknown write parameter " + std::to_string(k));
}

const WriteParam& writeParamNamed(const char* name) {
  std::string known;
  for (const WriteParam* p : profpack::writeParams()) {
    if (std::string_view(p->name) == name) return *p;
    known += (known.empty() ? "" : ", ") + std::string(p->name);
  }
  throw Error(Status::invalidArgument, "",
              std::string("unknown write parameter '") + name + "' (parameters: " + known + ")");
}

// The value of `text` for integer parameter `p`: one of its choice names, else a decimal
// number; checked against its bounds.
int64_t parseValue(const WriteParam& p, const char* text) {
  const std::string_view t(text);
  for (std::string_view c = p.choices ? p.choices : ""; !c.empty();) {
    const size_t comma = std::min(c.find(','), c.size());
    const std::string_view choice = c.substr(0, comma);
    const size_t eq = choice.find('=');
    if (choice.substr(0, eq) == t)
      return std::strtoll(std::string(choice.substr(eq + 1)).c_str(), nullptr, 10);
    c.remove_prefix(std::min(comma + 1, c.size()));
  }
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text, &end, 10);
  if (t.empty() || *end || errno || !p.accepts(v))
    throw Error(Status::invalidArgument, "",
                std::string(p.name) + " is " + p.value + ", not '" + text + "'");
  return v;
}

void requireSetUp(const profpack_write_options* options, const char* call) {
  require(options && options->struct_size >= sizeof *options,
          std::string(call) + ": options must be set up by profpack_write_options_init()");
}

}  // namespace

namespace profpack::capi {

// The first layout of profpack_read_options took 24 bytes (20 and padding): a later field
// starts beyond them, never in padding an older caller's struct_size covers.
static_assert(offsetof(profpack_read_options, output_format) >= 24);

std::vector<std::string> binaryPathOf(const char* const* paths, size_t count, const char* what) {
  require(paths || count == 0, std::string(what) + ": binary_path is NULL but its count is not 0");
  std::vector<std::string> dirs;
  for (size_t i = 0; i < count; ++i) {
    require(paths[i] != nullptr, std::string(what) + ": a binary_path is NULL");
    dirs.emplace_back(paths[i]);
  }
  return dirs;
}

profpack::ReadOptions readOptions(const profpack_read_options* given) {
  const profpack_read_options d =
      callerOptions(given, profpack_read_options_init,
                    PROFPACK_CAPI_END_OF(profpack_read_options, format), "profpack_read_options");
  require((d.flags & ~(PROFPACK_READ_STRICT | PROFPACK_READ_DEFER_IR | PROFPACK_READ_SYMBOLIZE |
                       PROFPACK_READ_SYMBOL_TABLES_ONLY | PROFPACK_READ_NO_LINES)) == 0,
          "unknown bits in profpack_read_options.flags");
  require(formatValue(d.format) == PROFPACK_FORMAT_UNKNOWN || knownFormat(d.format),
          "unknown format in profpack_read_options.format");
  require(formatValue(d.output_format) == PROFPACK_FORMAT_UNKNOWN || knownFormat(d.output_format),
          "unknown format in profpack_read_options.output_format");
  profpack::ReadOptions r;
  r.maxPpkMessage = d.max_ppk_size;
  r.strict = (d.flags & PROFPACK_READ_STRICT) != 0;
  r.deferIR = (d.flags & PROFPACK_READ_DEFER_IR) != 0;
  r.format = static_cast<profpack::FormatId>(formatValue(d.format));
  r.outputFormat = static_cast<profpack::FormatId>(formatValue(d.output_format));
  return r;
}

profpack::WriteOptions writeOptions(const profpack_write_options* given) {
  const profpack_write_options d =
      callerOptions(given, profpack_write_options_init, sizeof *given, "profpack_write_options");
  profpack::WriteOptions w;
  for (const WriteParam* p : profpack::writeParams()) {
    if (p->isString) {
      if (const char* s = d.reserved_strings[slotOf(*p)]) w.setString(*p, s);
      continue;
    }
    // The setters checked each value; a caller who wrote the reserved members directly is
    // still stopped here.
    const int64_t v = d.reserved_values[slotOf(*p)];
    require(p->accepts(v),
            "profpack_write_options holds a value out of bounds: set parameters with "
            "profpack_write_options_set()");
    w.set(*p, v);
  }
  return w;
}

profpack::FormatId outputFormat(const profpack_format& f) {
  require(knownFormat(f), "unknown output format");
  return static_cast<profpack::FormatId>(formatValue(f));
}

}  // namespace profpack::capi

using namespace profpack::capi;

extern "C" {

void profpack_read_options_init(profpack_read_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->flags = 0;
  options->max_ppk_size = profpack::kDefaultMaxPpkMessage;
  options->format = PROFPACK_FORMAT_UNKNOWN;
  options->output_format = PROFPACK_FORMAT_UNKNOWN;
  options->binary_path = nullptr;
  options->binary_path_count = 0;
}

void profpack_write_options_init(profpack_write_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  for (const WriteParam* p : profpack::writeParams())
    if (!p->isString) options->reserved_values[slotOf(*p)] = p->defaultValue;
}

profpack_status profpack_write_options_set(profpack_write_options* options,
                                           profpack_write_param param, int64_t value) {
  return guard([&] {
    requireSetUp(options, "profpack_write_options_set");
    const WriteParam& p = writeParam(param, false);
    if (!p.accepts(value))
      throw Error(Status::invalidArgument, "",
                  std::string(p.cName) + " must be " + p.range + ", not " + std::to_string(value));
    options->reserved_values[slotOf(p)] = value;
    options->reserved_set |= 1u << slotOf(p);
  });
}

profpack_status profpack_write_options_set_string(profpack_write_options* options,
                                                  profpack_write_param param, const char* value) {
  return guard([&] {
    requireSetUp(options, "profpack_write_options_set_string");
    options->reserved_strings[slotOf(writeParam(param, true))] = value;
  });
}

profpack_status profpack_write_options_set_text(profpack_write_options* options, const char* name,
                                                const char* value) {
  return guard([&] {
    requireSetUp(options, "profpack_write_options_set_text");
    require(name && value, "profpack_write_options_set_text: name and value must not be NULL");
    const WriteParam& p = writeParamNamed(name);
    if (p.isString) {
      options->reserved_strings[slotOf(p)] = value;
      return;
    }
    options->reserved_values[slotOf(p)] = parseValue(p, value);
    options->reserved_set |= 1u << slotOf(p);
  });
}

profpack_status profpack_write_param_bounds(profpack_write_param param, int64_t* lowest,
                                            int64_t* highest, int64_t* default_value) {
  return guard([&] {
    const WriteParam& p = writeParam(param, false);
    if (lowest) *lowest = p.lowest;
    if (highest) *highest = p.highest;
    if (default_value) *default_value = p.defaultValue;
  });
}

void profpack_write_param_info_init(profpack_write_param_info* info) {
  if (!info) return;
  std::memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
}

size_t profpack_write_param_count(void) { return profpack::writeParams().size(); }

profpack_status profpack_write_param_describe(size_t index, profpack_write_param_info* info) {
  return guard([&] {
    require(info != nullptr, "profpack_write_param_describe: info must not be NULL");
    require(info->struct_size >= PROFPACK_CAPI_END_OF(profpack_write_param_info, default_value),
            "profpack_write_param_info.struct_size is too small: initialise it with "
            "profpack_write_param_info_init()");
    const auto& all = profpack::writeParams();
    require(index < all.size(), "write parameter index " + std::to_string(index) +
                                    " out of range: there are " + std::to_string(all.size()));
    const WriteParam& p = *all[index];
    info->param = static_cast<profpack_write_param>(p.key);
    info->format = static_cast<profpack_format>(p.format);
    info->name = p.name;
    info->help = p.help;
    info->values = p.value;
    info->choices = p.choices;
    info->is_string = p.isString ? 1 : 0;
    info->lowest = p.lowest;
    info->highest = p.highest;
    info->default_value = p.defaultValue;
  });
}

}  // extern "C"
