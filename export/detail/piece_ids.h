#pragma once
// A piece's vertices (a chunk, an ocean piece) by table lookup instead of sorting every
// triangle corner and binary-searching each index: both tables have one entry per mesh
// vertex and are meant to be kept one per thread (tbb::enumerable_thread_specific) and reused
// for every piece that thread builds, so a piece costs time in its own size only.

#include <cstdint>
#include <span>
#include <vector>

namespace planet_export {

// Distinct vertex ids of one piece at a time, ascending (what sortUnique gives for the
// piece's triangle corners). start(), then add() every corner, then take().
class DistinctIds {
 public:
  // Begins a new piece over a mesh of global_count vertices.
  void start(size_t global_count);
  void add(uint32_t id) {
    if (mark_[id] == piece_) return;
    mark_[id] = piece_;
    ids_.push_back(id);
  }
  // The piece's distinct ids, ascending; moved out (the next start() begins empty).
  std::vector<uint32_t> take();

 private:
  std::vector<uint32_t> mark_;  // per mesh vertex: the last piece that added it
  uint32_t piece_ = 0;
  std::vector<uint32_t> ids_;
};

// Local number of each vertex of one piece at a time: assign(ids) gives ids[i] the number i;
// operator() answers for those ids only (other entries hold earlier pieces' numbers).
class LocalIds {
 public:
  void assign(std::span<const uint32_t> ids, size_t global_count) {
    if (local_.size() < global_count) local_.resize(global_count);
    for (uint32_t i = 0; i < ids.size(); ++i) local_[ids[i]] = i;
  }
  uint32_t operator()(uint32_t global) const { return local_[global]; }

 private:
  std::vector<uint32_t> local_;
};

}  // namespace planet_export
