// Whether a matmul function let the host at device data while it ran: a copy from device to host,
// or memory that host code and kernels can both reach. Its inputs and output are device memory and
// the harness copies C back itself, so either means the product could have been (and usually was)
// computed on the CPU, with a kernel launched only to look the part.
#pragma once

#include <string>
#include <vector>

#include "harness_runner.h"

namespace labkit {

// A device-to-host copy, or a pinned, mapped, registered or managed allocation.
bool ExposesDeviceDataToHost(const TransferInfo& transfer);

// What the first case whose call exposed device data did, said for the student; "" when no case
// did. `function` is the student's function, as lab.yaml names it.
std::string HostTransferFailure(const std::string& function, const std::vector<CaseRun>& cases);

}  // namespace labkit
