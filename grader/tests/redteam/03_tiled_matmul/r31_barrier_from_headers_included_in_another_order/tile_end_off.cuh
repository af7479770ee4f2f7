// The end of a tile's phase: nothing to wait for.
#undef TILE_PHASE_END
#define TILE_PHASE_END()
