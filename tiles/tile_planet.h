#pragma once
// What the tile generator takes: the planet as plain data (the planet module fills it from its
// state or a planet file) and the tile parameters. No type of the planet module appears here.

#include <cstdint>
#include <span>

#include "erosion/lattice_droplets.h"
#include "erosion/window_stream_power.h"
#include "geodesy/sphere_mesh.h"
#include "tiles/detail_noise.h"

namespace tiles {

struct TilePlanet {
  int frequency = 0;  // the planet's icosphere frequency f
  geodesy::Spacing spacing = geodesy::Spacing::kSineWeights;
  double radius_m = 6371000.0;
  double sea_level_m = 0.0;
  // Per planet vertex, numbered like geodesy::buildIcosphere(f): the planet's final (eroded)
  // ground elevation in metres above radius_m. 10 f^2 + 2 values.
  std::span<const float> elevation_m;
  // Optional (empty or one value per vertex): the water surface, above the ground where a lake
  // lies (hydrology::FlowRouting::water_level_m). Lake beds get less detail.
  std::span<const float> water_level_m;
  // The terrain's detail fBm, which the tiles continue above the planet's resolution.
  NoiseSpectrum spectrum;
  // For erosion at the tiles' own scales (TileErosionParams), optional (empty or one value per
  // vertex): the rain that fell on the planet (any unit, e.g. its droplets per steradian;
  // empty = the same everywhere) and where each vertex drains (hydrology::FlowRouting::
  // receiver: itself at an outlet; empty = no river enters a window from outside).
  std::span<const float> rainfall;
  std::span<const uint32_t> receiver;
};

// How the detail above the planet's resolution is shaped by what the planet knows. Its
// amplitude at the planet's own spacing, per vertex, is relief_roughness times the local relief
// (highest minus lowest elevation of the vertex and its ring), so steep slopes get more, then
// scaled down on valley floors, lake beds and the sea floor; finer octaves fall off with the
// terrain's persistence.
struct DetailParams {
  bool enabled = true;
  double relief_roughness = 0.5;  // amplitude at the planet spacing per metre of local relief
  double valley_floor = 0.3;      // factor at the bottom of a valley (concave vertex), in [0, 1]
  double lake_bed = 0.2;          // factor under a lake, in [0, 1]
  double sea_floor = 0.5;         // factor below sea level, in [0, 1]
  // Amplitude exponent of the finer octaves: amplitude ~ wavelength^hurst. 0: the terrain's
  // own, -log(persistence) / log(lacunarity) (1 for the usual 0.5 and 2: every octave as steep
  // as the last). Below 1, slopes grow toward small scales as on real mountains; 0.7 is what
  // elevation models of mountains measure from tens of metres to kilometres (docs/tiles.md).
  double hurst = 0.7;
};

// Which rain erodes the tiles: the planet's own (its clouds' or its uniform rain, as it was
// made), or the same rain everywhere (the planet's mean over land): the weather-versus-uniform
// question asked of a region.
enum class TileRain : uint8_t { kPlanet, kUniform };

// Erosion at every level finer than the planet (docs/tile_erosion.md): each
// level's surface is eroded on windows wider than a tile, by stream power, hillslope diffusion
// and talus, then droplets, at that level's own lattice spacing, and the windows are blended
// by a partition of unity, so tiles stay exact at their seams.
struct TileErosionParams {
  bool enabled = false;
  TileRain rain = TileRain::kPlanet;
  // Windows sit at the tile corners of level L + window_subdivision (0 or more), C =
  // T / 2^window_subdivision steps apart. A window's bump in the blend has a radius of
  // bump_fraction C (over 0.6: every point lies within C / sqrt(3) = 0.577 C of some window's
  // centre; at most sqrt(3)/2, the inradius of the window's core hexagon, and at most one step
  // inside it), and the window erodes the disk of its bump, one step more and a halo of `halo`
  // lattice steps, the reach of the erosion. 2, 0.62 and 12: C = 64 and a disk of 52.7 steps
  // at T = 256. With C = 128 (window_subdivision 1, a disk of 92.4 steps) an uncached tile
  // took 0.34 s instead of 0.21 s, 0.73 s instead of 0.44 s with the relief levels (2 threads):
  // each level's windows must cover the disks of the next finer level's, and large ones held
  // far more points than those read. Erosion without the relief levels measures about the same
  // either way (docs/tile_erosion.md, "Smaller windows", "Disks" and "Windows a quarter of a
  // tile apart").
  int window_subdivision = 2;
  int halo = 12;
  double bump_fraction = 0.62;
  // Levels whose spacing is below min_spacing_m take the coarser levels' erosion,
  // interpolated, and add none of their own. Levels whose spacing is above max_spacing_m do
  // not erode: the droplets and hillslopes work in spacings (heights over spacing), so their
  // depths grow with the spacing, and at the 6.9 km level of an Earth-sized planet they buried
  // whole valleys (change rms 389 m on a 30 m tile eroded from level 2 down).
  double min_spacing_m = 1.0;
  double max_spacing_m = 100.0;
  // Relief levels (an option, off): with `relief`, the levels coarser than max_spacing_m whose
  // spacing is at most relief_max_spacing_m build the ground's drained relief and nothing else:
  // `relief_steady_state`, hung hillslopes (erosion/window_stream_power.h), on the level's own
  // routing, hung from the planet's rivers, its change at the planet's scale taken away (the
  // planet's surface stays the mean) and smoothed; no incision, hillslopes, droplets or river
  // channels. What a level carries down to the next is then smooth (the butterfly stencil,
  // tiles/detail/butterfly.h, instead of the parent edge's mean, which is linear over the
  // parent's triangles and creases along coarser lattice lines, every tile edge among them).
  // Valleys of a kilometre and more then fall with their drainage area inside the planet's
  // triangles (docs/tile_erosion.md, "Relief levels"; on earthlike the levels of 430, 215 and
  // 108 m).
  bool relief = false;
  double relief_max_spacing_m = 500.0;
  int relief_smoothing = 1;  // passes of x <- (x + ring mean) / 2 over a relief level's change
  // A relief level's change loses its mean over boxes of relief_low_pass_edges of a planet
  // edge (in (0, 1]), so the planet's surface stays the mean of the tiles; levels where that is
  // under 2 lattice steps are not relief levels. An eighth moves the mean ground of the small
  // world's planet triangles by at most 0.047 of their relief (a quarter: 0.154) and hides the
  // tile edges at earthlike's 90th-percentile range (1.00 times the contrast inside; a
  // quarter: 1.15; docs/tile_erosion.md, "The relief's low pass").
  double relief_low_pass_edges = 0.125;
  // A relief level's change has at most this times the rms of the ground's own relief at the
  // same scales (its part below the same low pass), per window; 0: no limit.
  double relief_amplitude = 1.0;
  // A point hangs from the first channel at most reach_steps down its path, else from the
  // ground there: 12, the halo, so a point of a window's bump hangs from its own path and
  // never from the window's rim (hung up to 40 steps, ground far from channels rose inside
  // each window and sank at its rim, and the blend kept the rise: a rainless plateau 25 m up
  // at the median with C = 128, 46 m with C = 64). The hillslopes' areas are spread over
  // their lower neighbours (slope^1.1, Freeman 1991): with one receiver each, parallel paths
  // that merge by chance hung stripes down the slopes, and on earthlike's steepest range under
  // uniform rain the tile edges showed (1.292 times the contrast inside; spread 1.026).
  erosion::SteadyStateParams relief_steady_state{.enabled = true,
                                                 .mode = erosion::SteadyStateMode::kHang,
                                                 .steepness_m = 200.0,
                                                 .max_slope = 1.0,
                                                 .reach_steps = 12,
                                                 .channel_cells = 1000.0,
                                                 .spread_exponent = 1.1};
  // Stream power (erosion/window_stream_power.h), dimensionless per level.
  // The steady state of stream power at the level's scale (off by default: on the rough
  // synthetic planet of the tests its carve shows the tile edges, 1.27 times the contrast
  // inside), or else one implicit incision step of stream_power.
  erosion::SteadyStateParams steady_state{.enabled = false};
  erosion::StreamPowerParams stream_power;
  erosion::HillslopeParams hillslope;
  double receiver_jitter = 0.3;
  // Droplets per lattice point at the mean land rain, the water they stand for (the depth of
  // runoff over the time eroded, at the mean land rain, divided among a point's droplets) and
  // their law (metric: the same water wears the same depth at every level).
  double droplets_per_point = 0.3;
  // The wear and deposition masks: every process's lowering and raising of this level (false),
  // or the droplets' alone (true: what they wore and laid, the splat of gullies and fans).
  bool droplet_masks = false;
  double runoff_m = 20.0;
  // A droplet runs at most 1 km here (the law's own default is 2 km): the longer runs cost
  // 30 % more CPU and measured the same. It takes 1e-4 of its capacity's deficit per metre
  // (the law's default 0.01, which fills a droplet within a few steps of where it starts):
  // limited by detachment, its wear follows its capacity along the drainage lines instead of
  // gathering where droplets start (docs/tile_erosion.md, "Detachment-limited droplets").
  erosion::LatticeDropletParams droplets{.erosion_per_m = 1e-4, .max_length_m = 1000.0};
  // Droplets that can no longer reach the disk of their window's bump (the only part of a
  // window read) stop, and those that cannot from where they start do not run: 6 % less CPU
  // on earthlike's steepest range with the halo of 20, realism measures the same to their
  // noise (docs/tile_erosion.md).
  bool droplets_reach_bump = true;
  // The planet's rivers enter a window where their drainage area is at least this many planet
  // cells (rain-weighted, as rivers.geojson's threshold).
  double river_cells = 50.0;
  // Their channels: depth channel_depth_m * Q^0.4 (Q in m^3/s: the rain-weighted drainage area
  // times river_runoff_mm_per_yr, as rivers.geojson's discharge; 0.5: 2.4 m at 50 m^3/s, 20 m
  // at 60,000) along the line, half of it beside; 0: no channel carved.
  double channel_depth_m = 0.5;
  double river_runoff_mm_per_yr = 300.0;
  // Their width, channel_width_coefficient * Q^0.5 as [rivers] width_coefficient (28 m at 50
  // m^3/s), sets their meanders: a river's course bends about the planet edge it follows with
  // a wavelength of 11 widths (tiles/detail/river_course.h).
  double channel_width_coefficient = 4.0;
  // Bytes of eroded windows kept for reuse by later tiles (results do not depend on it).
  size_t cache_bytes = size_t(256) << 20;
};

struct TileParams {
  // Requested lattice steps per tile edge (TileLayout derives the actual T from the planet's
  // frequency: the largest o 2^k <= this, o the odd part of f).
  int tile_edge = 256;
  DetailParams detail;
  TileErosionParams erosion;
};

}  // namespace tiles
