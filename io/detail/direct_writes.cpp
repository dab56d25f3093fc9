#include "io/detail/direct_writes.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <unistd.h>

#include "io/detail/write_fully.h"

namespace io {

void DirectWrites::FreeAligned::operator()(char* p) const {
  std::free(p);
}

DirectWrites::DirectWrites(int fd) : fd_(fd) {
  for (Block& block : blocks_) {
    block.reset(static_cast<char*>(std::aligned_alloc(kAlign, kBlockSize)));
    if (!block) throw std::bad_alloc();
  }
  thread_ = std::thread([this] { run(); });
}

DirectWrites::~DirectWrites() {
  {
    std::unique_lock lock(mutex_);
    waitIdle(lock);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void DirectWrites::append(const char* data, size_t size) {
  while (size > 0) {
    const size_t n = std::min(size, kBlockSize - used_);
    std::memcpy(blocks_[current_].get() + used_, data, n);
    filled(n);
    data += n;
    size -= n;
  }
}

std::span<char> DirectWrites::space() {
  return {blocks_[current_].get() + used_, kBlockSize - used_};
}

void DirectWrites::filled(size_t n) {
  assert(n <= kBlockSize - used_);
  used_ += n;
  appended_ += n;
  if (used_ == kBlockSize) submit(kBlockSize);
}

std::string_view DirectWrites::finish() {
  const char* block = blocks_[current_].get();
  const size_t used = used_;
  const size_t whole = used / kAlign * kAlign;
  if (whole > 0) submit(whole);  // moves on to the next block: the rest stays where it is
  std::unique_lock lock(mutex_);
  waitIdle(lock);
  return {block + whole, used - whole};
}

void DirectWrites::submit(size_t size) {
  std::unique_lock lock(mutex_);
  sizes_[current_] = size;
  ++queued_;
  changed_.notify_all();
  // The next block in the ring is free once fewer than all blocks are queued.
  changed_.wait(lock, [&] { return queued_ < kBlockCount; });
  current_ = (current_ + 1) % kBlockCount;
  used_ = 0;
}

// Writes all of data; returns 0 or the errno of the failure. A direct write that fails is tried
// again through the page cache, and so is everything after it: file systems refuse direct
// writes in their own ways (EINVAL for an alignment they do not take, EOPNOTSUPP, ...), and a
// real failure (a full disk, a size limit) fails the second try too, which is what is reported.
int DirectWrites::writeBlock(const char* data, size_t size) {
  for (;;) {
    int error = 0;
    const size_t done = writeFully(fd_, data, size, error);
    if (!fell_back_) direct_bytes_ += done;
    if (error == 0) return 0;
    data += done;
    size -= done;
    const int flags = fell_back_ ? -1 : ::fcntl(fd_, F_GETFL);
    if (flags < 0 || (flags & O_DIRECT) == 0 || ::fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0)
      return error;
    fell_back_ = true;
  }
}

void DirectWrites::waitIdle(std::unique_lock<std::mutex>& lock) {
  changed_.wait(lock, [&] { return queued_ == 0; });
}

void DirectWrites::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return queued_ > 0 || stop_; });
    if (queued_ == 0) return;  // stopped
    const char* data = blocks_[next_].get();
    const size_t size = sizes_[next_];
    const bool failed = error() != 0;
    lock.unlock();
    const int error = failed ? 0 : writeBlock(data, size);
    lock.lock();
    if (error != 0) error_.store(error, std::memory_order_release);
    next_ = (next_ + 1) % kBlockCount;
    --queued_;
    changed_.notify_all();
  }
}

}  // namespace io
