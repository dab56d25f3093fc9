#include "io/file_writer.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/detail/direct_writes.h"
#include "io/detail/write_fully.h"

namespace io {
namespace {

// Large enough that big meshes go out in few system calls, small enough not to matter.
constexpr size_t kBufferSize = size_t(4) << 20;
// Writes from this size up go to the file as they are: copying them into the buffer first
// would cost a pass over the bytes (the OBJ writer's blocks, the glb's arrays) for no fewer
// system calls.
constexpr size_t kUnbufferedSize = size_t(64) << 10;
// How many written bytes wait before their writeback is started (startWriteback).
constexpr uint64_t kWritebackStep = uint64_t(32) << 20;

}  // namespace

FileWriter::FileWriter(std::filesystem::path path, Create mode, uint64_t direct_from,
                       size_t buffer_bytes)
    : path_(std::move(path)), direct_from_(direct_from) {
  const int flags =
      O_WRONLY | O_CREAT | O_CLOEXEC | (mode == Create::kExclusive ? O_EXCL : O_TRUNC);
  do {
    fd_ = ::open(path_.c_str(), flags, 0666);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) fail("cannot create", errno);
  buffer_.resize(std::min(buffer_bytes, kBufferSize));
}

FileWriter::~FileWriter() {
  direct_.reset();  // its thread may be writing to fd_
  if (fd_ >= 0) ::close(fd_);
}

void FileWriter::write(std::string_view bytes) {
  assert(fd_ >= 0);
  if (!direct_ && !direct_tried_ && written_ + used_ + bytes.size() >= direct_from_)
    bytes = goDirect(bytes);
  if (direct_) {
    direct_->append(bytes.data(), bytes.size());
    return checkDirect();
  }
  if (bytes.size() >= kUnbufferedSize || buffer_.empty()) {
    flushBuffer();
    return writeAll(bytes.data(), bytes.size());
  }
  if (bytes.size() > buffer_.size() - used_) flushBuffer();
  std::memcpy(buffer_.data() + used_, bytes.data(), bytes.size());
  used_ += bytes.size();
}

void FileWriter::copyFrom(int fd, uint64_t size, Copy how) {
  assert(fd_ >= 0);
  off_t done = 0;
  // Reads `count` bytes of the source at `done` into `to`.
  const auto readSource = [&](char* to, size_t count) {
    while (count > 0) {
      const ssize_t n = ::pread(fd, to, count, done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("cannot write", n < 0 ? errno : EIO);  // a short source is an error
      to += n;
      count -= size_t(n);
      done += n;
    }
  };
  if (!direct_ && !direct_tried_ && written_ + used_ + size >= direct_from_) {
    // The bytes up to an aligned offset through the buffer, then (maybe) direct writes.
    const size_t lead = size_t(-(written_ + used_) % DirectWrites::kAlign);
    if (lead <= size) {
      char head[DirectWrites::kAlign];
      readSource(head, lead);
      goDirect(std::string_view(head, lead));
    }
  }
  if (direct_) {
    // Read into the direct writes' blocks: one copy, from the source's cached pages.
    while (uint64_t(done) < size) {
      const std::span<char> space = direct_->space();
      const size_t count = size_t(std::min<uint64_t>(space.size(), size - uint64_t(done)));
      readSource(space.data(), count);
      direct_->filled(count);
      checkDirect();
    }
    return;
  }
  flushBuffer();
  const off_t first = done;
  while (how == Copy::kKernel && uint64_t(done) < size) {
    const ssize_t n = ::copy_file_range(fd, &done, fd_, nullptr, size - uint64_t(done), 0);
    if (n > 0 || (n < 0 && errno == EINTR)) continue;
    if (n == 0) fail("cannot write", EIO);  // the source is shorter than size
    if (done > first) fail("cannot write", errno);
    break;  // refused from the start: the reads and writes below report real errors
  }
  written_ += uint64_t(done - first);  // by the kernel; the blocks below count in writeAll
  if (written_ - sent_ >= kWritebackStep) startWriteback();
  // In blocks through the (flushed, so empty) buffer.
  if (buffer_.empty()) buffer_.resize(kBufferSize);
  while (uint64_t(done) < size) {
    const size_t block = size_t(std::min<uint64_t>(buffer_.size(), size - uint64_t(done)));
    readSource(buffer_.data(), block);
    writeAll(buffer_.data(), block);
  }
}

void FileWriter::sync() {
  assert(fd_ >= 0);
  if (direct_) leaveDirect();
  flushBuffer();
  if (::fsync(fd_) != 0) fail("cannot sync", errno);
  sent_ = written_;  // on disk: nothing left to start
}

void FileWriter::close() {
  assert(fd_ >= 0);
  if (direct_) leaveDirect();
  flushBuffer();
  startWriteback();
  const int fd = fd_;
  fd_ = -1;
  // Linux closes the descriptor even when close() fails (also on EINTR): never retry.
  if (::close(fd) != 0) fail("cannot close", errno);
}

std::string_view FileWriter::goDirect(std::string_view bytes) {
  // Bytes up to the next aligned offset go through the page cache; fewer than that wait in the
  // buffer for a later write.
  const size_t lead = size_t(-(written_ + used_) % DirectWrites::kAlign);
  if (bytes.size() < lead) return bytes;
  flushBuffer();
  writeAll(bytes.data(), lead);
  bytes.remove_prefix(lead);
  direct_tried_ = true;
  startWriteback();  // what went through the page cache so far
#if defined(O_DIRECT)
  std::unique_ptr<DirectWrites> direct;
  try {
    direct = std::make_unique<DirectWrites>(fd_);
  } catch (const std::exception&) {
    return bytes;  // no memory or no thread for it: the page cache it is
  }
  const int flags = ::fcntl(fd_, F_GETFL);
  // Refused (a file system without direct I/O, tmpfs before Linux 6.6): the page cache it is.
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags | O_DIRECT) != 0) return bytes;
  direct_ = std::move(direct);
  std::string().swap(buffer_);  // not needed until leaveDirect
#endif
  return bytes;
}

void FileWriter::leaveDirect() {
  const std::string_view rest = direct_->finish();
  checkDirect();
  written_ += direct_->appended() - rest.size();
  direct_bytes_ += direct_->directBytes();
  // The direct bytes are on their way to the disk already; any that went through the page
  // cache (a refused direct write) get their writeback started.
  if (direct_->fellBack())
    startWriteback();
  else
    sent_ = written_;
  buffer_.resize(kBufferSize);
  std::memcpy(buffer_.data(), rest.data(), rest.size());
  used_ = rest.size();
  direct_.reset();
#if defined(O_DIRECT)
  // The rest is not a whole aligned unit: through the page cache.
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0) fail("cannot write", errno);
#endif
}

void FileWriter::checkDirect() const {
  if (const int error = direct_->error()) fail("cannot write", error);
}

void FileWriter::flushBuffer() {
  writeAll(buffer_.data(), used_);
  used_ = 0;
}

void FileWriter::writeAll(const char* data, size_t size) {
  int error = 0;
  written_ += writeFully(fd_, data, size, error);
  if (error != 0) fail("cannot write", error);
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

}  // namespace io
