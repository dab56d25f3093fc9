#pragma once
// Eroded windows kept for the tiles that share them, bounded in bytes. Thread-safe: a window
// not kept is made by the thread that asks for it, outside the lock, without waiting for a
// thread that may be making it too (waiting deadlocked: 8 threads asking for overlapping tiles
// hung with tbb::collaborative_call_once, each stack holding a window another needed); the
// least recently used windows go first when the bound is passed. A window is a pure function of
// its key, so nothing that comes out depends on what is cached or who made it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace tiles::detail {

struct WindowResult;

struct WindowKey {
  uint32_t level = 0;
  uint64_t centre = 0;  // the centre's lattice id (TileLayout::latticeId)

  friend bool operator==(const WindowKey&, const WindowKey&) = default;
  friend bool operator<(const WindowKey& a, const WindowKey& b) {
    return a.level != b.level ? a.level < b.level : a.centre < b.centre;
  }
};

class WindowCache {
 public:
  explicit WindowCache(size_t max_bytes);
  ~WindowCache();
  WindowCache(const WindowCache&) = delete;
  WindowCache& operator=(const WindowCache&) = delete;

  // The window of `key`, made by make() if it is not kept.
  std::shared_ptr<const WindowResult> get(const WindowKey& key,
                                          const std::function<WindowResult()>& make);

  // The window of `key` if it is kept (counts as a use), else null.
  std::shared_ptr<const WindowResult> find(const WindowKey& key);

  size_t bytes() const;

 private:
  struct Entry;
  struct Hash {
    size_t operator()(const WindowKey& key) const;
  };

  const size_t max_bytes_;
  mutable std::mutex mutex_;
  std::unordered_map<WindowKey, std::shared_ptr<Entry>, Hash> entries_;
  std::list<WindowKey> recent_;  // most recent first
  size_t bytes_ = 0;
};

}  // namespace tiles::detail
