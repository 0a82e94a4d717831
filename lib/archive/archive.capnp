# The manifest of a .ppka archive (lib/archive/archive.h): the index of every committed
# segment and member, kept at the end of each commit. Like profile.capnp, the schema only grows.
@0xf3e31a16f90373fe;

$import "/capnp/c++.capnp".namespace("profpack::ar");

struct Manifest {
  segments @0 :List(Segment);
  nextId @1 :UInt64;  # the id the next member added gets
}

struct Segment {
  # Its dictionary: the zstd frame of the dictionary bytes at [dictOffset, dictOffset+dictSize)
  # of the file, or, where dictSegment is another segment's index, that segment's dictionary.
  dictSegment @0 :UInt32;
  dictOffset @1 :UInt64;
  dictSize @2 :UInt64;
  dictRawSize @3 :UInt64;
  members @4 :List(Member);
}

struct Member {
  id @0 :UInt64;
  format @1 :Text;        # the format name of the profile the member was read from
  time @2 :Int64;         # seconds since 1970 UTC
  labels @3 :List(Label);
  offset @4 :UInt64;      # its zstd frame (compressed with the segment's dictionary)
  size @5 :UInt64;
  rawSize @6 :UInt64;     # the IR message's size, a multiple of 8
  irRevision @7 :UInt32;  # the .ppk IR revision of the message
  form @8 :UInt8;         # what the frame holds (archive revision 2; revision 1: always 0):
                          # 0 the IR message; 1 the file `format`'s writer writes, whose reading
                          # gives the IR message; 2 that file in `format`'s archive coding
                          # (gperftools from revision 2, Callgrind from revision 4)
  messageSize @9 :UInt64; # forms 1 and 2: the size of the IR message read back (form 0: rawSize)
  inDictionary @10 :Bool; # archive revision 3: no frame of its own; its rawSize bytes are at
                          # `offset` in its segment's dictionary (decompressed), and size is 0
}

struct Label {
  key @0 :Text;
  value @1 :Text;
}
