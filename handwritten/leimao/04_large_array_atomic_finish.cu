// Lei Mao's "Large Array Reduce Sum", second answer: one batched pass with an atomic finish.
//
// Idea: reshape the array into rows exactly as 03 does, but instead of writing each row's value to a
// partial and launching again, thread 0 of each block combines it into the single output with an atomic:
// atomicAdd for sums, atomicMin/atomicMax for integers, and a compare-and-swap loop for float and double
// min/max (there is no floating-point atomicMin/Max).
// A trap: the f32 atomicAdd on global memory flushes subnormal operands and results to zero, so a float
// sum of subnormals came out 0. A compare-and-swap loop adds in ordinary arithmetic, which keeps them,
// but 4096 blocks retrying on one address cost 100x (measured on the H100, cold L2, f32 sum: 3104 us
// instead of 29 at 2^24, 4130 instead of 1371 at 2^30). So a float row value takes the loop only when it
// is tiny (|value| < 2^-80, subnormals included); larger ones take atomicAdd, whose flushes can then only
// drop a subnormal stored sum or result (< 2^-126 each, at most one per row): far inside the error bound,
// since a value >= 2^-80 means sum|x| >= 2^-80, and u * 2^-80 = 2^-104 > 4096 * 2^-126. The output is first set to the operator's identity
// by a one-thread kernel (a memset cannot write +inf-like identities), so n = 0 yields the identity.
// Flaw of 03 it removes: the second level's launch and the partials' round trip through memory.
// Flaw it adds: the order in which blocks' atomics land varies from run to run, so float and double sums
// are not bit-reproducible (determinism not_guaranteed); integer results and min/max are order-independent
// (two zeros that meet keep the sign the operator prefers, combine_signed_zeros below).
// The post: "may or may not have performance degradations" against the repeated launches; with 4096
// rows there are only 4096 atomics on one address, so the batched pass dominates either way.
// Requirements: none on n; no workspace.
// Measured (H100, cold L2, float sum): 3065 GB/s at n = 2^28 (CUB DeviceReduce 3064, 03: 3037), 516 at
// 2^20 (482, 462): one launch less is worth a few percent at small n, nothing at large n.
// Source: Lei Mao, "CUDA Reduction" (2024), "Large Array Reduce Sum", last paragraph (atomic operations).
#include "common/contract/typed_reduction.cuh"
#include "handwritten/leimao/02_batched_reduce_sum_v2.cuh"
#include "handwritten/leimao/large_array_shape.cuh"

#include <type_traits>

namespace redu::leimao
{
namespace
{

// min/max of two floats where two zeros meet: -0 for min, +0 for max, whichever arrived first. The
// contract compares the zeros equal (op keeps the stored one), so without this tie-break the sign of a
// zero result would follow the order in which blocks' atomics land, and run_to_run promises every bit.
template <class T, class ReduceOp>
__device__ __forceinline__ T combine_signed_zeros(T stored, T value, ReduceOp op)
{
  if (stored == T(0) && value == T(0))
  {
    const bool negative = ReduceOp::id == Op::min ? (signbit(stored) || signbit(value))
                                                  : (signbit(stored) && signbit(value));
    return negative ? -T(0) : T(0);
  }
  return op(stored, value);
}

// Combines `value` into *address with a compare-and-swap loop on the element's bits; stops early when
// the stored value already wins (op(stored, value) == stored), so most blocks of a min/max pay one read.
template <class T, class ReduceOp>
__device__ void atomic_combine_cas(T* address, T value, ReduceOp op)
{
  using Bits   = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
  Bits* bits   = reinterpret_cast<Bits*>(address);
  Bits current = *bits; // a guess; the CAS below reports the real value
  while (true)
  {
    T stored;
    memcpy(&stored, &current, sizeof(T));
    const T combined = ReduceOp::id == Op::sum ? op(stored, value) : combine_signed_zeros(stored, value, op);
    Bits wanted;
    memcpy(&wanted, &combined, sizeof(T));
    if (wanted == current)
    {
      return;
    }
    const Bits seen = atomicCAS(bits, current, wanted);
    if (seen == current)
    {
      return;
    }
    current = seen;
  }
}

// Below this magnitude a float row value is added by compare-and-swap (see the top of the file).
constexpr float atomic_add_min_magnitude = 0x1p-80f;

template <class T, class ReduceOp>
__device__ void atomic_combine(T* address, T value, ReduceOp op)
{
  if constexpr (std::is_floating_point_v<T>)
  {
    if constexpr (ReduceOp::id == Op::sum && sizeof(T) == 4)
    {
      if (fabsf(value) >= atomic_add_min_magnitude)
      {
        atomicAdd(address, value);
        return;
      }
    }
    else if constexpr (ReduceOp::id == Op::sum)
    {
      atomicAdd(address, value); // the f64 atomic add keeps subnormals
      return;
    }
    atomic_combine_cas(address, value, op);
  }
  else if constexpr (sizeof(T) == 4)
  {
    auto* word = reinterpret_cast<int*>(address);
    if constexpr (ReduceOp::id == Op::sum)
    {
      atomicAdd(word, static_cast<int>(value));
    }
    else if constexpr (ReduceOp::id == Op::min)
    {
      atomicMin(word, static_cast<int>(value));
    }
    else
    {
      atomicMax(word, static_cast<int>(value));
    }
  }
  else if constexpr (ReduceOp::id == Op::sum)
  {
    // Two's-complement addition is the same bit operation signed or unsigned, so the unsigned 64-bit
    // atomicAdd gives the int64 sum with the same wrap-around as the reference.
    atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
  }
  else if constexpr (ReduceOp::id == Op::min)
  {
    atomicMin(reinterpret_cast<long long*>(address), static_cast<long long>(value));
  }
  else
  {
    atomicMax(reinterpret_cast<long long*>(address), static_cast<long long>(value));
  }
}

// Every row's value lands in the single output.
template <class T, class ReduceOp>
struct AtomicStore
{
  T* out;
  __device__ void operator()(std::size_t, T value) const { atomic_combine(out, value, ReduceOp{}); }
};

template <class T, class ReduceOp>
__global__ void write_identity(T* out)
{
  *out = ReduceOp::template identity<T>();
}

// The error bound's arrival-order term (Info::unordered_partials): one partial per row.
std::int64_t rows_in_arrival_order(const Problem& p)
{
  const std::int64_t row_length = reshape_row_length(p.n);
  return (p.n + row_length - 1) / row_length;
}

class LargeArrayAtomic : public TypedReduction<LargeArrayAtomic>
{
public:
  LargeArrayAtomic()
    : TypedReduction({.name          = "leimao.large_array_atomic",
                      .family        = "leimao",
                      .source        = "Lei Mao, CUDA Reduction (2024), Large Array Reduce Sum: atomic operations",
                      .idea          = "view one array as a batch of rows; each row's block combines atomically",
                      .kinds         = {Kind::full},
                      .determinism = arrival_order_float_sums,
                      .unordered_partials = rows_in_arrival_order})
  {}

  template <class T, class ReduceOp>
  std::size_t workspace_bytes(const Problem&) const
  {
    return 0;
  }

  template <class T, class ReduceOp>
  Status run(const Problem& p, Workspace, cudaStream_t stream) const
  {
    auto* out = static_cast<T*>(p.output);
    write_identity<T, ReduceOp><<<1, 1, 0, stream>>>(out);
    REDU_CUDA_TRY(cudaPeekAtLastError());
    const std::int64_t row_length = reshape_row_length(p.n);
    const std::int64_t rows       = (p.n + row_length - 1) / row_length; // 0 for n = 0: nothing to combine
    return launch_batched_v2<T, ReduceOp>(AtomicStore<T, ReduceOp>{out}, static_cast<const T*>(p.input), rows,
                                          row_length, p.n, stream);
  }
};

REDU_REGISTER(LargeArrayAtomic);

} // namespace
} // namespace redu::leimao
