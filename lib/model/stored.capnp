@0xf57e694b7c5da097;
# A profile's functions, their costs and its summary as a model computed them (lib/model/model.h),
# stored beside its IR in a .ppk so that `top` and `info` need not compute them again. Call
# edges are not kept (they would double the size for the one query, `calls`, that reads them):
# a model computes them from the IR when first asked. Derived
# data, never the profile itself: the IR stays whole without it, and a reader that does not use
# it (another build of profpack, or any query that needs another layer) computes everything
# from the IR. See lib/model/stored.h for when it is written and used.
#
# Strings are indexes into `strings` (0: the empty string). Tables are flat, row-major: a
# function's costs are self[f * events .. (f + 1) * events). The per-function columns are the
# IR's integer columns (lib/ir/profile.capnp), which zstd compresses to about half of what it
# makes of 64-bit lists; `functionName` holds one value per function and so gives their number.
# Only the build named in `computedBy` reads a layer, so the schema changes with that name's
# layer revision (lib/model/stored.h): a layer of another revision is ignored, never misread.

using Cxx = import "/capnp/c++.capnp";
using Ir = import "/profile.capnp";
$Cxx.namespace("profpack::stored");

struct Model {
  # The build that computed the layer ("profpack VERSION, layer N"); a build that names itself
  # otherwise does not use the layer, which its own code might compute differently.
  computedBy @0 :Text;
  capabilities @1 :UInt32;
  strings @2 :List(Text);

  eventNames @3 :List(UInt32);
  eventLongNames @4 :List(UInt32);
  unitsPerSecond @5 :Float64;
  eventUnitsPerSecond @6 :List(Float64);
  samplePeriodNanos @7 :UInt64;
  timelineUnitsPerSecond @8 :Float64;
  eventPeriods @9 :List(UInt64);
  baseTotals @10 :List(UInt64);

  threadPid @11 :List(UInt32);
  threadId @12 :List(UInt32);
  threadProcess @13 :List(UInt32);

  functionName @14 :Ir.Column;
  functionFile @15 :Ir.Column;
  functionObject @16 :Ir.Column;
  functionLine @17 :Ir.Column;
  self @18 :Ir.Column;
  inclusive @19 :Ir.Column;
  calls @20 :Ir.Column;  # one per function, or none

  descriptionKey @21 :List(UInt32);
  descriptionValue @22 :List(UInt32);

  summary @23 :Summary;

  # The IR's root fields that a reader needs before any layer (lib/profile.h, Profile::Basics),
  # so that a .ppk can answer from this layer without decompressing its IR. They must equal the
  # IR's, checked when the IR is decompressed.
  irFormat @24 :Ir.Format;
  signedCosts @25 :Bool;
  hasSymbols @26 :Bool;

  # One per function, 1 where no symbol names it (FunctionRow::unnamed), or none where every
  # function is named (layer 3).
  functionUnnamed @27 :Ir.Column;

  # One per thread: its name, as threadProcess (layer 5).
  threadName @28 :List(UInt32);
}

struct Summary {
  formatVersion @0 :Text;
  parts @1 :UInt64;
  records @2 :UInt64;
  functions @3 :UInt64;
  files @4 :UInt64;
  objects @5 :UInt64;
  strings @6 :UInt64;
}
