#include "metrics/drainage_metrics.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <tuple>
#include <utility>

#include <glm/geometric.hpp>

namespace metrics {

using hydrology::kNoLake;

namespace {

// Least squares y = a + b x; theta = -b.
struct LineFit {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  uint64_t n = 0;
  void add(double x, double y) { sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y, ++n; }
  // {theta, r2}; zeros when fewer than 3 points or no spread.
  std::pair<double, double> result() const {
    if (n < 3) return {0.0, 0.0};
    const double k = double(n);
    const double cov = sxy - sx * sy / k, vx = sxx - sx * sx / k, vy = syy - sy * sy / k;
    if (vx <= 0.0 || vy <= 0.0) return {0.0, 0.0};
    return {-cov / vx, cov * cov / (vx * vy)};
  }
};

}  // namespace

SlopeAreaFit slopeAreaFit(std::span<const double> log_area, std::span<const double> log_slope) {
  SlopeAreaFit fit;
  if (log_area.empty()) return fit;
  LineFit vertices;
  double lowest = log_area[0], highest = log_area[0];
  for (size_t i = 0; i < log_area.size(); ++i) {
    vertices.add(log_area[i], log_slope[i]);
    lowest = std::min(lowest, log_area[i]);
    highest = std::max(highest, log_area[i]);
  }
  std::tie(fit.vertex_theta, fit.vertex_r2) = vertices.result();
  const auto bins = size_t((highest - lowest) / kSlopeAreaBinDecades) + 1;
  std::vector<LineFit> bin(bins);
  for (size_t i = 0; i < log_area.size(); ++i) {
    const auto b = std::min(bins - 1, size_t((log_area[i] - lowest) / kSlopeAreaBinDecades));
    bin[b].add(log_area[i], log_slope[i]);
  }
  LineFit means;
  for (const LineFit& b : bin) {
    if (b.n < kSlopeAreaMinBin) continue;
    means.add(b.sx / double(b.n), b.sy / double(b.n));
  }
  fit.bins = means.n;
  std::tie(fit.theta, fit.r2) = means.result();
  return fit;
}

DrainageNetwork drainageOf(const DrainageInput& in) {
  const geodesy::SphereMesh& mesh = *in.mesh;
  const size_t n = mesh.vertexCount();
  DrainageNetwork d;
  hydrology::RoutingParams rp;
  rp.seed = in.seed;
  d.routing = hydrology::routeFlow(mesh, in.elevation_m, in.sea_level_m, rp);
  const double r2 = in.radius_m * in.radius_m;
  double rain_sum = 0.0, land_area = 0.0;
  for (uint32_t v : d.routing.order) {
    const double rain = in.rainfall.empty() ? 1.0 : double(in.rainfall[v]);
    rain_sum += rain * mesh.vertex_areas[v];
    land_area += mesh.vertex_areas[v];
  }
  const double mean_rain = land_area > 0.0 && rain_sum > 0.0 ? rain_sum / land_area : 1.0;
  std::vector<double> local(n, 0.0);
  for (uint32_t v : d.routing.order) {
    const double rain = in.rainfall.empty() ? 1.0 : double(in.rainfall[v]);
    local[v] = rain / mean_rain * mesh.vertex_areas[v] * r2;
  }
  d.area_m2 = hydrology::accumulate(d.routing, local);
  std::vector<double> plain(n, 0.0);
  for (uint32_t v : d.routing.order) plain[v] = mesh.vertex_areas[v] * r2;
  d.plain_area_m2 = hydrology::accumulate(d.routing, plain);

  // A lake's catchment is what reaches the vertex that leaves it (the largest area inside).
  const auto& lakes = d.routing.lakes;
  std::vector<double> catchment(lakes.size(), 0.0);
  for (uint32_t v : d.routing.order) {
    const uint32_t l = d.routing.lake_of[v];
    if (l != kNoLake) catchment[l] = std::max(catchment[l], d.area_m2[v]);
  }
  d.endorheic.assign(lakes.size(), 0);
  for (size_t l = 0; l < lakes.size(); ++l)
    d.endorheic[l] = catchment[l] < in.lake_evaporation * lakes[l].area_sr * r2;

  d.reaches_sea.assign(n, 0);
  for (size_t v = 0; v < n; ++v) d.reaches_sea[v] = double(in.elevation_m[v]) < in.sea_level_m;
  for (uint32_t v : d.routing.order) {
    const uint32_t r = d.routing.receiver[v];
    if (r == v) continue;
    const uint32_t l = d.routing.lake_of[v];
    const bool leaves_lake = l != kNoLake && d.routing.lake_of[r] != l;
    d.reaches_sea[v] = leaves_lake && d.endorheic[l] ? 0 : d.reaches_sea[r];
  }
  return d;
}

namespace {

// A channel vertex's depth below the mean of its 1-ring (the sea counts at its level).
double channelDepthM(const DrainageInput& in, uint32_t v) {
  const geodesy::SphereMesh& mesh = *in.mesh;
  double ring = 0.0;
  const uint32_t b = mesh.neighbour_offsets[v], e = mesh.neighbour_offsets[v + 1];
  for (uint32_t k = b; k < e; ++k)
    ring += std::max(double(in.elevation_m[mesh.neighbours[k]]), in.sea_level_m);
  return ring / double(e - b) - double(in.elevation_m[v]);
}

}  // namespace

DrainageMetrics drainageMetrics(const DrainageInput& in, const DrainageNetwork& d,
                                std::span<const uint8_t> mask) {
  const geodesy::SphereMesh& mesh = *in.mesh;
  const auto& rt = d.routing;
  const double r2 = in.radius_m * in.radius_m;
  const double sea = in.sea_level_m;
  auto counted = [&](uint32_t v) { return mask.empty() || mask[v]; };
  DrainageMetrics m;
  double land_area = 0.0, sea_area = 0.0;
  for (uint32_t v : rt.order) {
    if (!counted(v)) continue;
    m.land_vertices += 1;
    land_area += mesh.vertex_areas[v];
    if (d.reaches_sea[v]) sea_area += mesh.vertex_areas[v];
  }
  m.drains_to_sea = land_area > 0.0 ? sea_area / land_area : 0.0;

  uint64_t pits = 0;
  for (size_t l = 0; l < rt.lakes.size(); ++l) {
    const hydrology::Lake& lake = rt.lakes[l];
    if (!counted(lake.lowest)) continue;
    if (lake.vertex_count < kMinLakeVertices) {
      pits += lake.max_depth_m > kPitDepthM;
      continue;
    }
    m.lakes += 1;
    m.endorheic_lakes += d.endorheic[l];
    m.lake_area_km2 += lake.area_sr * r2 * 1e-6;
  }
  m.pits_per_10k = m.land_vertices > 0 ? 1e4 * double(pits) / double(m.land_vertices) : 0.0;

  // Channels: rain-weighted drainage area of at least kChannelAreaCells mean vertex areas.
  const double threshold = kChannelAreaCells * meanCellAreaM2(mesh, in.radius_m);
  double depth = 0, length_m = 0;
  uint64_t valleys = 0;
  std::vector<double> log_area, log_slope;
  for (uint32_t v : rt.order) {
    if (!counted(v) || rt.lake_of[v] != kNoLake) continue;
    // Valley depth on the channels of the ground (drainage area, whatever the rain), so that a
    // wet and a dry region are compared over the same kind of valleys.
    if (d.plain_area_m2[v] >= threshold) {
      depth += channelDepthM(in, v);
      valleys += 1;
    }
    if (d.area_m2[v] < threshold) continue;
    m.channel_vertices += 1;
    const uint32_t r = rt.receiver[v];
    if (r == v) continue;
    const glm::vec3 dv = mesh.positions[v] - mesh.positions[r];
    const double dist =
        std::sqrt(double(dv.x) * dv.x + double(dv.y) * dv.y + double(dv.z) * dv.z) * in.radius_m;
    length_m += dist;
    const double slope =
        (double(in.elevation_m[v]) - std::max(double(in.elevation_m[r]), sea)) / dist;
    if (slope <= 0.0) continue;
    log_area.push_back(std::log10(d.area_m2[v]));
    log_slope.push_back(std::log10(slope));
  }
  if (valleys > 0) m.mean_channel_depth_m = depth / double(valleys);
  if (land_area > 0.0)
    m.channel_length_km_per_1000km2 = (length_m * 1e-3) / (land_area * r2 * 1e-9);
  const SlopeAreaFit fit = slopeAreaFit(log_area, log_slope);
  m.slope_area_theta = fit.theta;
  m.slope_area_r2 = fit.r2;
  m.slope_area_vertex_theta = fit.vertex_theta;
  m.slope_area_vertex_r2 = fit.vertex_r2;
  return m;
}

CoastChange coastChange(std::span<const float> before_m, std::span<const float> after_m,
                        double sea_level_m) {
  CoastChange c;
  uint64_t land = 0, moved = 0;
  for (size_t v = 0; v < before_m.size(); ++v) {
    const bool was_land = double(before_m[v]) >= sea_level_m;
    land += was_land;
    moved += was_land != (double(after_m[v]) >= sea_level_m);
    c.former_sea_raised_100m += !was_land && double(after_m[v]) > sea_level_m + 100.0;
  }
  c.coastline_moved = land > 0 ? double(moved) / double(land) : 0.0;
  return c;
}

}  // namespace metrics

namespace metrics {

namespace {

// Vertex indices ordered by key, ties by index: a strict total order, so the first k of a
// range are the same set however they were found (deterministic).
struct ByKeyThenIndex {
  std::span<const float> key;
  bool operator()(uint32_t a, uint32_t b) const {
    return key[a] < key[b] || (key[a] == key[b] && a < b);
  }
};

}  // namespace

// Only the sets matter (bands, quarters), not the order inside them: selection (nth_element)
// finds them in linear time where a sort took n log n.
QuarterMasks rainQuarterMasks(std::span<const uint32_t> land_vertices, size_t vertices,
                              std::span<const float> split_rain,
                              std::span<const float> band_elevation, int bands) {
  std::vector<uint32_t> land(land_vertices.begin(), land_vertices.end());
  if (band_elevation.empty()) bands = 1;
  const auto bandStart = [&](int b) {
    return land.begin() + ptrdiff_t(land.size() * size_t(b) / size_t(bands));
  };
  for (int b = 1; b < bands; ++b) {
    std::nth_element(bandStart(b - 1), bandStart(b), land.end(), ByKeyThenIndex{band_elevation});
  }
  QuarterMasks masks{std::vector<uint8_t>(vertices, 0), std::vector<uint8_t>(vertices, 0)};
  for (int b = 0; b < bands; ++b) {
    const auto first = bandStart(b), last = bandStart(b + 1);
    const ptrdiff_t quarter = (last - first) / 4;
    if (quarter == 0) continue;
    std::nth_element(first, first + quarter, last, ByKeyThenIndex{split_rain});
    std::nth_element(first + quarter, last - quarter, last, ByKeyThenIndex{split_rain});
    for (ptrdiff_t i = 0; i < quarter; ++i) {
      masks.driest[*(first + i)] = uint8_t(b + 1);
      masks.wettest[*(last - 1 - i)] = uint8_t(b + 1);
    }
  }
  return masks;
}

RainQuarters rainQuarters(const DrainageInput& input, const DrainageNetwork& drainage,
                          std::span<const float> split_rain,
                          std::span<const float> band_elevation) {
  const QuarterMasks masks = rainQuarterMasks(drainage.routing.order, input.mesh->vertexCount(),
                                              split_rain, band_elevation, kElevationBands);
  RainQuarters q{drainageMetrics(input, drainage, masks.wettest),
                 drainageMetrics(input, drainage, masks.driest)};
  if (band_elevation.empty()) return q;
  // Within bands: each quarter's mean channel depth is the mean over the bands of its mean in
  // each, weighted alike for both quarters by the channel vertices of both in the band. The
  // quarters hold the same land of each band, not the same channels: pooled, the quarter whose
  // channels lie more in the high bands (deeper valleys there) reads deeper whatever the rain.
  struct Band {
    double depth[2] = {0.0, 0.0};
    uint64_t count[2] = {0, 0};
  };
  std::vector<Band> bands(kElevationBands);
  const double threshold = kChannelAreaCells * meanCellAreaM2(*input.mesh, input.radius_m);
  for (const uint32_t v : drainage.routing.order) {
    const uint8_t band = masks.wettest[v] ? masks.wettest[v] : masks.driest[v];
    if (band == 0 || drainage.routing.lake_of[v] != kNoLake ||
        drainage.plain_area_m2[v] < threshold)
      continue;
    const int part = masks.wettest[v] ? 0 : 1;
    bands[band - 1].depth[part] += channelDepthM(input, v);
    bands[band - 1].count[part] += 1;
  }
  double weights = 0.0, wettest = 0.0, driest = 0.0;
  for (const Band& b : bands) {
    if (b.count[0] == 0 || b.count[1] == 0) continue;
    const double w = double(b.count[0] + b.count[1]);
    weights += w;
    wettest += w * b.depth[0] / double(b.count[0]);
    driest += w * b.depth[1] / double(b.count[1]);
  }
  q.wettest.mean_channel_depth_m = weights > 0.0 ? wettest / weights : 0.0;
  q.driest.mean_channel_depth_m = weights > 0.0 ? driest / weights : 0.0;
  return q;
}

}  // namespace metrics

namespace metrics {

std::vector<float> waterStrength(const DrainageInput& input, const DrainageNetwork& drainage) {
  const geodesy::SphereMesh& mesh = *input.mesh;
  const double threshold = kChannelAreaCells * meanCellAreaM2(mesh, input.radius_m);
  std::vector<float> water(mesh.vertexCount(), 0.0f);
  for (uint32_t v : drainage.routing.order) {
    if (drainage.routing.lake_of[v] != kNoLake) {
      water[v] = 1.0f;
    } else if (drainage.area_m2[v] >= threshold) {
      water[v] = float(std::min(1.0, 0.35 + 0.3 * std::log10(drainage.area_m2[v] / threshold)));
    }
  }
  return water;
}

}  // namespace metrics

namespace metrics {

namespace {

double chordM(const geodesy::SphereMesh& mesh, uint32_t a, uint32_t b, double radius_m) {
  const glm::vec3 d = mesh.positions[a] - mesh.positions[b];
  return std::sqrt(double(d.x) * d.x + double(d.y) * d.y + double(d.z) * d.z) * radius_m;
}

glm::dvec3 stepDirection(const geodesy::SphereMesh& mesh, uint32_t from, uint32_t to) {
  const glm::dvec3 d = glm::dvec3(mesh.positions[to]) - glm::dvec3(mesh.positions[from]);
  return d / std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
}

}  // namespace

SteepestDescent steepestDescent(const geodesy::SphereMesh& mesh, std::span<const float> h,
                                double sea_level_m) {
  const size_t n = mesh.vertexCount();
  SteepestDescent sd;
  sd.receiver.resize(n);
  for (uint32_t v = 0; v < n; ++v) {
    sd.receiver[v] = v;
    if (double(h[v]) < sea_level_m) continue;
    sd.order.push_back(v);
    double best = 0.0;
    for (uint32_t k = mesh.neighbour_offsets[v]; k < mesh.neighbour_offsets[v + 1]; ++k) {
      const uint32_t m = mesh.neighbours[k];
      if (!(h[m] < h[v])) continue;
      const double slope = (double(h[v]) - double(h[m])) / chordM(mesh, v, m, 1.0);
      if (slope > best) best = slope, sd.receiver[v] = m;
    }
  }
  std::sort(sd.order.begin(), sd.order.end(),
            [&](uint32_t a, uint32_t b) { return h[a] < h[b] || (h[a] == h[b] && a < b); });
  return sd;
}

StraightRuns straightRuns(const geodesy::SphereMesh& mesh, std::span<const uint32_t> receiver,
                          std::span<const uint32_t> order, std::span<const uint8_t> channel) {
  const double straight = std::cos(kStraightTurnDeg * std::numbers::pi / 180.0);
  const size_t n = receiver.size();
  auto stepsOn = [&](uint32_t v) { return channel[v] && receiver[v] != v; };
  // Does v's step continue straight into its receiver's step?
  auto continues = [&](uint32_t v) {
    const uint32_t r = receiver[v];
    if (!stepsOn(r)) return false;
    return glm::dot(stepDirection(mesh, v, r), stepDirection(mesh, r, receiver[r])) > straight;
  };
  // down[v]: steps of the straight chain from v's step downstream; up[v]: ending at v's step.
  // `order` has receivers before donors: down from the front, up from the back.
  std::vector<uint32_t> down(n, 0), up(n, 0);
  for (uint32_t v : order) {
    if (!stepsOn(v)) continue;
    down[v] = 1 + (continues(v) ? down[receiver[v]] : 0);
  }
  for (size_t i = order.size(); i-- > 0;) {
    const uint32_t v = order[i];
    if (!stepsOn(v)) continue;
    up[v] = std::max(up[v], 1u);
    if (continues(v)) up[receiver[v]] = std::max(up[receiver[v]], up[v] + 1);
  }
  StraightRuns runs;
  uint64_t long_runs = 0;
  for (uint32_t v : order) {
    if (!stepsOn(v)) continue;
    const uint64_t length = uint64_t(up[v]) + down[v] - 1;
    runs.steps += 1;
    long_runs += length > kStraightRunSteps;
    runs.longest = std::max(runs.longest, length);
  }
  runs.share = runs.steps > 0 ? double(long_runs) / double(runs.steps) : 0.0;
  return runs;
}

std::vector<double> steepestArea(const geodesy::SphereMesh& mesh, const SteepestDescent& descent,
                                 double scale) {
  std::vector<double> area(mesh.vertexCount(), 0.0);
  for (const uint32_t v : descent.order) area[v] = mesh.vertex_areas[v] * scale;
  for (size_t i = descent.order.size(); i-- > 0;) {
    const uint32_t v = descent.order[i];
    if (descent.receiver[v] != v) area[descent.receiver[v]] += area[v];
  }
  return area;
}

SteepestMetrics steepestMetrics(const DrainageInput& in, const DrainageNetwork& d) {
  const geodesy::SphereMesh& mesh = *in.mesh;
  const size_t n = mesh.vertexCount();
  const std::span<const float> h = in.elevation_m;
  const double sea = in.sea_level_m;
  const SteepestDescent sd = steepestDescent(mesh, h, sea);
  const auto& rt = d.routing;
  auto inLake = [&](uint32_t v) {
    const uint32_t l = rt.lake_of[v];
    return l != kNoLake && rt.lakes[l].vertex_count >= kMinLakeVertices;
  };
  SteepestMetrics m;
  // Where each walk ends, receivers first: a vertex ends where its receiver ends.
  std::vector<uint8_t> arrives(n, 0);
  const double r2 = in.radius_m * in.radius_m;
  double land_area = 0.0, arriving_area = 0.0;
  uint64_t sinks = 0;
  for (uint32_t v : sd.order) {
    const uint32_t r = sd.receiver[v];
    if (r == v) {
      arrives[v] = inLake(v);
      sinks += !inLake(v);
    } else {
      arrives[v] = double(h[r]) < sea ? 1 : arrives[r];
    }
    land_area += mesh.vertex_areas[v];
    if (arrives[v]) arriving_area += mesh.vertex_areas[v];
  }
  m.reaches_sea_or_lake = land_area > 0.0 ? arriving_area / land_area : 0.0;
  m.sinks_per_10k = sd.order.empty() ? 0.0 : 1e4 * double(sinks) / double(sd.order.size());
  const std::vector<double> area = steepestArea(mesh, sd, r2);
  const double threshold = kChannelAreaCells * meanCellAreaM2(mesh, in.radius_m);
  std::vector<uint8_t> channel(n, 0);
  std::vector<double> log_area, log_slope;
  for (uint32_t v : sd.order) {
    if (area[v] < threshold || inLake(v)) continue;
    channel[v] = 1;
    m.channel_vertices += 1;
    const uint32_t r = sd.receiver[v];
    if (r == v) continue;
    const double slope =
        (double(h[v]) - std::max(double(h[r]), sea)) / chordM(mesh, v, r, in.radius_m);
    if (slope <= 0.0) continue;
    log_area.push_back(std::log10(area[v]));
    log_slope.push_back(std::log10(slope));
  }
  const SlopeAreaFit fit = slopeAreaFit(log_area, log_slope);
  m.slope_area_theta = fit.theta;
  m.slope_area_r2 = fit.r2;
  m.straight = straightRuns(mesh, sd.receiver, sd.order, channel);
  return m;
}

std::vector<uint8_t> highestLand(std::span<const float> initial_m, double sea_level_m,
                                 double share) {
  std::vector<uint32_t> land;
  for (uint32_t v = 0; v < initial_m.size(); ++v)
    if (double(initial_m[v]) >= sea_level_m) land.push_back(v);
  const auto count = size_t(std::llround(share * double(land.size())));
  std::vector<uint8_t> mask(initial_m.size(), 0);
  if (count == 0) return mask;
  const auto higher = [&](uint32_t a, uint32_t b) {
    return initial_m[a] > initial_m[b] || (initial_m[a] == initial_m[b] && a < b);
  };
  std::nth_element(land.begin(), land.begin() + ptrdiff_t(count - 1), land.end(), higher);
  for (size_t i = 0; i < count; ++i) mask[land[i]] = 1;
  return mask;
}

double shareWithin(std::span<const float> initial_m, std::span<const float> final_m,
                   std::span<const uint8_t> mask, double tolerance_m) {
  uint64_t counted = 0, within = 0;
  for (size_t v = 0; v < mask.size(); ++v) {
    if (!mask[v]) continue;
    counted += 1;
    within += std::abs(double(final_m[v]) - double(initial_m[v])) <= tolerance_m;
  }
  return counted > 0 ? double(within) / double(counted) : 0.0;
}

}  // namespace metrics
