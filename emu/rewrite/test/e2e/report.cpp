// Host-only part of the end-to-end sample: an ordinary .cpp in an emu_add_executable() target,
// which must compile without going through the rewriter.
#include <cstdio>

#ifdef __LABKIT_EMU__
#error "emu_add_executable() sent a plain .cpp file through emu-cxx's rewrite"
#endif

void report(const int* values, int count, const int* sums) {
  std::printf("reversed:");
  for (int i = 0; i < count; ++i) std::printf(" %d", values[i]);
  std::printf("\nsums: %d %d\n", sums[0], sums[1]);
}
