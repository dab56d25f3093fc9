// The command line's conventions: --version, --quiet and --verbose, the closing
// summary, progress on a terminal, the built-in default config, "did you mean".
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/support.h"

namespace fs = std::filesystem;
using test_support::quoted;
using test_support::readFile;
using test_support::runPlanetgen;
using test_support::TempDir;

namespace {

const fs::path kSource = PLANETGEN_SOURCE_DIR;

// A planet small enough for a test, as --set options on top of any config. These runs are about
// the command line's conventions, not rain: uniform rain, since the cloud simulation costs about
// the same at any frequency (most of such a run's CPU time under ASan).
const std::string kSmall =
    " --set planet.frequency=16 --set erosion.droplets=2000 --set export.map_width=64"
    " --set export.heightmaps=false --set weather.mode=uniform";

// The JSON chunk of a .glb (glTF 2.0 binary: 12-byte header, then chunk length and type).
nlohmann::json glbJson(const fs::path& file) {
  const std::string bytes = readFile(file);
  REQUIRE(bytes.size() > 20);
  uint32_t length = 0;
  std::memcpy(&length, bytes.data() + 12, 4);
  return nlohmann::json::parse(bytes.substr(20, length));
}

std::string versionLine() {
  const auto r = runPlanetgen("--version");
  REQUIRE(r.exit_code == 0);
  return r.output.substr(0, r.output.find('\n'));
}

}  // namespace

TEST_CASE("cli: --version names the version, as summary.json and the glb do", "[cli]") {
  const std::string version = versionLine();
  REQUIRE(version.rfind("planetgen ", 0) == 0);
  const std::string number = version.substr(std::strlen("planetgen "));
  CHECK(std::count(number.begin(), number.end(), '.') == 2);

  TempDir dir("planetgen_cli_version");
  const auto r = runPlanetgen("generate --quiet --out " + quoted(dir.path / "out") + kSmall);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto summary = nlohmann::json::parse(readFile(dir.path / "out/summary.json"));
  CHECK(summary["version"] == number);
  CHECK(glbJson(dir.path / "out/planet.glb")["asset"]["generator"] == version);
}

TEST_CASE("cli: without --config the built-in default config is used", "[cli]") {
  const auto printed = runPlanetgen("config --print-default");
  REQUIRE(printed.exit_code == 0);
  CHECK(printed.output == readFile(kSource / "configs/default.toml"));

  TempDir dir("planetgen_cli_default");
  const auto built_in = runPlanetgen("generate -q --out " + quoted(dir.path / "a") + kSmall);
  INFO(built_in.output);
  REQUIRE(built_in.exit_code == 0);
  const auto file =
      runPlanetgen("generate -q --config " + quoted(kSource / "configs/default.toml") + " --out " +
                   quoted(dir.path / "b") + kSmall);
  REQUIRE(file.exit_code == 0);
  const auto a = nlohmann::json::parse(readFile(dir.path / "a/summary.json"));
  const auto b = nlohmann::json::parse(readFile(dir.path / "b/summary.json"));
  CHECK(a["elevation_hash"] == b["elevation_hash"]);
  CHECK(a["config"] == b["config"]);

  // An error in an override names the built-in config.
  const auto bad =
      runPlanetgen("generate --out " + quoted(dir.path / "c") + " --set planet.frequency=0");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("planet.frequency") != std::string::npos);
}

TEST_CASE("cli: the closing summary, --quiet prints nothing, --verbose each stage", "[cli]") {
  TempDir dir("planetgen_cli_summary");
  const fs::path out = dir.path / "out";
  const auto normal = runPlanetgen("generate --out " + quoted(out) + " --threads 1" + kSmall);
  INFO(normal.output);
  REQUIRE(normal.exit_code == 0);
  CHECK(normal.output.find("planetgen: wrote ") == 0);
  CHECK(normal.output.find("to " + out.string() + " in ") != std::string::npos);
  CHECK(normal.output.find("on 1 thread\n") != std::string::npos);
  for (const char* name : {"planet.glb", "summary.json", "relief.png"})
    CHECK(normal.output.find(std::string("  ") + name) != std::string::npos);
  CHECK(normal.output.find("\r") == std::string::npos);  // not a terminal: no progress line

  const auto quiet = runPlanetgen("generate --quiet --out " + quoted(out) + kSmall);
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.output.empty());

  const auto verbose = runPlanetgen("generate -v --out " + quoted(out) + kSmall);
  INFO(verbose.output);
  CHECK(verbose.exit_code == 0);
  for (const char* stage : {" s  icosphere\n", " s  terrain\n", " s  export\n"})
    CHECK(verbose.output.find(stage) != std::string::npos);

  const auto both = runPlanetgen("generate -q -v --out " + quoted(out) + kSmall);
  CHECK(both.exit_code == 2);

  // Before the command too, as --help shows them (a tester's trial: the check of unknown
  // options took the command for -q's value).
  const auto before = runPlanetgen("-q generate --out " + quoted(out) + kSmall);
  INFO(before.output);
  CHECK(before.exit_code == 0);
  CHECK(before.output.empty());
  const auto verbose_before = runPlanetgen("-v generate --out " + quoted(out) + kSmall);
  CHECK(verbose_before.exit_code == 0);
  CHECK(verbose_before.output.find(" s  ocean level\n") != std::string::npos);
  CHECK(runPlanetgen("-q config --print-default").exit_code == 0);
}

TEST_CASE("cli: on a terminal the progress line shows a percentage and the time", "[cli]") {
  if (test_support::run("command -v script").exit_code != 0) return;  // util-linux script
  TempDir dir("planetgen_cli_progress");
  const std::string command = quoted(fs::path(PLANETGEN_BINARY_DIR) / "planetgen") +
                              " generate --out " + quoted(dir.path / "out") + kSmall;
  // script runs the command on a pseudo-terminal, so stderr is a terminal.
  const auto r = test_support::run("script -qec " + test_support::quoted(command) + " /dev/null");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("planetgen: [  0%] icosphere") != std::string::npos);
  CHECK(r.output.find("%] export") != std::string::npos);
  CHECK(r.output.find(" s\r") != std::string::npos);
  CHECK(r.output.find("planetgen: wrote ") != std::string::npos);
}

TEST_CASE("cli: a mistyped command or option gets a suggestion", "[cli]") {
  struct Case {
    std::string args;
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {"generat --out x", {"unknown command 'generat'", "did you mean 'generate'?"}},
      {"benhc", {"unknown command 'benhc'", "did you mean 'bench'?"}},
      {"generate --confg a.toml --out x", {"unknown option '--confg'", "'--config'?"}},
      {"compare --out x --sed 3", {"'planetgen compare'", "did you mean '--seed'?"}},
      {"bench --frequncy 16", {"unknown option '--frequncy'", "'--frequency'?"}},
      {"generate --out x --quite", {"did you mean '--quiet'?"}},
      {"config --print-defaults", {"did you mean '--print-default'?"}},
      {"frobnicate", {"unknown command 'frobnicate' (commands: generate, compare, config"}},
  };
  for (const Case& c : cases) {
    const auto r = runPlanetgen(c.args);
    INFO(c.args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("is required") == std::string::npos);
    for (const std::string& text : c.expected) CHECK(r.output.find(text) != std::string::npos);
  }
  // Values are not options: negative numbers and words after an option that takes a value.
  const auto negative = runPlanetgen("generate --out x --threads -3");
  CHECK(negative.exit_code == 2);
  CHECK(negative.output.find("--threads -3 is not allowed") != std::string::npos);
}

TEST_CASE("cli: --help shows --threads as a number", "[cli]") {
  for (const char* command : {"generate", "compare"}) {
    const auto r = runPlanetgen(std::string(command) + " --help");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("--threads INT") != std::string::npos);
  }
}
