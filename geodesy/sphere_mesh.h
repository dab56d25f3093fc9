#pragma once
// The icosphere every stage works on: plain arrays, built once, never mutated.
//
// Frame: right-handed, +Y is the north pole (glTF is Y-up). Longitude 0 is +X and grows
// eastward, which is toward -Z (counter-clockwise seen from above the north pole).

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

namespace geodesy {

// A point on the surface: the face that holds it and its barycentric weights for the
// face's corners indices[3*face + 0..2]. Weights are >= 0 (up to rounding) and sum to 1.
struct SurfacePoint {
  uint32_t face = 0;
  glm::vec3 bary{1.0f, 0.0f, 0.0f};
};

// How lattice points of a base (icosahedron) face are placed on the sphere. A lattice point
// with barycentric coordinates b = (b0, b1, b2) on the face with corners c0, c1, c2 goes to
// normalize(sum_k g(b_k) c_k); the spacings differ only in g.
enum class Spacing : uint8_t {
  // g(b) = sin(omega b), omega = 63.43 deg the arc of a base edge. Along a base edge this is
  // exactly slerp, so base-edge vertices sit at equal arcs; inside a face it evens out the
  // crowding plain normalisation causes near the corners. Max/min edge length ~1.178 at any
  // f >= 64, against a floor of 2 sin 36 deg = 1.1756 that the 12 five-valent corners set
  // for every mapping of this topology.
  kSineWeights,
  // g(b) = b: central projection of the flat lattice. Max/min edge length ~1.48. Kept for
  // comparison; prefer kSineWeights.
  kFlat,
};

// Largest frequency buildIcosphere accepts: neighbour_offsets are uint32 and hold 60 f^2.
constexpr int kMaxFrequency = 8460;

// Class I geodesic subdivision of the icosahedron with frequency f >= 1:
// V = 10 f^2 + 2 vertices, F = 20 f^2 faces, E = 30 f^2 edges.
//
// Numbering (stable, relied on by locate): vertices 0..11 are the icosahedron corners, then
// the other vertices on base edges, then each base face's interior vertices. Face
// id = base_face * f^2 + index within the base face, row by row.
struct SphereMesh {
  int frequency = 0;
  Spacing spacing = Spacing::kSineWeights;

  // Unit-length positions, one per vertex.
  std::vector<glm::vec3> positions;
  // Three vertex ids per face, counter-clockwise seen from outside the sphere.
  std::vector<uint32_t> indices;

  // Vertex adjacency in CSR form: the neighbours of v are
  // neighbours[neighbour_offsets[v] .. neighbour_offsets[v+1]), in counter-clockwise order
  // seen from outside. 12 vertices have 5 neighbours, all others 6.
  std::vector<uint32_t> neighbour_offsets;
  std::vector<uint32_t> neighbours;

  // Dual area of each vertex on the unit sphere (steradians); they sum to 4*pi.
  std::vector<float> vertex_areas;

  size_t vertexCount() const { return positions.size(); }
  size_t faceCount() const { return indices.size() / 3; }

  // The face across the edge of `face` from its corner k to corner (k + 1) % 3 (k in 0..2);
  // that face holds the same edge the other way. Computed from the numbering described above
  // (latticeFace; a few dozen instructions, no table), so only for meshes buildIcosphere made.
  uint32_t faceAcross(uint32_t face, int k) const;
  // faceAcross for k = 0, 1, 2 at the cost of about one (for sweeps over every edge).
  std::array<uint32_t, 3> facesAcross(uint32_t face) const;

  // Face holding the unit-length point p and p's barycentric weights in it.
  // O(1) expected: the icosahedron lattice gives a first guess, a short walk finishes it.
  // Thread-safe (const).
  // p need not be exactly unit length (only its direction counts) but must be finite and
  // non-zero. "Holds" means p's ray from the centre crosses the face's flat triangle; bary are
  // the weights of that crossing point, so interpolating a per-vertex field with them is
  // continuous across faces. A point on an edge or vertex gets any one of the faces touching it.
  SurfacePoint locate(const glm::vec3& p) const;

  // Same as locate, but starts walking from hint (a face near p, e.g. the face a
  // droplet was on one step ago). Cheaper than locate when the hint is within a few faces.
  // Any hint is valid (even out of range); a far one costs a bounded walk, then locate().
  SurfacePoint locateFrom(uint32_t hint_face, const glm::vec3& p) const;

  // Mean edge length on the unit sphere (radians): sqrt(4*pi / V) is close, this is exact.
  double mean_edge_length = 0.0;
  double min_edge_length = 0.0;  // shortest edge arc (radians), 0 if not computed
};

// Where face `face` of an icosphere of frequency f sits in its base face's lattice
// (geodesy/lattice.h): row j, column i, and whether it is an up triangle, corners (i, j),
// (i + 1, j), (i, j + 1), or a down one, corners (i + 1, j), (i + 1, j + 1), (i, j + 1).
struct LatticeFace {
  uint32_t base = 0;
  uint32_t i = 0;
  uint32_t j = 0;
  bool down = false;
};
LatticeFace latticeFace(int frequency, uint32_t face);

struct IcosphereOptions {
  Spacing spacing = Spacing::kSineWeights;
};

// Builds the icosphere of the given frequency (f >= 1) with all arrays above filled.
// Parallelism: uses the calling thread's oneTBB arena (the caller sets the thread count).
// The result is bit-identical for any thread count.
// Throws std::invalid_argument if frequency is outside [1, kMaxFrequency].
// Cost at f = 1024 (10.5 M vertices), Release: about 1.2 s on 1 thread, 0.9 s on 2; the arrays
// take 68 bytes per vertex and building peaks at about 77.
SphereMesh buildIcosphere(int frequency);
SphereMesh buildIcosphere(int frequency, const IcosphereOptions& options);

// Arc lengths (radians, unit sphere) over every edge of the mesh, each edge counted once.
struct EdgeLengthStats {
  double min_rad = 0.0;
  double max_rad = 0.0;
  double mean_rad = 0.0;
  size_t count = 0;  // E = 30 f^2
  double ratio() const { return max_rad / min_rad; }
};

// Needs positions and the neighbour CSR. Parallel, deterministic for any thread count.
EdgeLengthStats edgeLengthStats(const SphereMesh& mesh);

}  // namespace geodesy
