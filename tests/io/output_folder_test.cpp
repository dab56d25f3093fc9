// Tests of export/: atomic output (writeFileAtomic, OutputTransaction: all or nothing, what
// killed runs left).

#include <algorithm>
#include <array>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <catch2/catch.hpp>
#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "export/colour_ramps.h"
#include "export/equirect_sampler.h"
#include "export/globe.h"
#include "export/maps.h"
#include "export/mesh_export.h"
#include "export/png_io.h"
#include "geodesy/sphere_mesh.h"
#include "io/atomic_file.h"
#include "io/detail/direct_writes.h"
#include "io/file_writer.h"
#include "planetgen_version.h"
#include "support/export_internals.h"
#include "support/export_test_planet.h"
#include "support/support.h"

namespace fs = std::filesystem;
using namespace planet_export;
using namespace io;
using namespace export_fixtures;

namespace {

// While alive, writes past `bytes` fail with EFBIG instead of raising SIGXFSZ (works as root
// too, where a read-only folder does not stop a write).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) : old_handler_(std::signal(SIGXFSZ, SIG_IGN)) {
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit_) == 0);
    rlimit limit = old_limit_;
    limit.rlim_cur = bytes;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_limit_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  void (*old_handler_)(int);
  rlimit old_limit_{};
};

}  // namespace

TEST_CASE("export: writeFileAtomic replaces the file and leaves no temporaries", "[export]") {
  TempDir dir;
  const fs::path target = dir.path / "data.bin";
  writeFileAtomic(target, "first");
  writeFileAtomic(target, "second");
  CHECK(readFile(target) == "second");
  CHECK(dir.names() == std::vector<std::string>{"data.bin"});
  CHECK(liveTemporaryCount() == 0);
}

TEST_CASE("export: FileWriter::copyFrom appends a file's first bytes, and a short one is an error",
          "[export]") {
  TempDir dir;
  std::string source(9 * 1000 * 1000 + 7, '\0');  // more than two of the writer's 4 MiB blocks
  for (size_t i = 0; i < source.size(); ++i) source[i] = char(i * 131 % 251);
  writeFileAtomic(dir.path / "source.bin", source);
  const int fd = ::open((dir.path / "source.bin").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  // The kernel's copy, and the blocks it falls back to where the kernel refuses.
  for (const FileWriter::Copy how : {FileWriter::Copy::kKernel, FileWriter::Copy::kBlocks}) {
    FileWriter out(dir.path / "out.bin");
    out.write("head");
    out.copyFrom(fd, source.size() - 5, how);
    out.write("tail");
    out.close();
    CHECK(readFile(dir.path / "out.bin") == "head" + source.substr(0, source.size() - 5) + "tail");
    FileWriter short_source(dir.path / "short.bin");
    CHECK_THROWS_WITH(short_source.copyFrom(fd, source.size() + 1, how),
                      Catch::Contains((dir.path / "short.bin").string()));
  }
  ::close(fd);
}

TEST_CASE(
    "export: FileWriter's writes across writeback steps read back whole, and a device that "
    "refuses writeback fails nothing",
    "[export]") {
  // 70 MB in writes of every size the writer takes apart (buffered, direct, a copied file): more
  // than two writeback steps (32 MiB). A regular file reads back whole; /dev/null, a character
  // device, refuses sync_file_range (ESPIPE), which is a hint and must not fail the writes.
  TempDir dir;
  std::string block(3 * 1000 * 1000 + 11, '\0');
  for (size_t i = 0; i < block.size(); ++i) block[i] = char(i * 197 % 253);
  writeFileAtomic(dir.path / "block.bin", block);
  const int fd = ::open((dir.path / "block.bin").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  for (const fs::path& path : {dir.path / "big.bin", fs::path("/dev/null")}) {
    FileWriter out(path);
    std::string expected;
    for (int round = 0; round < 7; ++round) {
      out.write(std::string_view(block).substr(0, 1000));  // buffered
      out.write(block);                                    // direct
      out.copyFrom(fd, block.size());                      // by the kernel
      expected += block.substr(0, 1000) + block + block;
    }
    out.close();
    if (path != fs::path("/dev/null")) CHECK(readFile(path) == expected);
  }
  ::close(fd);
}

namespace {

// Whether files in `dir` can be opened for direct writes (O_DIRECT) at all.
bool directWritesAllowed(const fs::path& dir) {
  const fs::path probe = dir / "probe.bin";
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_DIRECT | O_CLOEXEC, 0666);
  if (fd >= 0) ::close(fd);
  fs::remove(probe);
  return fd >= 0;
}

// `size` bytes of a pattern with no period of a power of two, so a misplaced block shows.
std::string patternBytes(size_t size, int seed) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = char((i * 131 + size_t(seed)) % 251);
  return bytes;
}

}  // namespace

TEST_CASE(
    "export: FileWriter past its direct-write size reads back whole, through every kind of write",
    "[export]") {
  TempDir dir;
  const std::string block = patternBytes(1000 * 1000 + 7, 1);
  writeFileAtomic(dir.path / "block.bin", block);
  const int fd = ::open((dir.path / "block.bin").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  // Direct from the start (0), and from a size first passed at an unaligned offset (10000, by the
  // write that starts at 8193): the first bytes go through the page cache up to an aligned
  // offset. Small writes, writes that skip the buffer, copied files, a sync in the middle (which
  // ends the direct writes) and a tail that is not a whole aligned unit.
  for (const uint64_t direct_from : {uint64_t(0), uint64_t(10000)}) {
    const fs::path path = dir.path / ("direct" + std::to_string(direct_from) + ".bin");
    FileWriter out(path, FileWriter::Create::kTruncate, direct_from);
    std::string expected;
    for (int round = 0; round < 5; ++round) {
      for (size_t size : {size_t(1), size_t(4095), size_t(4097), size_t(70000)}) {
        out.write(std::string_view(block).substr(size_t(round), size));
        expected += block.substr(size_t(round), size);
      }
      out.write(block);
      out.copyFrom(fd, block.size());
      expected += block + block;
    }
    const uint64_t before_sync = out.directBytes();
    out.sync();
    CHECK(readFile(path) == expected);
    out.write(std::string_view(block).substr(0, 12345));  // after a sync: the page cache
    expected += block.substr(0, 12345);
    out.close();
    CHECK(readFile(path) == expected);
    if (directWritesAllowed(dir.path)) {
      // All but what was written before the first aligned offset and the last partial unit,
      // with O_DIRECT on: a direct write the file system refused (EINVAL, say for a misaligned
      // offset) would have gone through the page cache and is not counted.
      CHECK(before_sync == 0);  // counted when the direct writes end (at the sync)
      CHECK(out.directBytes() >= expected.size() - 12345 - 2 * DirectWrites::kAlign -
                                     (direct_from == 0 ? 0 : direct_from + 1));
      CHECK(out.directBytes() % DirectWrites::kAlign == 0);
    } else {
      WARN("no direct writes in " << dir.path.string() << ": the page cache path was tested");
      CHECK(out.directBytes() == 0);
    }
  }
  ::close(fd);
}

TEST_CASE("export: a direct write the file system refuses goes through the page cache instead",
          "[export]") {
  TempDir dir;
  if (!directWritesAllowed(dir.path)) {
    WARN("no direct writes in " << dir.path.string() << ": nothing to refuse");
    CHECK_FALSE(directWritesAllowed(dir.path));
    return;
  }
  // 100 bytes through the page cache, then O_DIRECT on at that unaligned offset: a file system
  // that wants aligned direct writes (ext4, XFS) refuses the first block (EINVAL), and the
  // thread must write it and the rest through the page cache, bytes in order.
  const fs::path path = dir.path / "refused.bin";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  REQUIRE(fd >= 0);
  const std::string head = patternBytes(100, 4),
                    bytes = patternBytes(3 * DirectWrites::kBlockSize + 5000, 5);
  REQUIRE(::write(fd, head.data(), head.size()) == ssize_t(head.size()));
  REQUIRE(::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_DIRECT) == 0);
  // Whether this file system refuses an aligned block at an unaligned offset at all (tmpfs
  // takes any).
  void* aligned = std::aligned_alloc(DirectWrites::kAlign, DirectWrites::kAlign);
  REQUIRE(aligned != nullptr);
  std::memset(aligned, 'x', DirectWrites::kAlign);
  const int probe = ::open((dir.path / "probe.bin").c_str(), O_WRONLY | O_CREAT | O_DIRECT, 0666);
  REQUIRE(probe >= 0);
  const bool refuses = ::pwrite(probe, aligned, DirectWrites::kAlign, 100) < 0 && errno == EINVAL;
  ::close(probe);
  std::free(aligned);
  std::string rest;
  {
    DirectWrites direct(fd);
    direct.append(bytes.data(), bytes.size());
    rest = std::string(direct.finish());
    CHECK(direct.error() == 0);
    CHECK(direct.fellBack() == refuses);
    CHECK(direct.directBytes() == (refuses ? 0 : bytes.size() - rest.size()));
  }
  REQUIRE(::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_DIRECT) == 0);
  REQUIRE(::write(fd, rest.data(), rest.size()) == ssize_t(rest.size()));
  ::close(fd);
  CHECK(readFile(path) == head + bytes);
}

TEST_CASE("export: a failed direct write names the path, and the writer stops without hanging",
          "[export]") {
  TempDir dir;
  // Whole aligned units only: no byte goes through the page cache, whose write would fail too.
  const std::string block = patternBytes(3 * DirectWrites::kBlockSize, 2);
  const fs::path path = dir.path / "limited.bin";
  {
    // 1 MiB: the thread's first write of a block stops short at the limit and its next one
    // fails (EFBIG); a later call of the writer reports it.
    const FileSizeLimit limit(1 << 20);
    FileWriter out(path, FileWriter::Create::kTruncate, 0);
    REQUIRE_THROWS_WITH(
        [&] {
          for (int i = 0; i < 4; ++i) out.write(block);
          out.close();
        }(),
        Catch::Contains("cannot write") && Catch::Contains(path.string()) &&
            Catch::Contains(std::strerror(EFBIG)));
  }  // the writer is destroyed with its thread stopped
  CHECK(fs::file_size(path) <= (1u << 20));
}

TEST_CASE("export: a GLB spooled to a temporary file equals one held in memory", "[export]") {
  TempDir dir;
  const auto write = [&](const fs::path& spool_dir, const std::string& name) {
    GlbBuilder glb(false, spool_dir);
    std::vector<glm::vec3> positions(70000);
    for (size_t i = 0; i < positions.size(); ++i) positions[i] = glm::vec3(float(i), 1.5f, -2.0f);
    const int view = glb.addVertexView(ViewBytes(std::move(positions)), 12);
    glb.addAccessor(view, 0, Component::kFloat, false, 70000, "VEC3");
    std::vector<uint8_t> odd = {1, 2, 3, 4, 5};  // padded to 8 in the chunk
    glb.addIndexView(std::move(odd), Component::kUnsignedShort);
    glb.write(dir.path / name, Json{{"asset", {{"version", "2.0"}}}});
    return readFile(dir.path / name);
  };
  const std::string spooled = write(dir.path, "spooled.glb");
  const std::string in_memory = write(fs::path(), "memory.glb");
  CHECK(spooled.size() > 70000 * 12);
  CHECK(spooled == in_memory);
  CHECK(dir.names() == std::vector<std::string>{"memory.glb", "spooled.glb"});
}

TEST_CASE("export: a failing atomic write keeps the previous file and names the path", "[export]") {
  TempDir dir;
  const fs::path target = dir.path / "planet.glb";
  writeFileAtomic(target, "previous");

  SECTION("file size limit: a short write is detected") {
    std::string message;
    {
      const FileSizeLimit limit(1000);
      try {
        writeFileAtomic(target, std::string(100000, 'x'));
      } catch (const std::runtime_error& e) {
        message = e.what();
      }
    }
    INFO(message);
    CHECK(message.find(target.string()) != std::string::npos);
    CHECK(message.find(std::strerror(EFBIG)) != std::string::npos);
  }
  SECTION("read-only folder") {
    if (::geteuid() == 0) return;  // root writes anyway; covered by the size limit above
    fs::permissions(dir.path, fs::perms::owner_write, fs::perm_options::remove);
    CHECK_THROWS_WITH(writeFileAtomic(target, "new"), Catch::Contains(target.string()));
    fs::permissions(dir.path, fs::perms::owner_write, fs::perm_options::add);
  }
  SECTION("missing parent folder") {
    const fs::path missing = dir.path / "no" / "such" / "planet.glb";
    CHECK_THROWS_WITH(writeFileAtomic(missing, "new"),
                      Catch::Contains(missing.string()) && Catch::Contains(std::strerror(ENOENT)));
  }
  SECTION("a transaction whose staging fails") {
    bool threw = false;
    {
      const FileSizeLimit limit(1000);
      OutputTransaction transaction(dir.path);
      transaction.stage("small.txt", "fits");
      try {
        transaction.stage("planet.glb", std::string(100000, 'x'));
      } catch (const std::runtime_error& e) {
        threw = std::string(e.what()).find(target.string()) != std::string::npos;
      }
    }
    CHECK(threw);
  }
  CHECK(readFile(target) == "previous");
  CHECK(dir.names() == std::vector<std::string>{"planet.glb"});
  CHECK(liveTemporaryCount() == 0);
}

TEST_CASE("export: OutputTransaction commits all or nothing", "[export]") {
  TempDir dir;
  TestPlanet planet(4);
  const auto siblings = [&] {  // entries beside the folder that belong to it (staging folders)
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir.path.parent_path()))
      n += e.path().filename().string().rfind("." + dir.path.filename().string() + ".", 0) == 0;
    return n;
  };

  SECTION("uncommitted: no files") {
    {
      OutputTransaction transaction(dir.path);
      transaction.stage("summary.json", "{}");
      writeGlb(transaction.temporaryFor("planet.glb"), planet.surface);
      CHECK(dir.names().empty());
      CHECK(siblings() == 1);
      CHECK(liveTemporaryCount() == 3);  // two files and the staging folder
    }
    CHECK(dir.names().empty());
    CHECK(siblings() == 0);
    CHECK(liveTemporaryCount() == 0);
  }
  SECTION("an exception before commit: no files") {
    try {
      OutputTransaction transaction(dir.path);
      transaction.stage("summary.json", "{}");
      TestPlanet bad(4);
      bad.surface.extras_json = "[1, 2]";  // not an object
      writeGlb(transaction.temporaryFor("planet.glb"), bad.surface);
      transaction.commit();
    } catch (const std::invalid_argument&) {
    }
    CHECK(dir.names().empty());
    CHECK(siblings() == 0);
  }
  SECTION("committed: exactly the final names and the manifest") {
    {
      OutputTransaction transaction(dir.path);
      transaction.stage("summary.json", "{}");
      writeGlb(transaction.temporaryFor("planet.glb"), planet.surface);
      writeObj(transaction.temporaryFor("planet.obj"), transaction.temporaryFor("planet.mtl"),
               "planet.mtl", planet.surface);
      transaction.commit();
    }
    CHECK(dir.names() == std::vector<std::string>{".planetgen-files", "planet.glb", "planet.mtl",
                                                  "planet.obj", "summary.json"});
    CHECK(readFile(dir.path / "summary.json") == "{}");
    CHECK(readFile(dir.path / ".planetgen-files") ==
          "planet.glb\nplanet.mtl\nplanet.obj\nsummary.json\n");
    CHECK(readFile(dir.path / "planet.obj").find("mtllib planet.mtl\n") != std::string::npos);
    CHECK(liveTemporaryCount() == 0);
    CHECK(siblings() == 0);
  }
  SECTION("files are staged in a hidden sibling folder") {
    OutputTransaction transaction(dir.path);
    const fs::path a = transaction.temporaryFor("planet.glb");
    const fs::path b = transaction.temporaryFor("planet.obj");
    CHECK(a.parent_path().parent_path() == dir.path.parent_path());
    CHECK(a.parent_path().filename().string().rfind(
              "." + dir.path.filename().string() + ".planetgen." + std::to_string(::getpid()) + ".",
              0) == 0);
    CHECK(a.filename() == "planet.glb");
    CHECK(a != b);
    CHECK_THROWS_AS(transaction.temporaryFor(".hidden"), std::invalid_argument);
  }
}

// A run without obj or LOD files must not leave the previous run's planet.obj,
// planet_lod*.glb and cube_*.png beside its new files; the user's own files must stay.
TEST_CASE("export: OutputTransaction drops the previous run's other files, keeps the user's",
          "[export]") {
  TempDir dir;
  const auto commit = [&](std::vector<std::string> names, const std::string& text) {
    OutputTransaction transaction(dir.path);
    for (const std::string& name : names) transaction.stage(name, text);
    transaction.commit();
  };
  SECTION("a folder written with a manifest") {
    commit({"planet.glb", "planet.obj", "planet_lod1.glb", "cube_px.png", "summary.json"}, "1");
    std::ofstream(dir.path / "notes.txt") << "mine";
    fs::create_directories(dir.path / "mine");
    std::ofstream(dir.path / "mine/keep.txt") << "mine too";
    commit({"planet.glb", "summary.json"}, "2");
    CHECK(dir.names() == std::vector<std::string>{".planetgen-files", "mine", "notes.txt",
                                                  "planet.glb", "summary.json"});
    CHECK(readFile(dir.path / "planet.glb") == "2");
    CHECK(readFile(dir.path / "notes.txt") == "mine");
    CHECK(readFile(dir.path / "mine/keep.txt") == "mine too");
  }
  SECTION("a folder written before manifests: the known output names are the tool's") {
    for (const char* name :
         {"planet.glb", "planet.obj", "planet.mtl", "planet_lod2.glb", "cube_nz.png", "notes.txt"})
      std::ofstream(dir.path / name) << "old";
    std::ofstream(dir.path / "summary.json") << "{\n  \"generator\": \"planetgen\"\n}\n";
    commit({"planet.glb", "summary.json"}, "new");
    CHECK(dir.names() ==
          std::vector<std::string>{".planetgen-files", "notes.txt", "planet.glb", "summary.json"});
    CHECK(readFile(dir.path / "notes.txt") == "old");
  }
  // A tester's trial: the first run into a folder of the user's deleted their planet.obj,
  // planet.mtl, cube_*.png and planet_lod*.glb (the names of the tool's older runs).
  SECTION("a folder the tool never wrote keeps every file, even under the tool's names") {
    for (const char* name : {"planet.obj", "planet.mtl", "planet_lod_mine.glb", "cube_mine.png",
                             "notes.txt", "planet.glb"})
      std::ofstream(dir.path / name) << "mine";
    std::ofstream(dir.path / "summary.json") << "{\"generator\": \"another tool\"}";
    OutputTransaction transaction(dir.path);
    for (const char* name : {"planet.glb", "summary.json"}) transaction.stage(name, "new");
    transaction.commit();
    CHECK(dir.names() == std::vector<std::string>{".planetgen-files", "cube_mine.png", "notes.txt",
                                                  "planet.glb", "planet.mtl", "planet.obj",
                                                  "planet_lod_mine.glb", "summary.json"});
    for (const char* name : {"planet.obj", "planet.mtl", "planet_lod_mine.glb", "cube_mine.png"})
      CHECK(readFile(dir.path / name) == "mine");
    // The two the run wrote over are kept beside the folder, and said so.
    CHECK(readFile(dir.path / "planet.glb") == "new");
    REQUIRE(transaction.warnings().size() == 1);
    bool kept = false;
    for (const auto& entry : fs::directory_iterator(dir.path.parent_path())) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("." + dir.path.filename().string() + ".planetgen.", 0) == 0) {
        kept = readFile(entry.path() / "planet.glb") == "mine" &&
               readFile(entry.path() / "summary.json") == "{\"generator\": \"another tool\"}";
        fs::remove_all(entry.path());  // beside the test's folder, which TempDir removes
        break;
      }
    }
    CHECK(kept);
  }
  SECTION("a new folder and its missing parents appear only with the commit") {
    const fs::path deep = dir.path / "a" / "b" / "out";
    {
      OutputTransaction transaction(deep);
      transaction.stage("summary.json", "{}");
    }
    CHECK(dir.names().empty());  // a failed run into a new folder leaves nothing
    {
      OutputTransaction transaction(deep);
      transaction.stage("summary.json", "{}");
      transaction.commit();
    }
    CHECK(readFile(deep / "summary.json") == "{}");
  }
  SECTION("what is not a folder is refused up front") {
    std::ofstream(dir.path / "file") << "x";
    fs::create_symlink(dir.path / "nowhere", dir.path / "dangling");
    CHECK_THROWS_WITH(OutputTransaction(dir.path / "file"), Catch::Contains("not a folder"));
    CHECK_THROWS_WITH(OutputTransaction(dir.path / "dangling"), Catch::Contains("dangling"));
    CHECK(outputFolderProblem("/") != "");
    CHECK(outputFolderProblem(dir.path / "new" / "out") == "");
    CHECK(outputFolderProblem(dir.path / "file" / "out") != "");
  }
}

namespace {

// Runs `work` in a child process, as a run of the tool would, and kills the child with SIGKILL
// when `work` returns (or earlier, if `work` sets PLANETGEN_KILL_AT_COMMIT_STEP): what a killed
// run leaves behind. Returns true if the child died by SIGKILL.
bool killedRun(const std::function<void()>& work) {
  const pid_t child = ::fork();
  if (child == 0) {
    work();
    ::kill(::getpid(), SIGKILL);
    ::_exit(1);
  }
  int status = 0;
  return child > 0 && ::waitpid(child, &status, 0) == child && WIFSIGNALED(status) &&
         WTERMSIG(status) == SIGKILL;
}

// The hidden folders beside `out` whose names start like its staging folders.
std::vector<std::string> stagingNames(const fs::path& out) {
  std::vector<std::string> names;
  const std::string prefix = "." + out.filename().string() + ".planetgen.";
  for (const std::string& name : TempDir::namesOf(out.parent_path()))
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  return names;
}

}  // namespace

// Killed runs left hidden temporaries that no later run removed: a staging folder killed
// before its commit, and a previous folder swapped out but not yet emptied (the user's
// entries still in it), are both recovered by the next run.
TEST_CASE("output folder: OutputTransaction recovers what killed runs left", "[io]") {
  TempDir dir;
  const fs::path out = dir.path / "out";
  {
    OutputTransaction transaction(out);
    transaction.stage("planet.glb", "old");
    transaction.commit();
  }
  SECTION("a staging folder killed before its commit") {
    REQUIRE(killedRun([&] {
      auto* transaction = new OutputTransaction(out);  // never destroyed: the process is killed
      transaction->stage("planet.glb", "partial");
    }));
    REQUIRE(stagingNames(out).size() == 1);
    OutputTransaction transaction(out);
    transaction.stage("planet.glb", "new");
    transaction.commit();
    CHECK(transaction.warnings().empty());
    CHECK(stagingNames(out).empty());
    CHECK(readFile(out / "planet.glb") == "new");
  }
  SECTION("a commit killed at each of its steps") {
    int kills = 0;
    for (int step = 1; step < 40; ++step) {
      std::ofstream(out / "user.txt") << "mine";
      fs::create_directories(out / "user_folder");
      std::ofstream(out / "user_folder" / "keep.txt") << "mine too";
      const bool killed = killedRun([&] {
        ::setenv("PLANETGEN_KILL_AT_COMMIT_STEP", std::to_string(step).c_str(), 1);
        OutputTransaction transaction(out);
        transaction.stage("planet.glb", "killed " + std::to_string(step));
        transaction.commit();
        ::_exit(0);  // the commit finished: this step is past the last
      });
      INFO("killed before commit step " << step);
      // The next run recovers what the killed one left: every entry of the user's is back.
      OutputTransaction transaction(out);
      transaction.stage("planet.glb", "new");
      transaction.commit();
      CHECK(transaction.warnings().empty());
      CHECK(stagingNames(out).empty());
      CHECK(dir.namesOf(out) ==
            std::vector<std::string>{".planetgen-files", "planet.glb", "user.txt", "user_folder"});
      CHECK(readFile(out / "user.txt") == "mine");
      CHECK(readFile(out / "user_folder" / "keep.txt") == "mine too");
      if (!killed) break;
      ++kills;
    }
    CHECK(kills >= 4);  // the marker, the link, the swap, the move back
  }
}

// A user's folder beside --out whose name matches the staging pattern (.NAME.planetgen.PID.N,
// of a process that is gone) is the user's, with or without a .planetgen-files list in it:
// only what carries the tool's marker for that very folder is recovered; anything else is left
// as it is, with a warning.
TEST_CASE("output folder: a folder named like a staging folder is never taken for one", "[io]") {
  TempDir dir;
  const fs::path out = dir.path / "out";
  {
    OutputTransaction transaction(out);
    transaction.stage("planet.glb", "old");
    transaction.commit();
  }
  const auto write = [](const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  };
  // A marker that names another folder (a real leftover the user renamed, or a copy).
  const fs::path renamed = dir.path / ".out.planetgen.999999999.2";
  REQUIRE(killedRun([&] {
    auto* transaction = new OutputTransaction(out);
    transaction->stage("planet.glb", "partial");
  }));
  REQUIRE(stagingNames(out).size() == 1);
  fs::rename(dir.path / stagingNames(out).front(), renamed);
  write(renamed / "notes.txt", "mine, added later");
  // The user's folder, with files and a subfolder, no manifest.
  const fs::path plain = dir.path / ".out.planetgen.999999999.0";
  write(plain / "notes.txt", "mine");
  write(plain / "sub" / "deep.txt", "mine too");
  // The user's folder with a manifest naming one of its files.
  const fs::path listed = dir.path / ".out.planetgen.999999999.1";
  write(listed / ".planetgen-files", "a.txt\nplanet.glb\n");
  write(listed / "a.txt", "listed but mine");
  write(listed / "b.txt", "not listed");
  // A marker that is not the tool's at all.
  const fs::path forged = dir.path / ".out.planetgen.999999999.3";
  write(forged / ".planetgen-staging", "planetgen staging folder\n");
  write(forged / "data.bin", "mine");
  // An empty folder of the pattern: nothing in it to lose, so it is removed.
  fs::create_directories(dir.path / ".out.planetgen.999999999.4");

  const std::map<std::string, std::vector<std::string>> before = {
      {plain.string(), TempDir::namesOf(plain)},
      {listed.string(), TempDir::namesOf(listed)},
      {renamed.string(), TempDir::namesOf(renamed)},
      {forged.string(), TempDir::namesOf(forged)}};
  OutputTransaction transaction(out);
  transaction.stage("planet.glb", "new");
  transaction.commit();
  for (const auto& entry : before) {
    const std::string& folder = entry.first;  // a name a lambda can capture (clang 14)
    INFO(folder);
    CHECK(TempDir::namesOf(folder) == entry.second);
    CHECK(std::count_if(transaction.warnings().begin(), transaction.warnings().end(),
                        [&](const std::string& w) {
                          return w.find(folder + " alone") != std::string::npos;
                        }) == 1);
  }
  CHECK(transaction.warnings().size() == 4);
  CHECK(readFile(plain / "notes.txt") == "mine");
  CHECK(readFile(plain / "sub" / "deep.txt") == "mine too");
  CHECK(readFile(listed / "a.txt") == "listed but mine");
  CHECK(readFile(listed / "b.txt") == "not listed");
  CHECK(readFile(forged / "data.bin") == "mine");
  CHECK_FALSE(fs::exists(dir.path / ".out.planetgen.999999999.4"));
  // Nothing of theirs moved into the output folder either.
  CHECK(dir.namesOf(out) == std::vector<std::string>{".planetgen-files", "planet.glb"});
  CHECK(readFile(out / "planet.glb") == "new");
}

// A file of the user's in the output folder named like a temporary of writeFileAtomic
// (`.NAME.tmp.PID.N`, of a process that is gone) stays: it is not dropped with the previous folder.
TEST_CASE("output folder: a file named like a dead run's temporary is the user's", "[io]") {
  TempDir dir;
  const fs::path out = dir.path / "out";
  fs::create_directories(out);
  std::ofstream(out / ".planet.glb.tmp.999999999.3") << "mine";
  for (int run = 0; run < 2; ++run) {
    OutputTransaction transaction(out);
    transaction.stage("planet.glb", "new");
    transaction.commit();
  }
  CHECK(readFile(out / ".planet.glb.tmp.999999999.3") == "mine");
}

// Entries of the user's that cannot move back into the new folder must be neither deleted with
// the previous folder nor left in a hidden one no run removes.
TEST_CASE("export: OutputTransaction never deletes a user's entry it cannot move back",
          "[export]") {
  TempDir dir;
  const fs::path out = dir.path / "out";
  {
    OutputTransaction transaction(out);
    transaction.stage("planet.glb", "1");
    transaction.commit();
    CHECK(transaction.warnings().empty());
  }
  // The user's folder and file under names the next run writes (the manifest lists neither).
  fs::create_directories(out / "relief.png");
  std::ofstream(out / "relief.png" / "keep.txt") << "folder of mine";
  std::ofstream(out / "summary.json") << "file of mine";
  std::ofstream(out / "notes.txt") << "mine";
  fs::path kept;
  {
    OutputTransaction transaction(out);
    for (const char* name : {"planet.glb", "relief.png", "summary.json"})
      transaction.stage(name, "2");
    transaction.commit();
    REQUIRE(transaction.warnings().size() == 1);
    CHECK_THAT(transaction.warnings()[0], Catch::Contains(out.string()));
  }
  CHECK(readFile(out / "relief.png") == "2");
  CHECK(readFile(out / "notes.txt") == "mine");
  for (const std::string& name : dir.names())
    if (name.rfind(".out.planetgen.", 0) == 0) kept = dir.path / name;
  REQUIRE(!kept.empty());
  // Only what is the user's and not in the output folder stays in the hidden folder, with
  // the manifest that tells the next run so
  // (and the marker that proves it the tool's).
  CHECK(TempDir::namesOf(kept) == std::vector<std::string>{".planetgen-files", ".planetgen-staging",
                                                           "relief.png", "summary.json"});
  CHECK(readFile(kept / "relief.png" / "keep.txt") == "folder of mine");
  CHECK(readFile(kept / "summary.json") == "file of mine");
  {
    // The next run meets it again: still kept, and said so.
    OutputTransaction transaction(out);
    REQUIRE(transaction.warnings().size() == 1);
    CHECK_THAT(transaction.warnings()[0], Catch::Contains(kept.string()));
  }
  CHECK(readFile(kept / "relief.png" / "keep.txt") == "folder of mine");
}

namespace {

// Runs fn as an unprivileged user (nobody) when the test runs as root, who may write anywhere;
// returns fn's result.
bool asUnprivileged(const std::function<bool()>& fn) {
  if (::geteuid() != 0) return fn();
  const pid_t child = ::fork();
  if (child == 0) {
    const bool dropped = ::setgid(65534) == 0 && ::setuid(65534) == 0;
    ::_exit(dropped && fn() ? 0 : 1);
  }
  int status = 0;
  return child > 0 && ::waitpid(child, &status, 0) == child && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

}  // namespace

TEST_CASE("export: an output folder the run cannot empty is refused up front", "[export]") {
  TempDir dir;
  fs::permissions(dir.path, fs::perms::all);  // nobody may look in
  const fs::path out = dir.path / "out";
  fs::create_directories(out / "mine");
  std::ofstream(out / "planet.glb") << "old";
  const bool root = ::geteuid() == 0;
  SECTION("the folder itself is read-only") {
    if (root) {
      REQUIRE(::chown(out.c_str(), 65534, 65534) == 0);
      REQUIRE(::chown((out / "mine").c_str(), 65534, 65534) == 0);
    }
    fs::permissions(out, fs::perms::owner_write, fs::perm_options::remove);
    CHECK(asUnprivileged([&] {
      const std::string problem = outputFolderProblem(out);
      return problem.find("cannot be written: " + out.string()) != std::string::npos;
    }));
    fs::permissions(out, fs::perms::owner_write, fs::perm_options::add);
    CHECK(asUnprivileged([&] { return outputFolderProblem(out).empty(); }));
  }
  SECTION("a folder of the user's in it may not move") {
    if (root)
      REQUIRE(::chown(out.c_str(), 65534, 65534) == 0);  // mine stays root's
    else
      fs::permissions(out / "mine", fs::perms::owner_write, fs::perm_options::remove);
    CHECK(asUnprivileged([&] {
      return outputFolderProblem(out).find(
                 "holds a folder the run cannot move into its new "
                 "output folder: " +
                 (out / "mine").string()) != std::string::npos;
    }));
    if (!root) fs::permissions(out / "mine", fs::perms::owner_write, fs::perm_options::add);
  }
  CHECK(readFile(out / "planet.glb") == "old");
}

TEST_CASE("export: removeLiveTemporaries deletes what a transaction staged", "[export]") {
  TempDir dir;
  OutputTransaction transaction(dir.path);
  const fs::path staging = transaction.temporaryFor("a.txt").parent_path();
  transaction.stage("a.txt", "a");
  transaction.stage("b.txt", "b");
  CHECK(fs::exists(staging / "b.txt"));
  removeLiveTemporaries();
  CHECK_FALSE(fs::exists(staging));
}
