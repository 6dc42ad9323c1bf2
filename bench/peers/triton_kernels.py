"""Full-array reductions written in Triton, as a Triton user would write them first: a grid-stride loop
that keeps one partial per lane in f32, a block reduction (tl.sum / tl.max / tl.min), then either

  one launch:  each program adds its partial into the output with an atomic (the output is reset by a
               launch of its own before, which the timed call includes), or
  two passes:  each program stores its partial; a second launch of one program reduces the partials.

Argmax has two passes only: a lane keeps the first index of its largest value (strict >, indices
increase along a lane), a block keeps the smallest index among its lanes' equal largest values, and
the finish does the same over the blocks: the first occurrence overall.

Launch shape (the napkin math): BLOCK elements per program and iteration, 16 KiB of input (4096 f32,
8192 bf16), 8 warps, so 16-byte loads with four in flight per thread; PROGRAMS_PER_SM programs per SM,
64 KiB in flight per SM, above the ~36 KiB that 4.8 TB/s x ~1 us of latency needs over 132 SMs.
Offsets are int32: n up to 2^31 - 1.
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl

SUM, MAX, MIN = 0, 1, 2
OP_CODES = {"sum": SUM, "max": MAX, "min": MIN}
PROGRAMS_PER_SM = 4
NUM_WARPS = 8
BLOCK_BYTES = 16384
INT_MAX = tl.constexpr(2147483647)  # a kernel reads only constexpr globals


@triton.jit
def _partial(x_ptr, n, BLOCK: tl.constexpr, OP: tl.constexpr):
    """This program's grid-stride partial, reduced over its lanes to one f32."""
    pid = tl.program_id(0)
    step = tl.num_programs(0) * BLOCK
    lanes = tl.arange(0, BLOCK)
    if OP == 0:
        acc = tl.zeros([BLOCK], dtype=tl.float32)
    elif OP == 1:
        acc = tl.full([BLOCK], float("-inf"), tl.float32)
    else:
        acc = tl.full([BLOCK], float("inf"), tl.float32)
    for start in range(pid * BLOCK, n, step):
        offsets = start + lanes
        if OP == 0:
            acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0).to(tl.float32)
        elif OP == 1:
            acc = tl.maximum(acc, tl.load(x_ptr + offsets, mask=offsets < n, other=float("-inf")).to(tl.float32))
        else:
            acc = tl.minimum(acc, tl.load(x_ptr + offsets, mask=offsets < n, other=float("inf")).to(tl.float32))
    if OP == 0:
        result = tl.sum(acc, axis=0)
    elif OP == 1:
        result = tl.max(acc, axis=0)
    else:
        result = tl.min(acc, axis=0)
    return result


@triton.jit
def reduce_atomic_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, OP: tl.constexpr):
    value = _partial(x_ptr, n, BLOCK, OP)
    if OP == 0:
        tl.atomic_add(out_ptr, value)
    elif OP == 1:
        tl.atomic_max(out_ptr, value)
    else:
        tl.atomic_min(out_ptr, value)


@triton.jit
def reduce_partials_kernel(x_ptr, partials_ptr, n, BLOCK: tl.constexpr, OP: tl.constexpr):
    tl.store(partials_ptr + tl.program_id(0), _partial(x_ptr, n, BLOCK, OP))


@triton.jit
def reduce_finish_kernel(partials_ptr, out_ptr, count, BLOCK: tl.constexpr, OP: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    if OP == 0:
        tl.store(out_ptr, tl.sum(tl.load(partials_ptr + lanes, mask=lanes < count, other=0.0), axis=0))
    elif OP == 1:
        tl.store(out_ptr, tl.max(tl.load(partials_ptr + lanes, mask=lanes < count, other=float("-inf")), axis=0))
    else:
        tl.store(out_ptr, tl.min(tl.load(partials_ptr + lanes, mask=lanes < count, other=float("inf")), axis=0))


@triton.jit
def argmax_partials_kernel(x_ptr, values_ptr, indices_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0) * BLOCK
    lanes = tl.arange(0, BLOCK)
    best = tl.full([BLOCK], float("-inf"), tl.float32)
    first = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(pid * BLOCK, n, step):
        offsets = start + lanes
        x = tl.load(x_ptr + offsets, mask=offsets < n, other=float("-inf")).to(tl.float32)
        take = x > best  # strict: a lane keeps its first occurrence
        best = tl.where(take, x, best)
        first = tl.where(take, offsets, first)
    top = tl.max(best, axis=0)
    tl.store(values_ptr + pid, top)
    tl.store(indices_ptr + pid, tl.min(tl.where(best == top, first, INT_MAX), axis=0))


@triton.jit
def argmax_finish_kernel(values_ptr, indices_ptr, out_ptr, count, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    v = tl.load(values_ptr + lanes, mask=lanes < count, other=float("-inf"))
    i = tl.load(indices_ptr + lanes, mask=lanes < count, other=INT_MAX)
    top = tl.max(v, axis=0)
    tl.store(out_ptr, tl.min(tl.where(v == top, i, INT_MAX), axis=0))


def launch_shape(n: int, itemsize: int, sm_count: int) -> tuple[int, int]:
    """(BLOCK, grid): no more programs than blocks of input."""
    block = BLOCK_BYTES // itemsize
    return block, max(1, min(triton.cdiv(n, block), PROGRAMS_PER_SM * sm_count))


class TritonReduction:
    """One problem (x, op, one_launch or two passes), with its output and partials allocated once."""

    def __init__(self, x: torch.Tensor, op: str, one_launch: bool, sm_count: int):
        self.x, self.op, self.one_launch = x, op, one_launch
        self.n = x.numel()
        self.block, self.grid = launch_shape(self.n, x.element_size(), sm_count)
        self.finish_block = max(32, triton.next_power_of_2(self.grid))  # one warp at least
        device = x.device
        if op == "argmax":
            if one_launch:
                raise ValueError("argmax is written with two passes only")
            self.values = torch.empty(self.grid, dtype=torch.float32, device=device)
            self.indices = torch.empty(self.grid, dtype=torch.int32, device=device)
            self.out = torch.empty(1, dtype=torch.int32, device=device)
        else:
            self.code = OP_CODES[op]
            self.identity = {SUM: 0.0, MAX: float("-inf"), MIN: float("inf")}[self.code]
            self.partials = torch.empty(self.grid, dtype=torch.float32, device=device)
            self.out = torch.empty(1, dtype=torch.float32, device=device)

    @property
    def partials_added_in_arrival_order(self) -> int:
        """For the error bound (checks.py): the atomic finish adds one partial per program."""
        return self.grid if (self.one_launch and self.op == "sum") else 0

    def __call__(self) -> torch.Tensor:
        if self.op == "argmax":
            argmax_partials_kernel[(self.grid,)](self.x, self.values, self.indices, self.n, BLOCK=self.block,
                                                 num_warps=NUM_WARPS)
            argmax_finish_kernel[(1,)](self.values, self.indices, self.out, self.grid, BLOCK=self.finish_block,
                                       num_warps=4)
        elif self.one_launch:
            self.out.fill_(self.identity)
            reduce_atomic_kernel[(self.grid,)](self.x, self.out, self.n, BLOCK=self.block, OP=self.code,
                                               num_warps=NUM_WARPS)
        else:
            reduce_partials_kernel[(self.grid,)](self.x, self.partials, self.n, BLOCK=self.block, OP=self.code,
                                                 num_warps=NUM_WARPS)
            reduce_finish_kernel[(1,)](self.partials, self.out, self.grid, BLOCK=self.finish_block, OP=self.code,
                                       num_warps=4)
        return self.out
