"""The peers: each turns a case and its input (a torch tensor on the GPU) into a call that enqueues the
reduction on the shared stream, and reads its result back for the check.

A peer imports its package only when asked whether it is available, so a missing package costs a
skipped peer, recorded with the import error, and nothing else. What each one is called with is what a
user would write, told in `call`:
  torch                 torch.sum(x, dtype=torch.float32) (f32 accumulation and output, as bf16 sums here
                        return), torch.amax / amin, torch.argmax; dim=1 for rows
  cupy                  the same names in CuPy, on the same memory (__cuda_array_interface__ or DLPack)
  cuda.compute.<level>  CCCL's Python reduce_into at each determinism level, through the reusable object
                        (make_reduce_into) with its temporary storage allocated once, outside the timing,
                        as the project times CUB; f32 accumulator and output
  cuda.compute.segmented  segmented_reduce over row offsets, max_segment_size = the row length
  triton.atomic, triton.two_pass  triton_kernels.py
  jax                   jax.jit(jnp.sum(x, dtype=float32)) and jax.jit(jnp.argmax), on the same memory (DLPack)
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

import checks


class NotOffered(Exception):
    """The peer has no call for this input (found only when trying, e.g. a dtype its interop refuses)."""


@dataclass
class Prepared:
    """One peer on one case: run() enqueues the work and returns its output; fetch(output) returns the
    result as float64 values or int64 indices, one per row, for checks.check."""
    run: Callable[[], object]
    fetch: Callable[[object], np.ndarray]
    wait: Callable[[object], None] | None = None  # a peer on its own stream: blocks until run()'s output is ready
    partials: int = checks.LIBRARY_PARTIALS
    output_dtype: str = "f32"


def _rows(x: torch.Tensor, case) -> torch.Tensor:
    return x.view(case.rows, case.cols) if case.kind == "batched" else x


def _fetch_torch(out) -> np.ndarray:
    return out.reshape(-1).double().cpu().numpy() if out.dtype.is_floating_point else out.reshape(-1).long().cpu().numpy()


class Peer:
    name = ""
    package = ""
    gpu_clock = True
    FIRST_CALL = ""

    def __init__(self):
        self.version = ""
        self.reason = ""
        self.module = None

    def load(self) -> bool:
        """Imports the package; False (with self.reason) when it cannot be used."""
        raise NotImplementedError

    def not_offered(self, op: str, dtype: str, kind: str) -> str:
        """Why this peer has no call for (op, dtype, kind); empty when it has one."""
        raise NotImplementedError

    def call_text(self, op: str, dtype: str, kind: str) -> str:
        raise NotImplementedError

    def prepare(self, case, x: torch.Tensor) -> Prepared:
        raise NotImplementedError


class TorchPeer(Peer):
    name, package = "torch", "torch"
    FIRST_CALL = "loading its kernels' module (CUDA lazy loading) and the first launch"
    CALLS = {"sum": "torch.sum(x{dim}, dtype=torch.float32)", "max": "torch.amax(x{dim})",
             "min": "torch.amin(x{dim})", "argmax": "torch.argmax(x{dim})"}

    def load(self):
        self.module, self.version = torch, torch.__version__
        return True

    def not_offered(self, op, dtype, kind):
        return ""

    def call_text(self, op, dtype, kind):
        return self.CALLS[op].format(dim=", dim=1" if kind == "batched" else "")

    def prepare(self, case, x):
        x = _rows(x, case)
        dim = {"dim": 1} if case.kind == "batched" else {}
        fn = {"sum": lambda: torch.sum(x, dtype=torch.float32, **dim), "max": lambda: torch.amax(x, **dim),
              "min": lambda: torch.amin(x, **dim), "argmax": lambda: torch.argmax(x, **dim)}[case.op]
        return Prepared(fn, _fetch_torch, output_dtype="bf16" if case.dtype == "bf16" and case.op != "sum" else "f32")


class CupyPeer(Peer):
    name, package = "cupy", "cupy"
    FIRST_CALL = "compiling the reduction kernel (NVRTC; CuPy caches it on disk) and the first launch"
    CALLS = {"sum": "cupy.sum(x{axis}, dtype=cupy.float32)", "max": "cupy.max(x{axis})", "min": "cupy.min(x{axis})",
             "argmax": "cupy.argmax(x{axis})"}

    def load(self):
        try:
            import cupy
        except Exception as e:  # noqa: BLE001
            self.reason = f"import cupy failed: {type(e).__name__}: {e}"
            return False
        self.module, self.version = cupy, cupy.__version__
        return True

    def not_offered(self, op, dtype, kind):
        return ""

    def call_text(self, op, dtype, kind):
        return self.CALLS[op].format(axis=", axis=1" if kind == "batched" else "")

    def prepare(self, case, x):
        cp = self.module
        x = _rows(x, case)
        # The same memory: __cuda_array_interface__ for f32; bf16 has no typestr there, DLPack carries it.
        try:
            xc = cp.asarray(x) if case.dtype == "f32" else cp.from_dlpack(x)
        except Exception as e:  # noqa: BLE001
            raise NotOffered(f"CuPy {self.version} takes no {case.dtype} array from torch: {type(e).__name__}: {e}") from e
        axis = {"axis": 1} if case.kind == "batched" else {}
        fn = {"sum": lambda: cp.sum(xc, dtype=cp.float32, **axis), "max": lambda: cp.max(xc, **axis),
              "min": lambda: cp.min(xc, **axis), "argmax": lambda: cp.argmax(xc, **axis)}[case.op]

        def fetch(out):
            host = cp.asnumpy(out).reshape(-1)
            return host.astype(np.int64) if case.op == "argmax" else host.astype(np.float64)
        return Prepared(fn, fetch, output_dtype="bf16" if case.dtype == "bf16" and case.op != "sum" else "f32")


class DeviceView:
    """A torch buffer as cuda.compute reads it: data_ptr(), dtype as numpy knows it (ml_dtypes' bfloat16 for
    bf16, which torch's __cuda_array_interface__ does not name), shape, size, nbytes, and the interface."""

    def __init__(self, tensor: torch.Tensor, np_dtype):
        self._tensor = tensor
        self.dtype = np.dtype(np_dtype)
        self.shape = (tensor.numel(),)
        self.size = tensor.numel()
        self.nbytes = tensor.numel() * tensor.element_size()
        self.__cuda_array_interface__ = {"shape": self.shape, "typestr": self.dtype.str, "strides": None,
                                         "data": (tensor.data_ptr(), False), "version": 3}

    def data_ptr(self) -> int:
        return self._tensor.data_ptr()


class StreamHandle:
    """The shared stream, as cuda.compute takes one (the __cuda_stream__ protocol)."""

    def __init__(self, handle: int):
        self.handle = handle

    def __cuda_stream__(self):
        return (0, self.handle)


class CcclPeer(Peer):
    """cuda.compute.reduce_into at one determinism level; `segmented` = segmented_reduce over rows."""
    package = "cuda-cccl"
    FIRST_CALL = ("make_reduce_into / make_segmented_reduce (CUB's kernels built with NVRTC), the temporary-storage "
                  "query and allocation, and the first call")
    LEVELS = ("not_guaranteed", "run_to_run", "gpu_to_gpu")
    OPS = {"sum": "PLUS", "max": "MAXIMUM", "min": "MINIMUM"}
    INIT = {"sum": 0.0, "max": float("-inf"), "min": float("inf")}

    def __init__(self, level: str):
        super().__init__()
        self.level = level
        self.name = f"cuda.compute.{level}"

    def load(self):
        try:
            import importlib.metadata

            import cuda.compute as cc
            cc.make_reduce_into  # noqa: B018 - raises where the bindings could not load
        except Exception as e:  # noqa: BLE001
            self.reason = (f"import cuda.compute failed: {type(e).__name__}: {e} (the cuda-cccl wheel: "
                           "bench/peers/requirements-optional.txt)")
            return False
        try:
            import ml_dtypes
            self.bf16 = ml_dtypes.bfloat16
        except Exception:  # noqa: BLE001
            self.bf16 = None
        self.module, self.version = cc, importlib.metadata.version("cuda-cccl")
        return True

    def not_offered(self, op, dtype, kind):
        if op == "argmax":
            return "no argmax without a user-defined operator over (value, index) pairs, which numba-cuda-mlir compiles"
        if self.level == "segmented":
            return "" if kind == "batched" else "segmented_reduce is the rows call; reduce_into is timed for full arrays"
        if kind == "batched":
            return "reduce_into reduces one array; rows go through segmented_reduce"
        if op != "sum" and self.level != "run_to_run":
            return "min and max give the same result at every determinism level: timed at the default (run_to_run)"
        if dtype == "bf16" and self.bf16 is None:
            return "bf16 needs the ml_dtypes package"
        return ""

    def call_text(self, op, dtype, kind):
        if self.level == "segmented":
            return (f"make_segmented_reduce(..., op=OpKind.{self.OPS[op]}, h_init=float32) "
                    "(start/end offsets arrays, max_segment_size=row length)")
        return f"make_reduce_into(..., op=OpKind.{self.OPS[op]}, h_init=float32, determinism=Determinism.{self.level.upper()})"

    def prepare(self, case, x):
        cc = self.module
        op_kind = getattr(cc.OpKind, self.OPS[case.op])
        h_init = np.array([self.INIT[case.op]], dtype=np.float32)
        d_in = DeviceView(x[:case.n], np.float32 if case.dtype == "f32" else self.bf16)
        out_tensor = torch.full((case.rows,), float("nan"), dtype=torch.float32, device=x.device)
        d_out = DeviceView(out_tensor, np.float32)
        stream = StreamHandle(torch.cuda.current_stream().cuda_stream)
        if self.level == "segmented":
            offsets = torch.arange(case.rows + 1, dtype=torch.int64, device=x.device) * case.cols
            starts, ends = DeviceView(offsets[:-1], np.int64), DeviceView(offsets[1:], np.int64)
            reducer = cc.make_segmented_reduce(d_in=d_in, d_out=d_out, start_offsets_in=starts, end_offsets_in=ends,
                                               op=op_kind, h_init=h_init)
            args = dict(d_in=d_in, d_out=d_out, num_segments=case.rows, start_offsets_in=starts, end_offsets_in=ends,
                        op=op_kind, h_init=h_init, max_segment_size=case.cols, stream=stream)
        else:
            reducer = cc.make_reduce_into(d_in=d_in, d_out=d_out, op=op_kind, h_init=h_init,
                                          determinism=getattr(cc.Determinism, self.level.upper()))
            args = dict(d_in=d_in, d_out=d_out, num_items=case.n, op=op_kind, h_init=h_init, stream=stream)
        temp_bytes = reducer(temp_storage=None, **args)
        temp = DeviceView(torch.empty(max(1, temp_bytes), dtype=torch.uint8, device=x.device), np.uint8)

        def run():
            reducer(temp_storage=temp, **args)
            return out_tensor
        return Prepared(run, _fetch_torch)


class TritonPeer(Peer):
    package = "triton"
    FIRST_CALL = "compiling the kernels (Triton caches them on disk) and the first launch"

    def __init__(self, one_launch: bool, sm_count: int):
        super().__init__()
        self.one_launch = one_launch
        self.sm_count = sm_count
        self.name = "triton.atomic" if one_launch else "triton.two_pass"

    def load(self):
        try:
            import triton

            import triton_kernels
        except Exception as e:  # noqa: BLE001
            self.reason = f"import triton failed: {type(e).__name__}: {e}"
            return False
        self.module, self.version = triton_kernels, triton.__version__
        return True

    def not_offered(self, op, dtype, kind):
        if kind == "batched":
            return "written for full arrays only"
        if op == "argmax" and self.one_launch:
            return "argmax is written with two passes only (an atomic finish would need a 64-bit value-index key)"
        return ""

    def call_text(self, op, dtype, kind):
        if op == "argmax":
            return "argmax_partials_kernel[grid](...); argmax_finish_kernel[(1,)](...)"
        if self.one_launch:
            return "out.fill_(identity); reduce_atomic_kernel[grid](...)"
        return "reduce_partials_kernel[grid](...); reduce_finish_kernel[(1,)](...)"

    def prepare(self, case, x):
        reduction = self.module.TritonReduction(x[:case.n], case.op, self.one_launch, self.sm_count)
        return Prepared(reduction, _fetch_torch, partials=reduction.partials_added_in_arrival_order)


class JaxPeer(Peer):
    name, package = "jax", "jax"
    gpu_clock = False
    FIRST_CALL = "the DLPack import of the input, tracing and compiling for this shape (XLA), and the first call"
    GPU_CLOCK_REASON = ("JAX (XLA) launches on streams it creates and exposes none of them, so neither CUDA events "
                        "nor the stream blocker can bracket its work; its host time is a wall clock around the call "
                        "and block_until_ready()")

    def load(self):
        # Without this JAX takes 75% of the GPU's memory at import, which the inputs need.
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        # JAX loads its own CUDA libraries beside torch's: tried first in a process of its own, so that a
        # crash there costs this peer only, not the run.
        import subprocess
        import sys
        try:
            probe = subprocess.run([sys.executable, "-c", "import jax; print(jax.devices())"], capture_output=True,
                                   text=True, timeout=120)
        except subprocess.TimeoutExpired:
            self.reason = "import jax did not finish within 120 s"
            return False
        if probe.returncode != 0:
            self.reason = f"import jax failed in a probe process (exit {probe.returncode}): {probe.stderr.strip()[-300:]}"
            return False
        try:
            import jax
            import jax.numpy as jnp
            if not any(d.platform == "gpu" for d in jax.devices()):
                self.reason = f"JAX sees no GPU (devices: {jax.devices()})"
                return False
        except Exception as e:  # noqa: BLE001
            self.reason = f"import jax failed: {type(e).__name__}: {e}"
            return False
        self.module, self.version = (jax, jnp), jax.__version__
        self._jitted = {}
        return True

    def not_offered(self, op, dtype, kind):
        return "" if op in ("sum", "argmax") else "timed for jnp.sum and jnp.argmax"

    def call_text(self, op, dtype, kind):
        axis = ", axis=1" if kind == "batched" else ""
        return f"jax.jit(jnp.sum(x{axis}, dtype=jnp.float32))" if op == "sum" else f"jax.jit(jnp.argmax(x{axis}))"

    def prepare(self, case, x):
        jax, jnp = self.module
        xj = jax.dlpack.from_dlpack(_rows(x[:case.n], case))
        key = (case.op, case.kind)
        if key not in self._jitted:
            axis = 1 if case.kind == "batched" else None
            self._jitted[key] = (jax.jit(lambda v: jnp.sum(v, axis=axis, dtype=jnp.float32)) if case.op == "sum"
                                 else jax.jit(lambda v: jnp.argmax(v, axis=axis)))
        fn = self._jitted[key]

        def fetch(out):
            host = np.asarray(out).reshape(-1)
            return host.astype(np.int64) if case.op == "argmax" else host.astype(np.float64)
        return Prepared(lambda: fn(xj), fetch, wait=lambda out: out.block_until_ready())


def all_peers(sm_count: int) -> list[Peer]:
    return ([TorchPeer(), CupyPeer()] + [CcclPeer(level) for level in CcclPeer.LEVELS + ("segmented",)]
            + [TritonPeer(True, sm_count), TritonPeer(False, sm_count), JaxPeer()])

