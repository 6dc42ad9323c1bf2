"""peers_bench.py --self-test: the parts that need no GPU, run on any machine with numpy (CI runs it as the
ctest entry peers_bench.self_test). Exit 0 when every check passes, 1 when one fails, 77 (skipped) without
numpy. It checks:
  - the command line: sizes, lists, --quick, refusals;
  - the cases: the sweep's shapes, the labels bench.json uses for them;
  - the result check on CPU data: sums inside and outside the bound, exact min/max, argmax ties;
  - the file: a document built as the GPU run builds it is valid, a broken one is not, and it round-trips;
  - notebooks/peers_loader.py reads it (where pandas is installed).
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


class Failures:
    def __init__(self):
        self.count = 0
        self.checks = 0

    def expect(self, condition: bool, what: str) -> None:
        self.checks += 1
        if not condition:
            self.count += 1
            print(f"FAILED: {what}")


def _refused(argv: list[str]) -> bool:
    import cases
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            cases.parse_options(argv)
        except SystemExit as e:
            return e.code != 0
    return False


def test_options(f: Failures) -> None:
    import cases
    f.expect(cases.parse_sizes("10-12,20") == [10, 11, 12, 20], "sizes '10-12,20'")
    f.expect(cases.parse_sizes("30,12, 12") == [12, 30], "sizes sorted, repeats dropped")
    for bad in ("9", "31", "12-10", "x", "10,,12", ""):
        try:
            cases.parse_sizes(bad)
            f.expect(False, f"sizes {bad!r} refused")
        except ValueError:
            f.expect(True, "")
    default = cases.parse_options([])
    f.expect(default.sizes == list(range(10, 31)) and default.samples == 15 and default.warmups == 2,
             "defaults: 2^10..2^30, 15 samples, 2 warm-ups (reduce_bench's)")
    f.expect(default.peers == list(cases.PEER_NAMES) and default.ops == list(cases.OPS), "every peer and op by default")
    quick = cases.parse_options(["--quick"])
    f.expect(quick.sizes == list(cases.QUICK_LOG2) and quick.samples == 5, "--quick: its sizes and 5 samples")
    quick = cases.parse_options(["--quick", "--samples", "7", "--sizes=20"])
    f.expect(quick.sizes == [20] and quick.samples == 7, "--quick keeps explicit --sizes and --samples")
    chosen = cases.parse_options(["--peers", "torch,jax", "--ops=sum", "--dtypes", "bf16", "--kinds", "full"])
    f.expect(chosen.peers == ["torch", "jax"] and chosen.ops == ["sum"] and chosen.dtypes == ["bf16"], "lists parsed")
    for argv in (["--peers", "numpy"], ["--ops", "mean"], ["--dtypes", "f16"], ["--samples", "0"], ["--sizes", "8"],
                 ["--budget-s", "0"], ["--frobnicate"]):
        f.expect(_refused(argv), f"{argv} refused")


def test_cases(f: Failures) -> None:
    import cases
    f.expect(cases.equal_row_shapes() == [(1, 1 << 28), (8, 1 << 25), (2048, 1 << 17), (65536, 4096), (1 << 20, 256),
                                          (1 << 22, 64), (1 << 23, 32), (1 << 25, 8)], "equal_row_shapes as bench/sweep.cpp")
    f.expect(len(cases.sampling_shapes()) == 15 and (4096, 151936) in cases.sampling_shapes(), "15 sampling shapes")
    every = cases.build_cases(cases.parse_options([]))
    f.expect(len(every) == 2 * 4 * 21 + 15 + 2 * 9, f"default cases: {len(every)}")
    f.expect(every[0] == cases.Case("full", "sum", "f32", 1, 1024) and every[0].shape == "n:1024", "f32 sums first")
    f.expect(cases.Case("batched", "sum", "f32", 8, 1 << 25).shape == "8x33554432", "batched shape label")
    f.expect(max(c.n for c in every) == 1 << 30, "largest case 2^30")
    quick = cases.build_cases(cases.parse_options(["--quick", "--dtypes", "f32", "--ops", "argmax"]))
    f.expect([c.shape for c in quick if c.kind == "batched"] == ["1x151936", "64x151936", "4096x151936"], "quick sampling")
    # Every shape is one the sweep timed: the notebook finds the hand-written and CUB rows under its label.
    bench = ROOT / "results" / "nvidia-h200" / "bench.json"
    if bench.exists():
        labels = set()
        for b in json.loads(bench.read_text()).get("benchmarks", []):
            fields = dict(p.split("=", 1) for p in b.get("label", "").split() if "=" in p)
            labels.add((fields.get("kind"), fields.get("dtype"), fields.get("op"), fields.get("shape")))
        for c in every:
            if c.kind == "batched" and c.dtype == "f32":
                f.expect(("batched", "f32", c.op, c.shape) in labels, f"bench.json times batched f32 {c.op} {c.shape}")
        f.expect(("full", "f32", "sum", "n:1024") in labels, "bench.json labels full arrays as n:<count>")


def test_checks(f: Failures) -> None:
    import numpy as np

    import checks
    rng = np.random.default_rng(20261128)
    for dtype in ("f32", "bf16"):
        x = rng.uniform(-1, 1, size=(3, 1 << 16)).astype(np.float32)
        if dtype == "bf16":
            x = checks.to_bf16_values(x)
        ref = checks.reference_numpy(x, "sum")
        pairwise = x.sum(axis=1, dtype=np.float32)  # numpy's pairwise float32 sum: inside the bound
        f.expect(checks.check("sum", ref, values=pairwise).ok, f"{dtype}: a float32 pairwise sum passes")
        bound = checks.sum_factor(ref.count, checks.LIBRARY_PARTIALS) * checks.U_ACCUMULATE * ref.sum_abs
        off = ref.value + np.array([0.0, 1.01, 0.0]) * bound
        verdict = checks.check("sum", ref, values=off)
        f.expect(not verdict.ok and "row 1" in verdict.detail, f"{dtype}: a sum just outside the bound fails, row named")
        f.expect(checks.check("sum", ref, values=ref.value + 0.99 * bound).ok, f"{dtype}: just inside passes")
        f.expect(not checks.check("sum", ref, values=np.array([np.nan, 0, 0]) + ref.value).ok, "a NaN fails")
        f.expect(not checks.check("sum", ref, values=ref.value[:2]).ok, "too few rows fail")
        tight = checks.check("sum", ref, values=ref.value + 0.5 * checks.sum_factor(ref.count, 0) * checks.U_ACCUMULATE
                             * ref.sum_abs, partials=0)
        f.expect(tight.ok and tight.bound is not None, "partials=0: the tree bound alone")
        for op in ("max", "min"):
            ref = checks.reference_numpy(x, op)
            exact = x.max(axis=1) if op == "max" else x.min(axis=1)
            f.expect(checks.check(op, ref, values=exact).ok, f"{dtype} {op}: exact passes")
            f.expect(not checks.check(op, ref, values=np.nextafter(exact, 2, dtype=np.float32)).ok,
                     f"{dtype} {op}: one ulp off fails")
    # bf16 rounding: ties to even, 8 significant bits.
    f.expect(checks.to_bf16_values(np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -9], dtype=np.float32)).tolist()
             == [1.0, 1 + 2 ** -6, 1.0], "bf16 rounding to nearest, ties to even")
    # argmax: the first occurrence of the largest value, per row.
    x = np.zeros((2, 16), dtype=np.float32)
    x[0, [3, 9]] = 5.0
    x[1, [0, 15]] = 2.0
    ref = checks.reference_numpy(x, "argmax")
    f.expect(ref.index.tolist() == [3, 0], "reference: first occurrence")
    f.expect(checks.check("argmax", ref, indices=np.array([3, 0])).ok, "argmax first occurrence passes")
    verdict = checks.check("argmax", ref, indices=np.array([9, 0]))
    f.expect(not verdict.ok and "row 0" in verdict.detail, "argmax of a later tie fails")
    f.expect(checks.reference_numpy(np.array([1.0, 2.0, 2.0], dtype=np.float32), "argmax").index.tolist() == [1],
             "a 1-D array is one row")


def synthetic_document() -> dict:
    """A document as the GPU run writes one: every row kind, both timers."""
    import cases
    import schema
    context = {key: "x" for key in schema.PROVENANCE_KEYS}
    context.update({"program": "peers_bench", "code_id": "0123456789abcdef", "gpu_name": "Test GPU",
                    "gpu_slug": "test-gpu", "peak_gbps": "4800.000000", "copy_gbps": "4200.000000",
                    "cccl_version": "3.6.0"})
    context.update({key: "x" for key in schema.PEERS_CONTEXT_KEYS})
    peers = [{"peer": name, "package": name.split(".")[0], "version": "1.0", "available": name != "jax",
              "reason": "" if name != "jax" else "import jax failed", "calls": {}} for name in ("torch", "triton.atomic", "jax")]
    rows = []
    for log2 in (12, 20, 30):
        case = cases.Case("full", "sum", "f32", 1, 1 << log2)
        for clock, l2 in schema.TIMINGS:
            rows.append(schema.row("torch", "torch.sum(x)", case, clock, l2, "timed", time_us=10.0 + log2 + (clock == "host"),
                                   samples=15, checked=True, error=1e-3, bound=1.0))
            status = "timed" if log2 < 30 else "failed"
            rows.append(schema.row("triton.atomic", "kernel", case, clock, l2, status,
                                   time_us=8.0 + log2 if status == "timed" else None, samples=15 if status == "timed" else 0,
                                   checked=status == "timed", reason="" if status == "timed" else "wrong result: row 0"))
    case = cases.Case("batched", "argmax", "f32", 64, 151936)
    for clock, l2 in schema.TIMINGS:
        rows.append(schema.row("torch", "torch.argmax(x, dim=1)", case, clock, l2, "timed", time_us=30.0, samples=15,
                               checked=True))
        rows.append(schema.row("jax", "jnp.argmax", case, clock, l2, "unavailable" if clock == "gpu" else "skipped",
                               timer="wall_clock", reason="no shared stream" if clock == "gpu" else "budget"))
    first = [{"peer": "torch", "op": "sum", "dtype": "f32", "kind": "full", "shape": "n:4096", "first_call_ms": 50.0,
              "first_of_op": True, "includes": "module loading"}]
    not_offered = [{"peer": "triton.atomic", "op": "argmax", "dtype": "f32", "kind": "full", "reason": "two passes only"}]
    return schema.document(context, peers, rows, first, not_offered)


def test_schema(f: Failures) -> None:
    import peers_bench
    import schema
    doc = synthetic_document()
    f.expect(schema.validate(doc) == [], f"a document as the run builds it is valid: {schema.validate(doc)[:3]}")
    f.expect(list(doc["context"])[:3] == ["program", "code_id", "gpu_name"], "provenance keys first, in order")
    broken = json.loads(json.dumps(doc))
    del broken["context"]["copy_gbps"]
    broken["results"][0]["time_us"] = None
    broken["results"][1]["status"] = "fast"
    broken["results"].append(dict(broken["results"][2]))
    broken["results"][-3]["reason"] = ""
    problems = schema.validate(broken)
    for what in ("lacks 'copy_gbps'", "timed without", "out of range", "two rows"):
        f.expect(any(what in p for p in problems), f"a broken document is refused: {what}")
    f.expect(schema.validate({"context": {}}) != [], "a document without its parts is refused")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "test-gpu" / "peers.json"
        peers_bench.write(path, doc)
        f.expect(json.loads(path.read_text()) == doc, "written and read back unchanged")
        try:
            peers_bench.write(path, broken)
            f.expect(False, "write() refuses an invalid document")
        except RuntimeError:
            f.expect(True, "")
        test_loader(f, Path(folder))


def test_loader(f: Failures, results: Path) -> None:
    """notebooks/peers_loader.py on the synthetic file, where pandas is installed (the notebooks' venv)."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        print("note: pandas not installed, notebooks/peers_loader.py not checked")
        return
    sys.path.insert(0, str(ROOT / "notebooks"))
    import peers_loader
    f.expect(peers_loader.gpus_with_peers(results) == ["test-gpu"], "the loader finds the GPU folder")
    loaded = peers_loader.load_peers("test-gpu", results=results)
    f.expect(loaded is not None, "the loader reads the file")
    if loaded is None:
        return
    context, frame = loaded.context, loaded.timed
    f.expect(context["gpu_name"] == "Test GPU" and isinstance(context["peak_gbps"], float), "context, numbers parsed")
    f.expect(len(frame) == 3 * 4 + 2 * 4 + 4 and set(frame.status) == {"timed"}, f"timed rows only: {len(frame)}")
    f.expect(peers_loader.load_peers("no-such-gpu", results=results) is None, "no file: None, no error")
    wide = peers_loader.peer_times(loaded, kind="full", op="sum", dtype="f32", clock="gpu", l2="cold")
    f.expect(list(wide.columns) == ["torch", "triton.atomic"] and wide.loc[1 << 30, "triton.atomic"] != wide.loc[1 << 30, "triton.atomic"],
             "peer_times: one column per peer, a failed peer's cell empty")


def run() -> int:
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("peers_bench self-test skipped: numpy is not installed (pip install -r notebooks/requirements.txt)")
        return 77
    sys.path.insert(0, str(HERE))
    f = Failures()
    for test in (test_options, test_cases, test_checks, test_schema):
        try:
            test(f)
        except Exception as e:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            f.expect(False, f"{test.__name__} raised {type(e).__name__}: {e}")
    print(f"peers_bench self-test: {f.checks - f.count} of {f.checks} checks passed")
    return 1 if f.count else 0
