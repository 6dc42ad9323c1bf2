// Historical exhibit, not registered: moderngpu's fused shuffle macro as published maps the float
// *min* operator to the PTX `max` instruction. The launcher below runs the project's moderngpu reduce
// kernel with that published mapping, so a test can show the wrong answer (and moderngpu.reduce, which
// maps min to min, the right one).
#pragma once

#include "common/status.hpp"

#include <cuda_runtime_api.h>

namespace redu::moderngpu
{

// Largest n the exhibit takes: one 128 x 8 tile, one CTA, one launch, no workspace.
inline constexpr int published_macro_max_n = 1024;

// Writes to *out (device memory) what moderngpu's published reduce computes as the minimum of
// in[0, n) (device memory), 1 <= n <= published_macro_max_n. For n >= 32 the CTA's first warp holds a
// full warp of values and takes the fused shuffle, whose published float-min is a max: *out is then the
// largest of the 32 lane minima, not the minimum (seen on an H100: n = 1024 uniform in [-1000, 1000]
// gave -873.6 for a true minimum of -998.9). Below 32 values the unfused partial-warp path runs and the
// answer is right.
Status published_macro_float_min(const float* in, int n, float* out, cudaStream_t stream);

} // namespace redu::moderngpu
