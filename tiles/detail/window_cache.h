#pragma once
// Eroded windows kept for the tiles that share them, bounded in bytes. Thread-safe: a window
// asked for by several threads at once is made once, the others joining its parallel work
// (tbb::collaborative_call_once, so a thread never waits on work its own stack holds); the
// least recently used ready windows go first when the bound is passed. A window is a pure
// function of its key, so nothing that comes out depends on what is cached.

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

  // The window of `key`, made by make() if it is not kept (make runs once per key at a time).
  std::shared_ptr<const WindowResult> get(const WindowKey& key,
                                          const std::function<WindowResult()>& make);

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
