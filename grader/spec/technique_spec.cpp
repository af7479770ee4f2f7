// An exercise's `technique` (docs/LAB_SPEC.md, "exercises[].technique"): the checks on what its
// kernels declare and did, and the lab's hints that follow a failed check.
#include <yaml-cpp/yaml.h>

#include <map>

#include "lab_spec.h"
#include "spec_readers.h"
#include "yaml_fields.h"

namespace labkit {

using namespace yaml_fields;  // the Read* functions and their helpers

namespace {

std::optional<MeasuredTechnique> ReadMeasured(Checker& c, const YAML::Node& n,
                                              const std::string& path) {
  MapView m(c, n, path,
            {"shape", "max_global_loads_vs_rows", "min_shared_loads_vs_rows", "reads_shared",
             "executes_barrier"});
  if (!m.valid()) return std::nullopt;
  MeasuredTechnique t;
  m.Required("shape", ReadShape, t.shape);
  m.Optional("max_global_loads_vs_rows", NumberAbove(0), t.max_global_loads_vs_rows);
  m.Optional("min_shared_loads_vs_rows", NumberAbove(0), t.min_shared_loads_vs_rows);
  m.Optional("reads_shared", ReadBool, t.reads_shared);
  m.Optional("executes_barrier", ReadBool, t.executes_barrier);
  if (!m.Get("max_global_loads_vs_rows") && !m.Get("min_shared_loads_vs_rows") &&
      !m.Get("reads_shared") && !m.Get("executes_barrier"))
    c.Fail(n, path,
           "names nothing to check: give max_global_loads_vs_rows, min_shared_loads_vs_rows, "
           "reads_shared or executes_barrier");
  return t;
}

// `technique.hints`: a check's key to the sentence the student reads after that check fails. Only
// checks this technique makes may have one: a hint of a check never made would never be shown.
std::map<std::string, std::string> ReadHints(Checker& c, const MapView& technique) {
  std::map<std::string, std::string> hints;
  const std::optional<YAML::Node> n = technique.Get("hints");
  if (!n) return hints;
  MapView m(c, *n, technique.Path("hints"), {}, /*free_keys=*/true);
  if (!m.valid()) return hints;
  for (size_t i = 0; i < m.size(); ++i) {
    const std::string& key = m.key(i);
    if (key == "hints" || !technique.Get(key)) {
      c.Fail(m.key_node(i), m.Path(key), "names no check of this technique");
      continue;
    }
    if (std::optional<std::string> text = ReadString(c, m.value(i), m.Path(key)))
      hints[key] = *text;  // never empty: ReadString refuses ""
  }
  return hints;
}

}  // namespace

std::optional<Technique> ReadTechnique(Checker& c, const YAML::Node& n, const std::string& path) {
  MapView m(c, n, path,
            {"min_static_shared_bytes", "max_static_shared_bytes", "uses_barrier", "max_registers",
             "max_local_bytes", "dynamic_shared_bytes_per_thread", "single_block",
             "min_threads_per_element_of_c", "reads_constant", "measured", "hints"});
  if (!m.valid()) return std::nullopt;
  Technique t;
  m.Optional("min_static_shared_bytes", IntAtLeast(0), t.min_static_shared_bytes);
  m.Optional("max_static_shared_bytes", IntAtLeast(0), t.max_static_shared_bytes);
  m.Optional("max_local_bytes", IntAtLeast(0), t.max_local_bytes);
  m.Optional("max_registers", IntAtLeast(1), t.max_registers);
  m.Optional("uses_barrier", ReadBool, t.uses_barrier);
  m.Optional("dynamic_shared_bytes_per_thread", IntAtLeast(0), t.dynamic_shared_bytes_per_thread);
  m.Optional("single_block", ReadBool, t.single_block);
  m.Optional("min_threads_per_element_of_c", NumberAbove(0), t.min_threads_per_element_of_c);
  m.Optional("reads_constant", ReadBool, t.reads_constant);
  m.Optional("measured", ReadMeasured, t.measured);
  t.hints = ReadHints(c, m);
  if (t.min_static_shared_bytes && t.max_static_shared_bytes &&
      *t.min_static_shared_bytes > *t.max_static_shared_bytes)
    c.Fail(*m.Get("max_static_shared_bytes"), m.Path("max_static_shared_bytes"),
           "is smaller than min_static_shared_bytes");
  return t;
}

std::string WithHint(const Technique& technique, const std::string& key, std::string message) {
  const auto hint = technique.hints.find(key);
  if (hint == technique.hints.end()) return message;
  const bool ended = !message.empty() && message.back() == '.';
  return message + (ended ? " " : ". ") + hint->second;
}

}  // namespace labkit
