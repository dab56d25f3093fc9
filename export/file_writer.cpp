#include "export/file_writer.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace planet_export {
namespace {

// Large enough that big meshes go out in few system calls, small enough not to matter.
constexpr size_t kBufferSize = size_t(4) << 20;
// Writes from this size up go to the file as they are: copying them into the buffer first
// would cost a pass over the bytes (the OBJ writer's blocks, the glb's arrays) for no fewer
// system calls.
constexpr size_t kDirectSize = size_t(64) << 10;
// How many written bytes wait before their writeback is started (startWriteback).
constexpr uint64_t kWritebackStep = uint64_t(32) << 20;

}  // namespace

FileWriter::FileWriter(std::filesystem::path path, Create mode) : path_(std::move(path)) {
  const int flags =
      O_WRONLY | O_CREAT | O_CLOEXEC | (mode == Create::kExclusive ? O_EXCL : O_TRUNC);
  do {
    fd_ = ::open(path_.c_str(), flags, 0666);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) fail("cannot create", errno);
  buffer_.resize(kBufferSize);
}

FileWriter::~FileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void FileWriter::write(std::string_view bytes) {
  assert(fd_ >= 0);
  if (bytes.size() >= kDirectSize) {
    flushBuffer();
    return writeAll(bytes.data(), bytes.size());
  }
  if (bytes.size() > buffer_.size() - used_) flushBuffer();
  std::memcpy(buffer_.data() + used_, bytes.data(), bytes.size());
  used_ += bytes.size();
}

void FileWriter::copyFrom(int fd, uint64_t size, Copy how) {
  assert(fd_ >= 0);
  flushBuffer();
  off_t done = 0;
  while (how == Copy::kKernel && uint64_t(done) < size) {
    const ssize_t n = ::copy_file_range(fd, &done, fd_, nullptr, size - uint64_t(done), 0);
    if (n > 0 || (n < 0 && errno == EINTR)) continue;
    if (n == 0) fail("cannot write", EIO);  // the source is shorter than size
    if (done > 0) fail("cannot write", errno);
    break;  // refused from the start: the reads and writes below report real errors
  }
  written_ += uint64_t(done);  // by the kernel; the blocks below count in writeAll
  if (written_ - sent_ >= kWritebackStep) startWriteback();
  // In blocks through the (flushed, so empty) buffer.
  while (uint64_t(done) < size) {
    const size_t block = size_t(std::min<uint64_t>(buffer_.size(), size - uint64_t(done)));
    const ssize_t n = ::pread(fd, buffer_.data(), block, done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write", n < 0 ? errno : EIO);
    writeAll(buffer_.data(), size_t(n));
    done += n;
  }
}

void FileWriter::sync() {
  assert(fd_ >= 0);
  flushBuffer();
  if (::fsync(fd_) != 0) fail("cannot sync", errno);
  sent_ = written_;  // on disk: nothing left to start
}

void FileWriter::close() {
  assert(fd_ >= 0);
  flushBuffer();
  startWriteback();
  const int fd = fd_;
  fd_ = -1;
  // Linux closes the descriptor even when close() fails (also on EINTR): never retry.
  if (::close(fd) != 0) fail("cannot close", errno);
}

void FileWriter::flushBuffer() {
  writeAll(buffer_.data(), used_);
  used_ = 0;
}

void FileWriter::writeAll(const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write", errno);
    }
    if (n == 0) fail("cannot write", EIO);  // no progress: do not spin
    data += n;
    size -= size_t(n);
    written_ += uint64_t(n);
  }
  if (written_ - sent_ >= kWritebackStep) startWriteback();
}

void FileWriter::startWriteback() {
#if defined(SYNC_FILE_RANGE_WRITE)
  // A hint: an error here (a file system without writeback, say) is not the caller's
  // problem; write and fsync report real ones.
  if (written_ > sent_)
    ::sync_file_range(fd_, off_t(sent_), off_t(written_ - sent_), SYNC_FILE_RANGE_WRITE);
#endif
  sent_ = written_;
}

void FileWriter::fail(const char* what, int error) const {
  throw std::runtime_error(std::string(what) + " " + path_.string() + ": " + std::strerror(error));
}

int openInputFile(const std::filesystem::path& path, uint64_t max_bytes, std::string& problem) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    problem = errno == ENOENT ? "does not exist" : std::strerror(errno);
    return -1;
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    problem = std::strerror(errno);
  } else if (S_ISDIR(info.st_mode)) {
    problem = "is a folder";
  } else if (!S_ISREG(info.st_mode)) {
    problem = "is not a regular file (a FIFO, device or socket)";
  } else if (uint64_t(info.st_size) > max_bytes) {
    problem = "is larger than " + std::to_string(max_bytes) + " bytes";
  } else {
    // Reads block as usual from here on (a regular file never would anyway).
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
  }
  ::close(fd);
  return -1;
}

}  // namespace planet_export
