"""The GPU side of the harness: the device's provenance, one stream every peer shares, the L2 flush, the
stream blocker, the two clocks, and the float64 reference. Needs torch; the blocker and the flush are CuPy
kernels (without CuPy the GPU clock is unavailable and torch reads the flush buffer).

One stream for all: torch's current stream is set to it (Triton launches on torch's current stream),
CuPy uses it as an external stream, cuda.compute is handed it. So the flush, the blocker, the events and
the call are all on the stream the framework enqueues on, as bench/harness.cpp has them.
"""
from __future__ import annotations

import ctypes
import statistics
import time

import numpy as np
import torch

from checks import Reference

# report/stream_blocker.cu and bench/l2_flush.cu, as CuPy compiles them.
KERNELS = r"""
extern "C" __global__ void hold_stream(const volatile int* flag, volatile int* timed_out)
{
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*flag == 0)
  {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > 2000000000ull)  // 2 s: a call that waits on the host fails instead of hanging
    {
      *timed_out = 1;
      return;
    }
    __nanosleep(1000);
  }
}

// Reads the buffer with 16-byte loads; the store never happens (the buffer holds zeros), but the
// compiler cannot know that, so the loads stay.
extern "C" __global__ void read_flush(const float4* __restrict__ buffer, long long count, float* sink)
{
  float acc = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x)
  {
    const float4 v = buffer[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 1.0f)
  {
    *sink = acc;
  }
}
"""


class WaitedOnHost(RuntimeError):
    """The call waited on the host while the stream was held: it has no GPU-only time."""


class Unavailable(RuntimeError):
    """This clock cannot time this peer."""


def gpu_slug(name: str) -> str:
    """common/host/device_info.cpp's gpu_slug."""
    slug = ""
    for c in name:
        if c.isascii() and c.isalnum():
            slug += c.lower()
        elif slug and slug[-1] != "-":
            slug += "-"
    return slug.rstrip("-") or "unknown-gpu"


def device_provenance(ordinal: int) -> dict:
    """What report/provenance.cpp records about the device, read through the driver API as reduce_bench
    reads it (cudaDeviceGetAttribute): name, compute capability, SMs, L2, memory clock, bus width, peak."""
    cuda = ctypes.CDLL("libcuda.so.1")
    for fn in ("cuInit", "cuDeviceGet", "cuDeviceGetAttribute", "cuDeviceGetName", "cuDriverGetVersion"):
        getattr(cuda, fn).restype = ctypes.c_int
    if cuda.cuInit(0) != 0:
        raise RuntimeError("cuInit failed")
    device = ctypes.c_int()
    cuda.cuDeviceGet(ctypes.byref(device), ordinal)

    def attribute(code: int) -> int:
        value = ctypes.c_int()
        if cuda.cuDeviceGetAttribute(ctypes.byref(value), code, device) != 0:
            raise RuntimeError(f"cuDeviceGetAttribute({code}) failed")
        return value.value

    name = ctypes.create_string_buffer(256)
    cuda.cuDeviceGetName(name, 256, device)
    driver = ctypes.c_int()
    cuda.cuDriverGetVersion(ctypes.byref(driver))
    # CU_DEVICE_ATTRIBUTE_*: MULTIPROCESSOR_COUNT 16, MEMORY_CLOCK_RATE 36 (kHz), GLOBAL_MEMORY_BUS_WIDTH 37,
    # L2_CACHE_SIZE 38, COMPUTE_CAPABILITY_MAJOR 75, _MINOR 76.
    clock_khz, bus_bits = attribute(36), attribute(37)
    gpu_name = name.value.decode()
    return {
        "gpu_name": gpu_name,
        "gpu_slug": gpu_slug(gpu_name),
        "compute_capability": f"{attribute(75)}.{attribute(76)}",
        "sm_count": str(attribute(16)),
        "l2_bytes": str(attribute(38)),
        "memory_clock_khz": str(clock_khz),
        "bus_width_bits": str(bus_bits),
        # 2 x memory clock x bus width / 8 (DeviceInfo::peak_gbps), written as std::to_string writes it.
        "peak_gbps": f"{2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9:.6f}",
        "driver_version": f"{driver.value // 1000}.{driver.value % 1000 // 10}",
    }


class Harness:
    """The shared stream, the flush, the blocker and the clocks."""

    def __init__(self, l2_bytes: int):
        self.stream = torch.cuda.Stream()
        torch.cuda.set_stream(self.stream)
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)
        self.gpu_clock_reason = ""
        self.cupy = None
        try:
            import cupy
            self.cupy = cupy
            self.cupy_stream = cupy.cuda.ExternalStream(self.stream.cuda_stream)
            self.cupy_stream.use()
            module = cupy.RawModule(code=KERNELS)
            self._hold = module.get_function("hold_stream")
            self._read_flush = module.get_function("read_flush")
            # Pinned, mapped host memory: the flag the host writes and the kernel reads, and the word the
            # kernel sets when it gave up (cudaHostAllocPortable | cudaHostAllocMapped).
            self._words = cupy.cuda.runtime.hostAlloc(8, 1 | 2)
            self._device_words = cupy.cuda.runtime.hostGetDevicePointer(self._words, 0)
            self._flag = ctypes.c_int.from_address(self._words)
            self._timed_out = ctypes.c_int.from_address(self._words + 4)
            self._flush_buffer = cupy.zeros(2 * l2_bytes // 4 + 4, dtype=cupy.float32)  # 2x L2, and a sink
        except Exception as e:  # noqa: BLE001 - any failure here only costs the GPU clock
            self.cupy = None
            self.gpu_clock_reason = f"no stream blocker: CuPy unavailable or failed ({type(e).__name__}: {e})"
            self._torch_flush = torch.zeros(2 * l2_bytes // 4, dtype=torch.float32, device="cuda")
            self._torch_sink = torch.empty((), dtype=torch.float32, device="cuda")
        # One flush now, on an idle GPU: the kernel's first launch loads its module, which would wait behind
        # a held stream (bench/l2_flush.cu says so).
        self.flush()
        torch.cuda.synchronize()

    def flush(self) -> None:
        """Reads 2x the L2 size on the stream (the timed call's input leaves L2)."""
        if self.cupy is None:
            torch.sum(self._torch_flush, out=self._torch_sink)
            return
        count = (self._flush_buffer.size - 4) // 4
        sink = self._flush_buffer[-1:]
        self._read_flush((1024,), (256,), (self._flush_buffer, np.int64(count), sink), stream=self.cupy_stream)

    def copy_gbps(self) -> float:
        """A 1 GiB device-to-device copy, read + write bytes over the median time (report/measured_gpu.cpp)."""
        size = 1 << 30
        source = torch.ones(size, dtype=torch.uint8, device="cuda")
        destination = torch.empty_like(source)
        times = self.time_events(lambda: destination.copy_(source), "host", "hot", warmups=2, samples=10)
        return 2.0 * size / (statistics.median(times) * 1e-3) / 1e9

    def time_events(self, call, clock: str, l2: str, warmups: int, samples: int) -> list[float]:
        """Milliseconds per call on the host or GPU clock (report/event_timer.cpp): `warmups` untimed calls,
        then per sample the flush (cold), the start event, the call, the stop event."""
        if clock == "gpu" and self.cupy is None:
            raise Unavailable(self.gpu_clock_reason)
        for _ in range(warmups):
            call()
        self.stream.synchronize()
        times = []
        for _ in range(samples):
            if clock == "gpu":
                self._flag.value = 0
                self._timed_out.value = 0
                self._hold((1,), (1,), (np.uint64(self._device_words), np.uint64(self._device_words + 4)),
                           stream=self.cupy_stream)
                try:
                    if l2 == "cold":
                        self.flush()
                    self.start.record(self.stream)
                    call()
                    self.stop.record(self.stream)
                finally:
                    self._flag.value = 1  # also after a failed enqueue: held work must never be left waiting
                self.stop.synchronize()
                if self._timed_out.value:
                    raise WaitedOnHost("the call waited on the host while the stream was held (it synchronises), "
                                       "so it has no GPU-only time")
            else:
                if l2 == "cold":
                    self.flush()
                    self.stream.synchronize()
                self.start.record(self.stream)
                call()
                self.stop.record(self.stream)
                self.stop.synchronize()
            times.append(self.start.elapsed_time(self.stop))
        return times

    def time_wall(self, call_and_wait, l2: str, warmups: int, samples: int) -> list[float]:
        """Milliseconds per call on a wall clock around the call and its wait (a peer on its own stream)."""
        for _ in range(warmups):
            call_and_wait()
        times = []
        for _ in range(samples):
            if l2 == "cold":
                self.flush()
            self.stream.synchronize()
            begin = time.perf_counter()
            call_and_wait()
            times.append((time.perf_counter() - begin) * 1e3)
        return times


def reference_torch(x2d: torch.Tensor, op: str) -> Reference:
    """checks.reference_numpy on the GPU, in float64, for inputs too large to copy to the host per case.
    A float64 sum's own error (about 2^-53 x depth x sum|x|) is far inside any f32 bound."""
    cols = x2d.shape[1]
    if op == "sum":
        value = torch.sum(x2d, dim=1, dtype=torch.float64)
        sum_abs = torch.sum(x2d.abs(), dim=1, dtype=torch.float64)
        return Reference(value.cpu().numpy(), sum_abs.cpu().numpy(), None, cols)
    if op in ("max", "min"):
        value = torch.amax(x2d, dim=1) if op == "max" else torch.amin(x2d, dim=1)
        return Reference(value.double().cpu().numpy(), None, None, cols)
    if op == "argmax":
        # The first occurrence of the row's largest value, found without argmax: the smallest column at
        # which the row equals its max. Rows go in chunks of at most 2^28 elements.
        best = torch.amax(x2d, dim=1)
        columns = torch.arange(cols, device=x2d.device, dtype=torch.int32)
        first = torch.empty(x2d.shape[0], dtype=torch.int64, device=x2d.device)
        step = max(1, (1 << 28) // cols)
        for r in range(0, x2d.shape[0], step):
            block = x2d[r:r + step]
            hit = block == best[r:r + step, None]
            first[r:r + step] = torch.where(hit, columns, cols).amin(dim=1).long()
        return Reference(best.double().cpu().numpy(), None, first.cpu().numpy(), cols)
    raise ValueError(f"unknown op {op}")
