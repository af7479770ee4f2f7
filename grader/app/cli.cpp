#include "cli.h"

#include <cstdlib>
#include <vector>

namespace labkit {

const char* UsageText() {
  return R"(usage:
  labgrade check <lab> [--src DIR] [--seed N] [--backend auto|gpu|cpu] [--json FILE]
                       [--gradescope DIR] [--require full|given-only] [--work DIR] [--color]
                       [--tsan]
      Grade one submission (default --src: the lab's starter folder). --seed reproduces a run's
      random inputs (every run prints its seed). --backend auto uses a GPU where one answers and
      the CPU backend otherwise. --json writes the result (docs/RESULTS_SCHEMA.md); --gradescope
      writes DIR/results.json in Gradescope's format. --tsan (CPU backend) also runs a
      ThreadSanitizer build, which names the two source lines of a race between threads.
  labgrade grade <lab> --submissions DIR --out DIR [--jobs N] [--seed N] [--backend ...]
                       [--regrade [NAME,...|all]]
      Grade a whole class: one folder, zip or tar per student in --submissions. Results,
      journal.jsonl, gradebook.csv and summary.txt go to --out. Killed halfway, the same command
      resumes where it stopped; --regrade all (or a list of names) grades those again.
  labgrade gradescope-bundle <lab> --out DIR
      Write a Gradescope autograder (setup.sh, run_autograder, the kit's sources) to DIR and
      DIR/autograder.zip; it grades correctness on Gradescope's machines with the CPU backend.
  labgrade starter <lab> [--check]
      Write starter/<lab>/ from solutions/<lab>/ (BEGIN/END SOLUTION regions), or with --check
      fail if the committed starter differs from what would be written.
  labgrade --help

common options: --manifest FILE (the build's labkit_manifest.json; default: this build's)

exit status: 0 graded (whatever the score), 1 the --require condition was not met, 2 usage error,
             3 unknown lab or missing folder/file, 4 internal error of the kit's own,
             77 --backend gpu but no GPU answers here.
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

Result<std::vector<std::string>> SplitNames(const std::string& text) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma - start);
    if (!name.empty()) names.push_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (names.empty()) return MakeError("--regrade needs names (comma-separated) or all");
  return names;
}

// `grade` and `gradescope-bundle`.
Result<CliCommand> ParseBatchLike(CliCommand cmd, const std::vector<std::string>& args) {
  const bool grade = cmd.kind == CliCommand::Kind::kGrade;
  std::string lab;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!a.empty() && a[0] != '-') {
      if (!lab.empty()) return MakeError("unexpected argument '" + a + "' (one lab at a time)");
      lab = a;
      continue;
    }
    const bool known = a == "--out" || a == "--manifest" ||
                       (grade && (a == "--submissions" || a == "--jobs" || a == "--seed" ||
                                  a == "--backend" || a == "--regrade"));
    if (!known) return MakeError("unknown option '" + a + "' for '" + args[0] + "'");
    if (i + 1 >= args.size()) return MakeError(a + " needs a value");
    const std::string v = args[++i];
    if (a == "--out") {
      cmd.batch.out = v;
      cmd.bundle.out = v;
    } else if (a == "--manifest") {
      cmd.manifest = v;
    } else if (a == "--submissions") {
      cmd.batch.submissions = v;
    } else if (a == "--jobs") {
      auto n = ParseSeed(v);
      if (!n || *n == 0 || *n > 1024) return MakeError("--jobs takes a number from 1 to 1024");
      cmd.batch.jobs = static_cast<int>(*n);
    } else if (a == "--seed") {
      auto seed = ParseSeed(v);
      if (!seed) return MakeError(seed.error());
      cmd.batch.seed = *seed;
    } else if (a == "--backend") {
      auto b = ParseBackend(v);
      if (!b) return MakeError(b.error());
      cmd.batch.backend = *b;
    } else if (a == "--regrade") {
      if (v == "all") {
        cmd.batch.regrade_all = true;
      } else {
        auto names = SplitNames(v);
        if (!names) return MakeError(names.error());
        cmd.batch.regrade = *names;
      }
    }
  }
  if (lab.empty()) return MakeError("'" + args[0] + "' needs a lab, e.g. 03_tiled_matmul");
  if (cmd.batch.out.empty()) return MakeError("'" + args[0] + "' needs --out DIR");
  if (grade && cmd.batch.submissions.empty()) return MakeError("'grade' needs --submissions DIR");
  cmd.batch.lab = lab;
  cmd.bundle.lab = lab;
  return cmd;
}

}  // namespace

Result<CliCommand> ParseCommandLine(int argc, const char* const* argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  CliCommand cmd;
  if (args.empty() || args[0] == "--help" || args[0] == "-h") return cmd;
  const std::string verb = args[0];
  if (verb == "check") {
    cmd.kind = CliCommand::Kind::kCheck;
  } else if (verb == "starter") {
    cmd.kind = CliCommand::Kind::kStarter;
  } else if (verb == "grade") {
    cmd.kind = CliCommand::Kind::kGrade;
  } else if (verb == "gradescope-bundle") {
    cmd.kind = CliCommand::Kind::kBundle;
  } else {
    return MakeError("unknown command '" + verb +
                     "' (expected check, grade, gradescope-bundle or starter)");
  }
  if (cmd.kind == CliCommand::Kind::kGrade || cmd.kind == CliCommand::Kind::kBundle)
    return ParseBatchLike(cmd, args);

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
    } else if (a == "--tsan") {
      if (auto s = flag_for(true); !s) return MakeError(s.error());
      cmd.check.thread_sanitizer = true;
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
