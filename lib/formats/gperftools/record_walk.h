// The gperftools reader's walk over the records: checks each record and hashes its chain, on a
// thread of its own for a large profile, handing the records to the parser through a ring.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <thread>

#include "error.h"
#include "formats/gperftools/node_table.h"

namespace profpack::gperf {

inline constexpr const char* kWalkFormat = "gperftools";

// A record the walk checked, with the hashes of its chain.
struct Walked {
  uint64_t at;          // byte offset of the record
  uint64_t hash;        // chainHash of its chain
  uint64_t callerHash;  // of the chain without its leaf; 0 for a chain of one PC
};

constexpr size_t kThreadFrom = size_t{1} << 20;  // bytes of records, for the helper threads

// The walk over the records from byte offset `pos` to the trailer. From kThreadFrom bytes of
// records it runs on a thread of its own: it checks each record, hashes its chain and hands it
// over through a ring, while the parsing thread adds the records to the tree. On a 50 MB
// profile that takes a seventh off the reader's time (its page faults on the input move to the
// walk too). The walk stops at the trailer or at the first bad record; the parsing thread meets
// that error after the records before it, as it would if it walked the records itself.
template <unsigned W, bool BE>
class RecordWalk {
 public:
  RecordWalk(std::span<const uint8_t> data, size_t pos)
      : base_(data.data()), size_(data.size()), pos_(pos) {
    // A small profile is walked as it is parsed: starting a thread would cost more than the
    // walk (the gperftools fuzzer ran at half its speed).
    if (size_ - pos < kThreadFrom) return;
    ring_.reset(new Walked[kRing]);
    try {
      thread_ = std::thread([this] { run(); });
    } catch (const std::system_error&) {
      // No thread to be had (a process limit, a sandbox): the parser walks as it goes.
    }
  }
  ~RecordWalk() {
    if (!thread_.joinable()) return;
    // The parser is done or gave up: stop the walk if it is still going.
    tail_.store(kFlag, std::memory_order_release);
    tail_.notify_one();
    thread_.join();
  }
  RecordWalk(const RecordWalk&) = delete;
  RecordWalk& operator=(const RecordWalk&) = delete;

  // The next record in file order; false at the trailer. Throws the walk's error where the
  // walk found it.
  bool next(Walked& out) {
    if (!thread_.joinable()) return step(out);
    if (taken_ == seen_) {
      tail_.store(taken_, std::memory_order_release);  // room for the walk before waiting
      tail_.notify_one();
      for (;;) {
        const uint64_t h = head_.load(std::memory_order_acquire);
        seen_ = h & ~kFlag;
        if (taken_ != seen_) break;
        if (h & kFlag) {
          if (error_) std::rethrow_exception(error_);
          return false;
        }
        head_.wait(h, std::memory_order_acquire);
      }
    }
    out = ring_[taken_++ % kRing];
    if (taken_ % kFreeBatch == 0) {
      tail_.store(taken_, std::memory_order_release);
      tail_.notify_one();
    }
    return true;
  }
  // The byte offset just past the trailer, once next() returned false.
  size_t end() const { return end_; }

 private:
  // The walk is the faster side and mostly waits for room: it is woken when a quarter of the
  // ring is free, and the parser sees new records every kBatch.
  static constexpr uint64_t kRing = 4096, kBatch = 64, kFreeBatch = kRing / 4;
  static constexpr uint64_t kFlag = uint64_t{1} << 63;  // head_: walk over; tail_: stop

  void run() {
    try {
      walk();
    } catch (...) {
      error_ = std::current_exception();
    }
    head_.store(put_ | kFlag, std::memory_order_release);
    head_.notify_one();
  }
  // Hands over a record; false if the parser stopped.
  bool put(const Walked& w) {
    while (put_ - free_ == kRing) {
      head_.store(put_, std::memory_order_release);  // what is ready, before waiting
      head_.notify_one();
      const uint64_t t = tail_.load(std::memory_order_acquire);
      if (t & kFlag) return false;
      if (t != free_) {
        free_ = t;
        break;
      }
      tail_.wait(t, std::memory_order_acquire);
    }
    ring_[put_++ % kRing] = w;
    if (put_ % kBatch == 0) {
      head_.store(put_, std::memory_order_release);
      head_.notify_one();
    }
    return true;
  }
  void walk() {
    for (Walked w; step(w);)
      if (!put(w)) return;
  }
  // Checks and hashes the record at pos_ and moves past it; false at the trailer.
  bool step(Walked& out) {
    const uint8_t* base = base_;
    const size_t size = size_;
    const size_t slotsEnd = size - size % W;  // records only use whole slots
    const size_t pos = pos_;
    if (pos == slotsEnd && pos == size)
      fail(kWalkFormat, pos, kUnknown,
           "missing binary trailer: expected the slots 0, 1, 0 after the last record, found "
           "the end of the file");
    if (slotsEnd - pos < 2 * W)
      fail(kWalkFormat, pos, kUnknown,
           "record runs past the end of the file: expected 2 slots (count, num_pcs) of " +
               std::to_string(W) + " bytes, found " + std::to_string(size - pos) +
               " bytes (missing binary trailer?)");
    const uint64_t count = load<W, BE>(base + pos);
    const uint64_t n = load<W, BE>(base + pos + W);
    const uint64_t left = (slotsEnd - pos) / W - 2;
    if (n == 0)
      fail(kWalkFormat, pos + W, kUnknown,
           "record has num_pcs 0 (expected at least 1 program counter)");
    if (n > left)
      fail(kWalkFormat, pos + W, kUnknown,
           "record's num_pcs " + std::to_string(n) + " is larger than the " + std::to_string(left) +
               " slots left in the file (record runs past the end; " + "missing binary trailer?)");
    if (count == 0 && n == 1 && load<W, BE>(base + pos + 2 * W) == 0) {
      end_ = pos + 3 * W;
      return false;
    }
    if (n * W > UINT32_MAX)
      throw Error(Status::limit, kWalkFormat,
                  "call chain of " + std::to_string(n) + " PCs is too long", pos);
    uint64_t caller = 0;
    const uint64_t h = chainHash<W, BE>(base + pos + 2 * W, n, &caller);
    out = {pos, h, caller};
    pos_ = pos + (2 + n) * W;
    return true;
  }

  const uint8_t* base_;
  const size_t size_;
  size_t pos_;  // of the next record to walk
  std::unique_ptr<Walked[]> ring_;
  // The walk's side (put_, free_) and the parser's (taken_, seen_), each on its own cache line.
  alignas(64) std::atomic<uint64_t> head_{0};  // records handed over; kFlag once the walk ended
  uint64_t put_ = 0, free_ = 0;                // written; slots known free up to free_ + kRing
  alignas(64) std::atomic<uint64_t> tail_{0};  // records taken; kFlag: stop
  uint64_t taken_ = 0, seen_ = 0;              // taken; handed over, as last seen
  std::exception_ptr error_;                   // what stopped the walk, if not the trailer
  size_t end_ = 0;
  std::thread thread_;
};

}  // namespace profpack::gperf
