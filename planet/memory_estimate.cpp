#include "planet/memory_estimate.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

namespace planet {
namespace {

// Peak resident bytes measured with summary.json's peak_rss_bytes and wait4's ru_maxrss on
// one-knob variations of configs/default.toml (2 threads, Release; docs/reliability.md has the
// table). What the mesh and the per-vertex fields hold stays for the whole run; on top of it
// the rain stage (clouds' rain events, droplet spawns), the export stage (maps, cube faces,
// chunk nodes) and compare's globe renders come one after the other, so the peak is the
// largest of the three.
constexpr double kFixedBytes = 9.5 * 1024 * 1024;  // program, libraries, small buffers
// Each file being written holds a 4 MiB buffer (io::FileWriter): one per worker thread at a
// time in generate's export, and planet.obj keeps planet.mtl's open beside its own; compare
// writes one file at a time. (Left out, the estimate was 13 MiB for a run at f = 16 that
// peaked at 16.8 on 2 threads, 21.2 with OBJ.)
constexpr double kBytesPerFileInFlight = 4.0 * 1024 * 1024;
constexpr double kBytesPerVertex = 135.0;  // mesh, terrain, erosion, export buffers (generate)
constexpr double kCompareBytesPerVertex = 185.0;  // three planets share one mesh
constexpr double kBytesPerVertexPerThread = 8.0;  // each worker's change buffer (erosion)
constexpr double kBytesPerDroplet = 40.0;         // spawn list and its sorted copy
// The fluvial stage's routing, drainage and relief arrays while it runs, with the coarse
// levels' meshes, the coarse guide's warp and the drainage metrics (in the rain stage: gone
// before the export; a run at f = 160 peaks 84.6 MiB).
constexpr double kFluvialBytesPerVertex = 130.0;
// Per pixel of a width x width/2 map: the located grid all maps share (16 bytes) and the rest,
// plus each thread's map in flight (the maps are written concurrently, one per thread at a
// time): 93 MiB at 1 thread, 118 MiB at 2 for f = 16, map_width = 2560.
constexpr double kBytesPerMapPixel = 18.0;
constexpr double kBytesPerMapPixelPerThread = 8.0;
constexpr int kMapsInFlight = 12;  // at most this many maps and heightmaps are written at once
// Six 16-bit faces of size^2 (12 bytes), and the one being encoded to PNG.
constexpr double kBytesPerCubePixel = 19.0;
constexpr double kBytesPerChunk = 11000.0;   // a glTF node, mesh and accessors per chunk
constexpr double kBytesPerGlobePixel = 7.0;  // compare: one globe render at a time, after the maps
// Clouds: each epoch keeps the rain events of its clouds over land, about
// kCloudEventBytes * spawn_rate * ticks_per_epoch * lifetime^kCloudLifetimeExponent (longer-lived
// clouds reach further inland, so events grow faster than the number of clouds alive).
constexpr double kCloudEventBytes = 5.5;  // vectors grow by doubling: up to 2 x their size
constexpr double kCloudLifetimeExponent = 1.77;

// Land share before the terrain exists: what the ocean mode asks for, or half.
double landShare(const Config& c) {
  return c.ocean.mode == terrain::OceanMode::kFraction
             ? std::clamp(1.0 - c.ocean.fraction, 0.0, 1.0)
             : 0.5;
}

double dropletCount(const Config& c) {
  if (c.droplets.droplets > 0) return double(c.droplets.droplets);
  return c.droplets.droplets_per_land_vertex * double(icosphereVertexCount(c.planet.frequency)) *
         landShare(c);
}

// Clouds hand over one epoch's spawns at a time.
double dropletBytes(const Config& c) {
  const double epochs =
      c.weather.mode == RainMode::kClouds ? std::max(1, c.weather.clouds.epochs) : 1;
  return kBytesPerDroplet * dropletCount(c) / epochs;
}

double cloudBytes(const Config& c) {
  if (c.weather.mode != RainMode::kClouds) return 0.0;
  const double ticks_per_epoch =
      std::ceil(double(c.weather.clouds.ticks) / double(std::max(1, c.weather.clouds.epochs)));
  const double lifetime =
      std::min(double(c.weather.clouds.cloud_lifetime),
               double(c.weather.clouds.ticks) + double(c.weather.clouds.spinup_ticks));
  return kCloudEventBytes * c.weather.clouds.spawn_rate * ticks_per_epoch *
         std::pow(std::max(1.0, lifetime), kCloudLifetimeExponent);
}

enum class Stage { kWhole, kRain, kExport, kGlobes };

// A knob: how to read it, set it, and what it costs in which stage.
struct Knob {
  const char* name;
  std::function<double(const Config&)> get;
  std::function<void(Config&, double)> set;
  std::function<double(const Config&, int threads, RunKind)> bytes;
  double smallest;  // the least value the config accepts that still costs (for the search)
  bool integer;
  Stage stage;
};

std::vector<Knob> knobs() {
  return {
      {"[planet] frequency", [](const Config& c) { return double(c.planet.frequency); },
       [](Config& c, double v) { c.planet.frequency = int(v); },
       [](const Config& c, int threads, RunKind kind) {
         const double per_vertex =
             (kind == RunKind::kCompare ? kCompareBytesPerVertex : kBytesPerVertex) +
             kBytesPerVertexPerThread * threads;
         return per_vertex * double(icosphereVertexCount(c.planet.frequency));
       },
       1, true, Stage::kWhole},
      // The droplet budget is either explicit or, with droplets = 0, per land vertex (it then
      // grows with the frequency): the knob that sets it is the one named.
      {"[erosion] droplets", [](const Config& c) { return double(c.droplets.droplets); },
       [](Config& c, double v) { c.droplets.droplets = uint64_t(v); },
       [](const Config& c, int, RunKind) {
         return c.droplets.droplets > 0 ? dropletBytes(c) : 0.0;
       },
       1, true, Stage::kRain},
      {"[erosion] droplets_per_land_vertex",
       [](const Config& c) { return c.droplets.droplets_per_land_vertex; },
       [](Config& c, double v) { c.droplets.droplets_per_land_vertex = v; },
       [](const Config& c, int, RunKind) {
         return c.droplets.droplets == 0 ? dropletBytes(c) : 0.0;
       },
       0, false, Stage::kRain},
      {"[weather] spawn_rate", [](const Config& c) { return c.weather.clouds.spawn_rate; },
       [](Config& c, double v) { c.weather.clouds.spawn_rate = v; },
       [](const Config& c, int, RunKind) { return cloudBytes(c); },  // compare: one cloud run
       0, false, Stage::kRain},
      {"[export] map_width", [](const Config& c) { return double(c.output.map_width); },
       [](Config& c, double v) { c.output.map_width = int(v); },
       [](const Config& c, int threads, RunKind) {
         const double w = c.output.map_width;
         const double in_flight = double(std::clamp(threads, 1, kMapsInFlight));
         return (kBytesPerMapPixel + kBytesPerMapPixelPerThread * in_flight) * w *
                std::floor(w / 2);
       },
       2, true, Stage::kExport},
      {"[export] cube_size", [](const Config& c) { return double(c.output.cube_size); },
       [](Config& c, double v) { c.output.cube_size = int(v); },
       [](const Config& c, int, RunKind kind) {
         if (kind == RunKind::kCompare || !c.output.heightmaps) return 0.0;
         return kBytesPerCubePixel * double(c.output.cube_size) * double(c.output.cube_size);
       },
       0, true, Stage::kExport},
      {"[export] chunks", [](const Config& c) { return double(c.output.chunks); },
       [](Config& c, double v) { c.output.chunks = int(v); },
       [](const Config& c, int, RunKind kind) {
         if (kind == RunKind::kCompare || !c.output.glb) return 0.0;
         const double k = c.output.chunks;
         return kBytesPerChunk * 20.0 * k * k;
       },
       0, true, Stage::kExport},
      {"[compare] globe_size_px", [](const Config& c) { return double(c.compare.globe_size_px); },
       [](Config& c, double v) { c.compare.globe_size_px = int(v); },
       [](const Config& c, int, RunKind kind) {
         if (kind != RunKind::kCompare) return 0.0;
         const double s = c.compare.globe_size_px;
         return kBytesPerGlobePixel * s * s;
       },
       1, true, Stage::kGlobes},
  };
}

double totalBytes(const std::vector<Knob>& all, const Config& c, int threads, RunKind kind) {
  const double files_in_flight =
      kind == RunKind::kCompare
          ? 1.0
          : double(std::clamp(threads, 1, kMapsInFlight)) + (c.output.obj ? 1.0 : 0.0);
  const double fluvial =
      c.pipeline.fluvial ? kFluvialBytesPerVertex * double(icosphereVertexCount(c.planet.frequency))
                         : 0.0;
  double stage[4] = {kFixedBytes, fluvial, kBytesPerFileInFlight * files_in_flight, 0.0};
  for (const Knob& k : all) stage[int(k.stage)] += k.bytes(c, threads, kind);
  return stage[0] + std::max({stage[1], stage[2], stage[3]});
}

uint64_t toBytes(double bytes) {
  return bytes >= 1.8e19 ? std::numeric_limits<uint64_t>::max() : uint64_t(std::ceil(bytes));
}

std::string formatValue(double v, bool integer) {
  std::ostringstream out;
  if (integer) {
    out << uint64_t(v);
  } else {
    out.precision(4);
    out << v;
  }
  return out.str();
}

// The largest value of `knob` (at most its current value) whose run fits, or nullopt.
std::optional<double> largestFitting(const std::vector<Knob>& all, const Knob& knob,
                                     const Config& config, int threads, RunKind kind,
                                     double available) {
  Config c = config;
  const auto fits = [&](double v) {
    knob.set(c, v);
    return totalBytes(all, c, threads, kind) <= available;
  };
  double lo = knob.smallest, hi = knob.get(config);
  if (!fits(lo)) return std::nullopt;
  for (int i = 0; i < 200 && hi - lo > (knob.integer ? 1.0 : 1e-3 * std::max(1e-9, hi)); ++i) {
    const double mid = knob.integer ? std::floor(lo + (hi - lo) / 2) : lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

uint64_t icosphereVertexCount(int frequency) {
  const uint64_t f = uint64_t(std::max(frequency, 0));
  return 10 * f * f + 2;
}

uint64_t availableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

MemoryEstimate estimateMemory(const Config& config, int threads, RunKind kind) {
  const std::vector<Knob> all = knobs();
  threads = std::max(1, threads);
  MemoryEstimate e;
  e.required_bytes = toBytes(totalBytes(all, config, threads, kind));
  uint64_t available = availableMemoryBytes();
  if (config.limits.memory_cap_gib > 0.0) {
    // Any positive cap is a cap: rounded up to at least one byte, never to "none".
    const uint64_t cap =
        std::max<uint64_t>(1, toBytes(config.limits.memory_cap_gib * 1073741824.0));
    available = available ? std::min(available, cap) : cap;
  }
  e.available_bytes = available;
  for (const Knob& k : all) {
    MemoryTerm term{k.name, formatValue(k.get(config), k.integer),
                    toBytes(k.bytes(config, threads, kind)), ""};
    if (term.bytes == 0) continue;
    if (available > 0 && e.required_bytes > available) {
      if (const auto v = largestFitting(all, k, config, threads, kind, double(available)))
        term.fitting = formatValue(*v, k.integer);
    }
    e.terms.push_back(term);
  }
  std::sort(e.terms.begin(), e.terms.end(),
            [](const MemoryTerm& a, const MemoryTerm& b) { return a.bytes > b.bytes; });
  if (available > 0) {
    const auto f = largestFitting(all, all[0], config, threads, kind, double(available));
    e.largest_fitting_frequency = f ? int(*f) : 0;
    if (e.required_bytes <= available) e.largest_fitting_frequency = config.planet.frequency;
  }
  return e;
}

std::string describeLargestCosts(const MemoryEstimate& e) {
  if (e.terms.empty())
    return "the run's fixed costs alone are about " + std::to_string(e.required_bytes >> 20) +
           " MiB";
  std::ostringstream out;
  out << "the largest costs of this run are ";
  const uint64_t largest = e.terms.front().bytes;
  std::string sep;
  for (const MemoryTerm& t : e.terms) {
    if (t.bytes * 4 < largest) break;
    out << sep << t.knob << " = " << t.value << " (about " << (t.bytes >> 20) << " MiB)";
    sep = ", ";
  }
  out << "; lower " << e.terms.front().knob;
  return out.str();
}

std::string describeShortfall(const MemoryEstimate& e) {
  std::ostringstream out;
  out << "the run needs about " << (e.required_bytes >> 20) << " MiB but only "
      << (e.available_bytes >> 20) << " MiB";
  if (e.available_bytes < (1u << 20)) out << " (" << e.available_bytes << " bytes)";
  out << " are available (MemAvailable, or [limits] memory_cap_gib if smaller)";
  // The knobs that cost at least a quarter of the largest term, with what would fit.
  const uint64_t largest = e.terms.empty() ? 0 : e.terms.front().bytes;
  std::string sep = "; it goes to ";
  bool any_fitting = false;
  for (const MemoryTerm& t : e.terms) {
    if (t.bytes * 4 < largest) break;
    out << sep << t.knob << " = " << t.value << " (about " << (t.bytes >> 20) << " MiB";
    if (!t.fitting.empty()) {
      out << "; the largest that fits: " << t.fitting;
      any_fitting = true;
    }
    out << ")";
    sep = ", ";
  }
  if (!any_fitting) out << "; no single knob can be lowered enough: raise the cap or free memory";
  out << ".";
  return out.str();
}

}  // namespace planet
