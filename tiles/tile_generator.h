#pragma once
// Tiles on demand: a generator built once from the planet, then asked for any tile, from any
// number of threads, in any order, with the same bits every time.
//
//   tiles::TilePlanet planet = ...;                   // plain arrays (tile_planet.h)
//   const tiles::TileGenerator generator(planet, {});  // once: 0.1-0.3 s at f = 512
//   tiles::TileMesh mesh = generator.generate(id);     // from any worker thread
//
// A tile mesh holds, per vertex: position (float32, relative to a double centre), normal,
// height, the parent level's height at that point (for morphing between levels), and a 64-bit
// lattice id (the same for the same point in every tile that holds it). Its triangles and edge
// lists are the same for every tile of a generator and shared between them.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "tiles/lattice_point.h"
#include "tiles/tile_id.h"
#include "tiles/tile_layout.h"
#include "tiles/tile_planet.h"

namespace tiles {

namespace detail {
struct SurfaceModel;
class ErosionModel;
}  // namespace detail

// What every tile of one tile edge T shares: the triangle list and the edge vertex lists.
// Vertex (u, v) of a tile (u, v >= 0, u + v <= T; TileLayout::vertexPoint) has index
// v (T + 1) - v (v - 1) / 2 + u: rows of constant v, u increasing.
struct TileTopology {
  uint32_t tile_edge = 0;
  // Three vertex indices per triangle, counter-clockwise seen from outside the planet.
  // 3 T^2 entries.
  std::vector<uint32_t> indices;
  // edges[k]: the T + 1 vertices along tile edge k, from the tile's corner k to corner k + 1
  // (for skirts; the neighbour across edge k lists the same points the other way).
  std::array<std::vector<uint32_t>, 3> edges;
};

// Per-vertex masks of what erosion did (the texture splats engines blend), seamless like the
// heights (blended from the same windows). Empty when the generator erodes nothing.
struct TileMasks {
  std::vector<float> flow_m2;       // rain-weighted drainage area at this level's lattice, m^2
  std::vector<float> wear_m;        // depth taken away by erosion at this level and coarser
  std::vector<float> deposition_m;  // depth laid down at this level and coarser
  std::vector<float> water;         // 1 under the sea, a lake or a river of the planet's size
};

struct TileMesh {
  TileId id;
  // Positions are centre_m + positions_m[v] (double + float): centre_m is the middle of the
  // tile's bounding box in the planet frame (metres, +Y north, geodesy/sphere_mesh.h), so each
  // float coordinate errs by at most 2^-24 of the tile's half-extent: 0.2 mm for a 30 m tile
  // (6.9 km across), 0.2 m for a level-0 tile (a whole base face, 7000 km).
  glm::dvec3 centre_m{0.0};
  std::vector<glm::vec3> positions_m;
  std::vector<glm::vec3> normals;      // unit, planet frame
  std::vector<float> height_m;         // elevation above the planet radius
  std::vector<float> parent_height_m;  // the parent level's surface here (own at level 0)
  std::vector<uint64_t> lattice_ids;   // TileLayout::latticeId
  TileMasks masks;
  std::shared_ptr<const TileTopology> topology;

  size_t vertexCount() const { return height_m.size(); }
  glm::dvec3 position(size_t v) const { return centre_m + glm::dvec3(positions_m[v]); }
};

// Heights in metres above the radius.
struct HeightRange {
  double min_m = 0.0;
  double max_m = 0.0;
};

class TileGenerator {
 public:
  // Copies what it needs from the planet (elevation; derives the detail amplitude per vertex),
  // so `planet`'s arrays may be released afterwards. Parallel on the caller's oneTBB arena.
  // Throws std::invalid_argument for a planet or parameters it cannot use (array sizes that do
  // not match the frequency, an elevation, water level or sea level that is not finite, a tile
  // edge or detail parameter out of range, ...), naming the value and what is allowed.
  TileGenerator(const TilePlanet& planet, const TileParams& params);
  ~TileGenerator();
  TileGenerator(TileGenerator&&) noexcept;
  TileGenerator& operator=(TileGenerator&&) noexcept;

  const TileLayout& layout() const;
  double radiusM() const;
  // How lattice points are placed on the sphere (the planet's, TilePlanet::spacing).
  geodesy::Spacing spacing() const;
  const std::shared_ptr<const TileTopology>& topology() const { return topology_; }
  // Whether the tiles of `level` are eroded (TileParams::erosion; their meshes have masks).
  bool erodes(int level) const;

  // The tile `id`: a pure function of (planet, parameters, id). Thread-safe: a const call
  // with no shared mutable state, so any number of threads may call it at once; inside, it
  // runs in parallel on the calling thread's oneTBB arena (the caller's thread count; no
  // threads of its own) and the result does not depend on that count. Throws
  // std::invalid_argument for an id that names no tile (TileLayout::check).
  TileMesh generate(const TileId& id) const;

  // Heights (m above the radius) at any lattice points of `level` (any base face's name for a
  // shared point): the values generate() gives those points, for callers that sample beyond
  // one tile (windows wider than a tile). Thread-safe, parallel like generate(). Throws
  // std::invalid_argument for a level that does not exist.
  std::vector<float> heights(int level, std::span<const LatticePoint> points) const;

  // The tile of `level` whose triangle holds the direction `direction` (on a tile edge, either
  // tile). For finding the tiles that cover a region. Throws std::invalid_argument for a level
  // that does not exist or a direction that is zero or not finite.
  TileId tileAt(const glm::dvec3& direction, int level) const;

  // A range that holds every height of the tile `id` and of every finer level's lattice points
  // inside its triangle (its descendants, made or not), from the planet's arrays alone: for
  // bounding volumes written before the tiles are made (3D Tiles: a parent's volume encloses its
  // children's content). Guaranteed but loose: with the detail on, several times the detail's
  // real spread (tiles/tile_bounds.cpp derives it). Thread-safe. Throws std::invalid_argument for
  // an id that names no tile.
  HeightRange heightBounds(const TileId& id) const;

  // Position in metres (double) of a lattice point of `level` standing height_m above the
  // radius (the generator's own position for a vertex: a tile's centre_m + positions_m[v]
  // approximates it).
  glm::dvec3 surfacePosition(int level, const LatticePoint& p, float height_m) const;

 private:
  std::unique_ptr<const detail::SurfaceModel> model_;
  std::shared_ptr<const TileTopology> topology_;
  // Erosion at the tiles' scales (TileParams::erosion), or null. Const: its window cache
  // changes no result and is thread-safe.
  std::unique_ptr<const detail::ErosionModel> erosion_;
};

}  // namespace tiles
