#pragma once
// One droplet's life on the icosphere (Beyer 2015 §5.1, eqs. 5.1-5.8, stepped in the tangent
// plane as in Kelley 2020 §4.4). Shared by the parallel driver and by traceDroplet. Internal to
// erosion/.
//
// Dimensionless frame. The step is one mean edge length L (radians on the unit sphere) and
// heights are measured in edge lengths of the planet: h = h_m / (L * radius_m). Slopes dh are
// then rise over run per step, as on Beyer's and Lague's unit grid, so their default
// parameters (capacity 4, min_slope 0.01, gravity 4, ...) mean the same at every frequency.
// Sediment is a volume: normalised height times dual area / mean dual area.

#include <cstdint>
#include <span>

#include <glm/vec3.hpp>

#include "erosion/detail/brush.h"
#include "erosion/detail/change_accumulator.h"
#include "erosion/detail/droplet_trace.h"
#include "erosion/detail/node_table.h"
#include "erosion/detail/visited_set.h"
#include "erosion/detail/workspace_impl.h"
#include "erosion/droplet_erosion.h"
#include "geodesy/droplet_spawn.h"
#include "geodesy/hash.h"
#include "geodesy/sphere_mesh.h"

namespace erosion {

// The constants of one erodeDroplets call, in the dimensionless frame, float for the hot loop.
struct DropletContext {
  const geodesy::SphereMesh* mesh = nullptr;
  uint32_t vertex_count = 0;
  const VertexPoint* points = nullptr;  // heights frozen during a batch
  const VertexLinks* links = nullptr;
  const float* height = nullptr;       // the brush's copies, see NodeTable
  const float* erodibility = nullptr;  // 0 on channel vertices (refreshNodeTable)
  const uint8_t* channel = nullptr;    // ErosionInput::channel; null = none
  const float* area = nullptr;
  const float* inv_area = nullptr;
  BrushMode brush_mode = BrushMode::kLattice;
  bool brush_lanes = false;  // the row brush in AVX2 (brush_lanes.h)
  const LatticeBrush* lattice = nullptr;
  const VertexBrushes* brushes = nullptr;  // for kPrecomputed
  float sea_level = 0.0f;                  // normalised
  double metres_per_height = 1.0;          // L R
  float edge_length = 0.0f;                // L, radians
  float step_cos = 1.0f, step_sin = 0.0f;  // great-circle step of one L
  float inertia = 0.0f, capacity = 0.0f, min_slope = 0.0f, deposition = 0.0f, erosion = 0.0f;
  float evaporation = 0.0f, gravity = 0.0f, initial_water = 0.0f, initial_speed = 0.0f;
  float min_water = 0.0f;
  int max_lifetime = 0;
  float base_level_share = 1.0f;  // of the height above the sea one brush take may remove
  uint64_t seed = 0;
};

DropletContext makeDropletContext(const ErosionInput& input, const ErosionParams& params,
                                  const ErosionWorkspace::Impl& workspace);

// Normalised height per metre, 1 / (L R).
double heightScale(const ErosionInput& input);

struct DropletOutcome {
  float eroded = 0.0f;       // normalised volume taken from the terrain
  float deposited = 0.0f;    // normalised volume given back (all of it by the end, but for:)
  float carried_out = 0.0f;  // the load handed to a channel's water (DropletEnd::kChannel)
  uint32_t steps = 0;
  DropletEnd end = DropletEnd::kLifetime;
};

// What a worker thread lends a droplet: its change buffer and, made on first need, a brush
// gatherer for centres near the five-valent vertices (or for BrushMode::kGathered).
struct DropletScratch {
  ChangeAccumulator* changes = nullptr;
  std::unique_ptr<BrushGatherer>* gatherer = nullptr;
  VisitedSet* visited = nullptr;  // the trap test's memory of where the droplet has been
};

// One droplet from its spawn to its end, a step at a time, so that a worker can keep several
// in flight and their memory waits overlap: each step ends by planning the next one and
// prefetching where it starts. Construct, then call step() until done(). `trace` may be null.
//
// A droplet runs on land (Beyer's steps) until it ends; one that reaches the sea with a load
// runs on as a submarine fan; then it settles what it still carries (spreadOnLand and the
// face under it), each a step of its own.
class DropletRun {
 public:
  DropletRun(const DropletContext& context, DropletScratch scratch,
             const geodesy::DropletSpawn& spawn, uint64_t id, DropletTrace* trace);
  bool done() const { return phase_ == Phase::kDone; }
  const DropletOutcome& outcome() const { return out_; }
  // Prefetches what the next land or fan step reads first: the ring around its locate's start
  // vertex. Call it a while before step(), once the links prefetched at the end of the last
  // step have had time to arrive. (A settle step's brush centre is prefetched when the
  // droplet's walk ends; its brush rows are not: see docs/erosion.md.)
  void prefetchNext() const { prefetchNext(anchor_); }
  // The same for a locate that has moved on to `anchor` (runDroplets' lockstep).
  void prefetchNext(uint32_t anchor) const;
  void step();
  // Whether the next step is a land or fan step, which starts by sampling the surface at
  // nextPosition() from the vertex anchor(); step(sample) takes that sample (runDroplets finds
  // eight at once, see surface_lanes.h). Otherwise step() alone.
  bool needsSample() const { return phase_ == Phase::kLand || phase_ == Phase::kFan; }
  uint32_t anchor() const { return anchor_; }
  Lanes nextPosition() const { return p_next_; }
  void step(const SurfaceSample& sample);

 private:
  enum class Phase : uint8_t { kLand, kFan, kSettle, kDone };

  // Beyer 2015, eq. 5.1: the next heading (or the end on flat ground), then aim.
  void plan();
  // Beyer 2015, eq. 5.2: the next position one step along d, and a prefetch of the vertex its
  // locate starts from.
  void aim(Lanes d);
  void stepLand(const SurfaceSample& s_new);
  void endLand(DropletEnd how);
  bool onChannel() const;  // a corner of the face under the droplet is a channel vertex
  void endInChannel();
  void planFan();
  void stepFan(const SurfaceSample& s_new);
  void endFan();
  void beginSettle();
  void settle();
  void finish();
  DropletStep traceStep() const;  // position, corners and height of the trace's next step
  void record(float eroded, float deposited, float dh);

  const DropletContext& c_;
  DropletScratch scratch_;
  ChangeAccumulator::Writer changes_;
  geodesy::HashStream rng_;  // random directions on flat ground
  DropletTrace* trace_;
  DropletOutcome out_;
  SurfaceSample s_;                            // the face under the droplet
  Lanes p_;                                    // unit position
  Lanes dir_ = Lanes::of(glm::vec3(0.0f));     // tangent heading
  Lanes p_next_ = Lanes::of(glm::vec3(0.0f));  // where the next step goes (aim)
  uint32_t anchor_ = 0;                        // the vertex its locate starts from
  SurfaceSample shore_;                        // the last sample on land, and its position
  Lanes p_shore_;
  float water_ = 0.0f, speed_ = 0.0f, sediment_ = 0.0f;
  int stalled_ = 0;  // steps in a row without direction or speed
  // The vertex nearest to the droplet one step ago; scratch.visited holds those of all the
  // steps before (see the end of stepLand()).
  uint32_t previous_ = 0;
  Phase phase_ = Phase::kLand;
  int fan_steps_ = 0;
  float fan_settled_ = 0.0f;  // laid down by the fan so far
};

// Runs droplet `id` from `spawn` to its end and adds its height changes to scratch.changes.
// `trace` may be null.
DropletOutcome runDroplet(const DropletContext& context, DropletScratch scratch,
                          const geodesy::DropletSpawn& spawn, uint64_t id, DropletTrace* trace);

// Runs droplets spawns[order[k]] (id first_id + order[k], outcome to outcomes[order[k]]),
// visited.size() of them in flight (at most kMaxDropletsInFlight), a step of each in turn, so
// that one droplet's memory waits overlap the others' work; on a CPU with AVX2 a multiple of
// eight in flight run as groups of eight in lockstep, their locates in one locateStep8
// (surface_lanes.h), the groups taking turns. Droplets never see
// each other's changes (they read frozen heights and add integers), so the result does not
// depend on how many are in flight. scratch.visited is ignored: droplet j in flight uses visited[j]
// (visited must not be empty). A droplet's step makes no oneTBB call, so a worker cannot be
// handed another task, and re-enter its own scratch, while droplets are in flight.
void runDroplets(const DropletContext& context, DropletScratch scratch,
                 std::span<VisitedSet> visited, std::span<const geodesy::DropletSpawn> spawns,
                 std::span<const uint32_t> order, uint64_t first_id,
                 std::span<DropletOutcome> outcomes);

}  // namespace erosion
