#include "query_measured.h"

#include "measured_technique.h"
#include "resource_report.h"

namespace labkit {
namespace {

// "float3_scale_staged_kernel", or "your kernels" when several ran.
std::string Who(const std::vector<LaunchInfo>& launches) {
  std::string first;
  for (const LaunchInfo& l : launches) {
    const std::string name = FunctionName(l.kernel);
    if (first.empty()) first = name;
    if (name != first) return "your kernels";
  }
  return first;
}

}  // namespace

std::string CheckQueryMeasured(const QueryMeasured& rule, const std::vector<LaunchInfo>& launches,
                               bool barriers_counted) {
  const auto per_it = rule.params.find(rule.per);
  if (per_it == rule.params.end() || per_it->second < 1)  // lab_spec refuses both
    return "the lab's rule counts per a parameter it does not set (a fault of the grader)";
  const double elements = static_cast<double>(per_it->second);
  const std::string with = rule.per + " = " + std::to_string(per_it->second);
  if (launches.empty()) return "the kernel was never launched in the counted case (" + with + ")";
  if (launches.size() >= kLaunchesListed)
    return "the counted case (" + with + ") made " + std::to_string(launches.size()) +
           " or more launches; the grader measures what at most " +
           std::to_string(kLaunchesListed - 1) + " do";
  MemoryAccesses total;
  for (const LaunchInfo& l : launches) {
    if (!l.accesses)
      return "the grader's counting run reported no memory accesses for " + FunctionName(l.kernel) +
             " (a fault of the grader, not of your code)";
    total.global_load_bytes += l.accesses->ChargedGlobalLoadBytes();
    total.global_store_bytes += l.accesses->global_store_bytes;
    total.shared_loads += l.accesses->shared_loads;
    total.shared_stores += l.accesses->shared_stores;
    total.barriers += l.accesses->barriers;
  }
  const double global_loads = total.global_load_bytes / 4.0 / elements;
  const double global_stores = total.global_store_bytes / 4.0 / elements;
  const double shared_loads = static_cast<double>(total.shared_loads) / elements;
  const double shared_stores = static_cast<double>(total.shared_stores) / elements;
  const std::string figures =
      Who(launches) + ", measured with " + with + ", per element: " + Fixed1(global_loads) +
      " floats loaded from global memory and " + Fixed1(global_stores) + " stored; " +
      Fixed1(shared_loads) + " loads from shared memory and " + Fixed1(shared_stores) +
      " stores to it" +
      (barriers_counted ? "; " + std::to_string(total.barriers) + " __syncthreads() passed" : "");

  if (rule.min_shared_stores_per_element && shared_stores < *rule.min_shared_stores_per_element)
    return figures + ". Staging takes at least " + Fixed1(*rule.min_shared_stores_per_element) +
           " stores to shared memory per element: every value goes into a __shared__ buffer, "
           "loaded there by consecutive threads";
  if (rule.min_shared_loads_per_element && shared_loads < *rule.min_shared_loads_per_element)
    return figures + ". Staging takes at least " + Fixed1(*rule.min_shared_loads_per_element) +
           " loads from shared memory per element: every value comes back out of the "
           "__shared__ buffer to be written, by consecutive threads";
  if (rule.max_global_loads_per_element && global_loads > *rule.max_global_loads_per_element)
    return figures + ". At most " + Fixed1(*rule.max_global_loads_per_element) +
           " floats per element may be loaded from global memory (each value once): the "
           "rest of the work must read the __shared__ buffer, not global memory";
  if (rule.max_global_stores_per_element && global_stores > *rule.max_global_stores_per_element)
    return figures + ". At most " + Fixed1(*rule.max_global_stores_per_element) +
           " floats per element may be stored to global memory (each value once): keep "
           "intermediate values in the __shared__ buffer, not in the output array";
  if (barriers_counted && rule.executes_barrier && *rule.executes_barrier && total.barriers == 0)
    return figures + ". A block must wait at a __syncthreads() once the buffer is filled, and "
                     "again before it is written out";
  return "";
}

}  // namespace labkit
