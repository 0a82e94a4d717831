// Entries handed from one thread to another that trails it, in order: the producer stores each
// in blocks of 2^14 and publishes how many there are every few thousand; the consumer's thread
// takes them as they are published and frees each block it is done with.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

namespace profpack {

template <class Entry>
class BlockFeed {
 public:
  static constexpr uint64_t kBlock = uint64_t{1} << 14, kPublish = 4096;

  BlockFeed() = default;
  ~BlockFeed() {
    if (!thread_.joinable()) return;
    publish(added_ | kDone);  // a producer that gave up: stop the consumer
    thread_.join();
  }
  BlockFeed(const BlockFeed&) = delete;
  BlockFeed& operator=(const BlockFeed&) = delete;

  // Starts the consumer's thread, which calls `take(i, n)` for each entry i in order (entries
  // below n published: at(i .. n - 1) may be read). `max`: at most this many push()es follow
  // (sizes the block table, never grown, so the consumer reads it while blocks are added).
  // Where no thread can be had, threaded() stays false: the caller consumes entries itself.
  template <class Take>
  void start(size_t max, Take take) {
    blocks_.resize(max / kBlock + 1);
    try {
      thread_ = std::thread([this, take] { consume(take); });
    } catch (const std::system_error&) {
      blocks_.clear();
    }
  }
  // Whether push() hands entries to the consumer's thread (from start() to finish()).
  bool threaded() const { return thread_.joinable(); }
  void push(const Entry& e) {
    if (inBlock_ == kBlock) newBlock();
    block_[inBlock_++] = e;
    if (++added_ % kPublish == 0) publish(added_);
  }
  const Entry& at(uint64_t i) const { return blocks_[i / kBlock][i % kBlock]; }
  // Waits until every entry pushed is taken; rethrows what stopped the consumer.
  void finish() {
    if (!thread_.joinable()) return;
    publish(added_ | kDone);
    thread_.join();
    blocks_.clear();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  static constexpr uint64_t kDone = uint64_t{1} << 63;  // published_: no more entries

  void newBlock() {
    if (added_ / kBlock >= blocks_.size())
      throw std::logic_error("BlockFeed: more entries than start() was told of");
    blocks_[added_ / kBlock].reset(new Entry[kBlock]);
    block_ = blocks_[added_ / kBlock].get();
    inBlock_ = 0;
  }
  void publish(uint64_t n) {
    published_.store(n, std::memory_order_release);
    published_.notify_one();
  }
  template <class Take>
  void consume(Take& take) {
    try {
      for (uint64_t done = 0;;) {
        const uint64_t p = published_.load(std::memory_order_acquire);
        for (const uint64_t n = p & ~kDone; done < n; ++done) {
          take(done, n);
          if (done % kBlock == kBlock - 1) blocks_[done / kBlock].reset();
        }
        if (p & kDone) return;
        published_.wait(p, std::memory_order_acquire);
      }
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  std::vector<std::unique_ptr<Entry[]>> blocks_;  // freed by the consumer as it is done
  Entry* block_ = nullptr;                        // the block being filled
  uint64_t inBlock_ = kBlock;                     // entries in it
  uint64_t added_ = 0;
  std::atomic<uint64_t> published_{0};  // entries the consumer may read, | kDone at the end
  std::exception_ptr error_;            // the consumer's
  std::thread thread_;
};

}  // namespace profpack
