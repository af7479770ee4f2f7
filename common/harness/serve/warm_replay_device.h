// The device side of a warm replay process (warm_replay.h): what is made once, and what each
// request starts from and leaves behind. GPU only: the CPU backend never serves.
#pragma once

namespace labkit {

// Creates the CUDA context and has every later free zero its memory first; returns
// cudaDevAttrPageableMemoryAccess (1: kernels could reach the server's host memory, and labgrade
// does not use the server).
int start_serving_device();

// Before a request: the device-memory budget at the limit the request's environment gives, with
// nothing held or refused.
void begin_served_request();

// After a request: waits for its work; frees (zeroed) what it left allocated; unloads its device
// code and forgets what was learnt about its kernels. False when the context has a sticky error and
// can take no more requests.
bool end_served_request();

}  // namespace labkit
