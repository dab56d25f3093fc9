#include "app/cli_suggest.h"

#include <CLI/CLI.hpp>

#include "planet/detail/suggest.h"

namespace app {
namespace {

bool isNumber(const std::string& s) {
  if (s.size() < 2 || s[0] != '-') return false;
  return s.find_first_not_of("0123456789.eE+-", 1) == std::string::npos;
}

// Every spelling of every option of cmd: "--config", "-h", ...
std::vector<std::string> optionNames(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : cmd.get_options()) {
    for (const std::string& n : opt->get_lnames()) names.push_back("--" + n);
    for (const std::string& n : opt->get_snames()) names.push_back("-" + n);
  }
  return names;
}

// The option of cmd or app that `name` names (nullptr: none).
const CLI::Option* findOption(const CLI::App& cmd, const CLI::App& app, const std::string& name) {
  for (const CLI::App* a : {&cmd, &app}) {
    for (const CLI::Option* opt : a->get_options())
      if (opt->check_name(name)) return opt;
  }
  return nullptr;
}

std::string didYouMean(const std::string& word, const std::vector<std::string>& choices) {
  const std::string nearest = planet::nearestChoice(word, choices);
  return nearest.empty() ? "" : "; did you mean '" + nearest + "'?";
}

}  // namespace

std::string unknownArgumentMessage(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* cmd = &app;
  bool expect_value = false;  // the previous option takes a value
  for (const std::string& arg : args) {
    if (arg == "--") break;
    const bool is_option = arg.size() > 1 && arg[0] == '-' && !isNumber(arg);
    if (!is_option) {
      if (cmd == &app && !expect_value) {
        // The first word is the subcommand.
        std::vector<std::string> names;
        for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
        const CLI::App* sub = nullptr;
        for (const CLI::App* s : app.get_subcommands({}))
          if (s->check_name(arg)) sub = s;
        if (!sub) {
          return "unknown command '" + arg + "'" + didYouMean(arg, names) +
                 " (commands: " + CLI::detail::join(names, ", ") + ")";
        }
        cmd = sub;
      }
      // A value, or a positional argument (view DIR); a second or third value of a
      // multi-value option (bench --threads 1 2) looks the same.
      expect_value = false;
      continue;
    }
    const std::string name = arg.substr(0, arg.find('='));
    const CLI::Option* opt = findOption(*cmd, app, name);
    if (!opt) {
      std::vector<std::string> names = optionNames(*cmd);
      if (cmd != &app) {
        const std::vector<std::string> global = optionNames(app);
        names.insert(names.end(), global.begin(), global.end());
      }
      const std::string where = cmd == &app ? "planetgen" : "planetgen " + cmd->get_name();
      return "unknown option '" + name + "' for '" + where + "'" + didYouMean(name, names) +
             " (see " + where + " --help)";
    }
    expect_value = opt->get_items_expected_max() > 0 && name.size() == arg.size();
  }
  return "";
}

}  // namespace app
