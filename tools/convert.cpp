// profpack convert: one profile (or the parts of one) to another format.

#include "cli.h"

namespace cli {

int cmdConvert(Invocation& s, const std::vector<std::string>& argv) {
  Args args;
  if (int rc = parseArgs(s, "convert", argv, args)) return rc;
  if (args.positional.empty()) return usageError(s, "convert needs an input file");
  const std::string in = args.positional[0], out = args.get("--output");
  if (out.empty()) return usageError(s, "convert needs -o OUT");
  // Every write parameter is checked before anything is read.
  profpack_write_options wo;
  if (int rc = writeOptions(s, args, wo)) return rc;
  const profpack_format fmt = outputFormat(s, args, out, PROFPACK_FORMAT_PPK);
  if (fmt == PROFPACK_FORMAT_UNKNOWN) return 2;
  // The library knows what the output needs of the input's IR.
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  ro.output_format = fmt;
  // Addresses are named for every output but a rewrite in the input's own format (the library
  // knows which that is).
  SymbolizeOnRead naming;
  naming.apply(args, ro);
  // Nothing but the write is done with the profile: for a format that holds no lines, none
  // are looked up.
  profpack_format_info info;
  profpack_format_info_init(&info);
  if (profpack_format_describe(fmt, &info) == PROFPACK_OK &&
      !(info.flags & PROFPACK_FORMAT_WRITES_LINES))
    ro.flags |= PROFPACK_READ_NO_LINES;
  Profile p;
  if (readInputs(args.positional, &ro, &p.p) != PROFPACK_OK) return failWith(s, in.c_str());
  printWarnings(s, p.p, in);
  return writeOutput(s, args, p.p, fmt, out);
}

}  // namespace cli
