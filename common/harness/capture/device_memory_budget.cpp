#include "device_memory_budget.h"

#include <cstdlib>
#include <utility>

namespace labkit {

std::size_t DeviceMemoryBudget::LimitFromEnvironment() {
  const char* text = std::getenv("LABKIT_DEVICE_MEMORY_LIMIT");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  return end != nullptr && *end == '\0' ? static_cast<std::size_t>(value) : 0;
}

bool DeviceMemoryBudget::Admit(std::size_t bytes, const char* call) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (limit_ == 0 || (bytes <= limit_ && in_use_ <= limit_ - bytes)) return true;
  if (++refusals_ == 1)
    first_refusal_ = MemoryRefusal{call, static_cast<long long>(bytes),
                                   static_cast<long long>(in_use_), static_cast<long long>(limit_)};
  return false;
}

void DeviceMemoryBudget::Allocated(const void* ptr, std::size_t bytes) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, fresh] = live_.emplace(ptr, bytes);
  if (!fresh) {  // the runtime reused an address this budget still counted: count it once
    in_use_ -= it->second;
    it->second = bytes;
  }
  in_use_ += bytes;
}

void DeviceMemoryBudget::Freed(const void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = live_.find(ptr);
  if (it == live_.end()) return;
  in_use_ -= it->second;
  live_.erase(it);
}

std::size_t DeviceMemoryBudget::limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return limit_;
}

std::size_t DeviceMemoryBudget::SizeOf(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = live_.find(ptr);
  return it == live_.end() ? 0 : it->second;
}

std::unordered_map<const void*, std::size_t> DeviceMemoryBudget::Restart(std::size_t limit_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  limit_ = limit_bytes;
  in_use_ = 0;
  refusals_ = 0;
  first_refusal_.reset();
  return std::exchange(live_, {});
}

std::size_t DeviceMemoryBudget::in_use() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_use_;
}

int DeviceMemoryBudget::refusals() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refusals_;
}

std::optional<MemoryRefusal> DeviceMemoryBudget::first_refusal() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return first_refusal_;
}

std::string DeviceMemoryBudget::RefusalNote(const char* call, std::size_t bytes) const {
  const std::size_t mib = std::size_t(1) << 20;
  return std::string("[labkit: ") + call + " of " + std::to_string(bytes) +
         " bytes refused: this program already holds " + std::to_string(in_use() / mib) +
         " MiB of device memory and may hold " + std::to_string(limit() / mib) + " MiB]\n";
}

DeviceMemoryBudget& ProcessDeviceMemoryBudget() {
  static DeviceMemoryBudget budget(DeviceMemoryBudget::LimitFromEnvironment());
  return budget;
}

}  // namespace labkit
