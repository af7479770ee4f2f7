#include "cli.h"

#include <cstdlib>
#include <vector>

namespace labkit {

const char* UsageText() {
  return R"(usage:
  labgrade check <lab> [--src DIR] [--seed N] [--backend auto|gpu|cpu] [--json FILE]
                       [--gradescope DIR] [--require full|given-only] [--work DIR] [--color]
      Grade one submission (default --src: the lab's starter folder). --seed reproduces a run's
      random inputs (every run prints its seed). --backend auto uses a GPU where one answers and
      the CPU backend otherwise. --json writes the result (docs/RESULTS_SCHEMA.md); --gradescope
      writes DIR/results.json in Gradescope's format.
  labgrade starter <lab> [--check]
      Write starter/<lab>/ from solutions/<lab>/ (BEGIN/END SOLUTION regions), or with --check
      fail if the committed starter differs from what would be written.
  labgrade --help

common options: --manifest FILE (the build's labkit_manifest.json; default: this build's)

exit status: 0 graded (whatever the score), 1 the --require condition was not met, 2 usage error,
             3 unknown lab or missing folder/file, 77 --backend gpu but no GPU answers here.
)";
}

namespace {

Result<uint64_t> ParseSeed(const std::string& text) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || text[0] == '-')
    return MakeError("--seed takes a non-negative whole number, got '" + text + "'");
  return static_cast<uint64_t>(v);
}

Result<BackendChoice> ParseBackend(const std::string& text) {
  if (text == "auto") return BackendChoice::kAuto;
  if (text == "gpu") return BackendChoice::kGpu;
  if (text == "cpu") return BackendChoice::kCpu;
  return MakeError("--backend takes auto, gpu or cpu, got '" + text + "'");
}

Result<Requirement> ParseRequirement(const std::string& text) {
  if (text == "full") return Requirement::kFull;
  if (text == "given-only") return Requirement::kGivenOnly;
  if (text == "none") return Requirement::kNone;
  return MakeError("--require takes full, given-only or none, got '" + text + "'");
}

}  // namespace

Result<CliCommand> ParseCommandLine(int argc, const char* const* argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  CliCommand cmd;
  if (args.empty() || args[0] == "--help" || args[0] == "-h") return cmd;
  const std::string verb = args[0];
  if (verb != "check" && verb != "starter")
    return MakeError("unknown command '" + verb + "' (expected check or starter)");
  cmd.kind = verb == "check" ? CliCommand::Kind::kCheck : CliCommand::Kind::kStarter;

  std::string lab;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return MakeError(a + " needs a value");
      return args[++i];
    };
    auto flag_for = [&](bool check_only) -> Status {
      if ((cmd.kind == CliCommand::Kind::kCheck) != check_only)
        return MakeError(a + " does not apply to '" + verb + "'");
      return Status::Ok();
    };
    if (a == "--manifest") {
      auto v = value();
      if (!v) return MakeError(v.error());
      cmd.manifest = *v;
    } else if (a == "--check") {
      if (auto s = flag_for(false); !s) return MakeError(s.error());
      cmd.starter.check_only = true;
    } else if (a == "--color") {
      if (auto s = flag_for(true); !s) return MakeError(s.error());
      cmd.check.color = true;
    } else if (a == "--src" || a == "--seed" || a == "--json" || a == "--gradescope" ||
               a == "--backend" || a == "--require" || a == "--work") {
      if (auto s = flag_for(true); !s) return MakeError(s.error());
      auto v = value();
      if (!v) return MakeError(v.error());
      if (a == "--src") cmd.check.src = *v;
      if (a == "--json") cmd.check.json_path = *v;
      if (a == "--gradescope") cmd.check.gradescope_dir = *v;
      if (a == "--work") cmd.check.work_dir = *v;
      if (a == "--seed") {
        auto seed = ParseSeed(*v);
        if (!seed) return MakeError(seed.error());
        cmd.check.seed = *seed;
      }
      if (a == "--backend") {
        auto b = ParseBackend(*v);
        if (!b) return MakeError(b.error());
        cmd.check.backend = *b;
      }
      if (a == "--require") {
        auto r = ParseRequirement(*v);
        if (!r) return MakeError(r.error());
        cmd.check.require = *r;
      }
    } else if (!a.empty() && a[0] == '-') {
      return MakeError("unknown option '" + a + "'");
    } else if (lab.empty()) {
      lab = a;
    } else {
      return MakeError("unexpected argument '" + a + "' (one lab at a time)");
    }
  }
  if (lab.empty()) return MakeError("'" + verb + "' needs a lab, e.g. 03_tiled_matmul");
  cmd.check.lab = lab;
  cmd.starter.lab = lab;
  return cmd;
}

}  // namespace labkit
