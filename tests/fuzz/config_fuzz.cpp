// libFuzzer target for the config parser (planet/config.h).
//
// Input layout: the bytes up to the first line "#set" are the config file, written to a temporary
// file and given to planet::loadConfig; every line after it is one "--set" expression. The
// expressions go to loadConfig as its overrides and, one by one, to planet::applyOverride on a
// default Config, so they are exercised even when the file part is rejected. An expression ends
// at its first NUL byte, as a command-line argument does.
//
// Contract checked (README.md "Errors and exit codes", STYLE.md rule 7): bad input raises
// planet::ConfigError with a message naming the file or the --set expression (as messages show
// it: planet/detail/displayed_text.h); anything else
// (another exception, a sanitizer report, configToJson throwing on an accepted config) aborts.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "planet/config.h"
#include "planet/detail/displayed_text.h"

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSetMarker = "\n#set\n";
constexpr size_t kMaxOverrides = 16;

[[noreturn]] void fail(const std::string& what_happened, const std::string& detail) {
  std::fprintf(stderr, "config_fuzz: %s: %s\n", what_happened.c_str(), detail.c_str());
  std::abort();
}

// A private temporary folder, removed at exit.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "planetgen_config_fuzz.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) fail("mkdtemp failed", pattern);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Runs `call`: returns true if it succeeded, false if it threw ConfigError whose message
// contains `origin` or `other_origin`; aborts on any other outcome.
template <typename Call>
bool expectConfigErrorOnly(const char* what, const std::string& origin,
                           const std::string& other_origin, Call&& call) {
  try {
    call();
    return true;
  } catch (const planet::ConfigError& e) {
    const std::string message = e.what();
    if (message.find(origin) == std::string::npos &&
        message.find(other_origin) == std::string::npos) {
      fail(std::string(what) + " threw ConfigError naming neither '" + origin + "' nor '" +
               other_origin + "'",
           message);
    }
    return false;
  } catch (const std::exception& e) {
    fail(std::string(what) + " threw " + typeid(e).name() + " (not ConfigError)", e.what());
  } catch (...) {
    fail(std::string(what) + " threw a non-std exception", "");
  }
}

void dumpMustNotThrow(const planet::Config& config) {
  try {
    (void)planet::configToJson(config);
  } catch (const std::exception& e) {
    fail(std::string("configToJson threw ") + typeid(e).name() + " for an accepted config",
         e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const TempDir dir;
  static const fs::path file = dir.path / "fuzz.toml";

  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t marker = input.find(kSetMarker);
  const std::string_view toml_text = input.substr(0, marker);
  std::vector<std::string> overrides;
  if (marker != std::string_view::npos) {
    std::string_view rest = input.substr(marker + kSetMarker.size());
    while (!rest.empty() && overrides.size() < kMaxOverrides) {
      const size_t end = rest.find('\n');
      // An expression comes from argv, which cannot hold a NUL byte: cut it there.
      const std::string_view line = rest.substr(0, end);
      overrides.emplace_back(line.substr(0, line.find('\0')));
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    }
  }

  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(toml_text.data(), std::streamsize(toml_text.size()));
    if (!out) fail("cannot write", file.string());
  }

  planet::Config loaded;
  // A bad override inside loadConfig is named by its expression rather than the file.
  if (expectConfigErrorOnly("loadConfig", file.string(), "--set ",
                            [&] { loaded = planet::loadConfig(file, overrides); })) {
    dumpMustNotThrow(loaded);
  }

  planet::Config config;
  for (const std::string& expression : overrides) {
    // Messages quote the expression as displayed: control characters escaped, cut after 80 bytes.
    const std::string origin = "--set " + planet::detail::displayedText(expression);
    expectConfigErrorOnly("applyOverride", origin, origin,
                          [&] { planet::applyOverride(config, expression); });
  }
  dumpMustNotThrow(config);
  return 0;
}
