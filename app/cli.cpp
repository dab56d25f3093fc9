#include "app/cli.h"

#include <algorithm>
#include <filesystem>

#include <charconv>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <exception>
#include <new>

#include <tbb/global_control.h>
#include <CLI/CLI.hpp>

#include "app/bench.h"
#include "app/cli_progress.h"
#include "app/cli_suggest.h"
#include "app/standard_output.h"
#include "app/tiles_command.h"
#include "app/viewer_server.h"
#include "io/atomic_file.h"
#include "io/signals.h"
#include "planet/compare.h"
#include "planet/config.h"
#include "planet/config_reference.h"
#include "planet/default_config.h"
#include "planet/detail/displayed_text.h"
#include "planet/memory_estimate.h"
#include "planet/pipeline.h"
#include "planet/planetgen.h"
#include "planet/run_checks.h"
#include "planetgen_version.h"

namespace app {

// The command line is planet's caller: its types and calls, unqualified.
using namespace planet;
namespace {

namespace fs = std::filesystem;

struct GenerateArgs {
  std::string config_file;  // empty: the built-in default (configs/default.toml)
  std::string out_dir;
  int threads = 0;  // 0 = not given: all cores
  bool threads_given = false;
  std::optional<uint64_t> seed;
  std::vector<std::string> overrides;
  std::string heightmap;
};

constexpr uint64_t kMaxBenchDroplets = 100'000'000;  // about 10 GB of droplet spawns

using planet::detail::displayedText;
using planet::detail::kMaxShownPathChars;

// Messages quote user input: every control character is escaped here, the last place before
// the terminal (the places that quote a value also cut it short).
constexpr size_t kMaxMessageChars = 8192;

int fail(int code, const std::string& message) {
  std::cerr << "planetgen: error: " << displayedText(message, kMaxMessageChars) << "\n";
  return code;
}

std::string shownPath(const std::string& path) {
  return displayedText(path, kMaxShownPathChars);
}

int threadsOrError(const std::string& text, int& threads) {
  // Parsed by hand so "--threads 0" and "--threads -3" get the project's message and exit 2.
  try {
    size_t used = 0;
    const long n = std::stol(text, &used);
    if (used != text.size() || n < 1 || n > 1024) throw std::invalid_argument(text);
    threads = int(n);
    return kExitOk;
  } catch (const std::exception&) {
    return fail(kExitBadInput, "--threads " + displayedText(text) +
                                   " is not allowed; allowed: an integer in [1, 1024].");
  }
}

// --seed: exactly the decimal integers 0 .. 2^63-1 (no sign, no blanks, not empty): the range
// of [planet] seed, a TOML integer, so that the config a run records reproduces it.
int seedOrError(const std::string& text, std::optional<uint64_t>& seed) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [used, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || text[0] < '0' || text[0] > '9' || error != std::errc() || used != end ||
      value > uint64_t(std::numeric_limits<int64_t>::max())) {
    return fail(kExitBadInput, "--seed " + (text.empty() ? "''" : displayedText(text)) +
                                   " is not allowed; allowed: an integer in [0, "
                                   "9223372036854775807] (the range of [planet] seed).");
  }
  seed = value;
  return kExitOk;
}

// Loads and checks everything a run needs before any work: config, seed, output, memory.
// Returns 0 and fills config, or prints the error and returns the exit code.
int prepareRun(const GenerateArgs& args, Config& config, RunKind kind) {
  const std::string file = configOrigin(args.config_file);
  try {
    config = loadCommandConfig(args.config_file, args.overrides);
  } catch (const ConfigError& e) {
    return fail(kExitBadInput, e.what());
  }
  if (args.seed) config.planet.seed = *args.seed;
  // Settings that fail together may come from the file and the overrides.
  const std::string origin = originWithOverrides(file, args.overrides);
  if (const std::string problem = io::outputFolderProblem(args.out_dir); !problem.empty()) {
    return fail(kExitBadInput, "--out " + shownPath(args.out_dir) + " " + problem + ".");
  }
  config.heightmap_file = args.heightmap;
  try {
    checkRun(config, origin);
  } catch (const ConfigError& e) {
    return fail(kExitBadInput, e.what());
  }
  const int threads =
      args.threads_given ? args.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  const MemoryEstimate memory = estimateMemory(config, threads, kind);
  if (!memory.fits()) return fail(kExitTooLarge, origin + ": " + describeShortfall(memory));
  return kExitOk;
}

enum class Command { kGenerate, kCompare };

int runPipeline(Command command, const GenerateArgs& args, Verbosity verbosity) {
  io::markOutputRun();
  Config config;
  if (int rc = prepareRun(args, config,
                          command == Command::kCompare ? RunKind::kCompare : RunKind::kGenerate))
    return rc;
  std::optional<tbb::global_control> limit;
  if (args.threads_given)
    limit.emplace(tbb::global_control::max_allowed_parallelism, size_t(args.threads));
  // What the run really gets: --threads, or every core (reported in summary.json).
  const int threads =
      int(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));

  const FolderTimes before = folderTimes(args.out_dir);
  double seconds = 0.0;
  std::vector<std::string> warnings;
  try {
    Progress progress(verbosity, command == Command::kCompare);
    StageCallback on_stage = [&](const std::string& stage) { progress.stage(stage); };
    if (command == Command::kCompare) {
      warnings = runCompare(config, args.out_dir, threads, on_stage);
    } else {
      // The library's front door, as a game or tool calls it.
      planetgen::GenerateOptions options;
      options.on_progress = [&](std::string_view stage, double) {
        progress.stage(std::string(stage));
      };
      const planetgen::Planet planet = planetgen::generate(config, options);
      progress.stage("export");
      warnings = planetgen::writeOutputs(planet, args.out_dir);
    }
    seconds = progress.elapsedSeconds();
  } catch (const ConfigError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const std::bad_alloc&) {
    // The estimate let the run start, so the machine had less than it said (or the estimate
    // is short): name what costs the most, which is what to lower.
    const RunKind kind = command == Command::kCompare ? RunKind::kCompare : RunKind::kGenerate;
    return fail(
        kExitTooLarge,
        "out of memory; " + describeLargestCosts(estimateMemory(config, threads, kind)) + ".");
  } catch (const std::exception& e) {
    return fail(kExitFailure, e.what());
  }
  // Even with --quiet: they are about the user's own files.
  for (const std::string& warning : warnings)
    std::cerr << "planetgen: warning: " << displayedText(warning, kMaxMessageChars) << "\n";
  if (verbosity != Verbosity::kQuiet) {
    try {
      printRunSummary(args.out_dir, before, seconds, threads);
    } catch (const std::runtime_error& e) {
      return fail(kExitFailure, std::string(e.what()) + " (the run itself was written to " +
                                    shownPath(args.out_dir) + ")");
    }
  }
  return kExitOk;
}

// The viewer's folder: share/planetgen/viewer beside an installed bin/planetgen, else the
// source tree's app/viewer this binary was built from.
fs::path viewerDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share/planetgen/viewer";
    if (fs::is_regular_file(installed / "index.html", ec)) return installed;
  }
  return defaultViewerDir();
}

int runView(const std::string& dir, int port) {
  const fs::path viewer = viewerDir();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return fail(kExitBadInput,
                shownPath(dir) + (fs::exists(dir, ec) ? " is not a folder" : " does not exist") +
                    "; write a planet with: planetgen generate --out " + shownPath(dir));
  }
  // A folder without a planet or a tileset would serve a page that only reports a failed load.
  // The server never follows a link, so neither does this. A planet's folder gets the planet
  // viewer (index.html), a tiles folder the tiles viewer (tiles.html).
  const auto regular = [&](const char* name) {
    return fs::symlink_status(fs::path(dir) / name, ec).type() == fs::file_type::regular;
  };
  const bool planet = regular("planet.glb");
  if (!planet && !regular("tileset.json")) {
    return fail(kExitBadInput, shownPath(dir) +
                                   " has no planet.glb (a planet) and no tileset.json (tiles); "
                                   "write a planet with: planetgen generate --out " +
                                   shownPath(dir) +
                                   ", or tiles with: planetgen tiles --center LAT,LON "
                                   "--radius-km R --spacing-m S --out " +
                                   shownPath(dir));
  }
  const std::string page = planet ? "index.html" : "tiles.html";
  const std::pair<const char*, const char*> libraries[] = {
      {"node_modules/three/build/three.module.js", "three.js (node_modules/three)"},
      {"node_modules/3d-tiles-renderer/build/index.three.js",
       "3D Tiles renderer (node_modules/3d-tiles-renderer)"}};
  for (int k = 0; k < (planet ? 1 : 2); ++k) {
    if (!fs::is_regular_file(viewer / libraries[k].first, ec)) {
      return fail(kExitFailure, "the viewer in " + viewer.string() + " has no " +
                                    libraries[k].second + "; fetch it once with: npm ci --prefix " +
                                    viewer.string());
    }
  }
  try {
    return serveViewer(
        dir, viewer, port,
        [](const std::string& url) {
          printToStdout("planetgen: viewer at " + url + " (Ctrl-C stops)\n");
        },
        nullptr, page);
  } catch (const std::invalid_argument& e) {
    return fail(kExitBadInput, e.what());
  } catch (const std::exception& e) {
    return fail(kExitFailure, e.what());
  }
}

void addRunOptions(CLI::App* cmd, GenerateArgs& args, std::string& threads, std::string& seed) {
  cmd->add_option("--config", args.config_file,
                  "TOML config file (default: the built-in configs/default.toml)");
  cmd->add_option("--out", args.out_dir, "Output folder")->required();
  cmd->add_option("--threads", threads, "Worker threads (default: all cores)")->type_name("INT");
  cmd->add_option("--seed", seed, "Overrides [planet] seed")->type_name("UINT");
  cmd->add_option("--set", args.overrides, "Override a config key: section.key=value")
      ->allow_extra_args(false);
  cmd->add_option("--heightmap", args.heightmap,
                  "8/16-bit equirectangular PNG that replaces the noise terrain");
}

int runCommand(int argc, char** argv) {
  CLI::App app{"planetgen: eroded planets for games, from a seed to an engine file"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("planetgen ") + planetgen::kVersion);
  bool quiet = false, verbose = false;
  app.add_flag("-q,--quiet", quiet, "Print only errors (no progress, no closing summary)");
  app.add_flag("-v,--verbose", verbose, "Also print each stage as it starts, with the time");

  GenerateArgs gen, cmp;
  std::string gen_threads, cmp_threads;
  std::string gen_seed, cmp_seed;
  auto* generate = app.add_subcommand("generate", "Generate a planet and write its files");
  addRunOptions(generate, gen, gen_threads, gen_seed);
  auto* compare = app.add_subcommand(
      "compare", "Erode one terrain with cloud rain and with uniform rain; write a report");
  addRunOptions(compare, cmp, cmp_threads, cmp_seed);

  bool print_default = false, print_reference = false;
  auto* config_cmd =
      app.add_subcommand("config", "Print the built-in default config or the config reference");
  auto* default_flag =
      config_cmd->add_flag("--print-default", print_default,
                           "Print configs/default.toml as built in (the config without --config)");
  config_cmd
      ->add_flag("--print-reference", print_reference,
                 "Print every config key with its default, allowed values and meaning "
                 "(Markdown, docs/config.md)")
      ->excludes(default_flag);
  config_cmd->require_option(1);

  std::string view_dir;
  int view_port = 8080;
  auto* view =
      app.add_subcommand("view", "Serve the web viewer for a generated planet or a tiles folder");
  view->add_option("DIR", view_dir, "Folder with planet.glb, or a tiles folder (tileset.json)")
      ->required();
  view->add_option("--port", view_port, "Port on 127.0.0.1 (0 = any free port)")
      ->check(CLI::Range(0, 65535));

  TilesArgs tiles_args;
  auto* tiles_cmd = addTilesCommand(app, tiles_args);

  BenchOptions bench;
  std::vector<std::string> bench_threads;
  auto* bench_cmd = app.add_subcommand("bench", "Print speed and memory figures as JSON lines");
  bench_cmd->add_option("--frequency", bench.frequencies, "Icosphere frequencies")
      ->check(CLI::Range(1, 4096));
  bench_cmd->add_option("--threads", bench_threads, "Thread counts")->type_name("INT");
  bench_cmd->add_option("--droplets", bench.droplets, "Erosion droplets (0 skips erosion)")
      ->check(CLI::Range(uint64_t(0), kMaxBenchDroplets));
  bench_cmd->add_flag("!--no-export", bench.with_export, "Skip the export figures");
  bench_cmd->add_flag("!--no-fluvial", bench.fluvial, "Skip the fluvial stage figures");
  bench_cmd->add_flag("!--no-pipeline", bench.pipeline,
                      "Skip the default config's whole run (stage_*, export_* figures)");
  bench_cmd->add_flag("!--no-tiles", bench.tiles, "Skip the tile figures (tile_*, tiles_region_*)");
  bench_cmd
      ->add_option("--tiles-region-km", bench.tiles_region_km,
                   "Radius of the region baked as tiles at 30 m (tiles_region_s; 0 skips it)")
      ->check(CLI::Range(0.0, 20000.0));
  bench_cmd->add_flag("--tiles-region-erosion", bench.tiles_region_erosion,
                      "Bake the region again with the tiles' erosion (tiles_region_eroded_*)");
  bench_cmd
      ->add_option("--tiles-cache-mib", bench.tiles_cache_mib,
                   "Window cache of the eroding tile generators, MiB (tile_eroded_*, "
                   "tiles_region_eroded_*)")
      ->check(CLI::Range(0.0, 65536.0));
  bench_cmd->add_flag("--tiles-relief", bench.tiles_relief,
                      "Erode the tiles with relief levels (tile_eroded_*, tiles_region_eroded_*)");
  bench_cmd
      ->add_option("--tiles-halo", bench.tiles_halo,
                   "Halo of the eroding tiles' windows, lattice steps (tile_eroded_*, "
                   "tiles_region_eroded_*)")
      ->check(CLI::Range(4, 4096));
  bench_cmd
      ->add_option("--tiles-bump-fraction", bench.tiles_bump_fraction,
                   "Radius of a window's bump over its core radius (tile_eroded_*, "
                   "tiles_region_eroded_*)")
      ->check(CLI::Range(0.6001, 0.8660254037844386));
  bench_cmd
      ->add_option("--tiles-window-subdivision", bench.tiles_window_subdivision,
                   "Windows of an eroding level at the tile corners of the level this many "
                   "finer, C = 256 / 2^s steps apart (tile_eroded_*, tiles_region_eroded_*)")
      ->check(CLI::Range(0, 6));

  // -q and -v may come after the subcommand too.
  for (CLI::App* sub : app.get_subcommands({})) sub->fallthrough();

  const std::vector<std::string> args = joinNegativeValues({argv + std::min(argc, 1), argv + argc});
  if (const std::string problem = unknownArgumentMessage(app, args); !problem.empty())
    return fail(kExitBadInput, problem + ".");
  // --help and --version: printed by CLI11 into a string, then written (and checked) here.
  const auto printed = [&](const CLI::Error& e) {
    std::ostringstream text;
    const int code = app.exit(e, text, text);
    try {
      printToStdout(text.str());
    } catch (const std::runtime_error& failure) {
      return fail(kExitFailure, failure.what());
    }
    return code;
  };
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11's order
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    return printed(e);
  } catch (const CLI::CallForAllHelp& e) {
    return printed(e);
  } catch (const CLI::CallForVersion& e) {
    return printed(e);
  } catch (const CLI::ParseError& e) {
    return fail(kExitBadInput, std::string(e.what()) + " (see planetgen --help).");
  }
  if (quiet && verbose) return fail(kExitBadInput, "--quiet and --verbose exclude each other.");
  const Verbosity verbosity = quiet     ? Verbosity::kQuiet
                              : verbose ? Verbosity::kVerbose
                                        : Verbosity::kNormal;

  for (auto [cmd, args, threads, seed, command] :
       {std::tuple{generate, &gen, &gen_threads, &gen_seed, Command::kGenerate},
        std::tuple{compare, &cmp, &cmp_threads, &cmp_seed, Command::kCompare}}) {
    if (!*cmd) continue;
    if (!threads->empty()) {
      if (int rc = threadsOrError(*threads, args->threads)) return rc;
      args->threads_given = true;
    }
    if (cmd->count("--seed")) {
      if (int rc = seedOrError(*seed, args->seed)) return rc;
    }
    return runPipeline(command, *args, verbosity);
  }
  if (*config_cmd) {
    try {
      printToStdout(print_reference ? configReferenceMarkdown() : std::string(defaultConfigText()));
    } catch (const std::runtime_error& e) {
      return fail(kExitFailure, e.what());
    }
    return kExitOk;
  }
  if (*view) return runView(view_dir, view_port);
  if (*tiles_cmd) return runTiles(tiles_args, verbosity);
  if (*bench_cmd) {
    if (!bench_threads.empty()) {
      bench.threads.clear();
      for (const std::string& t : bench_threads) {
        int n = 0;
        if (int rc = threadsOrError(t, n)) return rc;
        bench.threads.push_back(n);
      }
    }
    try {
      runBench(bench);
    } catch (const std::bad_alloc&) {
      return fail(kExitTooLarge, "out of memory; try a smaller --frequency or --droplets.");
    } catch (const std::exception& e) {
      return fail(kExitFailure, e.what());
    }
    return kExitOk;
  }
  return kExitBadInput;
}

// The last line of defence: an exception that escapes a thread (or a noexcept function) ends
// the process here with a message and exit 3, after the temporaries are removed, instead of
// an abort (exit 134) that leaves them. Allocates nothing: memory may be what ran out.
[[noreturn]] void onTerminate() {
  const char* what = "an unexpected error";
  const char* detail = nullptr;
  try {
    if (const std::exception_ptr current = std::current_exception())
      std::rethrow_exception(current);
  } catch (const std::bad_alloc&) {
    what = "out of memory";
  } catch (const std::exception& e) {
    detail = e.what();
  } catch (...) {
  }
  io::removeLiveTemporaries();
  const auto put = [](const char* text, size_t max) {
    for (size_t i = 0; text[i] != '\0' && i < max; ++i) {
      // Control characters become '?': no room here for the escapes fail() writes.
      const char c = static_cast<unsigned char>(text[i]) < 0x20 ? '?' : text[i];
      [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, &c, 1);
    }
  };
  put("planetgen: error: ", 64);
  put(what, 64);
  if (detail != nullptr) {
    put(": ", 2);
    put(detail, kMaxMessageChars);
  }
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, ".\n", 2);
  ::_exit(kExitTooLarge);
}

}  // namespace

std::string configOrigin(const std::string& config_file) {
  return config_file.empty() ? std::string(kDefaultConfigOrigin) : config_file;
}

Config loadCommandConfig(const std::string& config_file, std::span<const std::string> overrides) {
  return config_file.empty() ? loadConfigText(std::string(defaultConfigText()),
                                              configOrigin(config_file), overrides)
                             : loadConfig(config_file, overrides);
}

int runCli(int argc, char** argv) {
  io::installSignalHandlers();
  reserveStandardDescriptors();
  std::set_terminate(onTerminate);
  int code = kExitOk;
  try {
    code = runCommand(argc, argv);
  } catch (const std::bad_alloc&) {
    return fail(kExitTooLarge, "out of memory.");
  } catch (const std::exception& e) {
    return fail(kExitTooLarge, std::string("an unexpected error: ") + e.what());
  } catch (...) {
    return fail(kExitTooLarge, "an unexpected error.");
  }
  // Output written through stdio or std::cout (--help, --version) that did not arrive.
  if (const std::string problem = standardOutputProblem(); !problem.empty() && code == kExitOk)
    return fail(kExitFailure, problem);
  return code;
}

}  // namespace app
