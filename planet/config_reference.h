#pragma once
// The config reference (docs/config.md), generated from the schema: every key's section, name,
// default and allowed values come from the loader's own table (planet/config.cpp), its meaning
// from planet/config_meanings.cpp. `planetgen config --print-reference` prints it, and
// tests/config_reference_test.cpp fails when docs/config.md is not what it prints.

#include <string>
#include <string_view>
#include <vector>

namespace planet {

// One config key as the loader's schema defines it, in schema order.
struct ConfigKeyInfo {
  std::string section;
  std::string key;
  std::string allowed;        // as error messages say it: "an integer in [1, 100000]"
  std::string default_value;  // the value when the key is left out, as TOML/JSON text
};
std::vector<ConfigKeyInfo> configSchema();

// docs/config.md: Markdown, one table per section. A key without a meaning in
// config_meanings.cpp gets "(not described yet)"; a meaning of a key the schema does not have
// is left out, so a meaning may be written before its key.
std::string configReferenceMarkdown();

// "section.key" of every schema key without a meaning (the test wants none).
std::vector<std::string> keysWithoutMeaning();

// A check that involves several keys (the run checks, the weather's and the glb options'), as
// the reference states it: the keys ("section.key") and the rule, from the checks' own bounds.
struct JointConstraint {
  std::vector<std::string> keys;
  std::string text;
};
std::vector<JointConstraint> jointConstraints();

namespace detail {

struct KeyMeaning {
  std::string_view section, key, meaning;
};
struct SectionNote {
  std::string_view section, text;
};
const std::vector<KeyMeaning>& keyMeanings();
const std::vector<SectionNote>& sectionNotes();

}  // namespace detail
}  // namespace planet
