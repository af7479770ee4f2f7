// Readers of lab.yaml's parts that live in more than one file of grader/spec (internal: only the
// spec's own files include it). Each reports what is wrong under its key path and returns nothing
// then, like yaml_fields.h's readers.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

#include "lab_spec.h"
#include "yaml_fields.h"

namespace labkit {

// [m, n, k], each at least 1.
std::optional<Shape> ReadShape(yaml_fields::Checker& c, const YAML::Node& n,
                               const std::string& path);

// An exercise's `technique` mapping, `measured` and `hints` included (technique_spec.cpp).
std::optional<Technique> ReadTechnique(yaml_fields::Checker& c, const YAML::Node& n,
                                       const std::string& path);

}  // namespace labkit
