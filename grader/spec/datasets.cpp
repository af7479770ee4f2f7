#include "datasets.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace labkit {
namespace fs = std::filesystem;

namespace {

Result<Dataset> ReadDataset(const fs::path& path) {
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return MakeError(path.string() + ": not valid JSON");
  try {
    Dataset d;
    d.name = path.stem().string();
    d.shape = {j.at("m").get<int64_t>(), j.at("n").get<int64_t>(), j.at("k").get<int64_t>()};
    d.A = j.at("A").get<std::vector<float>>();
    d.B = j.at("B").get<std::vector<float>>();
    d.C = j.at("C").get<std::vector<float>>();
    const auto& s = d.shape;
    if (int64_t(d.A.size()) != s.m * s.n || int64_t(d.B.size()) != s.n * s.k ||
        int64_t(d.C.size()) != s.m * s.k)
      return MakeError(path.string() + ": the sizes of A, B, C do not match m, n, k");
    return d;
  } catch (const std::exception& e) {
    return MakeError(path.string() + ": " + e.what());
  }
}

}  // namespace

Result<std::vector<Dataset>> LoadDatasets(const std::string& data_dir, const LabSpec& spec) {
  std::vector<Dataset> datasets;
  const fs::path dir = fs::path(data_dir) / spec.id;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".json") continue;
      auto d = ReadDataset(entry.path());
      if (!d) return MakeError(d.error());
      datasets.push_back(std::move(*d));
    }
  }
  std::sort(datasets.begin(), datasets.end(),
            [](const Dataset& a, const Dataset& b) { return a.name < b.name; });
  for (const std::string& wanted : spec.datasets) {
    const bool present = std::any_of(datasets.begin(), datasets.end(),
                                     [&](const Dataset& d) { return d.name == wanted; });
    if (!present)
      return MakeError("dataset '" + wanted + "' named in lab.yaml is missing from " +
                       dir.string() + " (build the labkit_data target)");
  }
  return datasets;
}

}  // namespace labkit
