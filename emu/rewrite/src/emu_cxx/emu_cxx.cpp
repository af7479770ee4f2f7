#include "emu_cxx.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "rewrite.h"

namespace emu::cxx {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int run_steps(const CompilePlan& plan, CommandRunner& runner) {
  if (const int rc = runner.run(plan.preprocess); rc != 0 || plan.rewrite.empty()) return rc;
  if (const int rc = runner.run(plan.rewrite); rc != 0) return rc;
  const bool cpp = emu::rewrite::output_needs_preprocessor(read_file(plan.rewritten));
  std::vector<std::string> compile = plan.compile;
  compile.insert(compile.end(), {"-x", cpp ? "c++" : "c++-cpp-output", plan.rewritten});
  return runner.run(compile);
}

}  // namespace

int run_launcher(std::vector<std::string> command, const Options& options, CommandRunner& runner) {
  if (!command.empty() && !command[0].empty() && command[0][0] == '-') {
    command.insert(command.begin(), options.default_compiler);
  }
  const std::optional<CompilePlan> plan =
      plan_compile(command, options.paths, !options.allow_uncounted);
  if (!plan) return runner.run(command);
  const int rc = run_steps(*plan, runner);
  if (!options.keep_temporaries) {
    std::remove(plan->preprocessed.c_str());
    std::remove(plan->rewritten.c_str());
  }
  return rc;
}

}  // namespace emu::cxx
