#include "float3_margins.h"

#include "lab_spec.h"

namespace lab02 {
namespace {

// The `by` of exercise `id`'s faster_than, which must be against float3_direct.
double MarginOf(const labkit::LabSpec& spec, const std::string& id, std::string& error) {
  const labkit::Exercise* e = spec.FindExercise(id);
  if (e == nullptr || !e->faster_than) return 0;
  if (e->faster_than->exercise != "float3_direct") {
    error = id + ".faster_than is against " + e->faster_than->exercise +
            "; lab02_measure_gpu times float3_direct only";
    return 0;
  }
  return e->faster_than->by;
}

}  // namespace

Float3Margins ReadFloat3Margins(const std::string& lab_dir) {
  Float3Margins m;
  const labkit::Result<labkit::LabSpec> spec = labkit::LoadLabSpec(lab_dir);
  if (!spec) {
    m.error = spec.error();
    return m;
  }
  m.staged = MarginOf(*spec, "float3_staged", m.error);
  m.soa = MarginOf(*spec, "float3_soa", m.error);
  return m;
}

}  // namespace lab02
