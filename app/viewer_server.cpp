#include "app/viewer_server.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "app/http_request.h"
#include "app/viewer_responses.h"
#include "io/detail/unique_fd.h"

namespace app {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The time limits of a connection. A request's whole head (not each read) must arrive within
// kHeadTime of the moment the connection could send it (accepted, or its previous response
// sent); an idle kept-alive connection is closed after kKeepAliveTime; a client that takes
// nothing of a response for kWriteTime is dropped; after the last response, what the client
// still sends is read and dropped for up to kLingerTime (closing at once with unread bytes
// would reset the connection and could destroy the response on its way).
constexpr auto kHeadTime = seconds(5);
constexpr auto kKeepAliveTime = seconds(2);
constexpr auto kWriteTime = seconds(10);
constexpr auto kLingerTime = seconds(2);
constexpr auto kTick = milliseconds(100);  // deadlines and the stop flag are checked this often
constexpr int kKeepAliveRequests = 100;    // responses on one connection before it closes
constexpr size_t kMaxConnections = 4096;   // or what the descriptor limit allows
constexpr size_t kDescriptorsKept = 64;    // for files, the listener, the rest of the process
constexpr size_t kWriteTurnBytes = size_t(1) << 20;  // per connection per turn: fair shares
constexpr int kAcceptsPerTurn = 256;

struct Connection {
  enum class State { kReading, kWriting, kLingering };
  Connection(uint64_t i, int fd) : id(i), socket(fd) {}
  uint64_t id;  // the key of its epoll events: unlike a descriptor, never reused
  io::UniqueFd socket;
  State state = State::kReading;
  std::string in;                 // bytes received and not yet parsed (at most one head's worth)
  Response response;              // kWriting: what is being sent
  size_t head_sent = 0;           // bytes of response.head + response.body sent
  uint64_t file_sent = 0;         // bytes of the file part sent
  int responses = 0;              // responses completed on this connection
  Clock::time_point ready_at;     // kReading: since when it may send a request; kLingering: since
  Clock::time_point progress_at;  // the last byte received or sent
};

class Server {
 public:
  Server(ServedFolders folders, int listener, size_t max_connections)
      : folders_(std::move(folders)), listener_(listener), max_connections_(max_connections) {}

  void run(const std::atomic<bool>* stop) {
    epoll_.fd = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_.fd < 0) throw std::runtime_error(std::string("epoll: ") + std::strerror(errno));
    watch(listener_, kListenerId, EPOLLIN, EPOLL_CTL_ADD);
    Clock::time_point swept = Clock::now();
    epoll_event events[256];
    while (stop == nullptr || !stop->load()) {
      const int n = ::epoll_wait(epoll_.fd, events, 256, int(kTick.count()));
      if (n < 0 && errno != EINTR)
        throw std::runtime_error(std::string("epoll_wait: ") + std::strerror(errno));
      now_ = Clock::now();
      for (int i = 0; i < n; ++i) {
        const uint64_t id = events[i].data.u64;
        if (id == kListenerId) {
          acceptAll();
          continue;
        }
        const auto found = connections_.find(id);
        if (found == connections_.end()) continue;  // closed earlier in this turn
        Connection& c = *found->second;
        try {
          if (events[i].events & (EPOLLERR | EPOLLHUP)) {
            close(c);
          } else if (c.state == Connection::State::kWriting) {
            write(c);
          } else {
            read(c);
          }
        } catch (const std::exception&) {  // std::bad_alloc: this connection only
          close(c);
        }
      }
      if (now_ - swept >= kTick) {
        sweep();
        swept = now_;
      }
    }
  }

 private:
  static constexpr uint64_t kListenerId = 0;

  void watch(int fd, uint64_t id, uint32_t events, int op) {
    epoll_event event{};
    event.events = events;
    event.data.u64 = id;
    ::epoll_ctl(epoll_.fd, op, fd, &event);
  }
  void watch(const Connection& c, uint32_t events) {
    watch(c.socket.fd, c.id, events, EPOLL_CTL_MOD);
  }

  void acceptAll() {
    for (int i = 0; i < kAcceptsPerTurn; ++i) {
      // At the bound, the connection that has done nothing for longest makes room: a flood of
      // connections that send little can delay a client by one turn, never lock it out.
      if (connections_.size() >= max_connections_ && !evictStalest()) return;
      const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if ((errno == EMFILE || errno == ENFILE) && evictStalest()) continue;
        return;  // EAGAIN: no more for now; anything else: the next turn tries again
      }
      const uint64_t id = ++last_id_;
      auto connection = std::make_unique<Connection>(id, fd);
      connection->ready_at = connection->progress_at = now_;
      connections_.emplace(id, std::move(connection));
      watch(fd, id, EPOLLIN | EPOLLRDHUP, EPOLL_CTL_ADD);
    }
  }

  bool evictStalest() {
    if (connections_.empty()) return false;
    auto stalest = connections_.begin();
    for (auto it = connections_.begin(); it != connections_.end(); ++it)
      if (it->second->progress_at < stalest->second->progress_at) stalest = it;
    close(*stalest->second);
    return true;
  }

  void close(Connection& c) {
    ::epoll_ctl(epoll_.fd, EPOLL_CTL_DEL, c.socket.fd, nullptr);
    connections_.erase(c.id);  // closes the socket and the response's file
  }

  void read(Connection& c) {
    char buffer[16384];
    if (c.state == Connection::State::kLingering) {
      const ssize_t n = ::recv(c.socket.fd, buffer, sizeof buffer, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) close(c);
      return;
    }
    // Never more than one head's worth plus one byte: a head over the limit is refused (431).
    const size_t room = kMaxRequestHeadBytes + 1 - std::min(c.in.size(), kMaxRequestHeadBytes);
    const ssize_t n = ::recv(c.socket.fd, buffer, std::min(room, sizeof buffer), 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return close(c);
    if (n < 0) return;
    c.in.append(buffer, size_t(n));
    c.progress_at = now_;
    serveNext(c);
  }

  // Answers the next request held in c.in, if its head is all there.
  void serveNext(Connection& c) {
    const RequestHead head = parseRequestHead(c.in);
    if (head.state == RequestHead::State::kIncomplete) return;
    c.response = respond(head, folders_, c.responses + 1 < kKeepAliveRequests, date());
    c.in.erase(0, head.state == RequestHead::State::kComplete ? head.length : c.in.size());
    c.head_sent = 0;
    c.file_sent = 0;
    c.state = Connection::State::kWriting;
    watch(c, EPOLLOUT);
    write(c);
  }

  void write(Connection& c) {
    Response& r = c.response;
    size_t budget = kWriteTurnBytes;
    while (c.head_sent < r.head.size() + r.body.size() && budget > 0) {
      const bool in_head = c.head_sent < r.head.size();
      const std::string& part = in_head ? r.head : r.body;
      const size_t at = in_head ? c.head_sent : c.head_sent - r.head.size();
      const ssize_t n = ::send(c.socket.fd, part.data() + at, part.size() - at, MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
      if (n <= 0) return close(c);
      c.head_sent += size_t(n);
      budget -= std::min(budget, size_t(n));
      c.progress_at = now_;
    }
    while (r.file >= 0 && c.file_sent < r.file_bytes && budget > 0) {
      off_t offset = off_t(r.file_offset + c.file_sent);
      const size_t count = size_t(std::min<uint64_t>(r.file_bytes - c.file_sent, budget));
      const ssize_t n = ::sendfile(c.socket.fd, r.file, &offset, count);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
      // 0: the file shrank after its length was sent; the connection cannot be completed.
      if (n <= 0) return close(c);
      c.file_sent += uint64_t(n);
      budget -= size_t(n);
      c.progress_at = now_;
    }
    if (c.head_sent < r.head.size() + r.body.size() || (r.file >= 0 && c.file_sent < r.file_bytes))
      return;  // more next turn
    ++c.responses;
    const bool last = r.close;
    c.response = Response();
    if (last) {
      ::shutdown(c.socket.fd, SHUT_WR);
      c.state = Connection::State::kLingering;
      c.ready_at = now_;
      c.in.clear();
      watch(c, EPOLLIN | EPOLLRDHUP);
      return;
    }
    c.state = Connection::State::kReading;
    c.ready_at = now_;
    watch(c, EPOLLIN | EPOLLRDHUP);
    if (!c.in.empty()) serveNext(c);  // the next request of a pipeline
  }

  void sweep() {
    std::vector<uint64_t> expired;
    for (const auto& [id, c] : connections_) {
      const auto since_ready = now_ - c->ready_at;
      bool over = false;
      switch (c->state) {
        case Connection::State::kReading:
          over = since_ready > kHeadTime ||
                 (c->in.empty() && c->responses > 0 && since_ready > kKeepAliveTime);
          break;
        case Connection::State::kWriting:
          over = now_ - c->progress_at > kWriteTime;
          break;
        case Connection::State::kLingering:
          over = since_ready > kLingerTime;
          break;
      }
      if (over) expired.push_back(id);
    }
    for (const uint64_t id : expired) close(*connections_.at(id));
  }

  // The Date field, computed once a second.
  const std::string& date() {
    const int64_t now = int64_t(std::time(nullptr));
    if (now != date_second_) {
      date_second_ = now;
      date_ = httpDate(now);
    }
    return date_;
  }

  ServedFolders folders_;
  int listener_;
  size_t max_connections_;
  io::UniqueFd epoll_{-1};
  std::unordered_map<uint64_t, std::unique_ptr<Connection>> connections_;
  uint64_t last_id_ = kListenerId;
  Clock::time_point now_ = Clock::now();
  int64_t date_second_ = -1;
  std::string date_;
};

// How many connections the descriptor limit leaves room for; the soft limit is raised to the
// hard one first (the default soft limit, 1024, is below what a flood of slow clients needs).
size_t connectionBound() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 256;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = std::min<rlim_t>(limit.rlim_max, kMaxConnections + kDescriptorsKept * 4);
    if (raised.rlim_cur > limit.rlim_cur && ::setrlimit(RLIMIT_NOFILE, &raised) == 0)
      limit = raised;
  }
  if (limit.rlim_cur == RLIM_INFINITY) return kMaxConnections;
  const rlim_t usable = limit.rlim_cur > 2 * kDescriptorsKept
                            ? limit.rlim_cur - 2 * kDescriptorsKept
                            : limit.rlim_cur / 2;
  return std::clamp<size_t>(size_t(usable), 16, kMaxConnections);
}

}  // namespace

std::filesystem::path defaultViewerDir() {
  return std::filesystem::path(PLANETGEN_VIEWER_DIR);
}

int serveViewer(const std::filesystem::path& planet_dir, const std::filesystem::path& viewer_dir,
                int port, std::function<void(std::string url)> on_ready,
                const std::atomic<bool>* stop, const std::string& page) {
  ServedFolders folders;
  if (page.empty() || page[0] == '.' || page.find_first_of("/\\") != std::string::npos)
    throw std::invalid_argument("the viewer's page '" + page + "' is not a plain file name");
  folders.page = page;
  for (int i = 0; i < 2; ++i) {
    const fs::path& dir = i == 0 ? planet_dir : viewer_dir;
    std::error_code error;
    if (!fs::is_directory(dir, error)) {
      throw std::invalid_argument(
          dir.string() + (fs::exists(dir, error) ? " is not a folder" : " does not exist"));
    }
    (i == 0 ? folders.planet : folders.viewer) = fs::canonical(dir, error);
    if (error) throw std::invalid_argument(dir.string() + ": " + error.message());
  }
  if (port < 0 || port > 65535) {
    throw std::invalid_argument("port " + std::to_string(port) +
                                " is out of range; allowed: 0 (any free port) to 65535");
  }
  const size_t max_connections = connectionBound();
  // SO_REUSEADDR only (no SO_REUSEPORT): a second server on a port in use fails to bind instead
  // of sharing the connections with the first.
  const io::UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  const auto fail = [&](const char* what) {
    throw std::runtime_error("cannot " + std::string(what) +
                             " on 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno));
  };
  if (listener.fd < 0) fail("listen");
  const int yes = 1;
  ::setsockopt(listener.fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener.fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener.fd, SOMAXCONN) != 0)
    fail("listen");
  socklen_t length = sizeof address;
  if (::getsockname(listener.fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    fail("listen");
  folders.port = ntohs(address.sin_port);
  if (on_ready) on_ready("http://127.0.0.1:" + std::to_string(folders.port) + "/");
  Server(folders, listener.fd, max_connections).run(stop);
  return 0;
}

}  // namespace app
