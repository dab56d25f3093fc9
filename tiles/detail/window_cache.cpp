#include "tiles/detail/window_cache.h"

#include <tbb/collaborative_call_once.h>

#include "geodesy/hash.h"
#include "tiles/detail/erosion_window.h"

namespace tiles::detail {

struct WindowCache::Entry {
  tbb::collaborative_once_flag once;
  std::shared_ptr<const WindowResult> result;
  std::list<WindowKey>::iterator position;
  bool counted = false;  // its bytes are in bytes_
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

std::shared_ptr<const WindowResult> WindowCache::get(const WindowKey& key,
                                                     const std::function<WindowResult()>& make) {
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard lock(mutex_);
    auto [it, inserted] = entries_.try_emplace(key);
    if (inserted) {
      it->second = std::make_shared<Entry>();
      recent_.push_front(key);
      it->second->position = recent_.begin();
    } else {
      recent_.splice(recent_.begin(), recent_, it->second->position);
    }
    entry = it->second;
  }
  tbb::collaborative_call_once(entry->once, [&] {
    entry->result = std::make_shared<const WindowResult>(make());
  });
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  if (it != entries_.end() && it->second == entry && !entry->counted) {
    entry->counted = true;
    bytes_ += entry->result->bytes();
  }
  // The least recent ready windows go while the bound is passed; windows still being made,
  // and this one, stay (a window larger than the bound is still made and returned).
  auto at = recent_.end();
  while (bytes_ > max_bytes_ && at != recent_.begin()) {
    --at;
    const auto victim = entries_.find(*at);
    if (victim->second == entry || !victim->second->counted) continue;
    bytes_ -= victim->second->result->bytes();
    entries_.erase(victim);
    at = recent_.erase(at);
  }
  return entry->result;
}

}  // namespace tiles::detail
