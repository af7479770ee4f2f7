#include "cli.h"

#include <CLI/CLI.hpp>
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
      Grade a whole class: one folder, zip or tar per student in --submissions. Results and each
      student's feedback (results/<student>/feedback.txt and .html), journal.jsonl,
      gradebook.csv, summary.txt and class.html go to --out. Killed halfway, the same command
      resumes where it stopped, with the seed it started with; --regrade all (or a list of
      names) grades those again.
  labgrade gradescope-bundle <lab> --out DIR
      Write a Gradescope autograder (setup.sh, run_autograder, the kit's sources) to DIR and
      DIR/autograder.zip; it grades correctness on Gradescope's machines with the CPU backend.
  labgrade starter <lab> [--check]
      Write starter/<lab>/ from solutions/<lab>/ (BEGIN/END SOLUTION regions), or with --check
      fail if the committed starter differs from what would be written.
  labgrade --help, labgrade <command> --help

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

// What CLI11 collected, before it is checked and turned into a CliCommand: every value as the
// text given, so that each is checked by the functions above and their messages.
struct Raw {
  std::string lab, manifest, src, seed, json, gradescope, backend, require, work, out, submissions,
      jobs, regrade;
  bool color = false, tsan = false, check_only = false;
};

// An option that takes a value. Declared to take zero or one, so that a value left out reaches
// ParseCommandLine, which says "--src needs a value" as for every other usage error.
CLI::Option* AddValue(CLI::App* sub, const std::string& name, std::string& into,
                      const std::string& help) {
  return sub->add_option(name, into, help)->expected(0, 1);
}

// The first option of `sub` given without its value; Ok when none.
Status MissingValues(const CLI::App& sub) {
  for (const CLI::Option* opt : sub.get_options()) {
    if (opt->get_lnames().empty() || opt->get_expected_max() < 1 || opt->count() == 0) continue;
    if (opt->results().empty() || opt->results().front().empty())
      return MakeError("--" + opt->get_lnames().front() + " needs a value");
  }
  return Status::Ok();
}

CLI::App* AddCommand(CLI::App& app, Raw& raw, const std::string& name,
                     const std::string& description) {
  CLI::App* sub = app.add_subcommand(name, description);
  sub->add_option("lab", raw.lab, "the lab, e.g. 03_tiled_matmul");
  AddValue(sub, "--manifest", raw.manifest,
           "the build's labkit_manifest.json (default: this build's)");
  // Unknown options and extra arguments are reported by ParseCommandLine in the kit's words.
  sub->allow_extras();
  return sub;
}

// The first word CLI11 left over in `sub`, as a usage error; Ok when none.
Status Leftovers(const CLI::App& sub) {
  for (const std::string& word : sub.remaining()) {
    if (!word.empty() && word[0] == '-')
      return MakeError("unknown option '" + word + "' for '" + sub.get_name() + "'");
    return MakeError("unexpected argument '" + word + "' (one lab at a time)");
  }
  return Status::Ok();
}

template <class T>
Status Convert(const std::string& text, Result<T> (*parse)(const std::string&), T& out) {
  if (text.empty()) return Status::Ok();
  Result<T> value = parse(text);
  if (!value) return MakeError(value.error());
  out = *value;
  return Status::Ok();
}

Status ToCheck(const Raw& raw, CheckCommand& check) {
  check.src = raw.src;
  check.json_path = raw.json;
  check.gradescope_dir = raw.gradescope;
  check.work_dir = raw.work;
  check.color = raw.color;
  check.thread_sanitizer = raw.tsan;
  if (!raw.seed.empty()) {
    uint64_t seed = 0;
    if (Status s = Convert(raw.seed, &ParseSeed, seed); !s) return s;
    check.seed = seed;
  }
  if (Status s = Convert(raw.backend, &ParseBackend, check.backend); !s) return s;
  return Convert(raw.require, &ParseRequirement, check.require);
}

Status ToBatch(const Raw& raw, BatchCommand& batch) {
  batch.submissions = raw.submissions;
  batch.out = raw.out;
  if (!raw.jobs.empty()) {
    auto n = ParseSeed(raw.jobs);
    if (!n || *n == 0 || *n > 1024) return MakeError("--jobs takes a number from 1 to 1024");
    batch.jobs = static_cast<int>(*n);
  }
  if (!raw.seed.empty()) {
    uint64_t seed = 0;
    if (Status s = Convert(raw.seed, &ParseSeed, seed); !s) return s;
    batch.seed = seed;
  }
  if (Status s = Convert(raw.backend, &ParseBackend, batch.backend); !s) return s;
  if (raw.regrade == "all") {
    batch.regrade_all = true;
  } else if (!raw.regrade.empty()) {
    auto names = SplitNames(raw.regrade);
    if (!names) return MakeError(names.error());
    batch.regrade = *names;
  }
  if (batch.submissions.empty()) return MakeError("'grade' needs --submissions DIR");
  if (batch.out.empty()) return MakeError("'grade' needs --out DIR");
  return Status::Ok();
}

}  // namespace

Result<CliCommand> ParseCommandLine(int argc, const char* const* argv) {
  CliCommand cmd;
  if (argc < 2) return cmd;  // no arguments: the usage text
  Raw raw;
  CLI::App app("labgrade: grades CUDA lab submissions", "labgrade");
  app.set_help_flag("-h,--help", "this text");
  app.allow_extras();  // an unknown command is reported below, in the kit's words

  CLI::App* check = AddCommand(app, raw, "check", "Grade one submission.");
  AddValue(check, "--src", raw.src, "the submission's folder (default: the lab's starter)");
  AddValue(check, "--seed", raw.seed,
           "reproduce a run's random inputs (every run prints its seed)");
  AddValue(check, "--backend", raw.backend, "auto (a GPU where one answers), gpu or cpu");
  AddValue(check, "--json", raw.json, "write the result (docs/RESULTS_SCHEMA.md) to FILE");
  AddValue(check, "--gradescope", raw.gradescope, "write DIR/results.json in Gradescope's format");
  AddValue(check, "--require", raw.require,
           "full or given-only: exit 1 unless the result is that (none: always 0)");
  AddValue(check, "--work", raw.work, "scratch folder (default: a temporary one, removed)");
  check->add_flag("--color", raw.color, "colours and check marks in the report");
  check->add_flag("--tsan", raw.tsan,
                  "CPU backend: also a ThreadSanitizer build, which names the lines of a race");

  CLI::App* grade =
      AddCommand(app, raw, "grade", "Grade a whole class: one folder, zip or tar per student.");
  AddValue(grade, "--submissions", raw.submissions, "the class's folder");
  AddValue(grade, "--out", raw.out,
           "where results, journal.jsonl, gradebook.csv, summary.txt, class.html go");
  AddValue(grade, "--jobs", raw.jobs, "submissions graded at once (default: one per CPU core)");
  AddValue(grade, "--seed", raw.seed, "the inputs' seed of a new batch (a resume keeps its own)");
  AddValue(grade, "--backend", raw.backend, "auto, gpu or cpu");
  AddValue(grade, "--regrade", raw.regrade, "NAME,... or all: grade these again");

  CLI::App* bundle =
      AddCommand(app, raw, "gradescope-bundle",
                 "Write a Gradescope autograder (CPU backend) to DIR/autograder.zip.");
  AddValue(bundle, "--out", raw.out, "the folder to write");

  CLI::App* starter = AddCommand(
      app, raw, "starter", "Write starter/<lab>/ from solutions/<lab>/ (BEGIN/END SOLUTION).");
  starter->add_flag("--check", raw.check_only,
                    "fail if the committed starter differs from what would be written");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    // The help of the command asked about (CLI11 picks it); the overview for a bare --help.
    cmd.help = app.get_subcommands().empty() ? UsageText() : app.help();
    return cmd;
  } catch (const CLI::ParseError& e) {
    // A value missing after an option, and the like: CLI11's own words, said the kit's way.
    return MakeError(e.what());
  }
  if (app.get_subcommands().empty()) {
    const std::vector<std::string> words = app.remaining();
    const std::string verb = words.empty() ? "" : words.front();
    return MakeError("unknown command '" + verb +
                     "' (expected check, grade, gradescope-bundle or starter)");
  }
  CLI::App* sub = app.get_subcommands().front();
  if (Status s = MissingValues(*sub); !s) return MakeError(s.error());
  if (Status s = Leftovers(*sub); !s) return MakeError(s.error());
  const std::string verb = sub->get_name();
  if (raw.lab.empty()) return MakeError("'" + verb + "' needs a lab, e.g. 03_tiled_matmul");
  cmd.manifest = raw.manifest;
  Status converted;
  if (sub == check) {
    cmd.kind = CliCommand::Kind::kCheck;
    converted = ToCheck(raw, cmd.check);
  } else if (sub == grade) {
    cmd.kind = CliCommand::Kind::kGrade;
    converted = ToBatch(raw, cmd.batch);
  } else if (sub == bundle) {
    cmd.kind = CliCommand::Kind::kBundle;
    if (raw.out.empty()) converted = MakeError("'gradescope-bundle' needs --out DIR");
    cmd.bundle.out = raw.out;
  } else {
    cmd.kind = CliCommand::Kind::kStarter;
    cmd.starter.check_only = raw.check_only;
  }
  if (!converted) return MakeError(converted.error());
  cmd.check.lab = cmd.batch.lab = cmd.bundle.lab = cmd.starter.lab = raw.lab;
  return cmd;
}

}  // namespace labkit
