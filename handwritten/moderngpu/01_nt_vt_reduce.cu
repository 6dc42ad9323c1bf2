// moderngpu 2.0's reduce, registered as "moderngpu.reduce". The kernel and its driver are in
// 01_nt_vt_reduce.cuh; the lesson, in short:
//
// Idea: launch parameters nt (threads per CTA) x vt (values per thread) fix the tile one CTA reduces,
// nv = nt * vt. Each CTA loads its tile strided into registers (coalesced, vt loads in flight per thread),
// folds its vt values in registers (register blocking, instruction-level parallelism), reduces across the
// CTA through shared memory and a warp of fused shuffle-plus-op instructions (inline PTX), and writes one
// partial. The partials are reduced the same way, 512 x 4, until a single CTA writes the result.
// Flaw removed (vs Harris-style kernels): no block-size-dependent tree in shared memory, no divergent or
// bank-conflicted addressing, and several loads in flight per thread instead of one.
// Flaws kept, on purpose: 4- or 8-byte loads (a strided tile cannot be vectorised), tiles of only
// 1024 values, so one short-lived CTA per 4 KB of floats, and one launch per level of partials (three for
// n >= 2^22); the modern family removes them.
// Requirements: n < 2^31 x 1024 (one CTA per tile; the grid's x limit), any alignment. Deterministic.
// Source: seed 003 "GPU Programming - Reduce" (Top-Down View, Bottom-Up View, the shfl_op macro);
// moderngpu kernel_reduce.hxx, cta_reduce.hxx, intrinsics.hxx. The published macro's float-min slip is
// exhibited in legacy/published_shfl_op.cu; this version maps min to min.
#include "common/contract/typed_reduction.cuh"
#include "handwritten/moderngpu/01_nt_vt_reduce.cuh"

namespace redu::moderngpu
{
namespace
{

class NtVtReduce : public TypedReduction<NtVtReduce>
{
public:
  NtVtReduce()
    : TypedReduction({.name          = "moderngpu.reduce",
                      .family        = "moderngpu",
                      .source        = "seed 003 GPU Programming - Reduce; moderngpu 2.0 kernel_reduce.hxx",
                      .idea          = "nt x vt tiles (128x8, then 512x4 over partials), fused shuffle+op PTX",
                      .kinds         = {Kind::full},
                      .max_n         = max_n})
  {}

  template <class T, class ReduceOp> std::size_t workspace_bytes(const Problem& p) const
  {
    return static_cast<std::size_t>(partial_elements(p.n)) * sizeof(T);
  }

  template <class T, class ReduceOp> Status run(const Problem& p, Workspace ws, cudaStream_t stream) const
  {
    return reduce<T, ReduceOp>(static_cast<const T*>(p.input), p.n, static_cast<T*>(p.output), static_cast<T*>(ws.data),
                               stream);
  }
};

REDU_REGISTER(NtVtReduce);

} // namespace
} // namespace redu::moderngpu
