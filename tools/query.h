// What the query commands (top, annotate, calls) share: their arguments, opening the profile
// and describing functions.
#pragma once

#include <string>
#include <vector>

#include "cli.h"

namespace cli {

// The query commands' arguments: FILE [FUNCTION] and their options.
struct QueryArgs {
  std::string file, event, source, function, binary;
  std::vector<std::string> files;  // file and the parts that follow it (a file per thread)
  long thread = -1;
  size_t n = 20;
  bool inclusive = false, tsv = false;
  Args args;  // all of them (--binary-path, --no-symbolize)
};

// Parses FILE [PART...] [FUNCTION] and the options of `cmd`; a usage error's exit code.
int parseQuery(Invocation& s, const std::vector<std::string>& argv, QueryArgs& q, const char* cmd,
               bool wantFn);
// Opens the profile (a view where --binary or --thread asks) and its event.
int openQuery(Invocation& s, const QueryArgs& q, Profile& p, size_t& event, std::string& eventName);
// "file:line:function [object]".
std::string functionLabel(profpack_profile* p, size_t id);
// The keys that describe function `id` in a JSON object: id, name, file, line, object.
void jsonFunction(Json& j, profpack_profile* p, size_t id);
// The document's head shared by the query commands.
void jsonQueryHead(Json& j, const QueryArgs& q, const std::string& event);
// The callers (or callees) of function `id`, most costly first, into `out`. False, with the
// library's last error set, where the library could not give them (the IR they come from is
// damaged): the caller reports it with failWith rather than print a function without calls.
bool arcs(profpack_profile* p, size_t id, size_t event, bool callers,
          std::vector<profpack_call>& out);
// Whether function `id` calls itself, into `out`; false as arcs().
bool isRecursive(profpack_profile* p, size_t id, size_t event, bool& out);

}  // namespace cli
