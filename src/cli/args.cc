// Strict argument parsing shared by the subcommands.
#include "args.h"

#include <charconv>
#include <cmath>
#include <iostream>
#include <sstream>

#include "tilesched/file_util.h"

namespace tilesched::cli {

Args::Args(std::string command, std::string usage, std::string description,
           std::vector<Option> options, int min_positional, int max_positional)
    : command_(std::move(command)),
      usage_(std::move(usage)),
      description_(std::move(description)),
      options_(std::move(options)),
      min_positional_(min_positional),
      max_positional_(max_positional) {}

Status Args::Parse(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help_ = true;
      return Status::Ok();
    }
    if (arg.size() == 2 && arg[0] == '-' && arg[1] != '-') {
      for (const Option& o : options_) {
        if (!o.alias.empty() && o.alias == arg) arg = "--" + o.name;
      }
    }
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
      std::string name = arg.substr(2), value;
      bool inline_value = false;
      if (const size_t eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        inline_value = true;
      }
      const Option* option = Find(name);
      if (!option) return Status::Error("unknown option --" + name + " (see --help)");
      if (option->value_name.empty()) {
        if (inline_value) return Status::Error("option --" + name + " takes no value");
        values_[name] = "1";
        continue;
      }
      if (!inline_value) {
        if (i + 1 >= argc) return Status::Error("option --" + name + " needs a value " + option->value_name);
        value = argv[++i];
      }
      values_[name] = value;
      continue;
    }
    positional_.push_back(arg);
  }
  const int n = static_cast<int>(positional_.size());
  if (n < min_positional_ || n > max_positional_) {
    return Status::Error("expected " +
                         (min_positional_ == max_positional_
                              ? std::to_string(min_positional_)
                              : std::to_string(min_positional_) + " to " +
                                    std::to_string(max_positional_)) +
                         " argument(s), got " + std::to_string(n) + "; usage: tilesched " +
                         command_ + " " + usage_);
  }
  return Status::Ok();
}

const Option* Args::Find(const std::string& name) const {
  for (const Option& o : options_) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

std::optional<int> ParseCommandLine(Args& args, int argc, char** argv, int first) {
  if (Status s = args.Parse(argc, argv, first); !s.ok()) {
    return Fail(args.command(), s.message(), kExitUsage);
  }
  if (args.help()) {
    std::cout << args.HelpText();
    return kExitOk;
  }
  return std::nullopt;
}

namespace {

// Help layout: option names in a column of kHelpColumn characters, descriptions wrapped at
// kHelpWidth (a name too long for its column puts its description on the next line).
constexpr size_t kHelpColumn = 31;
constexpr size_t kHelpWidth = 100;

void AppendWrapped(std::ostringstream& out, std::string head, const std::string& text) {
  std::istringstream words(text);
  std::string word, line;
  bool first_line = true;
  auto flush = [&] {
    if (head.size() >= kHelpColumn) {
      out << head << "\n";
      head.clear();
    }
    head.resize(kHelpColumn, ' ');
    out << head << line << "\n";
    head.clear();
    line.clear();
    first_line = false;
  };
  while (words >> word) {
    if (!line.empty() && kHelpColumn + line.size() + 1 + word.size() > kHelpWidth) flush();
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || first_line) flush();
}

}  // namespace

std::string ExitStatusHelp() {
  return "exit status: 0 done, output complete (a search ended by its time limit or by SIGTERM or\n"
         "SIGINT is done, with its best schedule written); 1 invalid schedule or failed check;\n"
         "2 usage or input error; 3 internal error; 128+N stopped by signal N before the output\n"
         "was complete (a sweep keeps its finished rows for --resume; no other partial file)\n";
}

std::string Args::HelpText() const {
  std::ostringstream out;
  out << "usage: " << (command_ == "mlsys" ? "mlsys" : "tilesched " + command_) << " " << usage_
      << "\n\n"
      << description_ << "\n";
  if (!options_.empty()) {
    out << "\noptions:\n";
    for (const Option& o : options_) {
      AppendWrapped(out,
                    (o.alias.empty() ? "  " : "  " + o.alias + ", ") + "--" + o.name +
                        (o.value_name.empty() ? "" : " " + o.value_name),
                    o.help);
    }
    AppendWrapped(out, "  -h, --help", "show this help");
  }
  out << "\n" << ExitStatusHelp();
  return out.str();
}

std::string Args::Get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

Result<int64_t> Args::GetInt(const std::string& name, int64_t fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  int64_t value = 0;
  const std::string& text = it->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::Error("--" + name + " expects an integer, got '" + text + "'");
  }
  return value;
}

Result<double> Args::GetDouble(const std::string& name, double fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& text = it->second;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return Status::Error("--" + name + " expects a number, got '" + text + "'");
  }
  return value;
}

std::vector<Option> ModeOptions() {
  return {
      {"rules", "contest|algebra", "validity reading of SPEC 7 (default contest)"},
      {"matmul-reduction", "full_k|native_k", "what base_cost covers (default full_k)"},
      {"k-limit", "native|reduction", "upper bound of k (default native)"},
  };
}

Result<CostModes> ModesFromArgs(const Args& args, CostModes base) {
  CostModes modes = base;
  if (args.Has("rules")) {
    auto v = ParseRules(args.Get("rules"));
    if (!v.ok()) return v.status().WithContext("--rules: ");
    modes.rules = *v;
  }
  if (args.Has("matmul-reduction")) {
    auto v = ParseMatmulReduction(args.Get("matmul-reduction"));
    if (!v.ok()) return v.status().WithContext("--matmul-reduction: ");
    modes.matmul_reduction = *v;
  }
  if (args.Has("k-limit")) {
    auto v = ParseKLimit(args.Get("k-limit"));
    if (!v.ok()) return v.status().WithContext("--k-limit: ");
    modes.k_limit = *v;
  }
  return modes;
}

Status CheckOutputOptions(const Args& args, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (!args.Has(name)) continue;
    if (Status s = CheckOutputPath(args.Get(name), "--" + name); !s.ok()) return s;
  }
  return Status::Ok();
}

void PrintWarnings(const std::string& command, const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) {
    std::cerr << (command == "mlsys" ? "mlsys" : "tilesched " + command) << ": warning: " << w << "\n";
  }
}

int Fail(const std::string& command, const std::string& message, int code) {
  std::cerr << (command == "mlsys" ? "mlsys" : "tilesched " + command) << ": " << message << "\n";
  return code;
}

}  // namespace tilesched::cli
