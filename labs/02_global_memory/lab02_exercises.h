// Lab 02's query functions by exercise (labs/02_global_memory/lab.yaml), one file per exercise
// group; harness.cu puts them in the table.
#pragma once

#include "query_harness.h"

namespace lab02 {

void VectorAdd(const labkit::Params& p, labkit::QueryValues& v);     // harness.cu
void OffsetCopy(const labkit::Params& p, labkit::QueryValues& v);    // harness.cu
void StridedCopy(const labkit::Params& p, labkit::QueryValues& v);   // harness.cu
void Float3Direct(const labkit::Params& p, labkit::QueryValues& v);  // float3_checks.cu
void Float3Staged(const labkit::Params& p, labkit::QueryValues& v);
void Float3Soa(const labkit::Params& p, labkit::QueryValues& v);
void PitchedScale(const labkit::Params& p, labkit::QueryValues& v);  // pitched_checks.cu
void PitchedHost(const labkit::Params& p, labkit::QueryValues& v);
void MatmulPitched(const labkit::Params& p, labkit::QueryValues& v);

}  // namespace lab02
