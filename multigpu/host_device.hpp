// REDU_HD marks the few small functions that the host tests and the kernels must compute identically
// (the split of a range over ranks, the test pattern, bf16 rounding): one definition for both sides.
#pragma once

#if defined(__CUDACC__)
#define REDU_HD __host__ __device__
#else
#define REDU_HD
#endif
