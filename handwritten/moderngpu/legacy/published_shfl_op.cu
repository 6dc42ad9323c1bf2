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
// min. Registered as "moderngpu.published_float_min" with Role::exhibit: it goes through redu::run,
// but it is never in registry(), since it is wrong on purpose. For n >= 32 the CTA's first warp holds
// a full warp of values and takes the fused shuffle, whose published float-min is a max: the result is
// then the largest of the 32 lane minima (seen on an H100: n = 1024 uniform in [-1000, 1000] gave
// -873.6 for a true minimum of -998.9). Below 32 values the unfused partial-warp path runs and the
// answer is right.
// Source: moderngpu 2.0 src/moderngpu/intrinsics.hxx; seed 003 quotes the macro; seed README lists
// the trap.
#include "common/contract/typed_reduction.cuh"
#include "handwritten/moderngpu/01_nt_vt_reduce.cuh"

namespace redu::moderngpu
{
namespace
{

// Identity and operator() of a correct min: only the fused shuffle below differs.
struct PublishedMinOp : MinOp
{};

// Found by argument-dependent lookup from cta_reduce, and an exact match, so it wins over MinOp's.
REDU_MGPU_SHFL_DOWN_OP_32(float, f, f32, max, PublishedMinOp)

class PublishedFloatMin : public TypedReduction<PublishedFloatMin, TypeList<float>, OpList<MinOp>>
{
public:
  PublishedFloatMin()
    : TypedReduction({.name   = "moderngpu.published_float_min",
                      .family = "moderngpu",
                      .source = "moderngpu 2.0 intrinsics.hxx, SHFL_OP_MACRO as published (minimum_t -> max)",
                      .idea   = "the published fused shuffle: float min mapped to the PTX max instruction",
                      .kinds  = {Kind::full},
                      .role   = Role::exhibit,
                      .max_n  = first_nt * first_vt}) // one 128 x 8 tile, one CTA, one launch
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem&) const
  {
    return 0;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace, cudaStream_t stream) const
  {
    tile_reduce<first_nt, first_vt><<<1, first_nt, 0, stream>>>(static_cast<const float*>(p.input),
                                                                  p.n, static_cast<float*>(p.output),
                                                                  PublishedMinOp{});
    REDU_CUDA_TRY(cudaPeekAtLastError());
    return Status::success();
  }
};

REDU_REGISTER(PublishedFloatMin);

} // namespace
} // namespace redu::moderngpu
