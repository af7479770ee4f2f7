// Reading the JSON lines a harness writes (response.jsonl, emu_report.jsonl). They come from a
// process the student's code ran in, which may have cut them short, written its own, or given a
// field another type: nothing read from them may stop the grader. A field of the wrong type reads
// as missing.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace labkit {

// The most a report file may hold; a larger one (a flood) is not read at all.
constexpr std::size_t kMaxReportBytes = 64u << 20;

// The lines of `path` that are JSON objects; other lines (cut by a crash, arrays, garbage) are
// skipped. No file, or one that is not a regular file under kMaxReportBytes (ReadUntrustedFile):
// none.
std::vector<nlohmann::json> ReadJsonObjectLines(const std::string& path);

// object[key] when it is a string, else "".
std::string TextField(const nlohmann::json& object, const char* key);

// object[key] when it is a number, else `fallback` (the harness writes NaN as null).
double NumberField(const nlohmann::json& object, const char* key, double fallback = NAN);

// object[key] when it is a number, as an integer; else `fallback`.
long long IntegerField(const nlohmann::json& object, const char* key, long long fallback);

}  // namespace labkit
