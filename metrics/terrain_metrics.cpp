#include "metrics/terrain_metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <glm/geometric.hpp>

namespace metrics {
namespace {

std::vector<double> ranks(std::span<const double> x) {
  std::vector<uint32_t> order(x.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return x[a] < x[b] || (x[a] == x[b] && a < b); });
  std::vector<double> r(x.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    const double average = 0.5 * double(i + j);  // ties share their mean rank
    for (size_t k = i; k <= j; ++k) r[order[k]] = average;
    i = j + 1;
  }
  return r;
}

}  // namespace

double spearman(std::span<const double> x, std::span<const double> y) {
  const size_t n = x.size();
  if (n < 3 || y.size() != n) return 0.0;
  const std::vector<double> rx = ranks(x), ry = ranks(y);
  const double mean = 0.5 * double(n - 1);
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
}

Roughness landRoughness(const geodesy::SphereMesh& mesh, double radius_m,
                        std::span<const float> elevation_m, std::span<const uint8_t> land_mask) {
  Roughness r;
  double slope2 = 0.0, area = 0.0;
  for (size_t f = 0; f < mesh.faceCount(); ++f) {
    const uint32_t* v = &mesh.indices[3 * f];
    if (!land_mask[v[0]] || !land_mask[v[1]] || !land_mask[v[2]]) continue;
    // Gradient of the linear interpolant on the flat triangle (metres per metre).
    const glm::dvec3 p0 = glm::dvec3(mesh.positions[v[0]]) * radius_m;
    const glm::dvec3 e1 = glm::dvec3(mesh.positions[v[1]]) * radius_m - p0;
    const glm::dvec3 e2 = glm::dvec3(mesh.positions[v[2]]) * radius_m - p0;
    const glm::dvec3 n = glm::cross(e1, e2);
    const double n2 = glm::dot(n, n);
    if (n2 <= 0) continue;
    const double d1 = double(elevation_m[v[1]]) - elevation_m[v[0]];
    const double d2 = double(elevation_m[v[2]]) - elevation_m[v[0]];
    const glm::dvec3 g = (d1 * glm::cross(e2, n) + d2 * glm::cross(n, e1)) / n2;
    const double a = 0.5 * std::sqrt(n2);
    slope2 += glm::dot(g, g) * a;
    area += a;
  }
  r.rms_slope = area > 0 ? std::sqrt(slope2 / area) : 0.0;

  double curvature = 0.0;
  uint64_t count = 0;
  const double edge_m = mesh.mean_edge_length * radius_m;
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    if (!land_mask[v]) continue;
    const uint32_t begin = mesh.neighbour_offsets[v], end = mesh.neighbour_offsets[v + 1];
    double sum = 0.0;
    for (uint32_t k = begin; k < end; ++k) sum += elevation_m[mesh.neighbours[k]];
    // Umbrella Laplacian scaled by the mean edge length squared.
    curvature += std::abs(sum / double(end - begin) - elevation_m[v]) * 4.0 / (edge_m * edge_m);
    ++count;
  }
  r.mean_abs_curvature = count ? curvature / double(count) : 0.0;
  return r;
}

Drainage drainage(const geodesy::SphereMesh& mesh, double radius_m,
                  std::span<const float> elevation_m, std::span<const uint8_t> land_mask,
                  double threshold_area_m2) {
  const size_t n = mesh.vertexCount();
  const double r2 = radius_m * radius_m;
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> receiver(n, kNone);
  for (size_t v = 0; v < n; ++v) {
    if (!land_mask[v]) continue;
    float lowest = elevation_m[v];
    for (uint32_t k = mesh.neighbour_offsets[v]; k < mesh.neighbour_offsets[v + 1]; ++k) {
      const uint32_t u = mesh.neighbours[k];
      if (elevation_m[u] < lowest) lowest = elevation_m[u], receiver[v] = u;
    }
  }
  // Highest first, so every vertex has received all its inflow before passing it on.
  std::vector<uint32_t> order;
  for (size_t v = 0; v < n; ++v)
    if (land_mask[v]) order.push_back(uint32_t(v));
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return elevation_m[a] > elevation_m[b] || (elevation_m[a] == elevation_m[b] && a < b);
  });
  std::vector<double> accumulated(n, 0.0);
  for (uint32_t v : order) {
    accumulated[v] += mesh.vertex_areas[v] * r2;
    if (receiver[v] != kNone) accumulated[receiver[v]] += accumulated[v];
  }
  Drainage d;
  d.threshold_area_m2 = threshold_area_m2;
  // Lowest first: a channel vertex's length is its step to the receiver plus the receiver's.
  std::vector<double> length(n, 0.0);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const uint32_t v = *it;
    if (accumulated[v] <= threshold_area_m2) continue;
    ++d.channel_vertices;
    const uint32_t r = receiver[v];
    if (r != kNone && land_mask[r] && accumulated[r] > threshold_area_m2) {
      length[v] =
          length[r] +
          glm::distance(glm::dvec3(mesh.positions[v]), glm::dvec3(mesh.positions[r])) * radius_m;
    }
    d.longest_channel_m = std::max(d.longest_channel_m, length[v]);
  }
  return d;
}

std::vector<std::vector<uint32_t>> landMasses(const geodesy::SphereMesh& mesh,
                                              std::span<const uint8_t> land_mask) {
  const size_t n = mesh.vertexCount();
  std::vector<uint8_t> seen(n, 0);
  std::vector<std::vector<uint32_t>> masses;
  std::vector<double> areas;
  std::vector<uint32_t> stack;
  for (size_t start = 0; start < n; ++start) {
    if (!land_mask[start] || seen[start]) continue;
    std::vector<uint32_t> mass;
    double area = 0.0;
    stack.push_back(uint32_t(start));
    seen[start] = 1;
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      stack.pop_back();
      mass.push_back(v);
      area += mesh.vertex_areas[v];
      for (uint32_t k = mesh.neighbour_offsets[v]; k < mesh.neighbour_offsets[v + 1]; ++k) {
        const uint32_t u = mesh.neighbours[k];
        if (land_mask[u] && !seen[u]) seen[u] = 1, stack.push_back(u);
      }
    }
    std::sort(mass.begin(), mass.end());
    masses.push_back(std::move(mass));
    areas.push_back(area);
  }
  std::vector<size_t> order(masses.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return areas[a] > areas[b]; });
  std::vector<std::vector<uint32_t>> sorted;
  for (size_t i : order) sorted.push_back(std::move(masses[i]));
  return sorted;
}

}  // namespace metrics
