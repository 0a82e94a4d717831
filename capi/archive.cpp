// The C ABI of .ppka archives (lib/archive/).
#include "archive/archive.h"

#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "error.h"
#include "formats/registry.h"
#include "internal.h"

struct profpack_archive {
  std::unique_ptr<profpack::Archive> archive;
  int level = 19;
};

namespace {

using profpack::Error;
using profpack::Status;

void require(bool ok, const char* what) {
  if (!ok) throw Error(Status::invalidArgument, "", what);
}

const profpack::ArchiveMember& memberAt(const profpack_archive* a, size_t index) {
  require(a != nullptr, "archive must not be NULL");
  if (index >= a->archive->members().size())
    throw Error(Status::invalidArgument, "",
                "member index " + std::to_string(index) + " is out of range (the archive has " +
                    std::to_string(a->archive->members().size()) + ")");
  return a->archive->members()[index];
}

}  // namespace

using profpack::capi::guard;

void profpack_archive_options_init(profpack_archive_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->level = 19;
}

profpack_status profpack_archive_open(const char* path, const profpack_archive_options* options,
                                      profpack_archive** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(path && out, "profpack_archive_open: path and out must not be NULL");
    profpack_archive_options o;
    profpack_archive_options_init(&o);
    if (options) {
      require(options->struct_size >= offsetof(profpack_archive_options, level) + sizeof(int),
              "profpack_archive_open: options->struct_size too small");
      o.writable = options->writable;
      o.level = options->level;
    }
    require(o.level >= 1 && o.level <= 22, "profpack_archive_open: level outside 1..22");
    auto a = std::make_unique<profpack_archive>();
    a->archive = profpack::Archive::open(path, o.writable != 0, o.writable != 0);
    a->level = o.level;
    *out = a.release();
  });
}

void profpack_archive_close(profpack_archive* archive) { delete archive; }

profpack_status profpack_archive_count(const profpack_archive* archive, size_t* count) {
  return guard([&] {
    require(archive && count, "profpack_archive_count: archive and count must not be NULL");
    *count = archive->archive->members().size();
  });
}

profpack_status profpack_archive_member_info(const profpack_archive* archive, size_t index,
                                             profpack_archive_member* member) {
  return guard([&] {
    require(member && member->struct_size >= sizeof(profpack_archive_member),
            "profpack_archive_member_info: member NULL or its struct_size too small");
    const auto& m = memberAt(archive, index);
    member->id = m.id;
    member->format = m.format.c_str();
    member->time = m.time;
    member->label_count = m.labels.size();
    member->stored_bytes = m.size;
    member->ir_bytes = m.messageSize;
  });
}

profpack_status profpack_archive_member_label(const profpack_archive* archive, size_t index,
                                              size_t label, const char** key, const char** value) {
  return guard([&] {
    require(key && value, "profpack_archive_member_label: key and value must not be NULL");
    const auto& m = memberAt(archive, index);
    require(label < m.labels.size(), "profpack_archive_member_label: label out of range");
    *key = m.labels[label].first.c_str();
    *value = m.labels[label].second.c_str();
  });
}

profpack_status profpack_archive_read(const profpack_archive* archive, size_t index,
                                      profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(out != nullptr, "profpack_archive_read: out must not be NULL");
    memberAt(archive, index);
    // As every handle is made: a symbolized member answers by name.
    *out = profpack::capi::wrap(archive->archive->read(index));
  });
}

profpack_status profpack_archive_add(profpack_archive* archive,
                                     const profpack_profile* const* profiles, size_t count,
                                     const char* const* labels, size_t label_count, int64_t time) {
  return guard([&] {
    require(archive && (profiles || count == 0) && (labels || label_count == 0),
            "profpack_archive_add: archive, profiles and labels must not be NULL");
    std::vector<std::pair<std::string, std::string>> kv;
    for (size_t i = 0; i < label_count; ++i) {
      require(labels[i] != nullptr, "profpack_archive_add: a label is NULL");
      const char* eq = std::strchr(labels[i], '=');
      if (!eq || eq == labels[i])
        throw Error(Status::invalidArgument, "",
                    std::string("label \"") + labels[i] + "\" is not key=value");
      kv.emplace_back(std::string(labels[i], eq), std::string(eq + 1));
    }
    std::vector<profpack::ArchiveInput> inputs;
    for (size_t i = 0; i < count; ++i) {
      require(profiles[i] != nullptr, "profpack_archive_add: a profile is NULL");
      profpack::ArchiveInput in;
      in.profile = profiles[i]->profile.get();
      in.format = profpack::formatName(profpack::formatOf(*in.profile));
      // The profile's own time, else the caller's, else its file's modification time.
      in.time = profpack::profileTime(*in.profile);
      if (in.time == 0) in.time = time;
      if (in.time == 0) in.time = profiles[i]->fileTime / 1000000000;
      if (in.time == 0) in.time = static_cast<int64_t>(std::time(nullptr));
      in.labels = kv;
      inputs.push_back(std::move(in));
    }
    archive->archive->add(inputs, archive->level);
  });
}

profpack_status profpack_archive_verify(const profpack_archive* archive, size_t* checked) {
  if (checked) *checked = 0;
  return guard([&] {
    require(archive != nullptr, "profpack_archive_verify: archive must not be NULL");
    for (size_t i = 0; i < archive->archive->members().size(); ++i) {
      try {
        archive->archive->read(i);
      } catch (const Error& e) {
        throw Error(e.status(), "ppka",
                    "member " + std::to_string(archive->archive->members()[i].id) + ": " + e.what(),
                    e.offset());
      }
      if (checked) *checked = i + 1;
    }
  });
}

profpack_status profpack_archive_compact(profpack_archive* archive) {
  return guard([&] {
    require(archive != nullptr, "profpack_archive_compact: archive must not be NULL");
    archive->archive->compact(archive->level);
  });
}

namespace {

// A call of the C API made from inside another: its failure, rethrown with its message.
void must(profpack_status st) {
  if (st == PROFPACK_OK) return;
  const profpack_error* e = profpack_last_error();
  throw Error(static_cast<Status>(st), "", e->message);
}

struct Handle {
  profpack_profile* p = nullptr;
  ~Handle() { profpack_profile_free(p); }
};

// The merge of the members at `indices`, read one at a time.
profpack_profile* mergeMembers(const profpack_archive* a, const size_t* indices, size_t count,
                               const char* what) {
  require(count > 0 && indices != nullptr, (std::string(what) + ": no member selected").c_str());
  for (size_t i = 0; i < count; ++i) memberAt(a, indices[i]);
  profpack_merger* raw = nullptr;
  must(profpack_merger_new(&raw));
  std::unique_ptr<profpack_merger, void (*)(profpack_merger*)> merger(raw, profpack_merger_free);
  for (size_t i = 0; i < count; ++i) {
    Handle member;
    must(profpack_archive_read(a, indices[i], &member.p));
    const std::string name = "member " + std::to_string(a->archive->members()[indices[i]].id);
    must(profpack_merger_add(merger.get(), member.p, name.c_str()));
  }
  profpack_profile* out = nullptr;
  must(profpack_merger_finish(merger.get(), &out));
  return out;
}

}  // namespace

profpack_status profpack_archive_merge(const profpack_archive* archive, const size_t* indices,
                                       size_t count, profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(archive && out, "profpack_archive_merge: archive and out must not be NULL");
    *out = mergeMembers(archive, indices, count, "profpack_archive_merge");
  });
}

profpack_status profpack_archive_diff(const profpack_archive* archive, const size_t* base,
                                      size_t base_count, const size_t* current,
                                      size_t current_count, const profpack_diff_options* options,
                                      profpack_profile** out) {
  if (out) *out = nullptr;
  return guard([&] {
    require(archive && out, "profpack_archive_diff: archive and out must not be NULL");
    Handle b, c;
    b.p = mergeMembers(archive, base, base_count, "profpack_archive_diff: base");
    c.p = mergeMembers(archive, current, current_count, "profpack_archive_diff: new");
    must(profpack_diff(b.p, c.p, options, out));
  });
}

profpack_status profpack_archive_function_cost(const profpack_archive* archive, size_t index,
                                               const char* function, const char* event,
                                               uint64_t* self, uint64_t* inclusive,
                                               size_t* matched) {
  if (self) *self = 0;
  if (inclusive) *inclusive = 0;
  if (matched) *matched = 0;
  return guard([&] {
    require(function != nullptr, "profpack_archive_function_cost: function must not be NULL");
    memberAt(archive, index);
    Handle member;
    must(profpack_archive_read(archive, index, &member.p));
    size_t e = 0;
    if (event) must(profpack_profile_event_index(member.p, event, &e));
    size_t n = 0;
    must(profpack_profile_find_functions(member.p, function, 0, nullptr, 0, &n));
    std::vector<size_t> ids(n);
    must(profpack_profile_find_functions(member.p, function, 0, ids.data(), n, &n));
    uint64_t s = 0, in = 0;
    size_t named = 0;
    for (size_t i = 0; i < n; ++i) {
      // Exactly that name: a pattern's other readings (a regular expression) would make a
      // member without the function count others instead.
      profpack_function f{};
      must(profpack_profile_function(member.p, ids[i], &f));
      if (std::strcmp(f.name, function) != 0) continue;
      ++named;
      uint64_t fs = 0, fi = 0;
      must(profpack_profile_function_cost(member.p, ids[i], e, &fs, &fi));
      s += fs, in += fi;
    }
    if (self) *self = s;
    if (inclusive) *inclusive = in;
    if (matched) *matched = named;
  });
}
