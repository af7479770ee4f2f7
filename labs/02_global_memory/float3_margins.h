// The float3 speed claims of lab 02's spec (lab.yaml `faster_than` on float3_staged and
// float3_soa), for lab02_measure_gpu, which times the three versions in one run. Plain C++, so that
// the CUDA program need not compile the spec's YAML reader.
#pragma once

#include <string>

namespace lab02 {

struct Float3Margins {
  double staged = 0;  // at least this many times as fast as float3_direct; 0: no claim
  double soa = 0;
  std::string error;  // why the spec could not be read ("" when it was)
};

// From the lab folder holding lab.yaml.
Float3Margins ReadFloat3Margins(const std::string& lab_dir);

}  // namespace lab02
