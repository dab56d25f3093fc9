// docs/config.md is generated from the config schema (planet/config_reference.h); this test
// fails when the page in the repository is not what this build prints.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "planet/config.h"
#include "planet/config_reference.h"
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
