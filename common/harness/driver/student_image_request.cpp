#include "student_image_request.h"

#include <cstdint>
#include <string>
#include <vector>

namespace labkit {
namespace {

using nlohmann::json;

// (offset, size) pairs from labgrade's list of what a plan may use.
std::vector<replay::ImageRange> ImageRanges(const json& list) {
  std::vector<replay::ImageRange> ranges;
  for (const auto& r : list) ranges.push_back({r.at(0).get<int64_t>(), r.at(1).get<int64_t>()});
  return ranges;
}

}  // namespace

replay::StudentImage StudentImageOf(const json& request) {
  replay::StudentImage image;
  if (!request.contains("student_image")) return image;
  const json& s = request["student_image"];
  image.kernels = ImageRanges(s.at("kernels"));
  image.runners = ImageRanges(s.at("runners"));
  image.variables = ImageRanges(s.at("variables"));
  if (s.contains("constants")) image.constants = ImageRanges(s.at("constants"));
  if (s.contains("global_data")) image.global_data = ImageRanges(s.at("global_data"));
  if (s.contains("watched_data")) image.watched_data = ImageRanges(s.at("watched_data"));
  if (s.contains("device_code")) {
    const json& code = s["device_code"];
    image.fatbins = code.at("fatbins").get<std::vector<std::string>>();
    image.kernel_names = code.at("kernel_names").get<decltype(image.kernel_names)>();
    image.variable_names = code.at("variable_names").get<decltype(image.variable_names)>();
    image.device_variable_names = code.value("device_variable_names", std::vector<std::string>());
    image.constant_names = code.value("constant_names", std::vector<std::string>());
    image.constants_complete = code.value("constants_complete", false);
  }
  return image;
}

}  // namespace labkit
