#include "erosion/droplet_erosion.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "erosion/detail/change_blur.h"
#include "erosion/detail/droplet.h"
#include "erosion/detail/publish_lanes.h"
#include "erosion/detail/workspace_impl.h"

namespace erosion {
namespace {

// Droplets per task inside a batch: a few times kMaxDropletsInFlight (a task's last droplets run
// with fewer in flight), and small enough to balance a batch of 2560 over many threads.
constexpr size_t kDropletGrain = 64;
constexpr int kBlockShift = ChangeAccumulator::kBlockShift;
constexpr size_t kBlock = ChangeAccumulator::kBlock;

// The change of vertices [begin, begin + count) (count <= kBlock) in metres, summed over the
// threads in integers, so the order of the threads and of the droplets inside them does not
// matter. quantum_m: metres per quantum (a power of two times metres per height, so the one
// product rounds as the two it stands for).
inline void blockChange(const std::vector<ChangeAccumulator*>& slots, size_t begin, size_t count,
                        double quantum_m, double* out) {
  assert(!slots.empty() && count <= kBlock);
  int64_t sum[kBlock];
  const int64_t* first = slots[0]->sums() + begin;
  std::copy(first, first + count, sum);
  for (size_t t = 1; t < slots.size(); ++t) {
    const int64_t* s = slots[t]->sums() + begin;
    for (size_t i = 0; i < count; ++i) sum[i] += s[i];
  }
  for (size_t i = 0; i < count; ++i) out[i] = double(sum[i]) * quantum_m;
}

ErosionWorkspace::Impl& workspaceFor(const ErosionInput& input, const ErosionParams& params,
                                     std::unique_ptr<ErosionWorkspace>& temporary) {
  ErosionWorkspace* workspace = input.workspace;
  if (!workspace || &workspace->mesh() != input.mesh || workspace->radius() != params.radius) {
    assert(!workspace && "the workspace was built for another mesh or brush radius");
    temporary = std::make_unique<ErosionWorkspace>(*input.mesh, params.radius);
    workspace = temporary.get();
  }
  ErosionWorkspace::Impl& w = WorkspaceAccess::impl(*workspace);
  const size_t slot_count = size_t(tbb::this_task_arena::max_concurrency());
  if (w.slots.size() < slot_count) w.slots.resize(slot_count);
  return w;
}

// Droplets of a batch are independent (frozen heights, integer sums), so they may run in any
// order: by spawn face, neighbours run one after another and find the mesh in cache. Every
// batch's order (indices into the batch) up front, in one parallel pass.
std::vector<uint32_t> batchOrders(std::span<const geodesy::DropletSpawn> spawns, size_t batch) {
  const size_t batch_count = (spawns.size() + batch - 1) / batch;
  std::vector<uint32_t> order(spawns.size());
  tbb::parallel_for(size_t(0), batch_count, [&](size_t b) {
    const size_t start = b * batch, end = std::min(spawns.size(), start + batch);
    for (size_t i = start; i < end; ++i) order[i] = uint32_t(i - start);
    std::sort(order.begin() + start, order.begin() + end, [&](uint32_t x, uint32_t y) {
      return spawns[start + x].point.face < spawns[start + y].point.face;
    });
  });
  return order;
}

// What the phases of one erodeDroplets call share.
struct Call {
  const DropletContext& context;
  ErosionWorkspace::Impl& w;
  size_t n = 0;  // vertices
  double height_scale = 0.0;
  double quantum_m = 0.0;                 // metres per fixed-point quantum
  std::vector<ChangeAccumulator*> used;   // the slots' buffers, refreshed after each batch
  std::vector<const int64_t*> used_sums;  // their sums
  std::vector<uint8_t> touched_blocks;    // blocks some batch changed
};

// Every droplet of spawns[start, end) reads the heights frozen at the batch start and adds its
// changes to its thread's fixed-point buffer (the first place a height changes).
void runBatch(Call& call, std::span<const geodesy::DropletSpawn> spawns,
              std::span<const uint32_t> order, size_t start, size_t end, uint64_t first_id,
              std::span<DropletOutcome> outcomes) {
  tbb::parallel_for(tbb::blocked_range<size_t>(start, end, kDropletGrain),
                    [&](const tbb::blocked_range<size_t>& range) {
                      const int index = tbb::this_task_arena::current_thread_index();
                      assert(index >= 0 && size_t(index) < call.w.slots.size());
                      ThreadSlot& slot = call.w.slot(size_t(index));
                      runDroplets(call.context, {&slot.changes, &slot.gatherer, nullptr},
                                  slot.visited, spawns.subspan(start, end - start),
                                  order.subspan(range.begin(), range.size()), first_id + start,
                                  outcomes);
                    });
}

void refreshUsedSlots(Call& call) {
  call.used.clear();
  call.used_sums.clear();
  for (const auto& slot : call.w.slots)
    if (slot) call.used.push_back(&slot->changes), call.used_sums.push_back(slot->changes.sums());
}

// One block's node heights: its start height plus the sum over threads, in integers.
void publishBlock(Call& call, size_t block, bool lanes) {
  const size_t begin = block << kBlockShift, count = std::min(call.n, begin + kBlock) - begin;
  if (lanes && count == kBlock &&
      publishBlock4(call.used_sums.data(), call.used_sums.size(), begin, count, call.quantum_m,
                    call.height_scale, call.w.nodes))
    return;
  double change[kBlock];
  blockChange(call.used, begin, count, call.quantum_m, change);
  for (size_t i = 0; i < count; ++i) {
    const double metres = double(call.w.nodes.start_m[begin + i]) + change[i];
    call.w.nodes.setHeight(begin + i, float(metres * call.height_scale));
  }
}

// Publishes the batch (the second place a height changes, in the node table the next batch
// reads): every block some thread changed. Blocks are disjoint, so tasks need no order.
void publishBatch(Call& call, bool lanes) {
  refreshUsedSlots(call);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, call.touched_blocks.size(), 256),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t block = range.begin(); block < range.end(); ++block) {
                        uint8_t dirty = 0;
                        for (ChangeAccumulator* slot : call.used) dirty |= slot->takeDirty(block);
                        if (!dirty) continue;
                        call.touched_blocks[block] = 1;
                        publishBlock(call, block, lanes);
                      }
                    });
}

// The batch's statistics, in droplet order.
void tallyOutcomes(std::span<const DropletOutcome> outcomes, ErosionStats& stats, double& eroded,
                   double& deposited, double& carried_out) {
  for (const DropletOutcome& o : outcomes) {
    eroded += o.eroded;
    deposited += o.deposited;
    carried_out += o.carried_out;
    stats.droplet_steps += o.steps;
    switch (o.end) {
      case DropletEnd::kLifetime:
        ++stats.ended_lifetime;
        break;
      case DropletEnd::kDried:
        ++stats.ended_dried;
        break;
      case DropletEnd::kSea:
        ++stats.ended_sea;
        break;
      case DropletEnd::kFlat:
        ++stats.ended_flat;
        break;
      case DropletEnd::kChannel:
        ++stats.ended_channel;
        break;
    }
  }
}

struct MassBalance {
  double net = 0.0, gross = 0.0;  // sum dh*A and sum |dh*A| in m * unit-sphere area
};

// The call's change in metres, taken out of the thread buffers (which are left zero for the
// next call), optionally blurred (eq. 5.10), then applied once to elevation_m and added to
// change_m (the third place a height changes). Mass balance: partial sums per block, added in
// block order.
MassBalance applyChange(Call& call, const geodesy::SphereMesh& mesh, double blur_factor,
                        std::span<float> elevation_m, std::span<float> change_m) {
  const size_t n = call.n;
  std::vector<uint32_t> blocks;
  for (size_t b = 0; b < call.touched_blocks.size(); ++b)
    if (call.touched_blocks[b]) blocks.push_back(uint32_t(b));
  const bool blur = blur_factor > 0.0;
  std::vector<double> change;
  if (blur) change.assign(n, 0.0);
  auto apply = [&](size_t v, double c, double& net, double& gross) {
    const float before = elevation_m[v];
    const float after = float(double(before) + c);
    elevation_m[v] = after;
    if (!change_m.empty()) change_m[v] += float(c);
    const double volume = (double(after) - double(before)) * mesh.vertex_areas[v];
    net += volume;
    gross += std::abs(volume);
  };
  std::vector<double> nets(blur ? (n + kBlock - 1) / kBlock : blocks.size(), 0.0);
  std::vector<double> grosses(nets.size(), 0.0);
  tbb::parallel_for(size_t(0), blocks.size(), [&](size_t k) {
    const size_t begin = size_t(blocks[k]) << kBlockShift;
    const size_t stop = std::min(n, begin + kBlock);
    double block_change[kBlock];
    blockChange(call.used, begin, stop - begin, call.quantum_m, block_change);
    for (size_t v = begin; v < stop; ++v) {
      const double c = block_change[v - begin];
      for (ChangeAccumulator* slot : call.used) slot->clear(uint32_t(v));
      if (blur) {
        change[v] = c;
      } else {
        apply(v, c, nets[k], grosses[k]);
      }
    }
  });
  if (blur) {
    blendBlurredChange(mesh, blur_factor, change, call.context.channel);
    tbb::parallel_for(size_t(0), nets.size(), [&](size_t k) {
      for (size_t v = k * kBlock; v < std::min(n, (k + 1) * kBlock); ++v)
        apply(v, change[v], nets[k], grosses[k]);
    });
  }
  MassBalance balance;
  for (size_t k = 0; k < nets.size(); ++k) {
    balance.net += nets[k];
    balance.gross += grosses[k];
  }
  return balance;
}

// Volumes in m³, the mean steps and the mass error from the tallies.
void finishStats(const ErosionInput& input, size_t droplets, double eroded, double deposited,
                 double carried_out, const MassBalance& balance, ErosionStats& stats) {
  const geodesy::SphereMesh& mesh = *input.mesh;
  const double m3_per_volume =
      mesh.mean_edge_length * input.radius_m *
      (4.0 * std::numbers::pi * input.radius_m * input.radius_m / double(mesh.vertexCount()));
  stats.droplets = droplets;
  stats.eroded_volume_m3 = eroded * m3_per_volume;
  stats.deposited_volume_m3 = deposited * m3_per_volume;
  stats.carried_out_volume_m3 = carried_out * m3_per_volume;
  stats.mean_steps = double(stats.droplet_steps) / double(stats.droplets);
  // In the balance's m * sr: what the channels carried out is volume moved, out of the call.
  const double carried_m_sr = carried_out * m3_per_volume / (input.radius_m * input.radius_m);
  const double moved = balance.gross + carried_m_sr;
  stats.mass_error = moved > 0.0 ? std::abs(balance.net + carried_m_sr) / moved : 0.0;
}

}  // namespace

size_t batchSize(const ErosionParams& params, size_t vertex_count) {
  // Droplets of one batch do not see each other's changes; with many more than one per 256
  // vertices they fill the same pits several times over (the property test found vertices
  // raised ten times the relief at one per 10 vertices, and 1.7 times at one per 128), so the
  // automatic size is also the largest.
  const size_t automatic = std::max<size_t>(16, vertex_count / 256);
  if (params.batch_size > 0) return std::min(size_t(params.batch_size), automatic);
  return automatic;
}

ErosionStats erodeDroplets(const ErosionInput& input, std::span<const geodesy::DropletSpawn> spawns,
                           const ErosionParams& params, std::span<float> elevation_m,
                           std::span<float> change_m, uint64_t first_droplet_id) {
  assert(input.mesh);
  const geodesy::SphereMesh& mesh = *input.mesh;
  const size_t n = mesh.vertexCount();
  assert(elevation_m.size() == n);
  assert(change_m.empty() || change_m.size() == n);
  assert(input.erodibility.empty() || input.erodibility.size() == n);
  ErosionStats stats;
  if (spawns.empty()) return stats;

  std::unique_ptr<ErosionWorkspace> temporary;
  ErosionWorkspace::Impl& w = workspaceFor(input, params, temporary);
  const double height_scale = heightScale(input);
  // Droplets read the heights in the node table. elevation_m keeps the heights of the call's
  // start until the end, when the call's change is applied to it once.
  w.prepare(elevation_m, height_scale, input.erodibility, input.channel);
  const DropletContext context = makeDropletContext(input, params, w);
  const double metres_per_height = mesh.mean_edge_length * input.radius_m;
  const double quantum_m = metres_per_height * (1.0 / ChangeAccumulator::kScale);
  Call call{context, w, n, height_scale, quantum_m, {}, {}, std::vector<uint8_t>(n / kBlock + 1)};
  const bool lanes = avx2Available();

  const size_t batch = batchSize(params, n);
  std::vector<DropletOutcome> outcomes(std::min(batch, spawns.size()));
  const std::vector<uint32_t> order = batchOrders(spawns, batch);
  double eroded = 0.0, deposited = 0.0, carried_out = 0.0;
  for (size_t start = 0; start < spawns.size(); start += batch) {
    const size_t end = std::min(spawns.size(), start + batch);
    runBatch(call, spawns, order, start, end, first_droplet_id, outcomes);
    publishBatch(call, lanes);
    tallyOutcomes(std::span(outcomes).first(end - start), stats, eroded, deposited, carried_out);
  }
  const MassBalance balance = applyChange(call, mesh, params.blur, elevation_m, change_m);
  finishStats(input, spawns.size(), eroded, deposited, carried_out, balance, stats);
  return stats;
}

DropletTrace traceDroplet(const ErosionInput& input, const geodesy::DropletSpawn& spawn,
                          const ErosionParams& params, std::span<const float> elevation_m,
                          uint64_t droplet_id) {
  assert(input.mesh && elevation_m.size() == input.mesh->vertexCount());
  ErosionWorkspace workspace(*input.mesh, params.radius);
  ErosionWorkspace::Impl& w = WorkspaceAccess::impl(workspace);
  w.prepare(elevation_m, heightScale(input), input.erodibility, input.channel);
  const DropletContext context = makeDropletContext(input, params, w);
  // On the heap: its trap-test sets are too large for a stack.
  const auto slot = std::make_unique<ThreadSlot>(w.nodes.points.size());
  DropletTrace trace;
  runDroplet(context, {&slot->changes, &slot->gatherer, &slot->visited[0]}, spawn, droplet_id,
             &trace);
  return trace;
}

}  // namespace erosion
