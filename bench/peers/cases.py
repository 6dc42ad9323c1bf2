"""What the peers benchmark times, and its command line.

The problems are the sweep's (bench/sweep.cpp), so every peer row has a hand-written and a CUB row
beside it in results/<gpu-slug>/bench.json, under the same kind, dtype, op and shape strings:
  full     one array of n = 2^10 ... 2^30 elements: sum, max, min, argmax, f32 and bf16;
  batched  equal rows: the sweep's row-sum shapes (2^28 elements split eight ways, and 2048 x 262144),
           f32 and bf16; and the sampling shapes (1 to 4096 rows of logits as wide as three
           vocabularies), argmax of each row, f32.
Nothing here imports a GPU package: the self-test runs it on any machine.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

OPS = ("sum", "max", "min", "argmax")
PEER_NAMES = ("torch", "cupy", "cuda.compute.not_guaranteed", "cuda.compute.run_to_run", "cuda.compute.gpu_to_gpu",
              "cuda.compute.segmented", "triton.atomic", "triton.two_pass", "jax")
DTYPES = ("f32", "bf16")
KINDS = ("full", "batched")
MIN_LOG2, MAX_LOG2 = 10, 30
# The sweep's batched shapes hold 2^28 elements (equal_row_shapes in bench/sweep.cpp).
ROWS_TOTAL = 1 << 28


def equal_row_shapes(total: int = ROWS_TOTAL) -> list[tuple[int, int]]:
    """(rows, row length): 1 x 2^28, 8 x 2^25, 2048 x 2^17, 2^16 x 4096, 2^20 x 256, 2^22 x 64,
    2^23 x 32, 2^25 x 8 at 2^28, as bench/sweep.cpp lists them."""
    shapes = []
    for length in (total, total // 8, total // 2048, 4096, 256, 64, 32, 8):
        if 1 <= length <= total:
            shapes.append((total // length, length))
    return shapes


def rows_sum_shapes() -> list[tuple[int, int]]:
    """The sweep's batched sum shapes: equal_row_shapes plus Lei Mao's 2048 x 262144."""
    return equal_row_shapes() + [(2048, 262144)]


def sampling_shapes() -> list[tuple[int, int]]:
    """One row of logits per sequence (1 to 4096 sequences), as wide as the vocabularies of three model
    families: the argmax of each row is the next token (sampling_shapes in bench/sweep.cpp)."""
    return [(rows, vocabulary) for rows in (1, 8, 64, 512, 4096) for vocabulary in (32000, 128256, 151936)]


# --quick: the sizes and shapes the notebook quotes, five samples per timing.
QUICK_LOG2 = (12, 16, 20, 24, 30)
QUICK_ROWS = ((65536, 4096), (1 << 25, 8), (8, 1 << 25))
QUICK_SAMPLING = ((1, 151936), (64, 151936), (4096, 151936))


@dataclass(frozen=True)
class Case:
    kind: str  # "full" or "batched"
    op: str
    dtype: str
    rows: int
    cols: int  # elements per row (n for a full array)

    @property
    def n(self) -> int:
        return self.rows * self.cols

    @property
    def shape(self) -> str:
        """The label bench.json uses for the same problem."""
        return f"n:{self.cols}" if self.kind == "full" else f"{self.rows}x{self.cols}"


def build_cases(options: argparse.Namespace) -> list[Case]:
    """Every case to time, most quoted first: when the time budget runs out, what is left is the least
    needed (f32 before bf16, sums and argmax before min and max)."""
    sizes = [1 << k for k in options.sizes]
    rows = list(QUICK_ROWS) if options.quick else rows_sum_shapes()
    sampling = list(QUICK_SAMPLING) if options.quick else sampling_shapes()
    cases: list[Case] = []
    for dtype in DTYPES:
        if dtype not in options.dtypes:
            continue
        if "full" in options.kinds:
            for op in ("sum", "argmax", "max", "min"):
                if op in options.ops:
                    cases += [Case("full", op, dtype, 1, n) for n in sizes]
        if "batched" in options.kinds:
            if dtype == "f32" and "argmax" in options.ops:
                cases += [Case("batched", "argmax", dtype, r, c) for r, c in sampling]
            if "sum" in options.ops:
                cases += [Case("batched", "sum", dtype, r, c) for r, c in rows]
    return cases


def parse_sizes(text: str) -> list[int]:
    """'10-30', '12,20,30' or '10-16,20': log2 of the full-array sizes, each within 10..30, sorted."""
    values: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise ValueError(f"empty item in sizes '{text}'")
        low, _, high = part.partition("-")
        try:
            first, last = int(low), int(high) if high else int(low)
        except ValueError:
            raise ValueError(f"'{part}' is not a log2 size or a range a-b") from None
        if first > last or first < MIN_LOG2 or last > MAX_LOG2:
            raise ValueError(f"'{part}': sizes are log2 values within {MIN_LOG2}..{MAX_LOG2}, low-high")
        values.update(range(first, last + 1))
    return sorted(values)


def _choice_list(allowed: tuple[str, ...]):
    def parse(text: str) -> list[str]:
        items = [item.strip() for item in text.split(",") if item.strip()]
        unknown = [item for item in items if item not in allowed]
        if unknown or not items:
            raise argparse.ArgumentTypeError(f"{text!r}: choose from {', '.join(allowed)}")
        return items
    return parse


def _log2_sizes(text: str) -> list[int]:
    try:
        return parse_sizes(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def make_parser(peer_names: tuple[str, ...] = PEER_NAMES) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="peers_bench.py",
        description="Time what a Python user calls instead (torch, CuPy, cuda.compute, Triton, JAX) on the "
                    "sweep's problems, with the project's clocks and L2 states, after checking every result.")
    p.add_argument("--sizes", type=_log2_sizes, default=list(range(MIN_LOG2, MAX_LOG2 + 1)),
                   help="log2 of the full-array sizes: '10-30' (default), '12,20,30', '10-16,24'")
    p.add_argument("--ops", type=_choice_list(OPS), default=list(OPS), help="comma list of " + ",".join(OPS))
    p.add_argument("--dtypes", type=_choice_list(DTYPES), default=list(DTYPES), help="comma list of f32,bf16")
    p.add_argument("--kinds", type=_choice_list(KINDS), default=list(KINDS), help="comma list of full,batched")
    p.add_argument("--peers", type=_choice_list(peer_names), default=list(peer_names),
                   help="comma list of " + ",".join(peer_names))
    p.add_argument("--samples", type=int, default=15, help="timed calls per clock and L2 state (median kept)")
    p.add_argument("--warmups", type=int, default=2, help="untimed calls before the samples")
    p.add_argument("--quick", action="store_true",
                   help=f"sizes 2^{', 2^'.join(map(str, QUICK_LOG2))}, three row and three sampling shapes, "
                        "5 samples (unless --sizes or --samples say otherwise)")
    p.add_argument("--budget-s", type=float, default=330.0,
                   help="wall-clock seconds for the whole run; cases not begun by then are recorded as skipped")
    p.add_argument("--out", default=None, help="output file (default results/<gpu-slug>/peers.json)")
    p.add_argument("--code-id", default=None, help="code_id to record (default: $REDU_CODE_ID or scripts/code_id.sh)")
    p.add_argument("--self-test", action="store_true",
                   help="check options, cases, the result check and the file format on CPU data; needs numpy only")
    return p


def parse_options(argv: list[str] | None = None, peer_names: tuple[str, ...] = PEER_NAMES) -> argparse.Namespace:
    argv = sys.argv[1:] if argv is None else argv
    parser = make_parser(peer_names)
    options = parser.parse_args(argv)
    given = set(argv)
    if options.quick:
        if not any(a.startswith("--sizes") for a in given):
            options.sizes = list(QUICK_LOG2)
        if not any(a.startswith("--samples") for a in given):
            options.samples = 5
    if options.samples < 1 or options.warmups < 1:
        parser.error("--samples and --warmups must be at least 1 (a warm-up call takes the first-call costs)")
    if options.budget_s <= 0:
        parser.error("--budget-s must be positive")
    return options
