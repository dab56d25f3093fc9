#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "geodesy/icosahedron.h"
#include "geodesy/large_array.h"
#include "geodesy/lattice.h"
#include "geodesy/lattice_numbering.h"
#include "geodesy/spacing.h"
#include "geodesy/sphere_mesh.h"
#include "geodesy/vertex_rings.h"

namespace geodesy {
namespace {

// Runs body(base, j) for every base face and lattice row j = 0 .. f - 1, in parallel. Rows
// write disjoint parts of the output, so the result does not depend on scheduling.
template <typename Body>
void forEachRow(uint32_t f, const Body& body) {
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, Icosahedron::kFaces * f),
                    [&](const tbb::blocked_range<uint32_t>& range) {
                      for (uint32_t r = range.begin(); r != range.end(); ++r) body(r / f, r % f);
                    });
}

// The vertices on base edges and corners, the only ones two or more base faces share.
struct Boundary {
  // ring[base * 3f + position]: vertex id of each base face's boundary ring (see lattice.h).
  std::vector<uint32_t> ring;
  // For each boundary vertex, one face corner (3 * face + corner) at it.
  std::vector<uint32_t> start_corner;
};

// Vertex id of lattice point (i, j) of a base face.
struct LatticeVertices {
  const Lattice& lattice;
  const Boundary& boundary;
  uint32_t operator()(uint32_t base, uint32_t i, uint32_t j) const {
    return lattice.onBoundary(i, j)
               ? boundary.ring[size_t(base) * 3 * lattice.f + lattice.ringIndex(i, j)]
               : lattice.interiorVertex(base, i, j);
  }
};

// Places the boundary vertices numbered by LatticeNumbering and picks a face corner at each.
// A point's position comes from latticePosition, whose bits do not depend on the face that
// names it; floats are never compared.
Boundary numberBoundary(SphereMesh& mesh, const LatticeNumbering& numbering,
                        const std::vector<double>& g) {
  const Lattice& lattice = numbering.lattice();
  const uint32_t f = lattice.f;
  const auto weight = [&](uint64_t k) { return g[k]; };

  Boundary boundary;
  boundary.ring.resize(size_t(Icosahedron::kFaces) * 3 * f);
  boundary.start_corner.assign(lattice.boundaryVertexCount(), UINT32_MAX);
  for (uint32_t base = 0; base < Icosahedron::kFaces; ++base) {
    for (int k = 0; k < 3; ++k) {
      for (uint32_t s = 0; s < f; ++s) {
        const uint32_t id = numbering.ringVertex(base, k, s);
        boundary.ring[(base * 3 + k) * f + s] = id;
        uint32_t& start = boundary.start_corner[id];
        if (start == UINT32_MAX) {
          start = 3 * (base * lattice.facesPerBase() + lattice.boundaryFace(k, s)) + k;
          const uint32_t i = k == 0 ? s : k == 1 ? f - s : 0;
          const uint32_t j = k == 0 ? 0 : k == 1 ? s : f - s;
          mesh.positions[id] = glm::vec3(latticePosition(weight, f, base, i, j));
        }
      }
    }
  }
  return boundary;
}

void placeInteriorVertices(SphereMesh& mesh, const Lattice& lattice, const std::vector<double>& g) {
  const uint32_t f = lattice.f;
  const auto weight = [&](uint64_t k) { return g[k]; };
  forEachRow(f, [&](uint32_t base, uint32_t j) {
    for (uint32_t i = 1; j > 0 && i + j < f; ++i) {
      mesh.positions[lattice.interiorVertex(base, i, j)] =
          glm::vec3(latticePosition(weight, f, base, i, j));
    }
  });
}

void buildFaces(SphereMesh& mesh, const Lattice& lattice, const LatticeVertices& vertex) {
  const uint32_t f = lattice.f;
  resizeLarge(mesh.indices, size_t(3) * Icosahedron::kFaces * lattice.facesPerBase());
  forEachRow(f, [&](uint32_t base, uint32_t j) {
    uint32_t* out =
        &mesh.indices[3 * (size_t(base) * lattice.facesPerBase() + lattice.rowStart(j))];
    for (uint32_t i = 0; i + j < f; ++i) {
      const uint32_t here = vertex(base, i, j);
      const uint32_t right = vertex(base, i + 1, j);
      const uint32_t up = vertex(base, i, j + 1);
      *out++ = here;
      *out++ = right;
      *out++ = up;
      if (i + j + 1 < f) {
        *out++ = right;
        *out++ = vertex(base, i + 1, j + 1);
        *out++ = up;
      }
    }
  });
}

// Interior vertex (i, j) of a base face: its six neighbours and faces follow from the lattice,
// counter-clockwise from (i + 1, j). Same order and result as fillVertexRing's walk (the test
// checks the rings against the faces), without its chain of dependent loads.
void fillInteriorRings(SphereMesh& mesh, const Lattice& lattice, const LatticeVertices& vertex,
                       const std::vector<float>& face_areas) {
  forEachRow(lattice.f, [&](uint32_t base, uint32_t j) {
    const size_t first = size_t(base) * lattice.facesPerBase();
    for (uint32_t i = 1; j > 0 && i + j < lattice.f; ++i) {
      const uint32_t v = lattice.interiorVertex(base, i, j);
      uint32_t* out = &mesh.neighbours[mesh.neighbour_offsets[v]];
      out[0] = vertex(base, i + 1, j);
      out[1] = vertex(base, i, j + 1);
      out[2] = vertex(base, i - 1, j + 1);
      out[3] = vertex(base, i - 1, j);
      out[4] = vertex(base, i, j - 1);
      out[5] = vertex(base, i + 1, j - 1);
      const double area = double(face_areas[first + lattice.upFace(i, j)]) +
                          double(face_areas[first + lattice.downFace(i - 1, j)]) +
                          double(face_areas[first + lattice.upFace(i - 1, j)]) +
                          double(face_areas[first + lattice.downFace(i - 1, j - 1)]) +
                          double(face_areas[first + lattice.upFace(i, j - 1)]) +
                          double(face_areas[first + lattice.downFace(i, j - 1)]);
      mesh.vertex_areas[v] = float(area / 3.0);
    }
  });
}

void buildVertexRings(SphereMesh& mesh, const Lattice& lattice, const Boundary& boundary,
                      const LatticeVertices& vertex) {
  const size_t vertex_count = mesh.positions.size();
  // The 12 corners, valence 5, come first; all other vertices have valence 6.
  resizeLarge(mesh.neighbour_offsets, vertex_count + 1);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, vertex_count + 1),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t v = range.begin(); v != range.end(); ++v) {
                        mesh.neighbour_offsets[v] = uint32_t(v < 12 ? 5 * v : 60 + 6 * (v - 12));
                      }
                    });
  resizeLarge(mesh.neighbours, mesh.neighbour_offsets.back());
  resizeLarge(mesh.vertex_areas, vertex_count);

  // The face areas are the one temporary: 8 bytes per vertex, freed on return.
  const std::vector<float> face_areas = sphericalFaceAreas(mesh);
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, lattice.boundaryVertexCount()),
                    [&](const tbb::blocked_range<uint32_t>& range) {
                      for (uint32_t v = range.begin(); v != range.end(); ++v) {
                        const uint32_t s = boundary.start_corner[v];
                        fillVertexRing(mesh, face_areas, v, s / 3, int(s % 3));
                      }
                    });
  fillInteriorRings(mesh, lattice, vertex, face_areas);
}

}  // namespace

SphereMesh buildIcosphere(int frequency) {
  return buildIcosphere(frequency, IcosphereOptions{});
}

SphereMesh buildIcosphere(int frequency, const IcosphereOptions& options) {
  if (frequency < 1 || frequency > kMaxFrequency) {
    throw std::invalid_argument("icosphere frequency " + std::to_string(frequency) +
                                " is out of range; allowed: 1 to " + std::to_string(kMaxFrequency));
  }
  const LatticeNumbering numbering(frequency);
  const Lattice& lattice = numbering.lattice();
  const std::vector<double> g = spacingWeights(options.spacing, frequency);

  SphereMesh mesh;
  mesh.frequency = frequency;
  mesh.spacing = options.spacing;
  resizeLarge(mesh.positions, 10 * size_t(frequency) * size_t(frequency) + 2);
  {
    const Boundary boundary = numberBoundary(mesh, numbering, g);
    const LatticeVertices vertex{lattice, boundary};
    placeInteriorVertices(mesh, lattice, g);
    buildFaces(mesh, lattice, vertex);
    buildVertexRings(mesh, lattice, boundary, vertex);
  }
  const EdgeLengthStats edges = edgeLengthStats(mesh);
  mesh.mean_edge_length = edges.mean_rad;
  mesh.min_edge_length = edges.min_rad;
  return mesh;
}

}  // namespace geodesy
