// An IR profile in memory: either a message a reader is building/has built, or a message
// decoded from a .ppk. Everything downstream (writers, queries, the C ABI) sees root().
#pragma once

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/array.h>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/column.h"
#include "profile.capnp.h"

namespace profpack {

// Reader options for a flat message that has been checked whole once against a budget of its
// own size (profileFromMessage, checkStoredModel): no traversal budget, since Cap'n Proto
// spends one over the reader's whole life and a long-lived handle's queries would exhaust any.
inline capnp::ReaderOptions checkedMessageOptions() {
  capnp::ReaderOptions o;
  o.traversalLimitInWords = ~uint64_t{0};
  return o;
}

class ModelCache;
class ModelSource;

class Profile {
 public:
  // Takes a message whose root is an ir::Profile.
  explicit Profile(std::unique_ptr<capnp::MallocMessageBuilder> message);
  // Takes the words of a flat message (as decoded from a .ppk), read in place without a copy.
  Profile(kj::Array<capnp::word> words, capnp::ReaderOptions options);

  // Part of the IR a reader leaves to be built when it is first asked for (ReadOptions::deferIR).
  struct Deferred {
    virtual ~Deferred() = default;
    // The whole IR, a new message, built from `partial` (the IR without this part, which
    // leaves unset every field this part sets).
    virtual std::unique_ptr<capnp::MallocMessageBuilder> build(ir::Profile::Reader partial) = 0;
  };
  // Takes the message without the deferred part, and that part.
  Profile(std::unique_ptr<capnp::MallocMessageBuilder> partial, std::unique_ptr<Deferred> rest);
  // A profile whose IR is `base`'s with a symbol section (lib/ir/profile.capnp, Symbols) that
  // `symbols` adds when the IR is first asked for: partialRoot() is base's, and hasSymbols()
  // is true from the start. `base` is kept, and not changed, for the profile's life.
  Profile(std::shared_ptr<const Profile> base, std::unique_ptr<Deferred> symbols);

  // What the profile answers without loading a pending message.
  struct Basics {
    ir::Format format = ir::Format::UNKNOWN;
    bool signedCosts = false;
    bool hasSymbols = false;
    size_t flatBytes = 0;
  };
  // A whole message left compressed until something reads it: a .ppk whose stored function
  // layer answers the queries that need no IR (lib/model/stored.h).
  struct Pending {
    virtual ~Pending() = default;
    // The message's words (flatBytes of them), decompressed and checked as profileFromMessage
    // checks them, its root agreeing with the Basics; throws profpack::Error where it is not.
    virtual kj::Array<capnp::word> load() = 0;
  };
  Profile(std::unique_ptr<Pending> pending, Basics basics);
  // The file the profile was read from, to name in the errors of loading a pending message
  // (which come after the read, from whichever query first needs the IR). Set before the
  // profile is shared.
  void setFileName(std::string name) { fileName_ = std::move(name); }
  ~Profile();
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  // The whole IR; a deferred part is built, or a pending message loaded, first (once, under a
  // lock: safe from several threads). If that throws, this and every later call throw the same
  // exception.
  ir::Profile::Reader root() const {
    if (!complete_.load(std::memory_order_acquire)) [[unlikely]]
      complete();
    return root_;
  }
  // Whether root() has a deferred part to build or a pending message to load first.
  bool rootPending() const { return !complete_.load(std::memory_order_acquire); }
  // The IR without a deferred part: every field but those the deferred part sets, which read
  // as unset. Never builds a deferred part, and never changes: what it returns stays valid and
  // unchanged while the profile lives, even while another thread completes the IR. For a
  // profile without a deferred part it is root(), and for one with a pending message it loads
  // that message first, and may throw, as root() does.
  ir::Profile::Reader partialRoot() const { return pending_ ? root() : partialRoot_; }
  // The root's format, signedCosts and whether it has symbols, without loading a pending
  // message.
  ir::Format format() const { return pending_ ? basics_.format : partialRoot_.getFormat(); }
  bool signedCosts() const {
    return pending_ ? basics_.signedCosts : partialRoot_.getSignedCosts();
  }
  bool hasSymbols() const {
    return pending_ ? basics_.hasSymbols : (symbolsDeferred_ || partialRoot_.hasSymbols());
  }
  // The interned strings, decoded on first use (by one thread; the others wait for it).
  const StringTableReader& strings() const;
  // The message as the flat bytes a .ppk stores, without assembling them: the segment table,
  // then each segment, in order, each passed to `sink`. Total size is flatSize() bytes. Safe to
  // call from several threads at once (nothing is cached).
  void forEachFlatPiece(const std::function<void(const void*, size_t)>& sink) const;
  size_t flatSize() const;
  // The same bytes assembled in one string (what a .ppk or an archive member compresses).
  std::string flatBytes() const;
  // What a format's reader had decoded anyway and its model would otherwise decode from the IR
  // again (opaque here; see the format's reader and model). The first caller of takeDecoded()
  // gets it and frees it with its model; later callers get null and decode the IR.
  struct Decoded {
    virtual ~Decoded() = default;
  };
  void keepDecoded(std::unique_ptr<Decoded> decoded) { decoded_ = std::move(decoded); }
  // What a model of this profile computed that the next may share (ModelCache): naming as the
  // profile is read builds a model of its addresses, and the model of its names then decodes
  // nothing again. The first model built without a cache of its own takes it (buildModel);
  // building a deferred part of the IR (a .ppk write, whose copy of the IR is its peak) drops
  // it. Set before the profile is shared.
  void seedModelCache(std::shared_ptr<ModelCache> cache) { seedCache_ = std::move(cache); }
  std::shared_ptr<ModelCache> takeModelCache() const;
  std::unique_ptr<Decoded> takeDecoded() const;
  // Gives back what takeDecoded() gave, unchanged (a model done with it), for the next caller;
  // dropped if the profile holds another by then.
  void returnDecoded(std::unique_ptr<Decoded> decoded) const;
  // What a layer above the formats adds to every model of this profile (symbolization: the
  // names of its symbol section): buildModel passes the format's model source through it. Empty:
  // nothing. Set before the profile is shared; a copy of the IR does not carry it.
  using SourceWrap = std::function<std::unique_ptr<ModelSource>(std::unique_ptr<ModelSource>,
                                                                const Profile&, ModelCache*)>;
  void setSourceWrap(SourceWrap wrap) { sourceWrap_ = std::move(wrap); }
  const SourceWrap& sourceWrap() const { return sourceWrap_; }
  // A model's function layer and summary stored beside the IR (the words of a checked
  // stored::Model message, lib/model/stored.h), where the .ppk held one this build computed;
  // null otherwise. Set before the profile is shared; a copy of the IR does not carry it.
  void setStoredModel(std::shared_ptr<const kj::Array<capnp::word>> words) {
    storedModel_ = std::move(words);
  }
  const std::shared_ptr<const kj::Array<capnp::word>>& storedModel() const { return storedModel_; }
  // Non-fatal findings of the reader (e.g. a truncated XRay trace), in the order found.
  std::vector<std::string>& warnings() { return warnings_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void complete() const;

  // builder_ or words_ holds the message. A deferred part is built into a new builder_; the
  // old one stays in partial_ for partialRoot().
  mutable std::unique_ptr<capnp::MallocMessageBuilder> builder_, partial_;
  // Set by a constructor, or by complete() for a pending message.
  mutable kj::Array<capnp::word> words_;
  mutable std::unique_ptr<capnp::FlatArrayMessageReader> reader_;
  mutable ir::Profile::Reader root_;  // set before complete_ is
  mutable ir::Profile::Reader partialRoot_;
  mutable std::unique_ptr<Deferred> deferred_;
  // The profile whose IR this one's partial root is, where a symbol section is deferred.
  const std::shared_ptr<const Profile> base_;
  const bool symbolsDeferred_ = false;
  // Set for the profile's life where it was made with a pending message (so that partialRoot()
  // needs no lock to know it); the message itself is dropped once loaded.
  const bool pending_ = false;
  mutable std::unique_ptr<Pending> pendingMessage_;
  Basics basics_;
  std::string fileName_;
  mutable std::mutex completeMutex_;
  mutable std::atomic<bool> complete_{true};
  mutable std::exception_ptr completeError_;  // what stopped building the deferred part
  mutable std::once_flag stringsOnce_;
  mutable std::unique_ptr<StringTableReader> strings_;
  mutable std::mutex decodedMutex_;
  mutable std::unique_ptr<Decoded> decoded_;
  mutable std::shared_ptr<ModelCache> seedCache_;  // under decodedMutex_
  std::vector<std::string> warnings_;
  SourceWrap sourceWrap_;
  std::shared_ptr<const kj::Array<capnp::word>> storedModel_;
};

// A new message with an empty ir::Profile root, sized for `expectedBytes` of input so large
// inputs do not grow the first segment many times.
std::unique_ptr<capnp::MallocMessageBuilder> newMessage(size_t expectedBytes = 0);

// True if the two profiles hold the same IR (the `creator` field is ignored).
bool equalIR(const Profile& a, const Profile& b);

}  // namespace profpack
