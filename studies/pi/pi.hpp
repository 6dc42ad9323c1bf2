// pi by the midpoint rule, the worked example of the seed document "Reduction on CUDA" (001): the integral
// of 4 / (1 + x^2) over [0, 1] is pi; n rectangles of width 1/n and height 4 / (1 + x_i^2) at the midpoints
// x_i = (i + 0.5) / n approximate it, and adding their heights is a reduction. Every method below sums the
// same float heights (the seed's arithmetic, studies/pi/rectangles.cuh) and divides by n, so they differ
// only in how the float sum is formed and how long it takes.
//
// Library code: errors come back as Status values; nothing here exits or throws.
#pragma once

#include "common/contract/status.hpp"

#include <cstdint>
#include <cuda_runtime_api.h>
#include <memory>
#include <string>

namespace redu::pi
{

inline constexpr double reference_pi = 3.141592653589793238462643383279502884;

// Leading term of the midpoint rule's error for this integrand: (f'(1) - f'(0)) / (24 n^2) with f'(1) = -2,
// so the rule overestimates pi by about 1 / (12 n^2).
inline double midpoint_error_theory(std::int64_t n)
{
  const double nd = static_cast<double>(n);
  return 1.0 / (12.0 * nd * nd);
}

// The seed's calcRectangles: rectangles[i] = height of rectangle i, for i in [0, n), one thread each, with a
// 64-bit index. Asynchronous on `stream`; n = 0 launches nothing. Limit: n <= 2^31 - 1 blocks of 256.
Status launch_rectangles(float* rectangles, std::int64_t n, cudaStream_t stream);

// ---- The seed's own program ------------------------------------------------------------------------------

enum class SeedKernel
{
  reduce0,
  reduce1,
  reduce2
};
const char* to_string(SeedKernel kernel);

// The seed ran 4M (2^22) rectangles; its driver costs two cudaMalloc, two cudaFree, two copies and a device
// synchronisation per 32 values, so it takes seconds well before that. Keep to ~2^16 in sweeps.
inline constexpr std::int64_t seed_driver_max_n = std::int64_t{1} << 22;

struct SeedDriverResult
{
  float pi = 0.0f;
  // What the seed reported as the time: std::clock() (processor time of this process, not wall time)
  // summed around each asynchronous kernel launch and around the host's final sum.
  double host_clock_seconds = 0.0;
};

// The seed's calcReductionGeneral, reproduced: heights computed on the device and copied to the host; then,
// recursively, every chunk of 32 values gets its own cudaMalloc'd input and output, a host-to-device copy, a
// <<<1, 32>>> launch of the chosen Harris kernel, a synchronisation and a copy back; below 32 values the host
// adds them and divides by n. Synchronous, on the legacy default stream. Deviations from the seed, all to make
// it correct rather than faster: every CUDA call is checked; the launch asks for 32 * sizeof(float) bytes of
// shared memory (the seed asked for 32 bytes, a shared-memory overrun that memcheck reports); a last, partial
// chunk is padded with zeros (the seed's n / 32 dropped the tail when n is not a multiple of 32); the host
// sum starts at 0 (the seed's was uninitialised). Requires 1 <= n <= seed_driver_max_n.
Status seed_driver_pi(SeedKernel kernel, std::int64_t n, SeedDriverResult& result);

// ---- Device methods, prepared once and timed per call ----------------------------------------------------

// A way of computing pi on the device. prepare() allocates everything a call at n needs, so a caller can
// bracket enqueue() alone with CUDA events; fetch() waits for the stream and returns pi = (float sum) / n.
class Method
{
public:
  virtual ~Method()                       = default;
  virtual const std::string& name() const = 0;
  virtual std::int64_t max_n() const      = 0;
  // True when enqueue() itself waits for the device (the sum is returned to the host by value).
  virtual bool synchronous() const { return false; }
  virtual Status prepare(std::int64_t n)                = 0;
  virtual Status enqueue(cudaStream_t stream)           = 0;
  virtual Status fetch(cudaStream_t stream, double& pi) = 0;
};

// prepare + enqueue + fetch.
Status compute_pi(Method& method, std::int64_t n, cudaStream_t stream, double& pi);

// calcRectangles into an array of n floats, then any registered reduction (redu::find(reduction_name))
// run through redu::run as a full float sum. Fails if the name is unknown or does not support f32/sum/full.
// Name: "rectangles+" + reduction_name.
Status make_registered_method(const std::string& reduction_name, std::unique_ptr<Method>& method);

// "fused": the heights are computed inside the reduction (grid-stride loop, no array), block partials by
// warp shuffles, a second single-block pass over the partials. Deterministic.
std::unique_ptr<Method> make_fused_method();

// "thrust.transform_reduce": thrust::transform_reduce over a counting iterator with
// thrust::cuda::par.on(stream). Synchronous: it returns the sum to the host, and it allocates its temporary
// storage inside the call, so its time includes an allocation, a free and the copy back.
std::unique_ptr<Method> make_thrust_method();

// "cub.transform_reduce": cub::DeviceReduce::TransformReduce over a counting iterator, temporary storage
// allocated in prepare().
std::unique_ptr<Method> make_cub_method();

// ---- References for splitting the error (double precision on the device, synchronous, they allocate) -----

// Midpoint rule with exact (double) heights summed in double: its distance to pi is the midpoint rule's own
// error, ~1 / (12 n^2) until double rounding (~1e-15) takes over near n = 2^22.
Status midpoint_pi_double(std::int64_t n, cudaStream_t stream, double& pi);

// The float heights every method adds, summed in double: its distance to midpoint_pi_double is what rounding
// the heights to float costs; a method's distance to it is its float summation error.
Status float_heights_pi_double(std::int64_t n, cudaStream_t stream, double& pi);

} // namespace redu::pi
