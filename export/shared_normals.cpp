#include "export/shared_normals.h"

#include <atomic>
#include <utility>

#include <tbb/collaborative_call_once.h>

#include "export/detail/surface_normals.h"

namespace planet_export {

// One exaggeration's normals and the count of its planned users.
struct SharedNormalsArray {
  double exaggeration = 1.0;
  std::atomic<int> untaken{0};     // planned users that have not taken the array yet
  std::atomic<int> unreleased{0};  // planned users that have not released it yet
  tbb::collaborative_once_flag computed;
  std::vector<glm::vec3> values;
};

VertexNormals::VertexNormals(std::vector<glm::vec3> own) : own_(std::move(own)), values_(own_) {}

VertexNormals::VertexNormals(VertexNormals&& other) noexcept
    : own_(std::move(other.own_)),
      values_(std::exchange(other.values_, {})),
      shared_(std::exchange(other.shared_, nullptr)) {}

VertexNormals& VertexNormals::operator=(VertexNormals&& other) noexcept {
  if (this != &other) {
    reset();
    own_ = std::move(other.own_);  // the buffer moves with it: values_ stays valid
    values_ = std::exchange(other.values_, {});
    shared_ = std::exchange(other.shared_, nullptr);
  }
  return *this;
}

void VertexNormals::reset() {
  // The last planned user frees the array: every other one has released it, none reads it.
  if (shared_ && shared_->unreleased.fetch_sub(1) == 1)
    std::vector<glm::vec3>().swap(shared_->values);
  shared_ = nullptr;
  values_ = {};
  std::vector<glm::vec3>().swap(own_);
}

SharedNormals::SharedNormals(const PlanetSurface& surface)
    : mesh_(surface.mesh), elevation_m_(surface.elevation_m), radius_m_(surface.radius_m) {}

SharedNormals::~SharedNormals() = default;

SharedNormalsArray* SharedNormals::find(double exaggeration) const {
  for (const auto& array : arrays_) {
    if (array->exaggeration == exaggeration) return array.get();
  }
  return nullptr;
}

void SharedNormals::plan(double exaggeration) {
  SharedNormalsArray* array = find(exaggeration);
  if (!array) {
    array = arrays_.emplace_back(std::make_unique<SharedNormalsArray>()).get();
    array->exaggeration = exaggeration;
  }
  ++array->untaken;
  ++array->unreleased;
}

bool SharedNormals::isFor(const PlanetSurface& surface) const {
  return surface.mesh == mesh_ && surface.elevation_m.data() == elevation_m_.data() &&
         surface.elevation_m.size() == elevation_m_.size() && surface.radius_m == radius_m_;
}

VertexNormals SharedNormals::take(double exaggeration) {
  SharedNormalsArray* array = find(exaggeration);
  // None planned, or every planned user has taken it.
  if (!array || array->untaken.fetch_sub(1) <= 0) return {};
  tbb::collaborative_call_once(array->computed, [&] {
    array->values = displacedVertexNormals(*mesh_, elevation_m_, radius_m_, exaggeration);
  });
  VertexNormals use;
  use.values_ = array->values;
  use.shared_ = array;
  return use;
}

int SharedNormals::unreleased(double exaggeration) const {
  const SharedNormalsArray* array = find(exaggeration);
  return array ? array->unreleased.load() : 0;
}

bool SharedNormals::holds(double exaggeration) const {
  const SharedNormalsArray* array = find(exaggeration);
  return array && !array->values.empty();
}

VertexNormals vertexNormals(const PlanetSurface& surface, double exaggeration) {
  if (surface.normals && surface.normals->isFor(surface)) {
    if (VertexNormals shared = surface.normals->take(exaggeration); !shared.empty()) return shared;
  }
  return VertexNormals(
      displacedVertexNormals(*surface.mesh, surface.elevation_m, surface.radius_m, exaggeration));
}

}  // namespace planet_export
