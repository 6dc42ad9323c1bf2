// The arithmetic of all-reduce speeds, kept in one place so the benchmark, the README and the tests use
// the same formulas (those of nccl-tests, doc/PERFORMANCE.md there).
//
// algbw = m / t: the message (m bytes per GPU) over the time.
// busbw = algbw * 2(G-1)/G: an all-reduce of m bytes over G GPUs must move at least 2(G-1)/G * m bytes
//   in and out of each GPU (reduce-scatter (G-1)/G * m, all-gather the same), so busbw is what each
//   GPU's links carried; it is comparable across G and with a point-to-point copy's bandwidth.
//
// Bytes each GPU pulls over its links, per algorithm (m = message bytes, G = GPUs):
//   one-shot   (G-1) * m        every GPU reads every peer's whole buffer
//   two-shot   2(G-1)/G * m     reads (G-1) chunks of m/G to reduce its own, then (G-1) reduced chunks
//   ring       2(G-1)/G * m     the same bytes as two-shot, in 2(G-1) steps of m/G around the ring
// On 2 GPUs all three move m per GPU: they differ in latency (steps, barriers), not in bytes. On 8 GPUs
// one-shot moves 7m against two-shot's 1.75m: one-shot is for small messages only.
// Napkin: H200 NVLink 4, 18 links x 25 GB/s = 450 GB/s per direction. 256 MB at 450 GB/s: 0.6 ms. At
// 8 B the bytes are nothing: a kernel launch (~3 us from the host), one flag round trip over NVLink
// (~1-2 us) and two barriers set the time.
#pragma once

#include <cstdint>

namespace redu::multigpu
{

inline double algbw_gbps(double message_bytes, double seconds)
{
  return seconds > 0 ? message_bytes / seconds / 1e9 : 0.0;
}

inline double all_reduce_bus_factor(int gpus)
{
  return gpus > 0 ? 2.0 * (gpus - 1) / gpus : 0.0;
}

inline double busbw_gbps(double message_bytes, double seconds, int gpus)
{
  return algbw_gbps(message_bytes, seconds) * all_reduce_bus_factor(gpus);
}

enum class Algorithm
{
  one_shot,
  two_shot,
  ring
};

// Bytes each GPU receives over its links for one all-reduce of m bytes (table above).
inline double bytes_in_per_gpu(Algorithm algorithm, double m, int gpus)
{
  return algorithm == Algorithm::one_shot ? (gpus - 1) * m : all_reduce_bus_factor(gpus) * m;
}

// Lower bound on the time: the bytes at the link bandwidth, plus a fixed latency.
inline double predicted_seconds(Algorithm algorithm, double m, int gpus, double link_gbps, double latency_s)
{
  return latency_s + bytes_in_per_gpu(algorithm, m, gpus) / (link_gbps * 1e9);
}

} // namespace redu::multigpu
