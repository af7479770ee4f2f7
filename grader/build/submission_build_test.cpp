#include "submission_build.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "fake_compile_test_util.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

// A runner that records commands and answers from a script, so the build logic is tested without
// compilers.
class FakeRunner : public ProcessRunner {
 public:
  std::vector<Command> commands;
  int fail_at = -1;  // index of the command that fails
  int failure_code = 1;  // its exit status
  std::string broken;  // a program (argv[0]) that fails every time
  std::string failure_output = "matmul.cu:3:1: error: expected ';'";
  std::map<std::string, std::string> output_of;   // program (argv[0]) -> what it prints
  std::map<std::string, std::size_t> dropped_of;  // program -> bytes printed past the limit
  std::string missing;                            // a program that is not installed
  ProcessResult Run(const Command& command) override {
    commands.push_back(command);
    WriteDependencyList(command);
    WritePreprocessedOutput(command);
    ProcessResult r;
    r.started = command.argv.at(0) != missing;
    r.exit_code =
        static_cast<int>(commands.size()) - 1 == fail_at || command.argv.at(0) == broken
            ? failure_code
            : 0;
    if (r.exit_code != 0) r.output = failure_output;
    if (const auto it = output_of.find(command.argv.at(0)); it != output_of.end())
      r.output = it->second;
    if (const auto it = dropped_of.find(command.argv.at(0)); it != dropped_of.end())
      r.output_dropped = it->second;
    return r;
  }
};

// A submission folder with matmul.cu and, beside it, a lab folder with its frozen header.
struct Folders {
  // The process id in the name: ctest runs each test of this file as a process of its own, at the
  // same time as the others.
  std::string root = (fs::temp_directory_path() /
                      ("labkit_build_test_folders_" + std::to_string(getpid())))
                         .string();
  std::string src = root + "/student";
  Manifest manifest;
  Folders() {
    fs::remove_all(root);
    fs::create_directories(src);
    fs::create_directories(root + "/labs/03_tiled_matmul");
    std::ofstream(src + "/matmul.cu") << "#include \"matmul_lab.cuh\"\n";
    std::ofstream(root + "/labs/03_tiled_matmul/matmul_lab.cuh") << "constexpr int TILE = 16;\n";
    manifest.source_dir = root;
    manifest.emu_backend = true;
    manifest.emu_cxx = "emu-cxx";
    manifest.cxx = "g++";
    manifest.emu_libs["03_tiled_matmul"] = {"lab.a", "harness.a"};
  }
  ~Folders() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

LabSpec TinySpec() {
  LabSpec spec;
  spec.id = "03_tiled_matmul";
  spec.student_files = {"matmul.cu"};
  spec.interface = "matmul_lab.cuh";
  return spec;
}

// Builds f's submission on the CPU backend with `runner` standing in for the tools.
BuildOutcome BuildIn(const Folders& f, FakeRunner& runner, Flavour flavour = Flavour::kDefault) {
  const LabSpec spec = TinySpec();
  SubmissionBuilder builder(runner, f.manifest, spec);
  return builder.Build(f.src, f.root + "/work", Backend::kCpu, flavour);
}

bool Holds(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

TEST(SubmissionBuild, MissingFileIsNamed) {
  FakeRunner runner;
  Manifest manifest;
  manifest.emu_backend = true;
  manifest.emu_libs["03_tiled_matmul"] = {"lib.a"};
  const LabSpec spec = TinySpec();
  SubmissionBuilder builder(runner, manifest, spec);
  const BuildOutcome out = builder.Build("/nonexistent/student", "/tmp/labkit_build_test",
                                         Backend::kCpu, Flavour::kDefault);
  EXPECT_FALSE(out.ok);
  EXPECT_EQ(out.stage, "missing_file");
  EXPECT_NE(out.message.find("the submission has no matmul.cu"), std::string::npos);
  EXPECT_TRUE(runner.commands.empty());
}

TEST(SubmissionBuild, NoBackendInThisBuildIsAToolchainProblem) {
  FakeRunner runner;
  Manifest manifest;  // neither backend
  const LabSpec spec = TinySpec();
  SubmissionBuilder builder(runner, manifest, spec);
  const BuildOutcome out = builder.Build("/tmp", "/tmp/x", Backend::kGpu, Flavour::kDefault);
  EXPECT_EQ(out.stage, "toolchain");
}

void ExpectRefused(const BuildOutcome& out, const std::string& stage, const std::string& words) {
  EXPECT_FALSE(out.ok);
  EXPECT_EQ(out.stage, stage);
  EXPECT_NE(out.message.find(words), std::string::npos) << out.message;
}

// `#include "matmul_lab.cuh"` finds a copy beside matmul.cu before the lab's own.
TEST(SubmissionBuild, AChangedCopyOfTheFrozenHeaderIsRefused) {
  Folders f;
  std::ofstream(f.src + "/matmul_lab.cuh") << "constexpr int TILE = 1;\n";
  FakeRunner runner;
  ExpectRefused(BuildIn(f, runner), "shadowed_header",
                "the folder holds matmul_lab.cuh, a changed copy of the lab's frozen header");
  EXPECT_TRUE(runner.commands.empty());
}

TEST(SubmissionBuild, AnUnchangedCopyOfTheFrozenHeaderIsFine) {
  Folders f;
  std::ofstream(f.src + "/matmul_lab.cuh") << "constexpr int TILE = 16;\n";
  FakeRunner runner;
  const BuildOutcome out = BuildIn(f, runner);
  EXPECT_NE(out.stage, "shadowed_header") << out.message;
  EXPECT_FALSE(runner.commands.empty());
}

TEST(SubmissionBuild, ALinkInPlaceOfTheHeaderIsRefused) {
  Folders f;
  fs::create_symlink(f.root + "/labs/03_tiled_matmul/matmul_lab.cuh", f.src + "/matmul_lab.cuh");
  FakeRunner runner;
  EXPECT_EQ(BuildIn(f, runner).stage, "shadowed_header");
}

TEST(SubmissionBuild, ASystemCallInstructionIsRefused) {
  Folders f;
  FakeRunner runner;
  runner.output_of["objdump"] = "0000000000000000 <forge()>:\n   0:\tsyscall\n";
  ExpectRefused(BuildIn(f, runner), "forbidden_instruction",
                "matmul.cu makes system calls itself (the syscall instruction in forge())");
}

// nm sorts by name, and a function name of a megabyte sorts before every lower-case one: a
// listing cut at the output limit would leave fopen, _exit and the rest unchecked.
TEST(SubmissionBuild, ASymbolListingCutAtTheOutputLimitIsRefused) {
  Folders f;
  FakeRunner runner;
  runner.output_of["nm"] = "0000000000000000 T _Z1048576Aaaaaaaaaaaaaaaa";
  runner.dropped_of["nm"] = 20;
  ExpectRefused(BuildIn(f, runner), "unchecked_object",
                "matmul.cu cannot be checked: nm's listing of it is longer than the grader reads");
}

TEST(SubmissionBuild, AnInstructionListingCutAtTheOutputLimitIsRefused) {
  Folders f;
  FakeRunner runner;
  runner.dropped_of["objdump"] = 1;
  ExpectRefused(BuildIn(f, runner), "unchecked_object",
                "matmul.cu cannot be checked: objdump's listing of it is longer");
}

TEST(SubmissionBuild, AListingToolThatFailsOnTheObjectIsRefused) {
  Folders f;
  FakeRunner runner;
  runner.fail_at = 1;  // the compile (0) succeeds, nm (1) fails
  runner.failure_output = "nm: matmul.cu.o: file format not recognized";
  ExpectRefused(BuildIn(f, runner), "unchecked_object",
                "nm's listing of it failed (exit status 1)");
}

// Where binutils is missing there is nothing to check with; the build goes on (the link still
// catches clashes with the kit's names).
TEST(SubmissionBuild, AMissingListingToolChecksNothing) {
  Folders f;
  FakeRunner runner;
  runner.missing = "nm";
  EXPECT_NE(BuildIn(f, runner).stage, "unchecked_object");
}

// The CPU backend counts technique.measured in the graded builds themselves: both are compiled
// with a call of the emulator's hook for every access. ThreadSanitizer's build cannot also carry
// AddressSanitizer's instrumentation, and is not counted in.
TEST(SubmissionBuild, TheCpuBackendsGradedBuildsCallTheAccessHooks) {
  Folders f;
  for (const Flavour flavour : {Flavour::kDefault, Flavour::kNoFma, Flavour::kThreadSanitizer}) {
    FakeRunner runner;
    BuildIn(f, runner, flavour);
    ASSERT_FALSE(runner.commands.empty());
    const std::vector<std::string>& compile = runner.commands.front().argv;
    ASSERT_EQ(compile.at(0), "emu-cxx");
    const bool tsan = flavour == Flavour::kThreadSanitizer;
    EXPECT_EQ(Holds(compile, "-fsanitize=kernel-address"), !tsan) << ToString(flavour);
    EXPECT_EQ(Holds(compile, "--param=asan-instrumentation-with-call-threshold=0"), !tsan);
    EXPECT_EQ(Holds(compile, "-fsanitize=thread"), tsan) << ToString(flavour);
    EXPECT_EQ(Holds(compile, "-ffp-contract=off"), flavour == Flavour::kNoFma);
  }
}

// emu-cxx's own words for code a counted compile refuses (inline assembly, say): the message's
// first line is the cause and its place, not "does not compile".
TEST(SubmissionBuild, UncountedAccessIsNamed) {
  Folders f;
  FakeRunner runner;
  runner.fail_at = 0;
  runner.failure_code = 65;
  runner.failure_output = "matmul.cu:9: error: inline assembly: the grader's CPU backend ...";
  const BuildOutcome out = BuildIn(f, runner);
  EXPECT_EQ(out.stage, "uncounted_access");
  EXPECT_EQ(out.message.rfind("matmul.cu:9: error: inline assembly", 0), 0u) << out.message;
}

// Without the symbol and instruction checks (red-team cases testing what stands behind them),
// emu-cxx is told to accept inline assembly too; with them, it is not.
TEST(SubmissionBuild, OnlyAnUncheckedBuildLetsEmuAcceptUncountedCode) {
  Folders f;
  const LabSpec spec = TinySpec();
  for (const bool checked : {true, false}) {
    FakeRunner runner;
    SubmissionBuilder builder(runner, f.manifest, spec);
    builder.set_check_symbols(checked);
    builder.Build(f.src, f.root + "/work", Backend::kCpu, Flavour::kDefault);
    ASSERT_FALSE(runner.commands.empty());
    EXPECT_EQ(runner.commands.front().env.count("LABKIT_EMU_ALLOW_UNCOUNTED"), checked ? 0u : 1u);
  }
}

// device_call_guard.h: the object's library calls renamed before the link (counted copies, stubs
// for host-only functions), the stubs assembled and linked, but not listed as the student's.
TEST(SubmissionBuild, KernelCallsAreGuardedBeforeTheLinkOnTheCpuBackend) {
  Folders f;
  FakeRunner runner;
  runner.output_of["nm"] = "                 U memcpy\n                 U sinf\n"
                           "                 U strlen\n0000000000000000 T _Z12matmul_tiledPKfS0_Pfiii\n";
  const BuildOutcome out = BuildIn(f, runner);
  ASSERT_TRUE(out.ok) << out.stage << ": " << out.message;
  const std::string object = f.root + "/work/matmul.cu.o";
  std::vector<std::string> objcopy, assemble, link;
  for (const Command& c : runner.commands) {
    if (c.argv.at(0) == "objcopy") objcopy = c.argv;
    if (c.argv.at(0) == "g++" && Holds(c.argv, "-c")) assemble = c.argv;
    if (c.argv.at(0) == "g++" && Holds(c.argv, "-o") && Holds(c.argv, out.executable)) link = c.argv;
  }
  ASSERT_EQ(objcopy, (std::vector<std::string>{"objcopy",
                                               "--redefine-syms=" + object + ".kernel_calls",
                                               object}));
  std::ifstream renames(object + ".kernel_calls");
  const std::string text((std::istreambuf_iterator<char>(renames)), {});
  EXPECT_EQ(text, "memcpy __emu_device_memcpy\nstrlen __emu_guard_strlen\n");
  ASSERT_FALSE(assemble.empty());
  EXPECT_TRUE(Holds(assemble, object + ".kernel_calls.s"));
  EXPECT_TRUE(Holds(link, object + ".kernel_calls.s.o"));
  EXPECT_TRUE(Holds(link, object));
}

TEST(SubmissionBuild, TheGpuBackendRenamesNothing) {
  Folders f;
  f.manifest.nvcc = "nvcc";
  f.manifest.gpu_libs["03_tiled_matmul"] = {"lab.a"};
  FakeRunner runner;
  runner.output_of["nm"] = "                 U strlen\n";
  const LabSpec spec = TinySpec();
  SubmissionBuilder builder(runner, f.manifest, spec);
  builder.Build(f.src, f.root + "/work", Backend::kGpu, Flavour::kDefault);
  for (const Command& c : runner.commands) EXPECT_NE(c.argv.at(0), "objcopy");
}

// The kit's replay program holds none of the student's objects: the lab's table and the
// student's host code are not linked into it, and the student's device code is cut out of each
// object for it (kit_replay_program.h).
TEST(SubmissionBuild, TheKitReplayProgramIsLinkedWithoutTheStudentsObjects) {
  Folders f;
  f.manifest.nvcc = "nvcc";
  f.manifest.gpu_libs["03_tiled_matmul"] = {"lab.a", "harness.a"};
  f.manifest.gpu_replay_libs = {"replay_only.a", "harness.a"};
  FakeRunner runner;
  const LabSpec spec = TinySpec();
  SubmissionBuilder builder(runner, f.manifest, spec);
  const std::string work = f.root + "/work";
  // The fake tools leave no fatbinary behind: that is the grader's fault, never a replay in the
  // student's own program.
  const BuildOutcome out = builder.Build(f.src, work, Backend::kGpu, Flavour::kDefault);
  EXPECT_FALSE(out.ok);
  EXPECT_EQ(out.stage, "toolchain");
  const std::string object = work + "/matmul.cu.o";
  std::vector<std::string> kit_link, student_link, cut;
  for (const Command& c : runner.commands) {
    if (Holds(c.argv, work + "/kit_replay")) kit_link = c.argv;
    if (Holds(c.argv, work + "/harness") && Holds(c.argv, "lab.a")) student_link = c.argv;
    if (c.argv.at(0) == "objcopy") cut = c.argv;
  }
  ASSERT_FALSE(kit_link.empty());
  EXPECT_TRUE(Holds(kit_link, "replay_only.a"));
  EXPECT_FALSE(Holds(kit_link, "lab.a"));
  EXPECT_FALSE(Holds(kit_link, object));
  EXPECT_TRUE(Holds(kit_link, "--wrap=cudaLaunchKernel"));
  EXPECT_TRUE(Holds(student_link, object));
  EXPECT_EQ(cut, (std::vector<std::string>{"objcopy", "-O", "binary", "--only-section=.nv_fatbin",
                                           object, work + "/harness.fatbin0"}));
}

TEST(SubmissionBuild, AKitReplayProgramThatDoesNotLinkIsTheGradersFault) {
  Folders f;
  f.manifest.nvcc = "nvcc";
  f.manifest.gpu_libs["03_tiled_matmul"] = {"lab.a", "harness.a"};
  f.manifest.gpu_replay_libs = {"replay_only.a", "harness.a"};
  const LabSpec spec = TinySpec();
  const std::string work = f.root + "/work";
  int kit_link = -1;  // where the kit program's link comes among the build's commands
  {
    FakeRunner runner;
    SubmissionBuilder(runner, f.manifest, spec)
        .Build(f.src, work, Backend::kGpu, Flavour::kDefault);
    for (std::size_t i = 0; i < runner.commands.size(); ++i)
      if (Holds(runner.commands[i].argv, work + "/kit_replay")) kit_link = static_cast<int>(i);
  }
  ASSERT_GE(kit_link, 0);
  FakeRunner runner;
  runner.fail_at = kit_link;
  const BuildOutcome out = SubmissionBuilder(runner, f.manifest, spec)
                               .Build(f.src, work, Backend::kGpu, Flavour::kDefault);
  EXPECT_EQ(out.stage, "toolchain");
  EXPECT_NE(out.message.find("could not link its own replay program"), std::string::npos);
}

// free_of_fma only where objdump listed every object of x86-64 code and none held an FMA: the
// build plan (build_plan.h) then spares the -ffp-contract=off build.
TEST(SubmissionBuild, FreeOfFmaIsReadFromTheObjectsDisassembly) {
  Folders f;
  const std::string head = "\nmatmul.cu.o:     file format elf64-x86-64\n\n0 <dot()>:\n";
  FakeRunner plain;
  plain.output_of["objdump"] = head + "   0:\tmulss  %xmm1,%xmm0\n   4:\taddss  %xmm1,%xmm0\n";
  BuildOutcome out = BuildIn(f, plain);
  EXPECT_TRUE(out.ok) << out.message;
  EXPECT_TRUE(out.free_of_fma);

  FakeRunner fused;
  fused.output_of["objdump"] = head + "   0:\tvfmadd231ss (%rsi),%xmm1,%xmm0\n";
  out = BuildIn(f, fused);
  EXPECT_TRUE(out.ok) << out.message;
  EXPECT_FALSE(out.free_of_fma);

  FakeRunner no_objdump;
  no_objdump.missing = "objdump";
  out = BuildIn(f, no_objdump);
  EXPECT_TRUE(out.ok) << out.message;
  EXPECT_FALSE(out.free_of_fma);
}

// The linker keeps the first copy of an inline function or template instance: the harness's.
TEST(SubmissionBuild, TheKitsArchivesComeBeforeTheStudentsObject) {
  Folders f;
  FakeRunner runner;
  BuildIn(f, runner);
  const Command* link = nullptr;
  for (const Command& c : runner.commands)
    if (c.argv.at(0) == "g++") link = &c;
  ASSERT_NE(link, nullptr);
  const auto& a = link->argv;
  const auto object = std::find(a.begin(), a.end(), f.root + "/work/matmul.cu.o");
  const auto first_lib = std::find(a.begin(), a.end(), "lab.a");
  ASSERT_NE(object, a.end());
  ASSERT_NE(first_lib, a.end());
  EXPECT_LT(first_lib, object);
  EXPECT_NE(std::find(object, a.end(), "harness.a"), a.end()) << "read again after the object";
}

// ptxas runs on its own, on the PTX: what the nvcc run printed (a #warning of the student's that
// reads like ptxas's report) is not part of the report.
TEST(SubmissionBuild, TheResourceReportIsPtxasOwnOutputAlone) {
  Folders f;
  f.manifest.nvcc = "/opt/cuda/bin/nvcc";
  FakeRunner runner;
  runner.output_of["/opt/cuda/bin/nvcc"] =
      "matmul.cu(1): warning #1105-D: #warning directive: ptxas info    : Used 9 registers, "
      "4096 bytes smem";
  runner.output_of["/opt/cuda/bin/ptxas"] =
      "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\n"
      "ptxas info    : Used 8 registers\n";
  const LabSpec spec = TinySpec();
  SubmissionBuilder builder(runner, f.manifest, spec);
  const auto text = builder.ResourceReportText(f.src, f.root + "/ptx");
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text, runner.output_of["/opt/cuda/bin/ptxas"]);
  ASSERT_EQ(runner.commands.size(), 2u);
  const std::vector<std::string> ptx_argv = {"/opt/cuda/bin/nvcc", "-ptx", "-std=c++17", "-O3",
                                             "-arch=compute_90", "-I" + f.root + "/labs/03_tiled_matmul",
                                             f.src + "/matmul.cu", "-o", f.root + "/ptx/student0.ptx"};
  EXPECT_EQ(runner.commands[0].argv, ptx_argv);
  const std::vector<std::string> ptxas_argv = {"/opt/cuda/bin/ptxas", "-v", "-arch=sm_90",
                                               f.root + "/ptx/student0.ptx", "-o", "/dev/null"};
  EXPECT_EQ(runner.commands[1].argv, ptxas_argv);
  // The PTX is made once: the constant-memory check reads the same files.
  const auto again = builder.Ptx(f.src, f.root + "/ptx");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(runner.commands.size(), 2u);
}

// A compile error is the student's only where the compiler compiles the kit's own file: one that
// cannot run in the sandbox (a wrapper whose real compiler is not shown) fails every file, and a
// zero for "does not compile" would be the kit's fault.
TEST(SubmissionBuild, ACompilerThatFailsTheKitsOwnFileIsTheKitsFault) {
  Folders f;
  {
    FakeRunner runner;
    runner.fail_at = 0;  // the student's file only
    const BuildOutcome out = BuildIn(f, runner);
    EXPECT_EQ(out.stage, "compile") << out.message;
    ASSERT_EQ(runner.commands.size(), 2u);
    EXPECT_NE(runner.commands[1].argv.end(),
              std::find_if(runner.commands[1].argv.begin(), runner.commands[1].argv.end(),
                           [](const std::string& a) {
                             return a.find("kit_probe.cu") != std::string::npos;
                           }));
  }
  FakeRunner runner;
  runner.broken = "emu-cxx";
  runner.failure_output = "/opt/gcc/bin/g++: 2: exec: /opt/gcc/bin/g++-real: not found";
  const BuildOutcome out = BuildIn(f, runner);
  EXPECT_EQ(out.stage, "toolchain");
  EXPECT_NE(out.message.find("the kit's compiler does not work here"), std::string::npos)
      << out.message;
  EXPECT_NE(out.message.find("g++-real: not found"), std::string::npos) << out.message;
}

TEST(SubmissionBuild, NoResourceReportWithoutNvccOrWhenTheFileDoesNotCompile) {
  Folders f;
  FakeRunner runner;
  const LabSpec spec = TinySpec();
  {
    SubmissionBuilder builder(runner, f.manifest, spec);  // no nvcc in this manifest
    const auto text = builder.ResourceReportText(f.src, f.root + "/ptx");
    ASSERT_FALSE(text.ok());
    EXPECT_NE(text.error().find("nvcc is not installed here"), std::string::npos);
    EXPECT_TRUE(runner.commands.empty());
  }
  f.manifest.nvcc = "/opt/cuda/bin/nvcc";
  runner.fail_at = 0;
  SubmissionBuilder builder(runner, f.manifest, spec);
  const auto text = builder.ResourceReportText(f.src, f.root + "/ptx");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error(), "matmul.cu does not compile with nvcc:\n" + runner.failure_output);
  EXPECT_EQ(runner.commands.size(), 1u) << "no ptxas after a failed nvcc";
}

}  // namespace
}  // namespace labkit
