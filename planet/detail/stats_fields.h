#pragma once
// The fields of the stages' statistics, each listed once by name: summary.json's "fluvial" and
// "weather" sections and the planet file's statistics are written (and read back) from these
// lists. A new field of a stats struct goes into its list here.

#include <nlohmann/json.hpp>

#include "erosion/droplet_erosion.h"
#include "erosion/fluvial.h"
#include "weather/cloud_simulation.h"

namespace planet {

// Calls visit(name, field) for every field of the stats struct, in a fixed order.
template <typename Stats, typename Visit>
void forEachStatsField(Stats& e, Visit&& visit) requires
    std::is_same_v<std::remove_const_t<Stats>, erosion::ErosionStats> {
  visit("eroded_volume_m3", e.eroded_volume_m3);
  visit("deposited_volume_m3", e.deposited_volume_m3);
  visit("carried_out_volume_m3", e.carried_out_volume_m3);
  visit("mass_error", e.mass_error);
  visit("droplets", e.droplets);
  visit("droplet_steps", e.droplet_steps);
  visit("mean_steps", e.mean_steps);
  visit("ended_dried", e.ended_dried);
  visit("ended_lifetime", e.ended_lifetime);
  visit("ended_sea", e.ended_sea);
  visit("ended_flat", e.ended_flat);
  visit("ended_channel", e.ended_channel);
}

template <typename Stats, typename Visit>
void forEachStatsField(Stats& f, Visit&& visit) requires
    std::is_same_v<std::remove_const_t<Stats>, erosion::FluvialStats> {
  visit("routings", f.routings);
  visit("uplift_over_erodibility", f.uplift_over_erodibility);
  visit("endorheic_lakes", f.endorheic_lakes);
  visit("hillslope_share", f.hillslope_share);
  visit("filled_m3", f.filled_m3);
  visit("talus_lowered_m3", f.talus_lowered_m3);
  visit("relief_change_m3", f.relief_change_m3);
}

template <typename Stats, typename Visit>
void forEachStatsField(Stats& w, Visit&& visit) requires
    std::is_same_v<std::remove_const_t<Stats>, weather::WeatherStats> {
  visit("ticks", w.ticks);
  visit("clouds_spawned", w.clouds_spawned);
  visit("clouds_dissipated_dry", w.clouds_dissipated_dry);
  visit("clouds_dissipated_lifetime", w.clouds_dissipated_lifetime);
  visit("max_clouds_alive", w.max_clouds_alive);
  visit("rain_land", w.rain_land);
  visit("rain_ocean", w.rain_ocean);
  visit("droplets", w.droplets);
  visit("droplets_fallback", w.droplets_fallback);
}

// {"name": value, ...} of a stats struct, in its list's order.
template <typename Stats>
nlohmann::json statsJson(const Stats& stats) {
  nlohmann::json j = nlohmann::json::object();
  forEachStatsField(stats, [&](const char* name, const auto& value) { j[name] = value; });
  return j;
}

// The stats struct back from statsJson's object; throws nlohmann::json::exception when a field is
// missing or of another type.
template <typename Stats>
Stats statsOf(const nlohmann::json& j) {
  Stats stats;
  forEachStatsField(stats, [&](const char* name, auto& value) { j.at(name).get_to(value); });
  return stats;
}

}  // namespace planet
