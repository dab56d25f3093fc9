#include "support/support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace test_support {

namespace fs = std::filesystem;

TempDir::TempDir(const std::string& tag) {
  static int counter = 0;
  path = fs::temp_directory_path() /
         (tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  fs::remove_all(path);
  fs::create_directories(path);
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ignored);
  fs::remove_all(path, ignored);
}

std::vector<std::string> TempDir::names() const {
  return namesOf(path);
}

std::vector<std::string> TempDir::namesOf(const fs::path& folder) {
  std::vector<std::string> result;
  for (const auto& entry : fs::directory_iterator(folder))
    result.push_back(entry.path().filename().string());
  std::sort(result.begin(), result.end());
  return result;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

CommandResult run(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.output.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status)     ? WEXITSTATUS(status)
                     : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                           : -1;
  return result;
}

CommandResult runPlanetgen(const std::string& args) {
  return run(quoted(fs::path(PLANETGEN_BINARY_DIR) / "planetgen") + " " + args);
}

std::string quoted(const fs::path& path) {
  std::string text = "'";
  for (char c : path.string()) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

std::vector<std::string> envList(const char* name) {
  std::vector<std::string> items;
  const char* value = std::getenv(name);
  if (value == nullptr) return items;
  const std::string list = value;
  for (size_t begin = 0; begin <= list.size();) {
    const size_t end = std::min(list.find(';', begin), list.size());
    if (end > begin) items.push_back(list.substr(begin, end - begin));
    begin = end + 1;
  }
  return items;
}

}  // namespace test_support
