"""Every peer's result is checked against a float64 reference on the same input before it is timed.

The bound is the project's (common/contract/reduction.hpp, sum_error_factor; tests/support/reference.hpp):
  sum:          |result - exact| <= c * u * sum|x|, per row, with
                  u = 2^-24, the unit roundoff of the accumulating type (f32; bf16 is summed in f32),
                  c = 2 * (ceil(log2 count) + 1) + partials: a balanced tree with short per-thread chains
                      at its leaves, plus one rounding per partial added in arrival order;
                plus u_out * |exact| when the result is rounded to a narrower type (a bf16 output).
  min, max:     exact.
  argmax:       the index of the first occurrence of the largest element, exactly.
A library's internal order is not known here: its partials are LIBRARY_PARTIALS, as many as an atomic
finish over a large grid adds. The Triton kernels written here state their own.
Only numpy is needed: the GPU run builds the same Reference from torch (gpu.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# The check as peers.json's context states it.
SUMMARY = ("sums: |result - exact| <= c * u * sum|x| per row, u = 2^-24 (f32 accumulation, bf16 included), "
           "c = 2 * (ceil(log2 count) + 1) + partials (partials: 4096 for a library, whose order is not known here; "
           "the Triton atomic kernel's grid; 0 for two passes), plus 2^-8 * |exact| for a bf16 result; min and max "
           "exact; argmax the first occurrence of the largest element, exactly; against a float64 reference of "
           "the same input, for the first call and a second one")
U_ACCUMULATE = 2.0 ** -24  # f32, the accumulator of f32 and bf16 sums
U_OUTPUT = {"f32": 0.0, "bf16": 2.0 ** -8}  # the extra rounding of a result returned in that type
LIBRARY_PARTIALS = 4096


@dataclass
class Reference:
    """Per row: the exact value (float64), sum|x| (sums), the first index of the extreme (argmax)."""
    value: np.ndarray
    sum_abs: np.ndarray | None
    index: np.ndarray | None
    count: int  # elements per row


@dataclass
class Verdict:
    ok: bool
    detail: str  # the first wrong row, or the worst error against its bound
    error: float | None = None  # largest |result - exact| (sums)
    bound: float | None = None  # its bound


def sum_factor(count: int, partials: int) -> float:
    if count < 2:
        return 0.0
    return 2.0 * (math.ceil(math.log2(count)) + 1) + partials


def reference_numpy(x: np.ndarray, op: str) -> Reference:
    """The reference of a (rows, cols) array on the CPU, in float64; the self-test's and a CPU check's."""
    x = np.atleast_2d(x)
    wide = x.astype(np.float64)
    if op == "sum":
        return Reference(wide.sum(axis=1), np.abs(wide).sum(axis=1), None, x.shape[1])
    if op in ("max", "min"):
        return Reference(wide.max(axis=1) if op == "max" else wide.min(axis=1), None, None, x.shape[1])
    if op == "argmax":
        best = wide.max(axis=1)
        first = np.argmax(wide == best[:, None], axis=1)  # first True: the first occurrence
        return Reference(best, None, first.astype(np.int64), x.shape[1])
    raise ValueError(f"unknown op {op}")


def check(op: str, ref: Reference, values: np.ndarray | None = None, indices: np.ndarray | None = None,
          partials: int = LIBRARY_PARTIALS, output_dtype: str = "f32") -> Verdict:
    """values (sums, min, max) or indices (argmax): one per row, as float64 / int64."""
    rows = len(ref.value)
    if op == "argmax":
        got = np.asarray(indices, dtype=np.int64).reshape(-1)
        if got.shape[0] != rows:
            return Verdict(False, f"{got.shape[0]} indices for {rows} rows")
        wrong = np.flatnonzero(got != ref.index)
        if wrong.size:
            r = wrong[0]
            return Verdict(False, f"{wrong.size} of {rows} rows wrong; row {r}: index {got[r]}, first largest at "
                                  f"{ref.index[r]}")
        return Verdict(True, "indices exact")
    got = np.asarray(values, dtype=np.float64).reshape(-1)
    if got.shape[0] != rows:
        return Verdict(False, f"{got.shape[0]} values for {rows} rows")
    if op in ("max", "min"):
        wrong = np.flatnonzero(got != ref.value)
        if wrong.size:
            r = wrong[0]
            return Verdict(False, f"{wrong.size} of {rows} rows wrong; row {r}: {got[r]!r}, exact {ref.value[r]!r}")
        return Verdict(True, "values exact")
    if op != "sum":
        raise ValueError(f"unknown op {op}")
    bound = sum_factor(ref.count, partials) * U_ACCUMULATE * ref.sum_abs + U_OUTPUT[output_dtype] * np.abs(ref.value)
    error = np.abs(got - ref.value)
    wrong = np.flatnonzero(~(error <= bound))  # a NaN is wrong too
    worst = int(np.argmax(np.where(bound > 0, error / np.where(bound > 0, bound, 1), np.where(error > 0, np.inf, 0))))
    if wrong.size:
        r = wrong[0]
        return Verdict(False, f"{wrong.size} of {rows} rows outside the bound; row {r}: {got[r]!r}, exact "
                              f"{ref.value[r]!r}, error {error[r]:.3g} > bound {bound[r]:.3g}",
                       float(np.nanmax(error)), float(bound[r]))
    return Verdict(True, f"largest error {error[worst]:.3g}, {error[worst] / bound[worst] if bound[worst] else 0:.2g} "
                         f"of its bound", float(error.max()), float(bound[worst]))


def to_bf16_values(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16 (ties to even), kept as float32: the bf16 data of the
    self-test, without a bfloat16 type in numpy."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)
