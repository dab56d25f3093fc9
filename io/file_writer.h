#pragma once
// Sequential output to one file with every system call checked: a full disk, a size limit or
// an I/O error surfaces as an exception instead of a silently short file.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace io {

class DirectWrites;  // io/detail/direct_writes.h

// Buffered writer over a POSIX file descriptor. Errors throw std::runtime_error whose message
// names the path and the OS error (strerror). Not thread-safe; one writer per file.
//
// A big file's pages go to disk while it is being written: every kWritebackStep bytes, and at
// close, the writer starts their writeback without waiting for it, so the fsync that makes
// the output durable (OutputTransaction's commit) finds little left to write instead of the
// whole file (an OBJ is near a gigabyte).
//
// Past `direct_from` bytes a file is written past the page cache (O_DIRECT, DirectWrites: aligned
// blocks written by a thread of the writer's own while the caller fills the next), where the
// file system allows it: the kernel then neither copies the bytes into the page cache nor
// writes them back later, which for a big file is most of the CPU its writing costs. Its last
// bytes (less than an aligned unit) go through the page cache. The bytes are the same either
// way; an error of a direct write is reported by the next call.
class FileWriter {
 public:
  enum class Create {
    kTruncate,   // create or truncate path
    kExclusive,  // create path; fail if it exists (temporary files)
  };
  static constexpr uint64_t kDirectFrom = uint64_t(16) << 20;

  // buffer_bytes (at most 4 MiB, the default): 0 sends every write straight to the file, for
  // a file written in a few whole pieces (a tile's sidecar: thousands of them in a bake, each
  // would otherwise cost 4 MiB of zeroed pages).
  explicit FileWriter(std::filesystem::path path, Create mode = Create::kTruncate,
                      uint64_t direct_from = kDirectFrom, size_t buffer_bytes = size_t(4) << 20);
  // Closes the descriptor without reporting errors: call close() to learn of them.
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  void write(std::string_view bytes);
  void write(const void* data, size_t size) {
    write(std::string_view(static_cast<const char*>(data), size));
  }
  // Appends the first `size` bytes of the regular file open at `fd` (e.g. a temporary file the
  // data was spooled to). With direct writes (the file is past direct_from, or gets there with
  // this copy) they are read into the direct writes' blocks; otherwise copied by the kernel
  // (copy_file_range) where it can, else (refused before a byte was copied: not supported
  // between these files, or not allowed in a sandbox; or kBlocks) read and written in blocks.
  // A short source is an error.
  enum class Copy { kKernel, kBlocks };
  void copyFrom(int fd, uint64_t size, Copy how = Copy::kKernel);
  // Writes out the buffer and fsyncs the file, so its data is on disk.
  void sync();
  // Writes out the buffer and closes the file. Further writes are programmer errors.
  void close();
  const std::filesystem::path& path() const { return path_; }
  // Bytes that went to the file past the page cache so far (tests).
  uint64_t directBytes() const { return direct_bytes_; }

 private:
  // Once the file offset is a multiple of DirectWrites::kAlign (the first bytes of `bytes`
  // written as usual to get there; if there are too few, none are, and a later write tries
  // again), switches to direct writes if the file system allows them. Returns what is left of
  // bytes, for the caller to write.
  std::string_view goDirect(std::string_view bytes);
  // Writes what the direct writes hold and goes back to the page cache.
  void leaveDirect();
  void checkDirect() const;
  void flushBuffer();
  void writeAll(const char* data, size_t size);
  // Asks the kernel to start writing the bytes written since the last call to disk, without
  // waiting (sync_file_range; a hint, Linux only).
  void startWriteback();
  [[noreturn]] void fail(const char* what, int error) const;

  std::filesystem::path path_;
  int fd_ = -1;
  std::string buffer_;
  size_t used_ = 0;
  uint64_t written_ = 0;  // bytes handed to the kernel
  uint64_t sent_ = 0;     // of those, the first sent_ have had their writeback started
  uint64_t direct_from_;
  bool direct_tried_ = false;
  std::unique_ptr<DirectWrites> direct_;  // while writing past the page cache
  uint64_t direct_bytes_ = 0;
};

// Opens an input file for reading: it must be a regular file (symlinks are followed, as for any
// input name) of at most max_bytes. O_NONBLOCK, so a FIFO never blocks the open; the type is
// checked on the opened descriptor. Returns the descriptor (the caller closes it), or -1 with
// `problem` set: "does not exist", "is a folder", "is not a regular file (a FIFO, device or
// socket)", "is larger than N bytes", or the OS error.
int openInputFile(const std::filesystem::path& path, uint64_t max_bytes, std::string& problem);

}  // namespace io
