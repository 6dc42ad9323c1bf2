// Sixteen bytes per load: the pack of elements one LDG.E.128 brings in, and the load policies a kernel
// picks by where its data comes from (read-only input, streamed input, values written in this launch).
// StreamingLoad's L2 cache hints need sm_80 (Feature::l2_cache_hints, common/contract/requirements.hpp);
// code compiled for an older target takes the same read-only, no-L1 loads without the hint.
#pragma once

#include <cstdint>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nv/target>

namespace redu
{

// Sixteen bytes of T, the widest load a thread can issue: 4 x 32-bit or 2 x 64-bit elements, held as
// CUDA's vector type (float4, double2, int4, longlong2), which has __ldg overloads. (Held as an array of
// T, the segmented kernels compiled to other register allocations and loop unrolling than they were
// tuned with.)
template <class T> struct Vector16;
template <> struct Vector16<float>
{
  using type = float4;
};
template <> struct Vector16<double>
{
  using type = double2;
};
template <> struct Vector16<std::int32_t>
{
  using type = int4;
};
template <> struct Vector16<std::int64_t>
{
  using type = longlong2;
};
// Eight halves as four 32-bit words of two each, the operand of the pair conversions to float2
// (__bfloat1622float2, __half22float2): handwritten/halves/ widens them; splat and fold_pack below take
// 32- and 64-bit elements only.
template <> struct Vector16<__nv_bfloat16>
{
  using type = uint4;
};
template <> struct Vector16<__half>
{
  using type = uint4;
};

template <class T> struct Pack
{
  typename Vector16<T>::type v;
};

template <class T> inline constexpr int pack_size = 16 / sizeof(T); // elements in a pack

template <class T> __device__ __forceinline__ Pack<T> to_pack(uint4 raw)
{
  Pack<T> pack;
  std::memcpy(&pack.v, &raw, sizeof(pack.v)); // register moves only: both are 16 bytes
  return pack;
}

// Every lane set to `value` (the identity, for a load that falls outside the range).
template <class T> __device__ __forceinline__ Pack<T> splat(T value)
{
  static_assert(pack_size<T> <= 4, "32- and 64-bit elements");
  Pack<T> pack;
  pack.v.x = value;
  pack.v.y = value;
  if constexpr (pack_size<T> == 4)
  {
    pack.v.z = value;
    pack.v.w = value;
  }
  return pack;
}

// The lanes of one pack folded as a tree, (0 op 1) op (2 op 3): two independent operations, then one.
template <class T, class ReduceOp> __device__ __forceinline__ T fold_pack(const Pack<T>& pack, ReduceOp op)
{
  static_assert(pack_size<T> <= 4, "32- and 64-bit elements");
  const auto& v = pack.v;
  if constexpr (pack_size<T> == 4)
  {
    return op(op(T(v.x), T(v.y)), op(T(v.z), T(v.w)));
  }
  else
  {
    return op(T(v.x), T(v.y));
  }
}

// The lanes of one pack folded into `acc` in lane order, ((acc op 0) op 1) op ...: each operation waits
// on the one before, so a caller that wants them to overlap keeps several accumulators.
template <class T, class ReduceOp> __device__ __forceinline__ T fold_into(T acc, const Pack<T>& pack, ReduceOp op)
{
  T lane[pack_size<T>];
  std::memcpy(lane, &pack.v, sizeof(lane)); // register moves only
#pragma unroll
  for (int l = 0; l < pack_size<T>; ++l)
  {
    acc = op(acc, lane[l]);
  }
  return acc;
}

// Input that nothing writes during the launch, packs through the read-only path (ld.global.nc, __ldg).
// The few unaligned elements around them are plain loads: the compiler makes them read-only loads
// itself where it can prove the pointer const and unaliased, and keeps them in L1 otherwise.
struct ReadOnlyLoad
{
  template <class T> __device__ __forceinline__ T scalar(const T* p) const { return *p; }
  template <class T> __device__ __forceinline__ Pack<T> vector(const Pack<T>* p) const { return {__ldg(&p->v)}; }
};

// Input that nothing writes during the launch and that is read once, with an explicit L2 eviction priority:
// the read-only path (ld.global.nc), no L1 allocation (each byte is used once), and the priority as a
// cache-policy operand. evict_first: the input's lines replace each other instead of the lines already
// resident, which after a write-heavy producer are dirty, so the reduction does not pay for writing them
// back; on an H200 it also read faster than evict_normal on inputs several times the L2's size
// (handwritten/modern/DESIGN.md). The floor search (bench/floor.cu) tries both priorities; the modern family
// and halves families take it through InputLoad below, the others directly (evict_normal when the input fits).
// Before sm_80 there is no cache-policy operand: the same load without it (the L2 keeps its default priority).
class StreamingLoad
{
public:
  __device__ __forceinline__ explicit StreamingLoad(bool evict_first)
  {
    NV_IF_TARGET(NV_PROVIDES_SM_80, (
      if (evict_first)
      {
        asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy_));
      }
      else
      {
        asm("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(policy_));
      }
    ), (
      policy_ = evict_first ? 1 : 0; // kept for no load: older targets have no policy operand
    ))
  }

  template <class T> __device__ __forceinline__ T scalar(const T* p) const { return __ldg(p); }

  template <class T> __device__ __forceinline__ Pack<T> vector(const Pack<T>* p) const
  {
    uint4 raw;
    NV_IF_TARGET(NV_PROVIDES_SM_80, (
      asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                   : "=r"(raw.x), "=r"(raw.y), "=r"(raw.z), "=r"(raw.w)
                   : "l"(p), "l"(policy_));
    ), (
      asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(raw.x), "=r"(raw.y), "=r"(raw.z), "=r"(raw.w)
                   : "l"(p));
    ))
    return to_pack<T>(raw);
  }

private:
  std::uint64_t policy_;
};

// A read-once input in the form the launch chose from its size (input_evict_first, common/device/l2_policy.cuh),
// a template argument of the kernel (the modern family's):
//   InputLoad<true>,  larger than the L2: StreamingLoad(evict_first), for the reasons above;
//   InputLoad<false>, fits in the L2: a plain read-only load (ld.global.nc.v4: no L1 flag, no L2 hint), whose
//                     lines the L2 keeps at its default priority for the next reader, as evict_normal would.
//                     Against StreamingLoad(evict_normal) it read faster on both measured GPUs: the hint,
//                     not the L1 flag, costs (handwritten/modern/DESIGN.md). Loaded as four
//                     32-bit words like StreamingLoad: __ldg of a double2 took the f64 kernel from 64 to 74
//                     registers, 4 -> 3 resident blocks of 256 threads per SM.
// A template argument, not a run-time flag: one kernel holding both forms took 72 registers for f64 (the same
// lost block per SM), and ran 4-10% slower at 2^21 doubles on the H100, where 512 blocks no longer fit in one
// wave of 396.
template <bool EvictFirst> struct InputLoad;

template <> struct InputLoad<true> : StreamingLoad
{
  __device__ __forceinline__ InputLoad() : StreamingLoad(true) {}
};

template <> struct InputLoad<false>
{
  template <class T> __device__ __forceinline__ T scalar(const T* p) const { return __ldg(p); }
  template <class T> __device__ __forceinline__ Pack<T> vector(const Pack<T>* p) const
  {
    return to_pack<T>(__ldg(reinterpret_cast<const uint4*>(p)));
  }
};

// Values other blocks wrote earlier in the same launch (a finishing block's partials): the read-only
// path may return stale data here, so read at L2, the point of coherence (ld.global.cg).
struct CoherentLoad
{
  template <class T> __device__ __forceinline__ T scalar(const T* p) const { return __ldcg(p); }
  // As four 32-bit words, the form the modern finishers were tuned with (the double2 overload of
  // __ldcg cost them up to 44 more registers).
  template <class T> __device__ __forceinline__ Pack<T> vector(const Pack<T>* p) const
  {
    return to_pack<T>(__ldcg(reinterpret_cast<const uint4*>(p)));
  }
};

} // namespace redu
