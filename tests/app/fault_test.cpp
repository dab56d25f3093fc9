// Faults while planetgen runs: signals, failed writes, two runs into one folder. Each case
// checks the exit code, the message and the files on disk afterwards.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>
#include "support/support.h"

namespace fs = std::filesystem;

namespace {

const fs::path kBinary = fs::path(PLANETGEN_BINARY_DIR) / "planetgen";

fs::path freshDir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("planetgen_fault_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

using test_support::readFile;

std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir))
    files[entry.path().filename().string()] = readFile(entry.path());
  return files;
}

// Temporary files in the folder, or staging folders beside it.
bool hasTemporaries(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp") != std::string::npos) return true;
  const std::string staging = "." + dir.filename().string() + ".planetgen.";
  for (const auto& entry : fs::directory_iterator(dir.parent_path()))
    if (entry.path().filename().string().rfind(staging, 0) == 0) return true;
  return false;
}

// Whether process `pid` runs planetgen and has a handler installed for `sig`, from the SigCgt
// mask of /proc/<pid>/status (one bit per signal, bit sig - 1, in hexadecimal). Before its exec
// the forked child still holds the test runner's own handlers, hence the check of the binary.
bool catchesSignal(pid_t pid, int sig) {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", error);
  if (error || exe != fs::canonical(kBinary)) return false;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("SigCgt:", 0) == 0)
      return (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1u;
  return false;
}

// Polls until `pid` catches `sig`; false after 60 s (the child never installed its handlers).
bool waitUntilCatching(pid_t pid, int sig) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!catchesSignal(pid, sig)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// Uniform rain unless `clouds`: these runs are about files, not rain, and the cloud simulation
// costs about the same at any frequency (most of a small run's time, 4 s of 5 under ASan).
const char* const kUniformRain = "[weather]\nmode = \"uniform\"\n";

fs::path writeConfig(const fs::path& dir, int frequency, int droplets, bool clouds = false) {
  const fs::path path = dir / "planet.toml";
  std::ofstream(path) << "[planet]\nfrequency = " << frequency
                      << "\n[erosion]\ndroplets = " << droplets << "\n[export]\nmap_width = 256\n"
                      << (clouds ? "" : kUniformRain);
  return path;
}

// Runs planetgen with a shell prefix (e.g. "ulimit -f 64;"); returns exit code and output.
std::pair<int, std::string> runShell(const std::string& prefix, const std::string& args) {
  const fs::path log = fs::temp_directory_path() / ("planetgen_fault_" + std::to_string(getpid()));
  const std::string command = "bash -c '" + prefix + " exec " + kBinary.string() + " " + args +
                              "' > " + log.string() + " 2>&1";
  const int status = std::system(command.c_str());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::string output = readFile(log);
  fs::remove(log);
  return {code, output};
}

// A previous run's complete output in `out`.
std::map<std::string, std::string> previousRun(const fs::path& dir, const fs::path& out) {
  const auto [code, output] = runShell(
      "", "generate --config " + writeConfig(dir, 8, 100).string() + " --out " + out.string());
  REQUIRE(code == 0);
  return snapshot(out);
}

}  // namespace

TEST_CASE("faults: SIGINT and SIGTERM stop the run and keep the earlier files", "[faults]") {
  for (int sig : {SIGINT, SIGTERM}) {
    const fs::path dir = freshDir("signal");
    const fs::path out = dir / "out";
    const auto before = previousRun(dir, out);
    // A run long enough to be interrupted in the middle of its stages.
    const fs::path config = writeConfig(dir, 384, 3000000, /*clouds=*/true);
    for (int delay_ms : {50, 400, 1500}) {
      const pid_t pid = fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        dup2(null, STDERR_FILENO);
        execl(kBinary.c_str(), "planetgen", "generate", "--config", config.c_str(), "--out",
              out.c_str(), nullptr);
        _exit(127);
      }
      // The delay counts from the moment the child catches the signal: on a loaded machine
      // the exec and start-up alone can take longer than 50 ms.
      REQUIRE(waitUntilCatching(pid, sig));
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      const auto t0 = std::chrono::steady_clock::now();
      kill(pid, sig);
      int status = 0;
      REQUIRE(waitpid(pid, &status, 0) == pid);
      const double stop_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      INFO("signal " << sig << " after " << delay_ms << " ms, stopped in " << stop_s << " s");
      REQUIRE(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 128 + sig);
      CHECK_FALSE(hasTemporaries(out));
      CHECK(snapshot(out) == before);
    }
  }
}

TEST_CASE("faults: a failed write names the path and keeps the previous files", "[faults]") {
  const fs::path dir = freshDir("write");
  const fs::path out = dir / "out";
  const auto before = previousRun(dir, out);
  // A 64 KiB file-size limit: planet.glb of f = 32 and other outputs are larger, so a write
  // fails (EFBIG); the outputs are written concurrently, so which one fails first varies.
  const auto [code, output] =
      runShell("ulimit -f 64;", "generate --config " + writeConfig(dir, 32, 100).string() +
                                    " --out " + out.string());
  INFO(output);
  CHECK(code == 1);
  // The file being written, in the run's staging folder beside out/.
  CHECK(output.find((dir / ".out.planetgen.").string()) != std::string::npos);
  CHECK(output.find("cannot write") != std::string::npos);
  CHECK(output.find("error:") != std::string::npos);
  CHECK_FALSE(hasTemporaries(out));
  CHECK(snapshot(out) == before);
}

TEST_CASE("faults: a failed write past the page cache names the path and keeps the previous files",
          "[faults]") {
  const fs::path dir = freshDir("direct_write");
  const fs::path out = dir / "out";
  const auto before = previousRun(dir, out);
  // planet.obj of f = 128 is about 48 MB: past FileWriter::kDirectFrom (16 MiB) it is written
  // past the page cache by a thread of its own, whose write fails at the 30,000 KiB limit (the
  // other files are smaller). The error travels from that thread through the writer and the
  // output jobs to the command's message; the message is the same a page-cache write would
  // give (the unit test "a failed direct write" checks the thread's side).
  const fs::path config = dir / "obj.toml";
  std::ofstream(config) << "[planet]\nfrequency = 128\n[erosion]\ndroplets = 100\n"
                           "[export]\nmap_width = 256\nobj = true\n"
                        << kUniformRain;
  const auto [code, output] = runShell(
      "ulimit -f 30000;", "generate --config " + config.string() + " --out " + out.string());
  INFO(output);
  CHECK(code == 1);
  CHECK(output.find("cannot write " + (dir / ".out.planetgen.").string()) != std::string::npos);
  CHECK(output.find("planet.obj: File too large") != std::string::npos);
  CHECK_FALSE(hasTemporaries(out));
  CHECK(snapshot(out) == before);
}

TEST_CASE("faults: an output path that is a file is an error, not a crash", "[faults]") {
  const fs::path dir = freshDir("notdir");
  std::ofstream(dir / "taken") << "keep me";
  const auto [code, output] =
      runShell("", "generate --config " + writeConfig(dir, 8, 100).string() + " --out " +
                       (dir / "taken").string());
  INFO(output);
  CHECK(code == 2);  // refused before the work
  CHECK(output.find("taken exists and is not a folder") != std::string::npos);
  CHECK(readFile(dir / "taken") == "keep me");
}

TEST_CASE("faults: two runs into one folder leave each file whole from one run", "[faults]") {
  const fs::path dir = freshDir("race");
  const fs::path out = dir / "out";
  fs::create_directories(out);
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  std::ofstream(dir / "a" / "p.toml")
      << "[planet]\nseed = 1\nfrequency = 48\n[export]\nmap_width = 128\n"
      << kUniformRain;
  std::ofstream(dir / "b" / "p.toml")
      << "[planet]\nseed = 2\nfrequency = 48\n[export]\nmap_width = 128\n"
      << kUniformRain;
  // Reference outputs of each run alone.
  for (const char* who : {"a", "b"}) {
    REQUIRE(runShell("", std::string("generate --config ") + (dir / who / "p.toml").string() +
                             " --out " + (dir / who / "ref").string())
                .first == 0);
  }
  const auto ref_a = snapshot(dir / "a" / "ref"), ref_b = snapshot(dir / "b" / "ref");
  for (int round = 0; round < 3; ++round) {
    const std::string a = kBinary.string() + " generate --config " +
                          (dir / "a" / "p.toml").string() + " --out " + out.string();
    const std::string b = kBinary.string() + " generate --config " +
                          (dir / "b" / "p.toml").string() + " --out " + out.string();
    REQUIRE(std::system(("(" + a + ") & (" + b + ") & wait").c_str()) == 0);
    CHECK_FALSE(hasTemporaries(out));
    for (const auto& [name, bytes] : snapshot(out)) {
      // summary.json carries timings, so compare the files that are pure functions of input.
      if (name == "summary.json") {
        CHECK_NOTHROW(nlohmann::json::parse(bytes));
        continue;
      }
      INFO(name);
      const bool from_a = ref_a.count(name) && ref_a.at(name) == bytes;
      const bool from_b = ref_b.count(name) && ref_b.at(name) == bytes;
      CHECK((from_a || from_b));
    }
  }
}

// A tester's trial: a SIGINT or SIGTERM during the commit (held until it ends) printed "the
// output folder keeps its earlier files" while the folder held the new run.
TEST_CASE("faults: a signal during the commit says the folder holds the new run", "[faults]") {
  const fs::path dir = freshDir("term_commit");
  const fs::path out = dir / "out";
  previousRun(dir, out);
  const fs::path config = dir / "new.toml";
  std::ofstream(config) << "[planet]\nseed = 2\nfrequency = 8\n[export]\nmap_width = 64\n"
                        << kUniformRain;
  const auto [code, output] =
      runShell("PLANETGEN_TERM_AT_COMMIT_STEP=1",
               "generate --config " + config.string() + " --out " + out.string());
  INFO(output);
  CHECK(code == 128 + SIGTERM);
  CHECK(output.find("interrupted after the run was written") != std::string::npos);
  CHECK(output.find("keeps its earlier files") == std::string::npos);
  CHECK(nlohmann::json::parse(readFile(out / "summary.json"))["seed"] == 2);
  CHECK_FALSE(hasTemporaries(out));
}

// A commit that renames file by file leaves a mix of new and old files when killed between
// renames (14 of 15 such folders were mixed). Here a run is killed just before each change its
// commit makes to the file system (PLANETGEN_KILL_AT_COMMIT_STEP, see io/atomic_file.cpp), over a
// folder that holds a previous run with other files (planet.obj, LOD files, cube faces) and the
// user's own file and folder. After every kill the folder must hold exactly one run's files, whole:
// the elevation hash in summary.json names the run, and planet.glb and every other file listed must
// be that run's bytes.
TEST_CASE("faults: SIGKILL at each step of a commit leaves the old or the new run whole",
          "[faults]") {
  const fs::path dir = freshDir("kill");
  const fs::path out = dir / "out";
  const auto config = [&](const std::string& name, int seed, bool extras) {
    const fs::path path = dir / name;
    std::ofstream(path) << "[planet]\nseed = " << seed
                        << "\nfrequency = 8\n[erosion]\ndroplets = 100\n[export]\nmap_width = 64\n"
                        << (extras ? "obj = true\nlods = 1\nlod_files = true\ncube_size = 8\n"
                                   : "obj = false\nmaps = false\n")
                        << kUniformRain;
    return path;
  };
  const fs::path old_config = config("old.toml", 1, true),
                 new_config = config("new.toml", 2, false);
  std::map<std::string, std::map<std::string, std::string>> reference;  // hash -> files
  for (const fs::path& c : {old_config, new_config}) {
    const fs::path ref = dir / ("ref_" + c.stem().string());
    REQUIRE(runShell("", "generate --config " + c.string() + " --out " + ref.string()).first == 0);
    auto files = snapshot(ref);
    const auto summary = nlohmann::json::parse(files.at("summary.json"));
    reference[summary["elevation_hash"].dump()] = files;
  }
  REQUIRE(reference.size() == 2);
  int kills = 0;
  for (int step = 1; step < 100; ++step) {
    REQUIRE(
        runShell("", "generate --config " + old_config.string() + " --out " + out.string()).first ==
        0);
    std::ofstream(out / "notes.txt") << "mine";
    fs::create_directories(out / "mine");
    std::ofstream(out / "mine" / "keep.txt") << "mine too";
    const auto [code, output] =
        runShell("PLANETGEN_KILL_AT_COMMIT_STEP=" + std::to_string(step),
                 "generate --config " + new_config.string() + " --out " + out.string());
    INFO("killed before commit step " << step << ": " << output);
    REQUIRE((code == 0 || code == 128 + SIGKILL));
    const auto files = snapshot(out);
    const auto summary = nlohmann::json::parse(files.at("summary.json"));
    const std::string hash = summary["elevation_hash"].dump();
    REQUIRE(reference.count(hash) == 1);
    const auto& expected = reference.at(hash);
    std::vector<std::string> listed = summary["files"];
    CHECK(listed.size() + 1 == expected.size());  // the run's files and .planetgen-files
    for (const auto& [name, bytes] : expected) {
      INFO(name);
      if (name == "summary.json") continue;  // timings differ
      REQUIRE(files.count(name) == 1);
      CHECK(files.at(name) == bytes);
    }
    for (const auto& [name, bytes] : files) {
      INFO(name);
      // The marker of a staging folder stays in the new output folder if the kill falls
      // between the swap and its removal (the next commit drops it).
      CHECK((expected.count(name) == 1 || name == "notes.txt" || name == ".planetgen-files" ||
             name == ".planetgen-staging" || name == "mine"));
    }
    CHECK(files.at("notes.txt") == "mine");  // the user's file, at every instant
    if (code == 0) break;
    ++kills;
  }
  CHECK(kills >= 3);  // at least: the user's file linked, the exchange, the move back
  // The next run finds what the killed ones left, and the user's folder is back.
  REQUIRE(
      runShell("", "generate --config " + new_config.string() + " --out " + out.string()).first ==
      0);
  CHECK_FALSE(hasTemporaries(out));
  CHECK(fs::exists(out / "mine" / "keep.txt"));
}
