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
}

struct Part {
  # One dump or thread of a Callgrind file; the single part of a Cachegrind file.
  headerLines @0 :List(HeaderLine);
  costs @1 :CostTable;
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
  nodeParent @4 :Column;       # one per node n (n = 1, 2, ...): 0 if parent(n) = n - 1 (the node
                               # continues the chain created just before it), else parent(n) + 1
  nodeAddress @5 :Column;      # one per node n: zigzag(pc(n) - pc(s)) where s is the newest
                               # earlier child of the same parent, or, if there is none,
                               # zigzag(pc(n) - pc(parent(n))) (pc(root) = 0)
  sampleCount @6 :Column;      # one per record, in file order: the sample count
  sampleNode @7 :Column;       # one per record: its node m coded against the largest node id M
                               # of the records before it (0 at first): m > M is stored as
                               # 2 (m - M - 1) (nodes the record added), m <= M as 2 m + 1
  trailerSlots @8 :List(UInt64); # the binary trailer as written (0, 1, 0)
  mapsText @9 :Data;           # the mapped-objects text, byte for byte
  mappings @10 :List(Mapping); # the lines of mapsText that parse as mappings; the others stay
                               # only in mapsText
}

struct Trace {
  # LLVM XRay trace (FDR or basic mode).
  mode @0 :Mode;
  enum Mode {
    basic @0;
    fdr @1;
  }
  version @1 :UInt16;
  flags @2 :UInt32;            # bit 0 constant TSC, bit 1 non-stop TSC
  cycleFrequency @3 :UInt64;   # Hz
  bufferSize @4 :UInt64;       # FDR: per-thread buffer size
  headerBytes @5 :Data;        # the 32 header bytes exactly as written (garbage kept)
  buffers @6 :List(Buffer);    # FDR: in file order; basic mode: one buffer holding every record
  records @7 :Records;         # every record of every buffer, in file order
  truncatedAt @8 :UInt64;      # byte offset where an incomplete final record started, or 0
  trailingBytes @9 :Data;      # bytes after the last complete record, kept for exact rewriting

  struct Buffer {
    firstRecord @0 :UInt64;    # index into records of the buffer's first record
    recordCount @1 :UInt64;
    extents @2 :UInt64;        # FDR v2+: BufferExtents byte count; v1: buffer size
    threadId @3 :UInt32;       # from NewBuffer (basic mode: 0, thread ids are per record)
    pid @4 :UInt32;            # from the Pid record (v3+), else 0
    tail @5 :Data;             # v1: bytes after EndOfBuffer up to buffer_size, kept as written
  }

  struct Records {
    # Columns, one value per record unless noted.
    kind @0 :Column;           # 0-3: function Enter/Exit/TailExit/EnterArg; 16 + k: metadata
                               # record of kind k; 32: basic-mode argument record
    functionId @1 :Column;     # function records: id; metadata/argument records: 0
    tsc @2 :Column;            # absolute TSC reconstructed (zigzagDelta)
    tscDelta @3 :Column;       # the delta as written (function records, v5 custom/typed events)
    cpu @4 :Column;            # CPU in effect (basic mode: per record)
    threadId @5 :Column;       # thread the record belongs to
    pid @6 :Column;            # basic mode: per record pid; FDR: pid of the buffer
    payload @7 :Column;        # metadata/argument value (argument, base TSC, seconds, size...)
    metaBytes @8 :Data;        # for each metadata record, its 15 payload bytes as written
                               # (garbage included); basic mode: 32 - fields per record padding
    eventData @9 :Data;        # custom / typed event payloads, concatenated in record order
  }
}

struct ImageHistogram {
  # One DCPI profile: the samples of one image.
  headerLines @0 :List(HeaderLine); # every header line before `samples`, in order
  terminator @1 :Text;         # the `samples` line as written (trailing spaces kept)
  textStart @2 :UInt64;        # `tstart` (hex)
  chunkOffset @3 :Column;      # byte offset of each chunk from textStart (zigzagDelta)
  chunkLength @4 :Column;      # number of counts in each chunk
  counts @5 :Column;           # all counts of all chunks, concatenated
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
}
