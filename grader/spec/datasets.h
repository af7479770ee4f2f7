// Fixed test cases from data/ (docs/DATASETS.md): every <data_dir>/<lab>/*.json, the lab's public
// datasets and any hidden ones an instructor added, graded beside the random cases.
#pragma once

#include <string>
#include <vector>

#include "lab_spec.h"
#include "result.h"

namespace labkit {

struct Dataset {
  std::string name;
  Shape shape;
  std::vector<float> A, B, C;  // C: the expected product
};

// Reads all datasets of `lab`. The names the spec lists must be present (a missing one is the
// kit's fault, not the student's, and is an error).
Result<std::vector<Dataset>> LoadDatasets(const std::string& data_dir, const LabSpec& spec);

}  // namespace labkit
