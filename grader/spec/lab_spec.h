// lab_spec: labs/<lab>/lab.yaml loaded into a LabSpec and validated. Every key is documented in
// docs/LAB_SPEC.md. Errors name the file, the YAML line and the key path, e.g.
//   lab.yaml:23: exercises[1].points: expected a non-negative integer, got "ten"
// Unknown keys are errors too, so that a typo never silently drops a setting.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "result.h"

namespace labkit {

// C = A * B with A m x n, B n x k, C m x k (row-major float).
struct Shape {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool operator==(const Shape& o) const { return m == o.m && n == o.n && k == o.k; }
  bool operator!=(const Shape& o) const { return !(*this == o); }
};

// Checks on what the kernels the exercise's function launched did, summed over all of them: the
// CPU backend counts every load, store and barrier in one counting run of `shape` on the default
// build of the submission, whose every access calls the emulator. Every check is optional; at
// least one is given.
struct MeasuredTechnique {
  Shape shape;
  // Bytes loaded from global memory / 4 per element of C, at most this fraction of the 2n floats
  // the one-thread-per-element kernel loads.
  std::optional<double> max_global_loads_vs_rows;
  // Loads from shared memory per element of C, at least this fraction of the 2n values a tiled
  // kernel reads there (register blocking and vector loads divide it by the outputs each load
  // serves): shared memory that does the work, not one read for show.
  std::optional<double> min_shared_loads_vs_rows;
  std::optional<bool> reads_shared;      // true: shared memory is read; false: never
  std::optional<bool> executes_barrier;  // true: some __syncthreads() is passed; false: none
};

// Checks made on the ptxas resource report of the exercise's kernel (see resource_report.h).
// Every field is optional: an absent one is not checked.
struct Technique {
  std::optional<int64_t> min_static_shared_bytes;
  std::optional<int64_t> max_static_shared_bytes;
  std::optional<bool> uses_barrier;
  std::optional<int64_t> max_registers;
  std::optional<int64_t> max_local_bytes;
  // Checked on the launches the harness recorded: every launch of the kernel passes exactly this
  // many bytes of dynamic shared memory per thread of its block.
  std::optional<int64_t> dynamic_shared_bytes_per_thread;
  // Every launch of the kernel is a grid of exactly one block.
  std::optional<bool> single_block;
  // The launches of each case start, grid x block summed over them, at least this many threads
  // per element of C (m x k): lab 01's one thread per element, which a kernel whose one thread
  // runs the host's loop does not do.
  std::optional<double> min_threads_per_element_of_c;
  // The kernel reads a __constant__ variable (an ld.const in its PTX).
  std::optional<bool> reads_constant;
  // On the CPU backend these take the place of min_static_shared_bytes and uses_barrier, which
  // only say what a kernel declares (they stay the GPU backend's check).
  std::optional<MeasuredTechnique> measured;
  // lab.yaml `hints`: the lab's own advice, by the key of the check above it follows when that
  // check fails ("single_block" -> "Launch one block of Width x Width threads"). The grader words
  // what a kernel did in terms that fit any lab; a lab's names (its Width, its helper functions)
  // live in its lab.yaml, never in the grader.
  std::map<std::string, std::string> hints;
};

// `message` (a failed check of `key`), followed by the lab's hint for that check when it has one.
std::string WithHint(const Technique& technique, const std::string& key, std::string message);

// What the harness does with an exercise: multiply matrices (`matmul`) or ask the student's code
// for numbers and compare them with the kit's own (`query`).
enum class ExerciseKind { kMatmul, kQuery };

// One set of integer parameters for an exercise, e.g. {block_side: 16}.
using ParamSet = std::map<std::string, int64_t>;

// A number a query exercise compares; relative_tolerance 0 means equal exactly.
struct QueryValueSpec {
  std::string name;
  double relative_tolerance = 0;
};

// A query exercise's kernels judged by what they did (lab.yaml `measured` on a `kind: query`
// exercise): one case, run with every launch's accesses counted (the emulator in the default
// build, or Nsight Compute on a GPU), summed over the case's launches and divided by the case's
// parameter `per` (its number of elements). The case is `params` with `per` drawn from the seed
// above the value given, up to half as much again, in multiples of `step` (CountedParamsOf), so
// that a kernel cannot stage for the counted size alone. Lab 02's staged float3 kernel: every
// float of a point through shared memory, and through global memory once each way.
struct QueryMeasured {
  ParamSet params;
  std::string per;
  std::optional<double> max_global_loads_per_element;   // floats (bytes / 4)
  std::optional<double> max_global_stores_per_element;  // floats
  std::optional<double> min_shared_loads_per_element;   // accesses
  std::optional<double> min_shared_stores_per_element;
  std::optional<bool> executes_barrier;  // CPU backend only: a GPU has no counter of barriers
  int64_t step = 1;                      // the counted `per` is a multiple of it
};

// Query cases drawn from the seed beside lab.yaml's `params` (lab.yaml `drawn` on a `kind: query`
// exercise), so that answers kept in a table of the published cases fail: `count` sets, each
// parameter a multiple of its `step` from `low` to `high` inclusive, none equal to a published set
// or to another drawn one where the ranges allow (DrawnParamsOf).
struct ParamRange {
  int64_t low = 0;
  int64_t high = 0;
  int64_t step = 1;
};
//
// `expected_by`: labgrade works the drawn cases' expected values out itself, from their parameters
// and `known` (facts of the kit, such as the registers of its own kernels), with the lab's formula
// (grader/values/drawn_expected.h), in place of the harness's, which come from the process the
// student's code runs in. kHarness: the harness's stand (none named in lab.yaml). `kernel`: the
// student's kernel a formula reads the resources of, as the build reports them
// (kSuggestedBlockSide).
enum class DrawnExpected { kHarness, kOccupancyFormula, kLargestSquareBlock, kSuggestedBlockSide };
struct QueryDrawn {
  int64_t count = 0;
  std::map<std::string, ParamRange> ranges;
  DrawnExpected expected_by = DrawnExpected::kHarness;
  ParamSet known;
  std::string kernel;
};

// A query exercise's kernel must run at least `by` times as fast as `exercise`'s on a GPU, both
// timed in one run (lab.yaml `faster_than`). Not graded by labgrade, which times no query
// exercise: the lab's own measurement program checks it (lab 02's lab02_measure_gpu).
struct FasterThan {
  std::string exercise;
  double by = 1;
};

struct Exercise {
  std::string id;
  ExerciseKind kind = ExerciseKind::kMatmul;
  std::string title;
  std::string function;  // host function in the interface header
  std::string kernel;    // kernel name (unmangled), for the resource report; empty: none
  bool given = false;    // complete in the starter: not graded, the baseline for speed
  int64_t points = 0;
  std::string shapes;  // name of an entry of LabSpec::shapes (matmul exercises)
  // matmul: every case runs once per set (none: once, without parameters); query: the cases.
  std::vector<ParamSet> params;
  std::vector<QueryValueSpec> values;  // query exercises: the numbers compared, in file order
  std::optional<QueryDrawn> drawn;     // query exercises: cases drawn from the seed
  std::optional<QueryMeasured> measured;  // query exercises: what the kernels did
  std::optional<FasterThan> faster_than;  // query exercises: a claim checked on a GPU
  // Query exercises whose function is a host function of the student's (lab 02's): each case is
  // recorded in one process and replayed in another, where none of its host code runs.
  bool recorded = false;
  bool exact_without_fma = false;
  std::optional<Technique> technique;
  int line = 0;  // 1-based line in lab.yaml, for later messages
};

struct ShapeList {
  std::string name;
  std::vector<Shape> shapes;
};

enum class ToleranceModel { kForwardError, kExact };

struct Tolerance {
  ToleranceModel model = ToleranceModel::kForwardError;  // default build
  ToleranceModel nofma = ToleranceModel::kExact;         // -fmad=false build
};

struct Reps {
  int64_t min = 10;
  int64_t max = 200;
  double max_seconds = 5.0;
  double target_spread = 0.02;
};

struct Speed {
  std::string exercise;
  int64_t points = 0;
  Shape size;
  int64_t input_sets = 1;
  double full_at = 1.0;
  double zero_at = 1.0;
  Reps reps;
};

struct Limits {
  double compile_seconds = 0;
  double run_seconds = 0;
  int64_t output_bytes = 0;
  // The limits commands get, with the kit's defaults where none is set (a LabSpec made in code;
  // lab.yaml requires both): the one place those defaults live.
  double CompileSeconds() const { return compile_seconds > 0 ? compile_seconds : 120; }
  double RunSeconds() const { return run_seconds > 0 ? run_seconds : 60; }
};

struct LabSpec {
  std::string id;
  std::string title;
  std::string handout;  // may be empty
  std::vector<std::string> student_files;
  std::string interface;
  std::string harness;
  int64_t tile = 0;
  Tolerance tolerance;
  std::vector<Exercise> exercises;
  std::vector<ShapeList> shapes;  // in file order
  std::vector<std::string> datasets;
  std::optional<Speed> speed;
  Limits limits;

  const Exercise* FindExercise(const std::string& id) const;
  const ShapeList* FindShapes(const std::string& name) const;
  // Points of every graded item: exercises plus speed.
  int64_t MaxPoints() const;
};

// Parses and validates lab.yaml text. `file_label` starts every error message ("lab.yaml").
// All errors found are reported, one per line, in file order.
Result<LabSpec> ParseLabSpec(const std::string& yaml_text,
                             const std::string& file_label = "lab.yaml");

// Reads `lab_dir`/lab.yaml and parses it; the lab's id must equal the folder's name.
// Error labels are "<lab_dir>/lab.yaml".
Result<LabSpec> LoadLabSpec(const std::string& lab_dir);

// The lab reduced to the exercise `id` (its shapes, tolerance and limits unchanged), without the
// speed item unless it times that exercise: for grading one exercise alone (the student
// corpus; a CLI flag could use it too). An error when the lab has no such exercise.
Result<LabSpec> OnlyExercise(const LabSpec& spec, const std::string& id);

// How an exercise's -fmad=false build is checked: exact when tolerance.nofma is exact and the
// exercise sets exact_without_fma, the forward-error model otherwise.
ToleranceModel NofmaModel(const LabSpec& spec, const Exercise& exercise);

const char* ToString(ToleranceModel model);

// "block_side=16, dynamic_smem=8192" (keys in order); "" for an empty set.
std::string ParamText(const ParamSet& params);

// "16 x 16 x 16": a shape in running text.
std::string SpacedShapeText(const Shape& s);
// "16x16x16": a shape in a name or a short label.
std::string ShapeText(const Shape& s);

}  // namespace labkit
