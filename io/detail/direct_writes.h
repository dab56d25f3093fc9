#pragma once
// A big file's bytes written straight to the disk (O_DIRECT), past the page cache, by a thread of
// their own. Copying a gigabyte into the page cache costs the CPU about a second (the kernel
// allocates and fills its pages, then writes them back); a direct write has the disk read the
// bytes from the process's memory. The caller copies them into one aligned block while the
// thread writes the ones filled before, in order, so the wait for the disk overlaps the caller's
// work and never holds a oneTBB worker; the caller waits only when every block is queued (a
// disk slower than the writer). Internal to export/ (FileWriter).

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <thread>

namespace io {

class DirectWrites {
 public:
  // Direct writes need their file offset, length and memory address aligned: 4096 covers the
  // logical block size of every common disk.
  static constexpr size_t kAlign = 4096;
  static constexpr size_t kBlockSize = size_t(2) << 20;
  static constexpr size_t kBlockCount = 4;

  // `fd` is open for writing, its file offset a multiple of kAlign; the caller sets O_DIRECT
  // before the first block is full. The thread writes with write(2), so the offset moves on as
  // it writes. Where a direct write fails the thread clears O_DIRECT and writes that block and
  // the rest through the page cache (a file system that refuses direct writes; a real failure
  // fails there too and is reported).
  explicit DirectWrites(int fd);
  // Waits for the blocks queued; writes nothing more.
  ~DirectWrites();
  DirectWrites(const DirectWrites&) = delete;
  DirectWrites& operator=(const DirectWrites&) = delete;

  // Appends bytes; each full block goes to the thread.
  void append(const char* data, size_t size);
  // The free part of the block being filled, to read into; then filled(n) for the n bytes put
  // there.
  std::span<char> space();
  void filled(size_t n);
  // Hands over the whole kAlign units of what is left and waits until the thread has written
  // everything. Returns the rest (fewer than kAlign bytes), which the caller writes after
  // clearing O_DIRECT; valid until the next call.
  std::string_view finish();
  // The errno of the first write that failed, or 0. After a failure nothing more is written.
  int error() const { return error_.load(std::memory_order_acquire); }
  // Bytes appended so far.
  uint64_t appended() const { return appended_; }
  // After finish(): the bytes written with O_DIRECT on, and whether a write went through the
  // page cache (a refused direct write) and so still needs its writeback started.
  uint64_t directBytes() const { return direct_bytes_; }
  bool fellBack() const { return fell_back_; }

 private:
  struct FreeAligned {
    void operator()(char* p) const;
  };
  using Block = std::unique_ptr<char, FreeAligned>;

  // Queues the block being filled, its first `size` bytes, and moves on to the next block once
  // it is free.
  void submit(size_t size);
  int writeBlock(const char* data, size_t size);  // the thread's write of one block
  void waitIdle(std::unique_lock<std::mutex>& lock);
  void run();  // the thread

  int fd_;
  Block blocks_[kBlockCount];
  size_t current_ = 0;  // the block being filled
  size_t used_ = 0;     // bytes in it
  uint64_t appended_ = 0;

  std::mutex mutex_;
  std::condition_variable changed_;
  // The queue, in the order the blocks were filled: queued_ blocks from next_ on (cyclically),
  // each with its size; a block leaves it once written.
  size_t next_ = 0;
  size_t queued_ = 0;
  size_t sizes_[kBlockCount] = {};
  bool stop_ = false;
  std::atomic<int> error_{0};
  // The thread's; read by the caller once the thread is idle (after waitIdle, under mutex_).
  uint64_t direct_bytes_ = 0;
  bool fell_back_ = false;
  std::thread thread_;  // last: started once the rest is made
};

}  // namespace io
