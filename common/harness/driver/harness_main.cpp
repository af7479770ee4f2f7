// The harness program: reads a request written by labgrade, runs the student's functions on the
// inputs it names, writes the outputs and one JSON line per finished case. It never judges: the
// student's code lives in this process, so anything it reports could be forged. See
// docs/DESIGN.md, "Harness protocol".
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include "device_line.h"
#include "device_memory_budget.h"
#include "diagnostic_case.h"
#include "emulator_settings.h"
#include "gpu_turn.h"
#include "initial_device_state.h"
#include "launch_counters.h"
#include "launch_log.h"
#include "matmul_harness.h"
#include "occupancy_calls.h"
#include "occupancy_probe.h"
#include "query_harness.h"
#include "raw_matrix_file.h"
#include "replay_plan.h"
#include "replay_server.h"
#include "request_lines.h"
#include "response_lines.h"
#include "student_call.h"
#include "student_image_request.h"
#include "timing_stats.h"
#include "warm_replay.h"
#include "warm_replay_device.h"

// Labs without query exercises do not define lab_queries(); a lab's own definition wins.
__attribute__((weak)) std::vector<labkit::QueryExercise> labkit::lab_queries() { return {}; }
// A lab's harness program; the kit's replay program (replay_only_program.cpp) says otherwise.
__attribute__((weak)) bool labkit::replay_only_program() { return false; }

namespace {

using labkit::launches_json;
using labkit::outcome_json;
using labkit::query_case_json;
using labkit::ResponseWriter;
using nlohmann::json;

// Whether this request's response already carries the budget's first refusal (a warm replay
// process serves many requests: warm_replay.h).
bool memory_refusal_noted = false;

// The device-memory budget's first refusal (device_memory_budget.h), on the first line written
// after it: labgrade words its note from these numbers, never from what the process printed.
void note_memory_refusal(json& line) {
  const auto refusal = labkit::ProcessDeviceMemoryBudget().first_refusal();
  if (memory_refusal_noted || !refusal) return;
  memory_refusal_noted = true;
  line["device_memory_refused"] = {{"call", refusal->call},
                                   {"bytes", refusal->bytes},
                                   {"in_use_bytes", refusal->in_use_bytes},
                                   {"limit_bytes", refusal->limit_bytes}};
}

// The exercise field is "<id>" or "<id>?<name>=<value>&...": a matmul exercise run with those
// parameters (lab.yaml `params`), every case of the request alike.
struct ExerciseRef {
  std::string id;
  labkit::Params params;
};

ExerciseRef parse_exercise(const std::string& field) {
  ExerciseRef ref{field.substr(0, field.find('?')), {}};
  std::size_t at = field.find('?');
  while (at != std::string::npos) {
    const std::size_t end = field.find('&', at + 1);
    const std::string item = field.substr(at + 1, end - at - 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) throw std::runtime_error("bad parameter '" + item + "'");
    ref.params[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
    at = end;
  }
  return ref;
}

template <class Exercise>
const Exercise* find_in(const std::vector<Exercise>& table, const std::string& id) {
  for (const auto& e : table)
    if (id == e.id) return &e;
  return nullptr;
}

// The matmul exercise `id`: the lab's, or in the kit's replay program, which holds no lab's table
// and calls no function of the student's, one that only names the exercise (its plans say what
// the function did).
const labkit::MatmulExercise* find_matmul(const std::vector<labkit::MatmulExercise>& table,
                                          const std::string& id) {
  if (!labkit::replay_only_program()) return find_in(table, id);
  static std::deque<std::string> ids;
  static std::deque<labkit::MatmulExercise> replayed;
  for (const labkit::MatmulExercise& e : replayed)
    if (id == e.id) return &e;
  ids.push_back(id);
  return &replayed.emplace_back(labkit::MatmulExercise{ids.back().c_str(), nullptr, false});
}

// How this run calls the student's code, and where plans are kept (beside the request).
struct Mode {
  labkit::RunMode run = labkit::RunMode::kDirect;
  std::string plan_dir;
  labkit::replay::StudentImage image;
  std::chrono::steady_clock::time_point main_entered, device_ready;  // for the timing line
};

// Query cases: {"id": "q0", "params": {"block_side": 16}} -> one line with the values. With
// "list_launches" (labgrade's counted run of a `measured` query exercise) the line also lists every
// launch the case made, the kit's launches of the student's kernels included; a query function
// that opens a launch capture of its own (a recorded host function) cannot be listed this way.
void run_query_cases(const json& request, labkit::CaseLines& cases, const labkit::QueryExercise& ex,
                     const labkit::replay::StudentImage* image, const Mode& mode,
                     ResponseWriter& out) {
  const bool list_launches = request.value("list_launches", false);
  while (const std::optional<json> next = cases.Next()) {
    const json& c = *next;
    labkit::Params params;
    if (c.contains("params"))
      for (const auto& [name, value] : c["params"].items()) params[name] = value.get<long long>();
    const std::string id = c.at("id");
    labkit::QueryValues values(params, image,
                               {mode.run, mode.plan_dir + labkit::replay::PlanFileName(id)});
    std::optional<labkit::LaunchCapture> launches;
    if (list_launches) launches.emplace();
    labkit::NoteDiagnosticCase(id);
    std::optional<std::pair<const char*, std::string>> stopped;  // (status, detail)
    try {
      ex.fn(params, values);
    } catch (const labkit::StudentException& e) {
      stopped.emplace(labkit::case_status::kStudentException, e.what());
    } catch (const labkit::RefusedCall& e) {
      stopped.emplace(labkit::case_status::kRefusedCall, e.what());
    } catch (const labkit::NotRecorded& e) {
      stopped.emplace(labkit::case_status::kNotRecorded, e.what());
    }
    labkit::NoteDiagnosticCase("");
    json line = query_case_json(id, values);
    if (stopped) {
      line["status"] = stopped->first;
      line["detail"] = stopped->second;
    }
    if (launches) line["launches"] = launches_json(launches->take());
    out.line(line);
  }
}

// With "occupancy_probe": the occupancy API's answers for every kernel the cases launched.
void probe_occupancy(const std::vector<labkit::LaunchRecord>& launched, ResponseWriter& out) {
  std::vector<const void*> seen;
  for (const labkit::LaunchRecord& l : launched) {
    if (l.function == nullptr || std::find(seen.begin(), seen.end(), l.function) != seen.end())
      continue;
    seen.push_back(l.function);
    json table = json::array();
    for (const labkit::OccupancyRow& r : labkit::ProbeOccupancy(l.function))
      table.push_back({r.block_size, r.dynamic_shared_bytes, r.blocks_per_sm});
    out.line({{"type", "occupancy"}, {"kernel", l.kernel}, {"table", table}});
  }
}

// Each case runs the request's exercise, or its own "exercise" when it names one: labgrade puts
// several exercises' cases in one process where it can, as each process start costs a CUDA context.
// A record run never sees the cases' inputs: the function is called on values of its own.
std::vector<float> stand_in_values(std::size_t count) {
  static std::mt19937 generator(std::random_device{}());
  std::uniform_real_distribution<float> values(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = values(generator);
  return v;
}

// A counting run (labgrade's `technique.measured`) counts the cases it marks "counted", or all of
// them where it marks none ("marks_counted" says which, the cases being read one at a time). The
// others run uncounted, as in every other run of the build: the counted case comes after the same
// launches, from the same state, as it does there.
void run_cases(const json& request, labkit::CaseLines& cases, const std::string& dir,
               const std::vector<labkit::MatmulExercise>& exercises,
               const labkit::MatmulExercise& ex, const labkit::Params& params,
               labkit::Layout layout, const Mode& mode, labkit::LaunchCounting* counting,
               ResponseWriter& out) {
  std::vector<labkit::LaunchRecord> launched;
  const bool marked = request.value("marks_counted", false);
  // Cases of several exercises in one replay: each exercise starts from the device state the
  // program started with (initial_device_state.h), as it would in a process of its own.
  std::optional<labkit::replay::InitialDeviceState> initial;
  if (mode.run == labkit::RunMode::kReplay) initial.emplace(mode.image);
  std::optional<std::string> previous_exercise;
  while (const std::optional<json> next = cases.Next()) {
    const json& c = *next;
    const std::string id = c.at("id");
    const std::string exercise_text = c.value("exercise", std::string());
    if (initial && previous_exercise && *previous_exercise != exercise_text) initial->Restore();
    previous_exercise = exercise_text;
    const labkit::MatmulExercise* case_ex = &ex;
    ExerciseRef own;
    if (c.contains("exercise")) {
      own = parse_exercise(c.at("exercise"));
      case_ex = find_matmul(exercises, own.id);
      if (case_ex == nullptr) throw std::runtime_error("unknown exercise '" + own.id + "'");
    }
    labkit::MatmulCase mc;
    mc.params = c.contains("exercise") ? &own.params : &params;
    mc.m = c.at("m");
    mc.n = c.at("n");
    mc.k = c.at("k");
    const bool record = mode.run == labkit::RunMode::kRecord;
    const auto A = record ? stand_in_values(std::size_t(mc.m) * mc.n)
                          : labkit::raw_file::read(dir, c.at("inputs").at("A"),
                                                   std::size_t(mc.m) * mc.n);
    const auto B = record ? stand_in_values(std::size_t(mc.n) * mc.k)
                          : labkit::raw_file::read(dir, c.at("inputs").at("B"),
                                                   std::size_t(mc.n) * mc.k);
    mc.A = &A;
    mc.B = &B;
    labkit::replay::Plan plan;
    mc.replay.mode = mode.run;
    mc.replay.image = &mode.image;
    mc.replay.plan = &plan;
    mc.replay.recorded = &plan;
    std::vector<float> C;
    labkit::CaseOutcome outcome;
    const std::string plan_path = mode.plan_dir + labkit::replay::PlanFileName(id);
    const bool counted = !marked || c.value("counted", false);
    labkit::CountAccessesInCase(counted);
    if (counting != nullptr) counting->Arm(counted);
    labkit::NoteDiagnosticCase(id);
    if (mode.run == labkit::RunMode::kReplay && case_ex->host_side) {
      outcome = {
          labkit::case_status::kReplayRefused, "", "a host-side exercise is not replayed", {}};
    } else if (const std::string missing = mode.run == labkit::RunMode::kReplay
                                               ? labkit::replay::ReadPlanFile(plan_path, plan)
                                               : "";
               !missing.empty()) {
      outcome = {labkit::case_status::kNotRecorded, "", missing, {}};
    } else {
      outcome = labkit::run_matmul_case(*case_ex, layout, mc, C);
    }
    labkit::UseSealedCounts(outcome.launches);
    labkit::NoteDiagnosticCase("");
    if (record) {
      if (!labkit::replay::WritePlanFile(plan_path, plan))
        throw std::runtime_error("cannot write " + plan_path);
    } else if (!C.empty()) {
      labkit::raw_file::write(dir, c.at("outputs").at("C"), C);
    }
    json line = outcome_json(outcome);
    line["type"] = "case";
    line["id"] = id;
    note_memory_refusal(line);
    out.line(line);
    launched.insert(launched.end(), outcome.launches.begin(), outcome.launches.end());
  }
  if (request.value("occupancy_probe", false)) probe_occupancy(launched, out);
}

// A record run records the function once at the timed shape, as the case "timing".
void record_timing(const json& t, const labkit::MatmulExercise& ex, const labkit::Params& params,
                   const Mode& mode, ResponseWriter& out) {
  labkit::MatmulCase mc;
  mc.params = &params;
  mc.m = t.at("m");
  mc.n = t.at("n");
  mc.k = t.at("k");
  const auto A = stand_in_values(std::size_t(mc.m) * mc.n);
  const auto B = stand_in_values(std::size_t(mc.n) * mc.k);
  mc.A = &A;
  mc.B = &B;
  labkit::replay::Plan plan;
  mc.replay.mode = labkit::RunMode::kRecord;
  mc.replay.recorded = &plan;
  std::vector<float> C;
  const labkit::CaseOutcome outcome =
      labkit::run_matmul_case(ex, labkit::Layout::kExact, mc, C);
  const std::string plan_path = mode.plan_dir + labkit::replay::PlanFileName("timing");
  if (!labkit::replay::WritePlanFile(plan_path, plan))
    throw std::runtime_error("cannot write " + plan_path);
  json line = outcome_json(outcome);
  line["type"] = "timing";
  note_memory_refusal(line);
  out.line(line);
}

void run_timing(const json& t, const std::string& dir, const labkit::MatmulExercise& ex,
                const labkit::Params& params, const Mode& mode, ResponseWriter& out) {
  if (mode.run == labkit::RunMode::kRecord) return record_timing(t, ex, params, mode, out);
  labkit::replay::Plan plan;
  if (mode.run == labkit::RunMode::kReplay) {
    const std::string missing =
        labkit::replay::ReadPlanFile(mode.plan_dir + labkit::replay::PlanFileName("timing"), plan);
    if (!missing.empty()) {
      out.line(
          {{"type", "timing"}, {"status", labkit::case_status::kNotRecorded}, {"detail", missing}});
      return;
    }
  }
  labkit::TimingRequest req;
  req.replay.mode = mode.run;
  req.replay.image = &mode.image;
  req.replay.plan = &plan;
  req.params = &params;
  req.m = t.at("m");
  req.n = t.at("n");
  req.k = t.at("k");
  const auto reading = std::chrono::steady_clock::now();
  std::vector<std::vector<float>> storage;
  storage.reserve(2 * t.at("input_sets").size());
  for (const auto& set : t.at("input_sets")) {
    storage.push_back(labkit::raw_file::read(dir, set.at("A"), std::size_t(req.m) * req.n));
    req.A_sets.push_back(&storage.back());
    storage.push_back(labkit::raw_file::read(dir, set.at("B"), std::size_t(req.n) * req.k));
    req.B_sets.push_back(&storage.back());
  }
  req.min_reps = t.value("min_reps", req.min_reps);
  req.max_reps = t.value("max_reps", req.max_reps);
  req.max_seconds = t.value("max_seconds", req.max_seconds);
  req.target_spread = t.value("target_spread", req.target_spread);

  const auto timing = std::chrono::steady_clock::now();
  const labkit::TimingOutcome result = labkit::time_matmul(ex, req);
  const auto writing = std::chrono::steady_clock::now();
  const auto& names = t.at("outputs");
  for (std::size_t i = 0; i < result.outputs.size() && i < names.size(); ++i)
    labkit::raw_file::write(dir, names[i], result.outputs[i]);
  json line = outcome_json(result.outcome);
  line["type"] = "timing";
  line["mismatched_reps"] = result.mismatched_reps;
  line["student_ms"] = result.student_ms;
  line["baseline_ms"] = result.baseline_ms;
  if (!result.student_ms.empty()) {
    line["student_median_ms"] = labkit::median(result.student_ms);
    line["baseline_median_ms"] = labkit::median(result.baseline_ms);
  }
  // For whoever tunes the grader's throughput (bench/); labgrade judges none of it.
  line["phases_ms"] = {{"since_main", labkit::Milliseconds(mode.main_entered)},
                       {"device_ready", labkit::Milliseconds(mode.main_entered, mode.device_ready)},
                       {"read_inputs", labkit::Milliseconds(reading, timing)},
                       {"setup", result.setup_ms},
                       {"repetitions", result.repetitions_ms},
                       {"after", result.after_ms},
                       {"write_outputs", labkit::Milliseconds(writing)}};
  out.line(line);
}

// One request: what `harness [--record | --replay] REQUEST RESPONSE` does, up to its "done" line.
// Returns the process's exit status; 0 once "done" is written.
int run_request(Mode mode, const std::string& request_path, const std::string& response_path) {
  ResponseWriter out(response_path);
  if (!out.ok()) {
    std::cerr << "harness: cannot write " << response_path << "\n";
    return labkit::kHarnessUsageExitCode;
  }
  try {
    const json request = [&] {
      std::ifstream in(request_path);
      return json::parse(in);
    }();
    labkit::ApplyEmulatorSettings(request);
    const std::string dir = request_path.substr(0, request_path.find_last_of('/') + 1);
    // The cases, read one at a time as they run (request_lines.h).
    labkit::CaseLines cases(dir + labkit::kCasesFileName);
    mode.plan_dir = dir;
    mode.image = labkit::StudentImageOf(request);
    labkit::replay::CountVariablesAsGlobalMemory(mode.image);
    const ExerciseRef ref = parse_exercise(request.at("exercise"));
    static const auto exercises = labkit::lab_exercises();
    static const auto queries = labkit::lab_queries();
    const labkit::MatmulExercise* ex = find_matmul(exercises, ref.id);
    const labkit::QueryExercise* query = find_in(queries, ref.id);
    if (ex == nullptr && query == nullptr) {
      out.line({{"type", "error"}, {"detail", "unknown exercise '" + ref.id + "'"}});
      return labkit::kHarnessErrorExitCode;
    }
    out.line(labkit::DeviceLine(labkit::query_device()));
    mode.device_ready = std::chrono::steady_clock::now();  // the CUDA context made
    // In a batch, the kit's replay program made its context without a turn at the GPU, and asks
    // for one now (gpu_turn.h; a no-op everywhere else). One shared turn for the rest of the run,
    // not one per case: with a turn per case, every replay stopped at its next case whenever a
    // timed run waited for the GPU, and lab 03's realistic class took 201 s on an H100 against
    // 174 s (bench/results/throughput-h100-80gb-hbm3-2026-11-27-gpu-turns.txt).
    labkit::TakeGpuTurn(labkit::GpuTurn::kShared);
    if (labkit::replay_only_program()) {
      if (mode.run != labkit::RunMode::kReplay || mode.image.fatbins.empty())
        throw std::runtime_error("the kit's replay program only replays, from device code");
      if (const std::string why = labkit::load_device_code(mode.image, dir); !why.empty())
        throw std::runtime_error(why);
    }
    const auto layout = request.value("layout", "guarded") == "exact" ? labkit::Layout::kExact
                                                                      : labkit::Layout::kGuarded;
    // "gpu_counters": labgrade's counting run; the table is written beside the request.
    const std::string counters_table = request.value("gpu_counters", std::string());
    if (counters_table.find('/') != std::string::npos)
      throw std::runtime_error("gpu_counters must name a file beside the request");
    std::optional<labkit::LaunchCounting> counting;
    if (!counters_table.empty()) counting.emplace();
    if (query != nullptr) {
      run_query_cases(request, cases, *query,
                      request.contains("student_image") ? &mode.image : nullptr, mode, out);
    } else {
      run_cases(request, cases, dir, exercises, *ex, ref.params, layout, mode,
                counting ? &*counting : nullptr, out);
      if (request.contains("timing") && !request["timing"].is_null())
        run_timing(request["timing"], dir, *ex, ref.params, mode, out);
    }
    if (counting) counting->WriteTable(dir + counters_table);
    out.line({{"type", "done"}});
    return 0;
  } catch (const std::exception& e) {
    // Only the kit's own I/O and set-up end here; student failures are reported per case.
    out.line({{"type", "error"}, {"detail", e.what()}});
    return labkit::kHarnessErrorExitCode;
  }
}

// `--serve`: the kit's replay program kept warm in a batch (warm_replay.h). Each request starts
// from the state a process of its own would, and leaves nothing of its submission behind.
int serve(const Mode& started) {
  if (!labkit::replay_only_program()) return labkit::kHarnessUsageExitCode;
  const int pageable = labkit::start_serving_device();
  return labkit::ServeReplays(labkit::warm_replay::kServerDescriptor,
                              {{"ready", true}, {"pageable_memory_access", pageable}},
                              [&](const std::string& request, const std::string& response) {
                                labkit::begin_served_request();
                                memory_refusal_noted = false;
                                Mode mode = started;
                                mode.run = labkit::RunMode::kReplay;
                                mode.main_entered = std::chrono::steady_clock::now();
                                labkit::ServedReply reply;
                                reply.exit_code = run_request(mode, request, response);
                                reply.reusable = labkit::end_served_request();
                                labkit::TakeGpuTurn(labkit::GpuTurn::kNone);
                                return reply;
                              });
}

}  // namespace

int main(int argc, char** argv) {
  labkit::NoteHarnessStarted();  // what ran before was static initialisation (occupancy_calls.h)
  // harness [--record | --replay] REQUEST.json RESPONSE.jsonl, or the kit's replay program --serve
  Mode mode;
  mode.main_entered = std::chrono::steady_clock::now();
  if (argc == 2 && std::string(argv[1]) == labkit::warm_replay::kServeOption) {
    const int status = serve(mode);
    std::_Exit(status);
  }
  int first = 1;
  if (argc == 4 && std::string(argv[1]) == "--record") mode.run = labkit::RunMode::kRecord;
  if (argc == 4 && std::string(argv[1]) == "--replay") mode.run = labkit::RunMode::kReplay;
  if (argc == 4 && mode.run == labkit::RunMode::kDirect) argc = 0;  // an unknown option
  if (argc == 4) first = 2;
  if (argc - first != 2) {
    std::cerr << "usage: " << argv[0] << " [--record | --replay] REQUEST.json RESPONSE.jsonl\n";
    return labkit::kHarnessUsageExitCode;
  }
  const int status = run_request(mode, argv[first], argv[first + 1]);
  if (status != 0) return status;
  // Leave without running atexit handlers or static destructors: code of the submission's could
  // otherwise rewrite the outputs after the harness wrote them. Every kernel has been waited for:
  // the context ends without a turn at the GPU.
  labkit::TakeGpuTurn(labkit::GpuTurn::kNone);
  labkit::release_device();  // tools such as compute-sanitizer report when the context ends
  std::_Exit(0);
}
