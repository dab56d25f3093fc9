#include "export/detail/piece_ids.h"

#include <algorithm>

#include "export/detail/chunks.h"

namespace planet_export {

void DistinctIds::start(size_t global_count) {
  if (mark_.size() < global_count) mark_.resize(global_count, 0);
  if (++piece_ == 0) {  // the counter wrapped: old marks could match again
    std::fill(mark_.begin(), mark_.end(), 0);
    piece_ = 1;
  }
  ids_.clear();
}

std::vector<uint32_t> DistinctIds::take() {
  sortUnique(ids_);  // no repeats left: only the sort does work
  return std::move(ids_);
}

}  // namespace planet_export
