// Kernel launches: `NAME<<<g, b[, smem[, stream]]>>>(args)` becomes
// `::emu::launch(NAME, g, b, smem_or_0, stream_or_0, args)`.
//
// The rewrite is a handful of small edits around the existing tokens (an insertion before NAME,
// `<<<` -> `, `, `>>>(` -> `, 0, 0, `) rather than a re-spelling of the whole launch, so the
// arguments keep their text, spacing and line breaks, and a launch nested in another launch's
// arguments is rewritten by its own, non-overlapping edits.
#pragma once

#include "source.h"

namespace emu::rewrite {

PassResult rewrite_launches(const Source& src);

}  // namespace emu::rewrite
