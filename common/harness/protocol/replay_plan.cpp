#include "replay_plan.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace labkit::replay {
namespace {

using nlohmann::json;

json RefJson(const Ref& r) { return json::array({r.region, r.offset}); }

Ref RefFrom(const json& j) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_number_integer() || !j[1].is_number_integer())
    throw std::runtime_error("a device reference is malformed");
  Ref r{j[0].get<int32_t>(), j[1].get<int64_t>()};
  if (r.region < -1) throw std::runtime_error("a device reference names no region");
  return r;
}

template <class T>
T Number(const json& op, const char* key, T fallback) {
  const auto it = op.find(key);
  if (it == op.end()) return fallback;
  if (!it->is_number_integer()) throw std::runtime_error(std::string("field ") + key);
  return it->get<T>();
}

template <class T>
std::vector<T> Numbers(const json& op, const char* key) {
  const auto it = op.find(key);
  if (it == op.end()) return {};
  if (!it->is_array()) throw std::runtime_error(std::string("field ") + key);
  std::vector<T> out;
  for (const json& v : *it) {
    if (!v.is_number_integer()) throw std::runtime_error(std::string("field ") + key);
    out.push_back(v.get<T>());
  }
  return out;
}

void Dims(const json& op, const char* key, unsigned* out) {
  const std::vector<unsigned> d = Numbers<unsigned>(op, key);
  if (d.empty()) return;
  if (d.size() != 3) throw std::runtime_error(std::string("field ") + key);
  for (int i = 0; i < 3; ++i) out[i] = d[i];
}

json OpJson(const Op& op) {
  json j = {{"t", static_cast<int>(op.type)}};
  if (op.dst.known()) j["d"] = RefJson(op.dst);
  if (op.src.known()) j["s"] = RefJson(op.src);
  if (op.bytes != 0) j["n"] = op.bytes;
  if (op.value != 0) j["v"] = op.value;
  if (op.attribute_value != 0) j["av"] = op.attribute_value;
  if (op.image >= 0) j["i"] = op.image;
  if (op.symbol_offset != 0) j["so"] = op.symbol_offset;
  if (op.type == OpType::kLaunch) {
    j["g"] = {op.grid[0], op.grid[1], op.grid[2]};
    j["b"] = {op.block[0], op.block[1], op.block[2]};
    j["sh"] = op.shared_bytes;
    j["po"] = op.param_offsets;
    j["pp"] = op.pointer_params;
    j["pb"] = op.pointer_offsets;
    j["r"] = op.runner;
    json relocations = json::array();
    for (const Relocation& r : op.relocations)
      relocations.push_back({r.at, RefJson(r.device), r.image});
    j["rl"] = relocations;
  }
  if (!op.data.empty()) j["data"] = json::binary(op.data);
  if (!op.note.empty()) j["note"] = op.note;
  return j;
}

Op OpFrom(const json& j) {
  if (!j.is_object()) throw std::runtime_error("an operation is not an object");
  Op op;
  const int type = Number<int>(j, "t", 0);
  if (type < static_cast<int>(OpType::kAlloc) || type > static_cast<int>(OpType::kUnsupported))
    throw std::runtime_error("unknown operation");
  op.type = static_cast<OpType>(type);
  if (j.contains("d")) op.dst = RefFrom(j["d"]);
  if (j.contains("s")) op.src = RefFrom(j["s"]);
  op.bytes = Number<uint64_t>(j, "n", 0);
  op.value = Number<int32_t>(j, "v", 0);
  op.attribute_value = Number<int64_t>(j, "av", 0);
  op.image = Number<int64_t>(j, "i", -1);
  op.symbol_offset = Number<uint64_t>(j, "so", 0);
  Dims(j, "g", op.grid);
  Dims(j, "b", op.block);
  op.shared_bytes = Number<uint64_t>(j, "sh", 0);
  op.param_offsets = Numbers<uint32_t>(j, "po");
  op.pointer_params = Numbers<uint32_t>(j, "pp");
  op.pointer_offsets = Numbers<uint32_t>(j, "pb");
  op.runner = Number<int64_t>(j, "r", -1);
  if (j.contains("rl")) {
    if (!j["rl"].is_array()) throw std::runtime_error("field rl");
    for (const json& r : j["rl"]) {
      if (!r.is_array() || r.size() != 3 || !r[0].is_number_integer() || !r[2].is_number_integer())
        throw std::runtime_error("a relocation is malformed");
      op.relocations.push_back({r[0].get<uint32_t>(), RefFrom(r[1]), r[2].get<int64_t>()});
    }
  }
  if (j.contains("data")) {
    if (!j["data"].is_binary()) throw std::runtime_error("field data");
    op.data = j["data"].get_binary();
  }
  if (j.contains("note")) {
    if (!j["note"].is_string()) throw std::runtime_error("field note");
    op.note = j["note"].get<std::string>().substr(0, 200);
  }
  if (op.type == OpType::kLaunch && op.data.size() > kMaxLaunchArgumentBytes)
    throw std::runtime_error("a launch has more argument bytes than CUDA allows");
  return op;
}

}  // namespace

std::vector<uint8_t> EncodePlan(const Plan& plan) {
  json ops = json::array();
  for (const Op& op : plan.ops) ops.push_back(OpJson(op));
  json encoded{{"ops", ops}};
  if (!plan.student_exception.empty()) encoded["student_exception"] = plan.student_exception;
  if (plan.call)
    encoded["call"] = {{"returned", plan.call->returned},
                       {"bytes_to_device", plan.call->bytes_to_device},
                       {"bytes_to_host", plan.call->bytes_to_host},
                       {"copies_2d", plan.call->copies_2d},
                       {"launches", plan.call->launches}};
  return json::to_cbor(encoded);
}

std::string DecodePlan(const std::vector<uint8_t>& bytes, Plan& plan) {
  plan = Plan{};
  try {
    const json j = json::from_cbor(bytes);
    if (!j.is_object() || !j.contains("ops") || !j["ops"].is_array())
      return "the recorded work has no list of operations";
    if (j["ops"].size() > kMaxOps) return "the recorded work has too many operations";
    for (const json& op : j["ops"]) plan.ops.push_back(OpFrom(op));
    if (j.contains("student_exception") && j["student_exception"].is_string())
      plan.student_exception = j["student_exception"].get<std::string>().substr(0, 1000);
    if (j.contains("call")) {
      const json& c = j.at("call");
      plan.call =
          CallCounts{c.at("returned").get<int64_t>(), c.at("bytes_to_device").get<uint64_t>(),
                     c.at("bytes_to_host").get<uint64_t>(), c.at("copies_2d").get<int64_t>(),
                     c.at("launches").get<int64_t>()};
    }
  } catch (const std::exception& e) {
    plan = Plan{};
    return std::string("the recorded work is malformed (") + e.what() + ")";
  }
  return "";
}

std::string PlanFileName(const std::string& case_id) { return case_id + ".plan"; }

bool WritePlanFile(const std::string& path, const Plan& plan) {
  const std::vector<uint8_t> bytes = EncodePlan(plan);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

std::string ReadPlanFile(const std::string& path, Plan& plan) {
  // Not followed through a link, never a FIFO or a device, and bounded: the file was written by a
  // process the student's code ran in.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "no recorded work for this case";
  struct stat st {};
  std::string why;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    why = "the recorded work is not a file";
  else if (static_cast<std::size_t>(st.st_size) > kMaxPlanBytes)
    why = "the recorded work is larger than the grader reads";
  std::vector<uint8_t> bytes;
  if (why.empty()) {
    bytes.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    if (got != bytes.size()) why = "the recorded work could not be read";
  }
  ::close(fd);
  return why.empty() ? DecodePlan(bytes, plan) : why;
}

}  // namespace labkit::replay
