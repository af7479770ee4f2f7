// How nvcc names one thing twice: the host object's shadow of a variable (or a kernel's host
// stub), which labgrade reads with nm, and the symbol in the device code, which the kit's replay
// program looks up in the loaded library (student_device_code.h). Verified with nvcc 13:
// - `__device__ float d_values[8];`: host _ZL8d_values, device d_values;
// - `namespace ns { __device__ float v; }`: host _ZN2nsL1vE, device _ZN2ns1vE;
// - `static __global__ void k(float*);`: host _ZL1kPf, device _Z1kPf;
// - `namespace ns { static __constant__ float c; }`: host _ZN2nsL1cE,
//   device _ZN<n>_INTERNAL_<tu>2ns1cE;
// - `namespace { __device__ int a; }`: host _ZN<n>_GLOBAL__N_<tu>L1aE,
//   device _ZN<m>_INTERNAL_<tu><n>_GLOBAL__N_<tu>1aE.
// Plain C++, so that CI tests it without a GPU.
#pragma once

#include <string>
#include <vector>

namespace labkit::replay {

// `host` with the internal-linkage marks of its name taken out ("_ZL1kPf" -> "_Z1kPf",
// "_ZN2nsL1vE" -> "_ZN2ns1vE"); a literal in a template argument ("ILi4E") is left alone.
std::string WithoutInternalMarks(const std::string& host);

// Whether the device symbol `device` is what the host symbol `host` stands for: the same name once
// the marks are out; a namespace-scope variable's plain name; or that name behind the one
// component nvcc puts in front of internal names on the device (`<n>_INTERNAL_...`).
bool NamesTheSame(const std::string& host, const std::string& device);

// The device names `host` may have, best first: those of `known` (a library's kernels, the
// variables the fatbinary's symbol tables hold) that NamesTheSame finds, then the names made from
// `host` alone. Each is only a name to look up in the student's own library.
std::vector<std::string> DeviceNameCandidates(const std::string& host,
                                              const std::vector<std::string>& known);

}  // namespace labkit::replay
