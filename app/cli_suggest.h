#pragma once
// "Did you mean" for the command line: checked before CLI11 parses, so a mistyped subcommand
// or option is named as such (CLI11 alone reports "--config is required" for `--confg`).

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace app {

// The error message for the first unknown subcommand or option in args (argv without the
// program name), with the nearest known name when one is close; "" when every subcommand and
// option is known. Options are looked up in the chosen subcommand and in app (whose global
// flags the subcommands pass through). Values (anything after an option that takes one,
// negative numbers included) and everything after "--" are not checked.
std::string unknownArgumentMessage(const CLI::App& app, const std::vector<std::string>& args);

}  // namespace app
