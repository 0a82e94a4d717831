@0xbfea66e1e37ac2ec;
# profpack intermediate representation (IR).
#
# One Profile message holds everything the reference reader of the source format sees, so that
# writing it back changes nothing that reader prints. The message is stored zstd-compressed in
# a `.ppk` container (see lib/container).
#
# EVOLUTION RULE: fields and enumerants are only ever added, at the end, with the next ordinal.
# An ordinal is never reused, renumbered or retyped; a field that is no longer written stays in
# the schema (marked obsolete) so that old `.ppk` files keep their meaning. Readers must accept
# messages in which newly added fields are absent (they read as their defaults).
#
# IR REVISION: the `.ppk` header records the revision of the codings a message uses (see
# lib/container/ppk.h). It goes up when a stored coding changes meaning; a reader refuses other
# revisions. This schema describes revision 2, which requires CostTable.predicted true (for
# tables with rows), StackSamples.treeCoding 1 and addressCoding 1, and no stored mappings;
# revision 1 was the pre-release IR, which also allowed the values marked "revision 1" below.
#
# CONVENTIONS
# - String references: a UInt64 index into Profile.strings. Index 0 is reserved and means "none"
#   (for example: no `ob=` in effect). Every other string is stored exactly once.
# - Large data lives in Column values (chunked, varint-coded integer sequences), never in one
#   Cap'n Proto list, so nothing approaches the 2^29-element list limit or the one-segment limit
#   of a struct list.
# - "File order" means the order the records had in the source file; readers keep it, queries
#   aggregate (sum) where the format says repeated records add up.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("profpack::ir");

struct Column {
  # A sequence of integers, split into independent chunks. Each chunk is a Data blob holding at
  # most `chunkValues` values encoded as `encoding` says. Delta coding restarts at 0 in every
  # chunk, so a chunk decodes without the ones before it.
  count @0 :UInt64;            # number of values over all chunks
  encoding @1 :Encoding;
  chunks @2 :List(Data);
  chunkValues @3 :UInt32;      # values per chunk; every chunk but the last holds exactly this many

  enum Encoding {
    varint @0;                 # unsigned LEB128 of each value
    zigzagDelta @1;            # LEB128 of zigzag(value[i] - value[i-1]), value[-1] = 0; for sorted
                               # or locally close values (addresses, line numbers, timestamps)
    varintRuns @2;             # run-length varint: each LEB128 w stands for (w & 15) + 1 copies
                               # of the value w >> 4, except that w & 15 == 15 means "one copy of
                               # the value in the LEB128 that follows" (values >= 2^60). For
                               # near-constant columns (record kinds, counts); at most 15 values
                               # per byte, so a decoder can still bound a column by its bytes.
    zigzagDeltaRuns @3;        # the same runs over the zigzag deltas of zigzagDelta: a run is a
                               # repeated delta (equal values, or a constant stride)
    adaptive @4;               # each chunk one adaptive binary range-coded stream of its values
                               # (lib/ir/adaptive.h gives the model), at most 32 values per byte
                               # of the chunk (short streams are padded with zero bytes). Every
                               # chunk but the last holds exactly chunkValues values; a column
                               # holds at most 65,536 (longer ones use varint).
  }
}

struct StringTable {
  # All interned strings. String i (i >= 1) is bytes [offset(i), offset(i) + length(i)) of the
  # concatenation of `data` chunks, where offset(i) is the sum of the lengths before it. Index 0 is
  # the reserved "none" entry (length 0). Strings may contain any byte except that formats
  # written as text never produce a newline in a name.
  lengths @0 :Column;          # one length per string, including index 0
  data @1 :List(Data);         # the concatenated bytes, split into chunks of at most 64 MiB
}

enum Format {
  unknown @0;
  cachegrind @1;
  callgrind @2;
  gperftools @3;
  xray @4;
  dcpi @5;
  # Formats whose IR is a CallTree (Profile.callTree):
  folded @6;                   # collapsed stacks (flamegraph.pl, inferno, py-spy)
  cpuprofile @7;               # V8 CPU profile (.cpuprofile: node --cpu-prof, Chrome DevTools)
  traceEvent @8;               # Chrome Trace Event JSON (complete and begin/end events)
  pprof @9;                    # pprof profile.proto (Profile.pprof)
  # Linux perf (Profile.perf):
  perf @10;                    # perf.data (`perf record`, file or pipe mode)
  perfScript @11;              # `perf script` text
}

struct HeaderLine {
  # One header line exactly as it stood in the file (without its line terminator), plus the key
  # and value a reader parsed from it. Lines the project does not understand, comments and blank
  # lines are kept too (key empty for comments and blank lines), in their original order.
  text @0 :Text;               # the raw line
  key @1 :Text;                # e.g. "desc", "cmd", "events", "version" ("" if none)
  value @2 :Text;              # the rest of the line after the key and its separator
  placement @3 :Placement;
  enum Placement {
    header @0;                 # before the body of its part
    trailer @1;                # after the body (Cachegrind `summary:`, Callgrind `totals:`)
  }
}

struct EventType {
  name @0 :Text;               # short name, e.g. "Ir"
  longName @1 :Text;           # from `event: Ir : Instruction Fetches` ("" if none)
  formula @2 :Text;            # inherited events only: the expression after '=', as written
  terms @3 :List(Term);        # inherited events only: the formula parsed
  struct Term {
    factor @0 :Int64;
    event @1 :Text;            # short name of the event summed in
  }
}

enum PositionKind {
  instr @0;                    # instruction address
  line @1;                     # source line number
  bb @2;                       # basic block
}

struct Contexts {
  # The distinct (object, file, function) triples that costs are attributed to: one value per
  # context in each column; each value is a string reference (0 = not given).
  object @0 :Column;
  file @1 :Column;
  function @2 :Column;
}

enum RecordKind {
  cost @0;                     # a self-cost line
  call @1;                     # `calls=` + its cost line: call site, target and inclusive cost
  jump @2;                     # `jump=`: unconditional jump
  condJump @3;                 # `jcnd=`: conditional jump
}

struct CostTable {
  # Body records of a Callgrind / Cachegrind part, one row per record, in file order.
  # Columns marked "per row" hold one value for every row; those marked "per association"
  # hold one value for each row whose kind is call, jump or condJump, in row order.
  rows @0 :UInt64;
  kind @1 :Column;             # per row: RecordKind
  context @2 :Column;          # per row: index into Profile.contexts (the function the line is in)
  sourceFile @3 :Column;       # per row: string ref of the `fi=`/`fe=` file in effect, 0 = the
                               # context's own file
  positions @4 :List(Column);  # per row: one column per Profile.positionKinds entry (zigzagDelta)
                               # -- for a call, the call site; for a jump, the jump source
  costCount @5 :Column;        # per row: how many cost values the line gave (missing ones are 0)
  costs @6 :Column;            # the cost values of all rows, concatenated (calls: inclusive)
  target @7 :Column;           # per association: index into Profile.contexts of the callee
                               # (cob/cfl/cfn) or jump target (jfi/jfn)
  targetPositions @8 :List(Column); # per association: target subpositions, one column per kind
  count @9 :Column;            # per association: call count / jump count / executed count
  jumped @10 :Column;          # per condJump row: how many times the jump was taken
  predicted @11 :Bool;         # false (revision 1 only): costCount, target, targetPositions,
                               # count and jumped hold the values described above. true (always
                               # in revision 2, for a table with rows): they hold residuals against
                               # what the rows before predict (they compress far better; all
                               # arithmetic wraps modulo 2^64, z(d) = zigzag of the difference):
    # - costCount: z(costCount - e), e = the costCount of the last cost or call row before it
    #   (0 at first) for cost and call rows, 0 for jumps;
    # - count: z(count - c), c = the first cost of the last cost row with costs (0 at first):
    #   in an instruction-level dump the call or jump instruction's own execution count;
    # - target: z(target - context of the row);
    # - targetPositions[k]: z(tpos - p), p = for a call, the target position of the last call
    #   to the same target context, else (and for jumps) the row's own positions[k];
    # - jumped j of a condJump with count m: 2j if j <= m - j; 2(m - j) + 1 if m - j < j <= m;
    #   j itself if j > m (every j maps to one value; the usual j = 0, m, m - 1 to 0, 1, 3).
}

struct Part {
  # One dump or thread of a Callgrind file; the single part of a Cachegrind file.
  headerLines @0 :List(HeaderLine);
  costs @1 :CostTable;
  # Cachegrind: the body text the writer would not reproduce, for files written by tools other
  # than cachegrind (cg_merge pads counts, cg_diff repeats fl= lines) and hand-edited ones.
  # verbatimRows: row indexes, ascending (zigzagDelta); an index equal to the row count stands
  # for the text after the last row. verbatimText: one per index, the bytes from the end of the
  # previous row's line (row 0: the first body line) to the end of this row's line, exactly as
  # written; for the row count, to the first trailer line.
  verbatimRows @2 :Column;
  verbatimText @3 :List(Data);
  # Cachegrind: the file's last line is its last trailer line (the `summary:` line, or a comment
  # or blank line after it), and it has no newline; the writer leaves the newline off. (A body
  # line without one is in verbatimText.)
  lastTrailerUnterminated @4 :Bool;
}

struct Mapping {
  # A mapped object (one /proc/self/maps line of a gperftools profile).
  start @0 :UInt64;
  limit @1 :UInt64;
  permissions @2 :Text;        # e.g. "r-xp"
  offset @3 :UInt64;
  device @4 :Text;             # e.g. "fd:01"
  inode @5 :UInt64;
  path @6 :Text;
  line @7 :UInt32;             # 0-based index of its line among StackSamples.mapsText's lines
}

struct StackSamples {
  # gperftools CPU profile. Call chains share one prefix tree whose nodes are numbered from 1
  # (0 = the root, which has no PC) in the order the records first needed them; the outermost
  # frame of a chain is a child of the root. A record's chain is the path from its node up to
  # the root: its first PC (most recently called) is the node itself, its num_pcs the node's
  # depth. The columns are varint-coded, with these values (zigzag(d) = 2d for d >= 0,
  # -2d - 1 for d < 0, on 64-bit wrapping differences):
  slotBytes @0 :UInt8;         # 4 or 8
  bigEndian @1 :Bool;
  headerSlots @2 :List(UInt64);# every header slot as written: count, words, version, period, ...
  samplingPeriodUs @3 :UInt64; # header slot 3
  nodeParent @4 :Column;       # as treeCoding says. treeCoding 1: one per record that adds
                               # nodes, in stored order: the parent of the first node it adds
                               # (a node it does not add, or 0); each further node it adds is
                               # the child of the one before. treeCoding 0 (revision 1 only): one
                               # per node n: 0 if parent(n) = n - 1, else parent(n) + 1
  nodeAddress @5 :Column;      # one per node n, as addressCoding says. Both codings use the
                               # reference r(n) = pc(s) for s the newest earlier child of the
                               # same parent, or, if there is none, pc(parent(n)) (pc(root) = 0).
                               # addressCoding 0 (revision 1 only): zigzag(pc(n) - r(n)).
                               # addressCoding 1 (recent callees): the nodes whose parents have
                               # the same pc P (a call site) share a list of the up to 4 most
                               # recent distinct pcs of such nodes, newest first. The value is
                               # k < 4 if pc(n) is entry k of P's list; else 5 + zigzag(pc(n) -
                               # (entry 0 of the list, or r(n) if it is empty)), or 4 with pc(n)
                               # in nodeAddressEscapes where that sum would pass 2^64 - 1. Then
                               # pc(n) moves to the front of the list (the 5th drops off).
  sampleCount @6 :Column;      # one per record, in stored order (file order but for a sorted
                               # tail, see sortedTail): the sample count
  sampleNode @7 :Column;       # one per record, in stored order: its node m coded against the
                               # largest node id M of the records stored before it (0 at
                               # first): m > M is stored as
                               # 2 (m - M - 1) (nodes the record added), m <= M as 2 m + 1
  trailerSlots @8 :List(UInt64); # the binary trailer as written (0, 1, 0)
  mapsText @9 :Data;           # the mapped-objects text, byte for byte
  mappings @10 :List(Mapping); # revision 1 only: the lines of mapsText that parse as mappings.
                               # Readers derive them from mapsText (the same lines); revision 2
                               # leaves this empty.
  addressCoding @11 :UInt8;    # of nodeAddress: 1 (0 in revision 1 only)
  nodeAddressEscapes @12 :Column; # addressCoding 1: pc(n) of each node n stored as 4, in order
  treeCoding @13 :UInt8;       # of nodeParent: 1 (0 in revision 1 only). With 1, every node is
                               # one a record adds, so nodeAddress has as many values as the
                               # records add nodes.
  sortedTail @14 :UInt64;      # 0, or: the last sortedTail records (at most 4096) are stored
                               # (sampleCount, sampleNode, and the tree nodes they add) in an
                               # order of the reader's choosing, not in file order. The profiler writes its
                               # table of chains last, bucket by bucket, and the reader stores
                               # those records sorted by chain, which shrinks the tree columns.
                               # File order: the stored tail stably sorted by b(chain), then each
                               # run of records with one bucket ordered by tailRanks.
                               # b(chain) = h mod 1024 for h = 0, then h = rotl(h, 8) + 41 pc for
                               # each pc of the chain, innermost first, in unsigned arithmetic of
                               # slotBytes * 8 bits (gperftools' table hash).
  tailRanks @15 :Column;       # per run (in bucket order) of k records, k - 1 values: the file's
                               # next record of the run is entry v (0-based, in stored order) of
                               # the run's records not yet placed; the last one is implied.
}

struct Trace {
  # LLVM XRay trace (FDR or basic mode), kept so that the writer reproduces the file byte for
  # byte: the header and every metadata payload are stored as written (the runtime leaves stack
  # garbage in unused bytes), function records and the TSC as compact columns.
  #
  # FDR: records are stored in FILE order. A record's `code` is what identifies it in the file:
  #   function record: its first 32-bit word, (functionId << 4) | (kind << 1), kind 0 Enter,
  #                    1 Exit, 2 TailExit, 3 EnterArg (bit 0 clear);
  #   metadata record: its first byte, (metadataKind << 1) | 1.
  # `tsc` holds the absolute TSC of every record (zigzag-delta coded, so in practice the stored
  # value is the delta the file holds): function records and v5 custom/typed events the base
  # plus the running sum of deltas, NewCPUId/TSCWrap their base, v1-4 custom events their own
  # TSC, other metadata the TSC in effect. The writer recomputes the written deltas from it.
  #
  # Basic mode: one record per 32-byte file record, in file order; code = (recordType << 8) |
  # kind (recordType 0 function record, 1 argument record whose kind byte is 0).
  mode @0 :Mode;
  enum Mode {
    basic @0;
    fdr @1;
  }
  version @1 :UInt16;
  flags @2 :UInt32;            # bit 0 constant TSC, bit 1 non-stop TSC (basic: garbage bits too)
  cycleFrequency @3 :UInt64;   # Hz
  bufferSize @4 :UInt64;       # FDR: header bytes 16-23, the per-thread buffer size
  headerBytes @5 :Data;        # the 32 header bytes exactly as written (garbage kept)
  buffers @6 :List(Buffer);    # FDR: in file order; basic mode: empty
  records @7 :Records;
  truncatedAt @8 :UInt64;      # byte offset where an incomplete final record starts, or 0
  trailingBytes @9 :Data;      # the bytes of that incomplete record (to the end of the file)
  threadOrder @10 :List(UInt32); # FDR: buffer indices grouped by (pid, thread), each thread's
                               # buffers in time order (wall clock, then first TSC, then file)

  struct Buffer {
    fileOffset @0 :UInt64;     # byte offset of its first record (BufferExtents / NewBuffer)
    firstRecord @1 :UInt64;    # index of its first record in `records`
    recordCount @2 :UInt64;
    threadId @3 :UInt32;       # from NewBuffer (0 if none)
    pid @4 :UInt32;            # from the Pid record (v3+), else 0
    wallSeconds @5 :UInt64;    # from WallClockTime (0 if none)
    wallSubSecond @6 :UInt32;
    firstTsc @7 :UInt64;       # TSC of its first NewCPUId/TSCWrap/function record (0 if none)
    tail @8 :Data;             # bytes after its last record that belong to no record: v1 the
                               # garbage after EndOfBuffer up to buffer_size; v2+ an incomplete
                               # record cut off by BufferExtents in mid-file
  }

  struct Records {
    count @0 :UInt64;          # number of records
    code @1 :Column;           # per record, see above
    tsc @2 :Column;            # zigzagDelta. FDR: per record; basic: per function record
    metaBytes @3 :Data;        # FDR: the 15 payload bytes of each metadata record, in order
    eventData @4 :Data;        # FDR: custom and typed event payloads, concatenated in order
    functionId @5 :Column;     # basic: per record (the i32 as u32)
    cpu @6 :Column;            # basic: per function record
    threadId @7 :Column;       # basic: per record (zigzagDelta)
    pid @8 :Column;            # basic: per record (zigzagDelta)
    argument @9 :Column;       # basic: per argument record
    paddedRecords @10 :Column; # basic: indices (zigzagDelta) of records whose padding bytes
                               # are not all zero
    paddingBytes @11 :Data;    # basic: their padding, 8 bytes (function record: 24-31) or 10
                               # bytes (argument record: 2-3 and 24-31) each
  }
}

struct ImageHistogram {
  # One DCPI profile: the samples of one image (dcpiformat(4), binary data of major version 0).
  #
  # ADDRESS INTERPRETATION: the i-th count (i = 0, 1, ...) of a chunk with offset `o` belongs to
  # the instruction at address textStart + o + 4*i: offsets are byte offsets from `tstart` and
  # every Alpha instruction is 4 bytes long, so a chunk of `number` counts covers the bytes
  # [o, o + 4*number). Offsets, numbers and counts are stored exactly as written, so a file is
  # rewritten byte for byte whatever the interpretation.
  #
  # Invariants (checked by the reader, and again by the writer for a decoded .ppk): every chunk
  # has 1 to 2^32-1 counts, offsets and counts fit in 32 bits, chunks are in increasing offset
  # order and their byte ranges do not overlap (offset[k+1] >= offset[k] + 4*number[k]), and the
  # footer equals the data (addresses with a nonzero count; sum of all counts mod 2^32).
  #
  # An image converted from another format's per-instruction costs (see lib/dcpi/dcpi.h) sums
  # the costs of the instructions of one 4-byte slot (address rounded down to a multiple of 4),
  # since DCPI cannot represent instructions of other lengths.
  headerLines @0 :List(HeaderLine); # every header line before `samples`, in order, with `text`
                               # the line exactly as written (trailing blanks that pad the
                               # header kept), `key` its first word and `value` the rest after
                               # the separating blanks, trailing blanks removed
  terminator @1 :Text;         # the `samples` line as written (trailing spaces kept)
  textStart @2 :UInt64;        # `tstart` (hex)
  chunkOffset @3 :Column;      # byte offset of each chunk from textStart (zigzagDelta)
  chunkLength @4 :Column;      # number of counts in each chunk (the chunk's <number>)
  counts @5 :Column;           # all counts of all chunks, concatenated in file order
  footerAddresses @6 :UInt32;  # footer: addresses with at least one sample
  footerSamples @7 :UInt32;    # footer: sum of all counts (mod 2^32)
}

struct Profile {
  format @0 :Format;           # the format the profile was read from
  formatVersion @1 :Text;      # as the file states it: "1" (Callgrind), "0" (gperftools),
                               # "5" (XRay FDR), "pdb-0.7" (DCPI); "" where the format has none
  strings @2 :StringTable;
  events @3 :List(EventType);  # cost events in cost-column order (Callgrind/Cachegrind `events:`)
  derivedEvents @4 :List(EventType); # inherited events (`event: Sum = Ir + Dr`)
  positionKinds @5 :List(PositionKind); # `positions:`; default [line]
  contexts @6 :Contexts;
  parts @7 :List(Part);
  stacks @8 :StackSamples;     # gperftools
  trace @9 :Trace;             # XRay
  images @10 :List(ImageHistogram); # DCPI
  creator @11 :Text;           # "profpack x.y.z" of the writer of the .ppk
  signedCosts @12 :Bool;       # costs and call counts are two's-complement int64 values held in
                               # the unsigned columns: a difference of profiles (cg_diff's
                               # output, profpack diff)
  symbols @13 :Symbols;        # names, files and lines of the profile's addresses, as
                               # `profpack symbolize` found them in the binaries (absent if not
                               # symbolized; a reader that ignores it loses only the names)
  callTree @14 :CallTree;      # collapsed stacks, V8 CPU profiles, Chrome trace events
  pprof @15 :Pprof;            # pprof (profile.proto)
  perf @16 :PerfData;          # Linux perf.data and `perf script` text
}

# pprof's profile.proto (github.com/google/pprof/proto/profile.proto), every field as read.
# Added in IR revision 2 without changing it: an older reader refuses such a .ppk as naming no
# format it knows. Ids (mapping, location, function) are kept as written, so references are
# the file's own; string fields are references into Profile.strings (0: the empty string,
# pprof's string_table[0]). Signed fields are stored zigzag-coded (z(v) = 2v for v >= 0,
# -2v - 1 for v < 0) in the columns marked "zigzag". Columns "per X" hold one value per X in
# file order. A reader of a .ppk checks what the pprof reader checks (every referenced id
# exists, one value per sample type) before it uses them.
struct Pprof {
  gzipped @0 :Bool;            # the file was gzip-compressed (written back so)
  sampleType @1 :Column;       # per sample type: string of its type
  sampleUnit @2 :Column;       # per sample type: string of its unit
  sampleFrames @3 :Column;     # per sample: how many location ids sampleLocation holds for it
                               # (its location ids less the sampleShared outermost ones)
  sampleLocation @4 :Column;   # per sample, the location ids after its shared ones, outermost
                               # first (the file's order reversed), coded against the caller c
                               # before each (the innermost shared id, 0 for none): 0 if the id
                               # is the last one coded after c, 1 if it is 1 + the largest id
                               # coded so far (0 at first), else id + 2 (with plainStacks: the
                               # ids themselves)
  sampleValue @5 :Column;      # per sample type, one per sample: zigzag value (the first type's
                               # values of every sample, then the second's, ...)
  sampleLabels @6 :Column;     # per sample: how many labels it has
  labelKey @7 :Column;         # per label: string
  labelStr @8 :Column;         # per label: string
  labelNum @9 :Column;         # per label: zigzag num
  labelUnit @10 :Column;       # per label: string of num_unit
  mappingId @11 :Column;       # per mapping (zigzagDelta)
  mappingStart @12 :Column;    # per mapping: memory_start
  mappingLimit @13 :Column;    # per mapping: memory_limit
  mappingOffset @14 :Column;   # per mapping: file_offset
  mappingFile @15 :Column;     # per mapping: string of filename
  mappingBuildId @16 :Column;  # per mapping: string of build_id
  mappingFlags @17 :Column;    # per mapping: bit 0 has_functions, 1 has_filenames,
                               # 2 has_line_numbers, 3 has_inline_frames
  locationId @18 :Column;      # per location (zigzagDelta)
  locationMapping @19 :Column; # per location: mapping_id as written (0: none)
  locationAddress @20 :Column; # per location: zigzag(address - r), r the address of the last
                               # location before it whose last line (innermost) names the same
                               # function id, else the address of the location before (0 first)
  locationLines @21 :Column;   # per location: how many Line entries it has
  locationFolded @22 :Column;  # per location: is_folded (0 or 1)
  lineFunction @23 :Column;    # per line (innermost first, as written): function_id
  lineLine @24 :Column;        # per line: zigzag(line - r), r the line of the last line before it
                               # of the same function id (0 for none)
  lineColumn @25 :Column;      # per line: zigzag column
  functionId @26 :Column;      # per function (zigzagDelta)
  functionName @27 :Column;    # per function: string
  functionSystemName @28 :Column; # per function: 0 if the string equals the name, else string + 1
  functionFile @29 :Column;    # per function: string of filename
  functionStartLine @30 :Column; # per function: zigzag start_line
  dropFrames @31 :UInt64;      # string
  keepFrames @32 :UInt64;      # string
  timeNanos @33 :Int64;
  durationNanos @34 :Int64;
  periodType @35 :UInt64;      # string of period_type.type
  periodUnit @36 :UInt64;      # string of period_type.unit
  hasPeriodType @37 :Bool;     # period_type was present (even with both strings empty)
  period @38 :Int64;
  comments @39 :Column;        # strings, in order
  defaultSampleType @40 :UInt64; # string
  docUrl @41 :UInt64;          # string
  sampleShared @42 :Column;    # per sample: how many of its outermost location ids are the
                               # previous sample's outermost ones (0 for the first), which
                               # sampleLocation leaves out
  plainStacks @43 :Bool;       # sampleLocation holds plain ids (some id is 2^64 - 2 or more)
}

# Symbolization of an address-based profile (gperftools, DCPI): for every location of the
# format-neutral model that a binary resolved, its inline chain. Format writers ignore it (a
# lossless rewrite is the same with or without it); the model names functions from it.
struct Symbols {
  mappings @0 :List(Binary);   # one per mapping of the model's locations layer, in order
  struct Binary {
    path @0 :Text;             # the file symbolized from ("" if none was usable)
    buildId @1 :Data;          # its GNU build id (empty if it has none)
    warning @2 :Text;          # why the mapping went unsymbolized ("" if it did not)
    loadBias @3 :UInt64;       # the mapping's addresses less this are the file's own (link-time)
                               # addresses, where path is set (0: none, or linked there; absent
                               # in files written before it was added, read as 0)
  }
  mapping @1 :Column;          # per entry: index into mappings
  address @2 :Column;          # per entry: the address as the profile stores it (zigzagDelta)
  returnAddress @3 :Column;    # per entry: 1 if looked up at address - 1 (a caller's frame)
  frameCount @4 :Column;       # per entry: frames of its inline chain, innermost first
  function @5 :Column;         # per frame: index into names
  file @6 :Column;             # per frame: index into names (0: unknown)
  line @7 :Column;             # per frame: source line (0: unknown)
  names @8 :List(Text);        # names[0] is ""
  declaration @9 :Column;      # per frame: what tells functions of one name in one object apart
                               # (two static functions of one name): the line DWARF declares
                               # the function at, with 31 bits of a hash of its file above bit
                               # 32, or for a name from a symbol table 2^63 + the symbol's
                               # address; 0: the name alone. Empty: 0 for every frame (files
                               # written before it was added)
}

# Named frames, a tree of them, samples on its nodes and spans of time per thread: what
# collapsed stacks (samples with counts), V8 CPU profiles (timed samples, per-line ticks) and
# Chrome trace events (spans) hold. Every column is per entry in source order; string
# references index Profile.strings. Nodes are numbered from 1 (0 is the root above every
# stack's outermost frame), frames from 0.
struct CallTree {
  frameName @0 :Column;        # per frame: function name
  frameFile @1 :Column;        # per frame: file or URL (0: none)
  frameLine @2 :Column;        # per frame: 1-based line where the function starts (0: unknown)
  frameColumn @3 :Column;      # per frame: 1-based column (0: unknown)
  frameScript @4 :Column;      # per frame: V8 scriptId as text (0: none)
  nodeParent @5 :Column;       # per node: its parent node (0: the root); less than the node
  nodeFrame @6 :Column;        # per node: its frame
  nodeId @7 :Column;           # per node: the id the source gave it (V8; else empty)
  nodeHits @8 :Column;         # per node: V8 hitCount (else empty)
  sampleNode @9 :Column;       # per sample, in source order: its node (its stack is the path
                               # from the node up to the root)
  sampleCount @10 :Column;     # per sample: its count (collapsed stacks); empty: 1 each
  sampleTime @11 :Column;      # per sample: its time in time units (zigzagDelta, two's
                               # complement); empty: untimed
  lineNode @12 :Column;        # per line-tick entry (V8 positionTicks): the node
  lineNumber @13 :Column;      # per entry: the 1-based source line
  lineTicks @14 :Column;       # per entry: samples of the node at that line
  startTime @15 :Int64;        # V8: the profile's startTime and endTime, in time units
  endTime @16 :Int64;
  timeUnitsPerSecond @17 :UInt64; # of sampleTime, spans, startTime, endTime (0: untimed)
  threads @18 :List(Thread);
  spanThread @19 :Column;      # per span, in source order: index into threads
  spanFrame @20 :Column;       # per span: its frame (the event's name)
  spanBegin @21 :Column;       # per span: begin in time units (zigzagDelta, two's complement)
  spanDuration @22 :Column;    # per span: duration in time units
  struct Thread {
    pid @0 :Int64;
    tid @1 :Int64;
    name @2 :Text;             # thread_name metadata ("" if none)
    processName @3 :Text;      # process_name metadata ("" if none)
  }
}

# Linux perf.data (`perf record`): what the model needs of its records, in time order as `perf
# script` shows them. Addresses only: names come from symbolization.
struct PerfData {
  pipeMode @0 :Bool;           # written to a pipe (`perf record -o -`)
  events @1 :List(PerfEvent);  # one per attr, in file order
  features @2 :List(HeaderLine); # feature sections read (key "hostname", "osrelease", ...)
  threads @3 :List(PerfThread); # one per (pid, tid, comm) that has samples
  mappings @4 :List(PerfMapping); # every MMAP/MMAP2 that a frame is in, in record order
  frameAddress @5 :Column;     # per distinct frame: its instruction address (zigzagDelta)
  frameMapping @6 :Column;     # per distinct frame: index into mappings + 1 (0: none)
  frameKernel @7 :Column;      # per distinct frame: 1 if in a kernel context
  stackLength @8 :Column;      # per distinct stack: its frames
  stackFrames @9 :Column;      # frame indexes, each stack innermost first, concatenated
  sampleTime @10 :Column;      # per sample, ascending (zigzagDelta; 0 where not sampled)
  sampleThread @11 :Column;    # per sample: index into threads
  sampleEvent @12 :Column;     # per sample: index into events
  samplePeriod @13 :Column;    # per sample: its period (1 where not sampled)
  sampleStack @14 :Column;     # per sample: index of its stack
  sampleCpu @15 :Column;       # per sample: its cpu (0 where not sampled)
  lost @16 :UInt64;            # samples the kernel lost (LOST records)
  frameName @17 :List(Text);   # `perf script` text: per frame, its symbol ("" if [unknown])
}
struct PerfEvent {
  name @0 :Text;               # from the event-desc feature ("cpu-clock"), else type:config
  type @1 :UInt32;
  config @2 :UInt64;
  sampleType @3 :UInt64;
  samplePeriod @4 :UInt64;     # period, or frequency where freq
  freq @5 :Bool;
}
struct PerfThread {
  pid @0 :Int32;
  tid @1 :Int32;
  comm @2 :Text;               # the command name at the time of its samples
}
struct PerfMapping {
  pid @0 :Int32;               # -1: the kernel's
  start @1 :UInt64;
  length @2 :UInt64;
  pgoff @3 :UInt64;
  path @4 :Text;
  buildId @5 :Data;            # from MMAP2 or the build-id feature (empty if none)
}
