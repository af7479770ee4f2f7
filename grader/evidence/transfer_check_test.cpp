#include "transfer_check.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

CaseRun CaseWith(std::vector<TransferInfo> transfers) {
  CaseRun c;
  c.reported = true;
  c.status = "ok";
  c.transfers = std::move(transfers);
  return c;
}

TEST(TransferCheck, OnlyWhatReachesTheHostCounts) {
  EXPECT_TRUE(ExposesDeviceDataToHost({"cudaMemcpy", "device_to_host", 4}));
  EXPECT_TRUE(ExposesDeviceDataToHost({"cudaMemcpyFromSymbol", "device_to_host", 4}));
  EXPECT_TRUE(ExposesDeviceDataToHost({"cudaMallocHost", "host_allocation", 64}));
  EXPECT_TRUE(ExposesDeviceDataToHost({"cudaMallocManaged", "managed_allocation", 64}));
  EXPECT_FALSE(ExposesDeviceDataToHost({"cudaMemcpyAsync", "device_to_device", 4096}));
  // Lab 04 sets its __constant__ block side from the host.
  EXPECT_FALSE(ExposesDeviceDataToHost({"cudaMemcpyToSymbol", "host_to_device", 4}));
  EXPECT_FALSE(ExposesDeviceDataToHost({"cudaMemcpy", "host_to_host", 4}));
}

TEST(TransferCheck, DeviceCopiesAndConstantsPass) {
  const std::vector<CaseRun> cases = {CaseWith({{"cudaMemcpyToSymbol", "host_to_device", 4}}),
                                      CaseWith({{"cudaMemcpyAsync", "device_to_device", 3364}}),
                                      CaseWith({})};
  EXPECT_EQ(HostTransferFailure("matmul_tiled_any", cases), "");
}

TEST(TransferCheck, CopyToTheHostFailsWithWhatWhichWayAndHowMuch) {
  const std::vector<CaseRun> cases = {CaseWith({}),
                                      CaseWith({{"cudaMemcpy", "device_to_host", 3364},
                                                {"cudaMemcpy", "device_to_host", 3364},
                                                {"cudaMemcpy", "host_to_device", 3364}}),
                                      CaseWith({{"cudaMallocManaged", "managed_allocation", 100}})};
  EXPECT_EQ(HostTransferFailure("matmul_tiled_any", cases),
            "matmul_tiled_any gave the host access to device data while it ran (cudaMemcpy, "
            "device to host, 2 calls, 6728 bytes): the product must be computed by your kernels "
            "on the GPU. A, B and C are already device memory and the grader copies C back "
            "itself; copying A and B to the host, or setting up memory both sides can reach, lets "
            "the CPU do the work whatever kernel runs besides, so remove those calls and compute "
            "C in your kernel");
}

TEST(TransferCheck, HostVisibleMemoryFailsAndEachCallIsListed) {
  const std::vector<CaseRun> cases = {CaseWith({{"cudaHostAlloc", "host_allocation", 4096},
                                                {"cudaMemcpyFromSymbol", "device_to_host", 16},
                                                {"cudaHostAlloc", "host_allocation", 1024}})};
  const std::string message = HostTransferFailure("matmul_tiled", cases);
  EXPECT_NE(message.find("(cudaHostAlloc, host memory a kernel can write, 2 calls, 5120 bytes; "
                         "cudaMemcpyFromSymbol, device to host, 1 call, 16 bytes)"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace labkit
