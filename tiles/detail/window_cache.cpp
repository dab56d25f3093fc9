#include "tiles/detail/window_cache.h"

#include "geodesy/hash.h"
#include "tiles/detail/erosion_window.h"

namespace tiles::detail {

struct WindowCache::Entry {
  std::shared_ptr<const WindowResult> result;
  std::list<WindowKey>::iterator position;
};

size_t WindowCache::Hash::operator()(const WindowKey& key) const {
  return size_t(geodesy::hash3(key.level, 0, key.centre));
}

WindowCache::WindowCache(size_t max_bytes) : max_bytes_(max_bytes) {}
WindowCache::~WindowCache() = default;

size_t WindowCache::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

std::shared_ptr<const WindowResult> WindowCache::find(const WindowKey& key) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  recent_.splice(recent_.begin(), recent_, it->second->position);
  return it->second->result;
}

std::shared_ptr<const WindowResult> WindowCache::get(const WindowKey& key,
                                                     const std::function<WindowResult()>& make) {
  {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(key);
    if (it != entries_.end()) {
      recent_.splice(recent_.begin(), recent_, it->second->position);
      return it->second->result;
    }
  }
  // Made outside the lock, without waiting for anyone: a thread that waited for a window
  // another thread is making could hold, lower on its own stack, a window that one needs
  // (work stealing nests tasks), and wait for ever. Two threads may make the same window at
  // once; both make the same bits, and the first one kept is returned to both.
  auto made = std::make_shared<const WindowResult>(make());
  std::lock_guard lock(mutex_);
  auto [it, inserted] = entries_.try_emplace(key);
  if (!inserted) {
    recent_.splice(recent_.begin(), recent_, it->second->position);
    return it->second->result;
  }
  it->second = std::make_shared<Entry>();
  it->second->result = made;
  recent_.push_front(key);
  it->second->position = recent_.begin();
  bytes_ += made->bytes();
  // The least recently used windows go while the bound is passed (this one stays: a window
  // larger than the bound is still returned).
  while (bytes_ > max_bytes_ && recent_.size() > 1) {
    const WindowKey victim = recent_.back();
    const auto at = entries_.find(victim);
    bytes_ -= at->second->result->bytes();
    entries_.erase(at);
    recent_.pop_back();
  }
  return made;
}

}  // namespace tiles::detail
