// The function scopes of a DWARF compilation unit that hold an address (scopes.h).

#include "symbolize/scopes.h"

#include <dwarf.h>

#include <algorithm>

namespace profpack {

bool findScopes(Dwarf_Die* parent, Dwarf_Addr pc, std::vector<Dwarf_Die>& path, int depth,
                size_t& budget) {
  if (depth > 256) return false;
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return false;
  do {
    if (budget == 0) return false;
    --budget;
    switch (dwarf_tag(&child)) {
      case DW_TAG_subprogram:
      case DW_TAG_inlined_subroutine:
      case DW_TAG_lexical_block:
        if (dwarf_haspc(&child, pc) == 1) {
          if (dwarf_tag(&child) != DW_TAG_lexical_block) path.push_back(child);
          findScopes(&child, pc, path, depth + 1, budget);  // anything nested deeper
          return true;
        }
        break;
      case DW_TAG_namespace:
      case DW_TAG_module:
      case DW_TAG_class_type:
      case DW_TAG_structure_type:
      case DW_TAG_union_type:
        if (findScopes(&child, pc, path, depth + 1, budget)) return true;
        break;
      default: break;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

namespace {
// Whether a unit's language is C: its structures and unions hold no functions (C++ ones may
// hold definitions), so the walk need not enter them. Most of libc's units declare hundreds of
// structures whose members are DIEs of their own.
bool isC(Dwarf_Die* cu) {
  switch (dwarf_srclang(cu)) {
    case DW_LANG_C89:
    case DW_LANG_C:
    case DW_LANG_C99:
    case DW_LANG_C11:
    case 0x2c:  // DW_LANG_C17 (after DWARF 5; not in elfutils 0.188's dwarf.h)
      return true;
    default: return false;
  }
}
}  // namespace

UnitScopes::UnitScopes(Dwarf_Die* cu, size_t& budget) : cu_(*cu), enterTypes_(!isC(cu)) {
  walk(cu, 0, budget);
  std::sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) {
    return a.low != b.low ? a.low < b.low : a.scope < b.scope;
  });
  maxHigh_.resize(ranges_.size());
  Dwarf_Addr high = 0;
  for (size_t i = 0; i < ranges_.size(); ++i) maxHigh_[i] = high = std::max(high, ranges_[i].high);
}

// The same DIEs, in the same order, as findScopes considers at the unit's level.
void UnitScopes::walk(Dwarf_Die* parent, int depth, size_t& budget) {
  if (depth > 256) return;
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return;
  do {
    if (budget == 0) {
      complete_ = false;
      return;
    }
    --budget;
    switch (dwarf_tag(&child)) {
      case DW_TAG_subprogram:
      case DW_TAG_inlined_subroutine:
      case DW_TAG_lexical_block: {
        const auto scope = static_cast<uint32_t>(scopes_.size());
        bool any = false;
        Dwarf_Addr base = 0, low = 0, high = 0;
        for (ptrdiff_t off = 0; (off = dwarf_ranges(&child, off, &base, &low, &high)) > 0;) {
          if (high > low) ranges_.push_back({low, high, scope});
          any = true;
          if (budget == 0) break;
          --budget;  // a DW_AT_ranges list is the unit's data too
        }
        if (any) scopes_.push_back(child);
        break;
      }
      case DW_TAG_class_type:
      case DW_TAG_structure_type:
      case DW_TAG_union_type:
        if (!enterTypes_) {
          skippedTypes_ = true;
          break;
        }
        [[fallthrough]];
      case DW_TAG_namespace:
      case DW_TAG_module: walk(&child, depth + 1, budget); break;
      default: break;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

void UnitScopes::find(Dwarf_Addr pc, std::vector<Dwarf_Die>& path, size_t& budget) const {
  // The first scope in DIE order whose ranges hold pc: among the ranges starting at or before
  // pc, back while some range before may still reach past pc.
  size_t i =
      static_cast<size_t>(std::upper_bound(ranges_.begin(), ranges_.end(), pc,
                                           [](Dwarf_Addr a, const Range& r) { return a < r.low; }) -
                          ranges_.begin());
  uint32_t best = UINT32_MAX;
  while (i-- > 0 && maxHigh_[i] > pc)
    if (ranges_[i].high > pc) best = std::min(best, ranges_[i].scope);
  if (best == UINT32_MAX) {
    if (skippedTypes_) {  // only where a lookup misses: rare, and then as before the index
      Dwarf_Die cu = cu_;
      findScopes(&cu, pc, path, 0, budget);
    }
    return;
  }
  Dwarf_Die die = scopes_[best];
  if (dwarf_tag(&die) != DW_TAG_lexical_block) path.push_back(die);
  findScopes(&die, pc, path, 1, budget);
}

// A function DIE's name: its linkage name demangled (by `demangled`), else its DW_AT_name (both
// followed through DW_AT_abstract_origin and DW_AT_specification).
std::string dieName(Dwarf_Die* die, DemangleCache& demangled) {
  Dwarf_Attribute a;
  if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
      dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
    if (const char* n = dwarf_formstring(&a)) return demangled(n);
  if (dwarf_attr_integrate(die, DW_AT_name, &a))
    if (const char* n = dwarf_formstring(&a)) return n;
  return "";
}

namespace {
// A declaration's line with its file folded in above bit 32 (31 bits of a hash of the file's
// name, "." and ".." resolved: one header spelled two ways by two units is one file); bit 63
// stays clear (symbolDeclaration's).
uint64_t declaredAt(Dwarf_Die* die, int line) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  if (const char* file = dwarf_decl_file(die)) {
    // A relative name (a file table's directory relative to the unit's) is the unit's
    // compilation directory's: "a/../hdr.h" of a/util.c's unit is main.c's "/src/hdr.h".
    std::string path = file;
    Dwarf_Die cu;
    Dwarf_Attribute a;
    const char* dir = nullptr;
    if (!path.empty() && path[0] != '/' && dwarf_diecu(die, &cu, nullptr, nullptr) &&
        (dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a))) && *dir)
      path = std::string(dir) + "/" + path;
    for (char c : lexicalPath(path)) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  }
  return static_cast<uint32_t>(line) | (h & 0x7fffffff00000000ull);
}
}  // namespace

uint64_t declarationOf(Dwarf_Die* die) {
  int line = 0;
  if (dwarf_decl_line(die, &line) == 0 && line > 0) return declaredAt(die, line);
  Dwarf_Attribute a;
  Dwarf_Die at;
  if (!dwarf_attr_integrate(die, DW_AT_object_pointer, &a) || !dwarf_formref_die(&a, &at)) return 0;
  // The object pointer's type: a pointer to the class, through const and volatile; a few steps
  // at most, whatever a malformed file's types refer to.
  for (int step = 0; step < 6; ++step) {
    if (!dwarf_attr_integrate(&at, DW_AT_type, &a) || !dwarf_formref_die(&a, &at)) return 0;
    const int tag = dwarf_tag(&at);
    if (tag == DW_TAG_class_type || tag == DW_TAG_structure_type || tag == DW_TAG_union_type)
      return dwarf_decl_line(&at, &line) == 0 && line > 0 ? declaredAt(&at, line) : 0;
    if (tag != DW_TAG_pointer_type && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
        tag != DW_TAG_reference_type)
      return 0;
  }
  return 0;
}

// Where an inlined copy was called from: DW_AT_call_file / DW_AT_call_line of its DIE.
void callSite(Dwarf_Die* cu, Dwarf_Die* inlined, std::string& file, uint64_t& line) {
  file.clear();
  line = 0;
  Dwarf_Attribute a;
  Dwarf_Word v = 0;
  if (dwarf_attr(inlined, DW_AT_call_line, &a) && dwarf_formudata(&a, &v) == 0) line = v;
  if (!dwarf_attr(inlined, DW_AT_call_file, &a) || dwarf_formudata(&a, &v) != 0) return;
  Dwarf_Files* files = nullptr;
  size_t n = 0;
  if (dwarf_getsrcfiles(cu, &files, &n) != 0 || v >= n) return;
  if (const char* f = dwarf_filesrc(files, v, nullptr, nullptr)) file = f;
}

}  // namespace profpack
