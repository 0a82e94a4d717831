// How a Callgrind profile is kept in a .ppka archive (lib/formats/registry_archive.cpp): the
// file as its writer writes it, coded so that profiles of one program taken in different runs
// share bytes.
//
// The writer numbers each name by its index in the profile's string table, which holds every
// name the file holds in byte order ("fn=(12) main" defines 12, later lines say "fn=(12)"),
// so one name more or less in a run moves the numbers of every name after it, and every line
// that names one differs from the other runs'. The coding writes every name line with the
// name itself in place of its number; the decoder numbers the names again by their rank among
// the skeleton's names (those written in full too), and defines each anew in every part (after
// any header or trailer line: a line that is no name, cost or count line), as the writer
// does. The costs, which change from run to run while
// the lines they sit on do not, go in a stream of their own after the rest of the text: each
// cost line's text from its first blank on, and the count of each calls=, jump= and jcnd= line,
// by function block, the blocks sorted by their fn= lines: runs write their functions in
// different orders, and sorted, a function's costs follow the same function's as in the other
// runs. The decoder finds the same order in the skeleton.
//
//   byte 0      coding version, 1
//   bytes 1-8   length S of the skeleton (u64 little-endian)
//   S bytes     the skeleton: the file's lines, each ending in '\n', with
//               - a name line (ob= cob= fl= fi= fe= cfi= cfl= jfi= fn= cfn= jfn=) that defines
//                 or refers to a compressed name written with the name alone ("fn=main");
//                 an empty name or one that starts with a blank is written as it was;
//               - a cost line (first character a digit, '+', '-' or '*') cut before its first
//                 blank;
//               - a calls=, jump= or jcnd= line without the text between '=' and its first
//                 blank
//   then        the cut-out texts, each ending in '\n': the lines' before the first fn= line,
//               then each fn= line's block's, the blocks in the byte order of their fn= lines
//               (as the skeleton writes them), blocks of equal fn= lines in file order; within
//               a block in the order of their lines
//
// Only files that end in a newline and whose coding decodes to them byte for byte are coded.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace profpack {

// The coding of `file`, or nothing where its coding would not decode to it byte for byte.
std::optional<std::string> callgrindArchiveCode(std::string_view file);
// The file of a coding; Status::malformed (with the byte offset in `coded`) for bytes that are
// no coding of a file: a skeleton past the end, a skeleton line without its newline, fewer or
// more cut-out texts than the skeleton's lines take.
std::string callgrindArchiveDecode(std::string_view coded);

}  // namespace profpack
