// The end of a tile's phase: wait for every thread before the next phase's loads.
#undef TILE_PHASE_END
#define TILE_PHASE_END() __syncthreads()
