// Historical exhibit: moderngpu's fused shuffle-plus-op as published, with its float-min slip.
//
// intrinsics.hxx stamps one shfl_down_op overload per (type, operator) from SHFL_OP_MACRO; its float
// table reads
//     SHFL_OP_MACRO(down, false, f32, f, float, max, maximum_t)
//     SHFL_OP_MACRO(down, false, f32, f, float, max, minimum_t)   <- minimum_t mapped to max
// so every full-warp step of a float min reduction takes the larger value. The slip is invisible for
// sums and for the other types, and for min it only shows once a CTA has a full warp of values.
// Here the same macro stamps the published mapping for an operator type of this file, and the project's
// moderngpu kernel (01_nt_vt_reduce.cuh) is run with it: everything but the fused shuffle is a correct
// min. Not registered: it is wrong on purpose. See published_shfl_op.hpp.
// Source: moderngpu 2.0 src/moderngpu/intrinsics.hxx; seed 003 quotes the macro; seed README lists
// the trap.
#include "handwritten/moderngpu/01_nt_vt_reduce.cuh"
#include "handwritten/moderngpu/legacy/published_shfl_op.hpp"

namespace redu::moderngpu
{
namespace
{

// Identity and operator() of a correct min: only the fused shuffle below differs.
struct PublishedMinOp : MinOp
{};

// Found by argument-dependent lookup from cta_reduce, and an exact match, so it wins over MinOp's.
REDU_MGPU_SHFL_DOWN_OP_32(float, f, f32, max, PublishedMinOp)

} // namespace

Status published_macro_float_min(const float* in, int n, float* out, cudaStream_t stream)
{
  if (n < 1 || n > published_macro_max_n || in == nullptr || out == nullptr)
  {
    return Status::invalid("published_macro_float_min: needs device pointers and 1 <= n <= " +
                           std::to_string(published_macro_max_n));
  }
  tile_reduce<first_nt, first_vt><<<1, first_nt, 0, stream>>>(in, n, out, PublishedMinOp{});
  REDU_CUDA_TRY(cudaPeekAtLastError());
  return Status::success();
}

} // namespace redu::moderngpu
