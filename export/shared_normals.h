#pragma once
// A surface's vertex normals computed once per exaggeration and handed to the outputs planned
// on them (planet_outputs.cpp: relief.png and globe.png at 30; on two threads or more planet.glb
// and normals.png at 1), each array freed once its last planned user is done with it. A user
// whose computation throws keeps its array until the SharedNormals is destroyed.

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "export/planet_surface.h"

namespace planet_export {

class SharedNormals;
struct SharedNormalsArray;  // shared_normals.cpp

// One vertex normal per mesh vertex, as displacedVertexNormals computes them (unit floats),
// either owned or a use of a SharedNormals array; the use ends when this is destroyed, reset or
// assigned over. Move-only.
class VertexNormals {
 public:
  VertexNormals() = default;
  explicit VertexNormals(std::vector<glm::vec3> own);
  VertexNormals(VertexNormals&& other) noexcept;
  VertexNormals& operator=(VertexNormals&& other) noexcept;
  VertexNormals(const VertexNormals&) = delete;
  VertexNormals& operator=(const VertexNormals&) = delete;
  ~VertexNormals() { reset(); }

  std::span<const glm::vec3> values() const { return values_; }
  const glm::vec3& operator[](size_t v) const { return values_[v]; }
  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  // Frees the owned array or ends the shared use; empty afterwards.
  void reset();

 private:
  friend class SharedNormals;
  std::vector<glm::vec3> own_;
  std::span<const glm::vec3> values_;
  SharedNormalsArray* shared_ = nullptr;  // the array this uses, if shared
};

// The normals of one surface (its mesh, elevation and radius), for the users planned before the
// first take: an array per exaggeration, computed by its first taker (threads that take it
// meanwhile help with that computation, tbb::collaborative_call_once) and freed when its
// planned users have all taken and released it. Not copyable; must outlive the VertexNormals it
// hands out. Planning is not thread-safe; taking is.
class SharedNormals {
 public:
  // For surface.mesh, surface.elevation_m and surface.radius_m (viewed, not copied).
  explicit SharedNormals(const PlanetSurface& surface);
  SharedNormals(const SharedNormals&) = delete;
  SharedNormals& operator=(const SharedNormals&) = delete;
  ~SharedNormals();

  // One more user of the normals at `exaggeration`. Call before any take.
  void plan(double exaggeration);
  // True when surface has the mesh, elevation and radius these normals are of.
  bool isFor(const PlanetSurface& surface) const;
  // The shared normals at `exaggeration`, or an empty VertexNormals when no user is planned at
  // that exaggeration or all planned ones have taken theirs.
  VertexNormals take(double exaggeration);
  // For tests: the planned users at `exaggeration` that have not released the array yet, and
  // whether it is computed and not freed.
  int unreleased(double exaggeration) const;
  bool holds(double exaggeration) const;

 private:
  SharedNormalsArray* find(double exaggeration) const;  // null when none is planned
  const geodesy::SphereMesh* mesh_;
  std::span<const float> elevation_m_;
  double radius_m_;
  std::vector<std::unique_ptr<SharedNormalsArray>> arrays_;
};

// The exaggeration of the engine files' normals (planet.glb, planet.obj): the true surface.
inline constexpr double kEngineExaggeration = 1.0;

// The normals of `surface` at `exaggeration`: a planned share of surface.normals when it is
// for this surface, else computed here (displacedVertexNormals).
VertexNormals vertexNormals(const PlanetSurface& surface, double exaggeration);

}  // namespace planet_export
