// docs/config.md is generated from the config schema (planet/config_reference.h); this test
// fails when the page in the repository is not what this build prints.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "planet/config.h"
#include "planet/config_reference.h"
#include "planet/run_checks.h"
#include "support/support.h"

TEST_CASE("config reference: docs/config.md is what planetgen prints", "[config]") {
  const std::string page =
      test_support::readFile(std::filesystem::path(PLANETGEN_SOURCE_DIR) / "docs/config.md");
  const std::string generated = planet::configReferenceMarkdown();
  INFO(
      "docs/config.md is stale: regenerate it with "
      "`build/planetgen config --print-reference > docs/config.md`");
  CHECK(page == generated);
  const auto printed = test_support::runPlanetgen("config --print-reference");
  CHECK(printed.exit_code == 0);
  CHECK(printed.output == generated);
}

TEST_CASE("config reference: every schema key has a row with its default", "[config]") {
  const std::string md = planet::configReferenceMarkdown();
  for (const std::string& key : planet::configKeys()) {
    const std::string name = key.substr(key.find('.') + 1);
    INFO(key);
    CHECK(md.find("| `" + name + "` | `") != std::string::npos);
  }
  CHECK(planet::configSchema().size() == planet::configKeys().size());
  INFO("add a row to planet/config_meanings.cpp for each of these");
  CHECK(planet::keysWithoutMeaning() == std::vector<std::string>{});
}

namespace {

// A key's own range as the reference states it: "a finite number in (0, 1e+09]", "an integer
// in [1, 100000]".
struct StatedRange {
  bool integer = false;
  double lo = 0, hi = 0;
  int64_t int_lo = 0, int_hi = 0;  // an integer key's ends, exactly
  bool lo_open = false, hi_open = false;
};

std::optional<StatedRange> statedRange(const std::string& allowed) {
  StatedRange r;
  std::string rest;
  if (allowed.rfind("a finite number in ", 0) == 0) {
    rest = allowed.substr(19);
  } else if (allowed.rfind("an integer in ", 0) == 0) {
    rest = allowed.substr(14);
    r.integer = true;
  } else {
    return std::nullopt;
  }
  r.lo_open = rest.front() == '(';
  r.hi_open = rest.back() == ')';
  const size_t comma = rest.find(", ");
  r.lo = std::stod(rest.substr(1, comma - 1));
  r.hi = std::stod(rest.substr(comma + 2, rest.size() - comma - 3));
  if (r.integer) {
    r.int_lo = std::stoll(rest.substr(1, comma - 1));
    r.int_hi = std::stoll(rest.substr(comma + 2, rest.size() - comma - 3));
  }
  return r;
}

std::string literal(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", v);
  std::string s = text;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// The config with `key = value` on top of cloud rain (so that the clouds' checks apply) and the
// partner settings, loaded and run through the run checks; "" if accepted, else the message.
std::string problemWith(const std::string& section, const std::string& key,
                        const std::string& value,
                        const std::map<std::string, std::string>& partners) {
  std::map<std::string, std::string> sections;
  sections["weather"] += "mode = \"clouds\"\n";
  for (const auto& [partner, v] : partners) {
    const size_t dot = partner.find('.');
    sections[partner.substr(0, dot)] += partner.substr(dot + 1) + " = " + v + "\n";
  }
  sections[section] += key + " = " + value + "\n";
  std::string text;
  for (const auto& [name, lines] : sections) text += "[" + name + "]\n" + lines;
  try {
    const planet::Config config = planet::loadConfigText(text, "range.toml");
    planet::checkRun(config, "range.toml");
  } catch (const planet::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// A tester's trial: the reference said weather.moisture_capacity allows (0, 1000] while 1e-6 was
// the enforced minimum (a check of the run, not of the key). For every numeric key: its stated
// range's ends are accepted (an open end: the nearest number inside, and no nearer to 0 than the
// smallest normal number, as the intro says) and the numbers just outside are refused, by the
// loader and the run checks together. Where another key must move for an end to be reachable,
// that key pair is one of the stated constraints between keys.
TEST_CASE("config reference: each key's stated range is exactly what the checks enforce",
          "[config]") {
  // Partner settings for the ends that only another key's value makes reachable.
  const std::map<std::string, std::map<std::string, std::string>> partners = {
      {"planet.radius_m",
       {{"terrain.amplitude_m", "0"},
        {"terrain.continent_amplitude_m", "0"},
        {"terrain.ocean_depth_m", "0"},
        {"terrain.ridged_amplitude_m", "0"}}},
      {"weather.ticks", {{"weather.epochs", "1"}, {"weather.spawn_rate", "0.01"}}},
      {"weather.epochs", {{"weather.ticks", "1000"}}},
      {"weather.band_edge_1_deg", {{"weather.band_blend_deg", "0"}}},
      {"weather.band_edge_2_deg", {{"weather.band_blend_deg", "0"}}},
      {"export.chunks", {{"planet.frequency", "1024"}}},
      {"export.lods", {{"planet.frequency", "4096"}}},
  };
  // Ends no setting of the other keys reaches: band_edge_1_deg just under 90 leaves no room
  // for band_edge_2_deg above it, band_edge_2_deg just over 0 none for band_edge_1_deg below.
  const std::set<std::string> unreachable = {"weather.band_edge_1_deg hi",
                                             "weather.band_edge_2_deg lo"};
  std::set<std::string> constrained;
  for (const planet::JointConstraint& c : planet::jointConstraints())
    constrained.insert(c.keys.begin(), c.keys.end());
  int checked = 0;
  for (const planet::ConfigKeyInfo& k : planet::configSchema()) {
    const std::optional<StatedRange> range = statedRange(k.allowed);
    if (!range) continue;
    const std::string name = k.section + "." + k.key;
    const auto partner =
        partners.count(name) ? partners.at(name) : std::map<std::string, std::string>{};
    if (!partner.empty() || unreachable.count(name + " lo") || unreachable.count(name + " hi")) {
      INFO(name << " needs another key: it must be in a stated constraint between keys");
      CHECK(constrained.count(name) == 1);
    }
    for (const bool upper : {false, true}) {
      std::string inside, outside;
      if (range->integer) {
        const int64_t end = upper ? range->int_hi : range->int_lo;
        inside = std::to_string(end);
        // Past INT64_MAX a TOML integer cannot be written at all.
        outside = upper && end == std::numeric_limits<int64_t>::max()
                      ? ""
                      : std::to_string(upper ? end + 1 : end - 1);
      } else {
        const double end = upper ? range->hi : range->lo;
        const bool open = upper ? range->hi_open : range->lo_open;
        const double inward = upper ? -1.0 : 1.0;
        double in = open ? std::nextafter(end, end + inward) : end;
        // The smallest number held without loss (the intro's rule): nearer to 0 is refused.
        if (in > 0 && in < std::numeric_limits<double>::min())
          in = std::numeric_limits<double>::min();
        inside = literal(in);
        outside = literal(open ? end : std::nextafter(end, end - inward));
      }
      INFO(name << " = " << inside << " (inside), " << outside
                << " (outside); stated: " << k.allowed);
      if (!unreachable.count(name + (upper ? " hi" : " lo")))
        CHECK(problemWith(k.section, k.key, inside, partner) == "");
      if (!outside.empty())
        CHECK(problemWith(k.section, k.key, outside, partner).find(k.key) != std::string::npos);
      ++checked;
    }
  }
  CHECK(checked > 150);
}
