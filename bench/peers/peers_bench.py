#!/usr/bin/env python3
"""What a Python user gets: torch, CuPy, cuda.compute, Triton and JAX on the sweep's problems, timed the
project's way, into results/<gpu-slug>/peers.json (schema.py describes the file).

  python3 bench/peers/peers_bench.py              the default run (about six minutes on an H200)
  python3 bench/peers/peers_bench.py --quick      the sizes and shapes notebooks/09_python_peers.ipynb quotes
  python3 bench/peers/peers_bench.py --self-test  the host-side parts, on CPU data (numpy only; CI runs it)

Per case: a float64 reference of the input (gpu.reference_torch); per peer: the first call, timed with its
compilation or plan; its result and a second call's checked against the reference (checks.py); then, only
if both pass, the median of --samples calls per clock (host, gpu) and L2 state (cold, hot). A peer that is
not installed is skipped, with the reason, in the file's "peers" list (requirements-optional.txt names the
packages). Cases are ordered so that a run cut short by --budget-s loses the least quoted ones.
"""
from __future__ import annotations

import datetime
import importlib.util
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import cases as cases_mod  # noqa: E402
import schema  # noqa: E402


# The packages whose versions the file records (the first installed name of each group).
PACKAGES = (("torch",), ("cupy-cuda13x", "cupy-cuda12x", "cupy"), ("cuda-cccl",), ("triton",), ("jax",), ("jaxlib",),
            ("jax-cuda13-plugin", "jax-cuda12-plugin"), ("numpy",), ("ml_dtypes",), ("cuda-bindings",), ("cuda-core",),
            ("cuda-pathfinder",))


def code_id(given: str | None) -> str:
    if given:
        return given
    if os.environ.get("REDU_CODE_ID"):
        return os.environ["REDU_CODE_ID"]
    try:
        return subprocess.run([str(ROOT / "scripts" / "code_id.sh")], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        return f"unknown ({type(e).__name__})"


def bundled_cccl_version() -> str:
    """The CCCL inside the cuda-cccl package (its CUB_VERSION), read from the file without importing it."""
    spec = importlib.util.find_spec("cuda")
    for base in (spec.submodule_search_locations or []) if spec else []:
        header = Path(base) / "cccl" / "headers" / "include" / "cub" / "version.cuh"
        if header.exists():
            found = re.search(r"#define\s+CUB_VERSION\s+(\d+)", header.read_text())
            if found:
                v = int(found.group(1))
                return f"{v // 100000}.{v // 100 % 1000}.{v % 100}"
    return "none (cuda-cccl not installed)"


def write(path: Path, doc: dict) -> None:
    problems = schema.validate(doc)
    if problems:
        raise RuntimeError("peers.json would not be valid: " + "; ".join(problems[:5]))
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(doc, indent=1) + "\n")
    os.replace(partial, path)


def fmt_us(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}" if value < 1000 else f"{value:.0f}"


class Run:
    def __init__(self, options):
        import checks
        self.checks = checks
        self.options = options
        self.began = time.perf_counter()
        self.results: list[dict] = []
        self.first_calls: list[dict] = []
        self.not_offered: list[dict] = []
        self.gpu_clock_refused: dict[tuple, str] = {}  # (peer, op, dtype, kind) -> why
        self.first_seen: set[tuple] = set()
        self.refused: set[tuple] = set()  # (peer, op, dtype, kind) found not offered when tried

    def elapsed(self) -> float:
        return time.perf_counter() - self.began

    def setup(self) -> None:
        import torch

        import adapters
        import gpu
        self.torch, self.gpu, self.adapters = torch, gpu, adapters
        self.device = gpu.device_provenance(torch.cuda.current_device())
        self.harness = gpu.Harness(int(self.device["l2_bytes"]))
        self.copy_gbps = self.harness.copy_gbps()
        self.peers, self.peer_entries = [], []
        for peer in adapters.all_peers(int(self.device["sm_count"])):
            if peer.name not in self.options.peers:
                continue
            available = peer.load()
            calls = {f"{op} {dtype} {kind}": peer.call_text(op, dtype, kind)
                     for op in cases_mod.OPS for dtype in cases_mod.DTYPES for kind in cases_mod.KINDS
                     if available and not peer.not_offered(op, dtype, kind)}
            self.peer_entries.append({"peer": peer.name, "package": peer.package, "version": peer.version,
                                      "available": available, "reason": peer.reason, "calls": calls})
            print(f"peer {peer.name}: " + (f"{peer.package} {peer.version}" if available else f"skipped: {peer.reason}"))
            if available:
                self.peers.append(peer)

    def context(self) -> dict:
        import importlib.metadata
        versions = {}
        for names in PACKAGES:
            for name in names:
                try:
                    versions[name] = importlib.metadata.version(name)
                    break
                except importlib.metadata.PackageNotFoundError:
                    continue
            else:
                versions[names[0]] = "not installed"
        accelerators = os.environ.get("CUPY_ACCELERATORS", "unset (CuPy's default)")
        o = self.options
        return {
            "program": "peers_bench",
            "code_id": code_id(o.code_id),
            **self.device,
            "copy_gbps": f"{self.copy_gbps:.6f}",
            "cuda_runtime_version": str(self.torch.version.cuda),
            "cccl_version": bundled_cccl_version(),
            "build_type": "none: each Python package as installed",
            "tuning": "none: each peer chooses its own launch shapes",
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "python": platform.python_version(),
            "packages": ", ".join(f"{k} {v}" for k, v in versions.items()) + f"; CUPY_ACCELERATORS {accelerators}",
            "clock_host": schema.CLOCK_HOST,
            "clock_gpu": schema.CLOCK_GPU + (f" ({self.harness.gpu_clock_reason})" if self.harness.gpu_clock_reason else ""),
            "l2_mode": schema.L2_MODE,
            "timing": f"{o.warmups} warm-ups, then per clock and L2 state the median of {o.samples} samples",
            "check": self.checks.SUMMARY,
            "sizes": ",".join(f"2^{k}" for k in o.sizes),
            "quick": "yes" if o.quick else "no",
            "budget_s": f"{o.budget_s:.0f}",
            "elapsed_s": f"{self.elapsed():.0f}",
        }

    def document(self) -> dict:
        return schema.document(self.context(), self.peer_entries, self.results, self.first_calls, self.not_offered)

    def inputs(self, all_cases) -> None:
        """One buffer per dtype, as long as its largest case: uniform in [-1, 1) as the project's fill
        (common/host/random_fill.hpp), fresh random data, never zeros. Every case reads a prefix of it."""
        torch = self.torch
        self.x = {}
        for k, dtype in enumerate(cases_mod.DTYPES):
            need = max((c.n for c in all_cases if c.dtype == dtype), default=0)
            if not need:
                continue
            g = torch.Generator(device="cuda").manual_seed(0x5EED0000 + k)
            values = torch.rand(need, generator=g, device="cuda", dtype=torch.float32).mul_(2).sub_(1)
            self.x[dtype] = values if dtype == "f32" else values.to(torch.bfloat16)
            del values
        torch.cuda.synchronize()

    def rows_for(self, peer, case, status: str, reason: str, timer: str) -> None:
        call = peer.call_text(case.op, case.dtype, case.kind)
        for clock, l2 in schema.TIMINGS:
            self.results.append(schema.row(peer.name, call, case, clock, l2, status, timer=timer, reason=reason))

    def measure(self, peer, case) -> str:
        """Checks then times one peer on one case; returns a short summary for the progress line."""
        harness, o = self.harness, self.options
        key = (peer.name, case.op, case.dtype, case.kind)
        call = peer.call_text(case.op, case.dtype, case.kind)
        timer = "cuda_events" if peer.gpu_clock else "wall_clock"
        x = self.x[case.dtype][:case.n]
        if key in self.refused:
            return f"{peer.name} not offered"
        try:
            begin = time.perf_counter()
            prepared = peer.prepare(case, x)
            out = prepared.run()
            (prepared.wait or (lambda _: harness.stream.synchronize()))(out)
            first_ms = (time.perf_counter() - begin) * 1e3
            self.first_calls.append({"peer": peer.name, "op": case.op, "dtype": case.dtype, "kind": case.kind,
                                     "shape": case.shape, "first_call_ms": first_ms, "first_of_op": key not in self.first_seen,
                                     "includes": peer.FIRST_CALL})
            self.first_seen.add(key)
            verdicts = []
            for attempt in range(2):  # the first call's result, and a second call's (state left behind)
                if attempt:
                    out = prepared.run()
                    (prepared.wait or (lambda _: harness.stream.synchronize()))(out)
                got = prepared.fetch(out)
                verdicts.append(self.checks.check(case.op, self.reference, values=got, indices=got,
                                             partials=prepared.partials, output_dtype=prepared.output_dtype))
        except self.adapters.NotOffered as e:
            self.refused.add(key)
            self.not_offered.append({"peer": peer.name, "op": case.op, "dtype": case.dtype, "kind": case.kind,
                                     "reason": str(e)[:400]})
            return f"{peer.name} not offered"
        except Exception as e:  # noqa: BLE001 - a peer that raises is recorded, the run goes on
            self.rows_for(peer, case, "failed", f"raised {type(e).__name__}: {str(e)[:400]}", timer)
            return f"{peer.name} raised {type(e).__name__}"
        bad = next((v for v in verdicts if not v.ok), None)
        if bad:
            self.rows_for(peer, case, "failed", f"wrong result: {bad.detail}", timer)
            return f"{peer.name} WRONG"
        verdict = verdicts[0]
        shown = []
        for clock, l2 in schema.TIMINGS:
            common = dict(timer=timer, checked=True, error=verdict.error, bound=verdict.bound)
            if clock == "gpu" and not peer.gpu_clock:
                self.results.append(schema.row(peer.name, call, case, clock, l2, "unavailable",
                                               reason=peer.GPU_CLOCK_REASON, **common))
                continue
            if clock == "gpu" and key in self.gpu_clock_refused:
                self.results.append(schema.row(peer.name, call, case, clock, l2, "unavailable",
                                               reason=self.gpu_clock_refused[key], **common))
                continue
            try:
                if prepared.wait:
                    times = harness.time_wall(lambda: prepared.wait(prepared.run()), l2, o.warmups, o.samples)
                else:
                    times = harness.time_events(prepared.run, clock, l2, o.warmups, o.samples)
            except (self.gpu.WaitedOnHost, self.gpu.Unavailable) as e:
                self.gpu_clock_refused[key] = str(e)
                self.results.append(schema.row(peer.name, call, case, clock, l2, "unavailable", reason=str(e), **common))
                continue
            except Exception as e:  # noqa: BLE001
                self.results.append(schema.row(peer.name, call, case, clock, l2, "failed",
                                               reason=f"raised while timed: {type(e).__name__}: {str(e)[:400]}", **common))
                continue
            median_us = statistics.median(times) * 1e3
            self.results.append(schema.row(peer.name, call, case, clock, l2, "timed", time_us=median_us,
                                           samples=len(times), **common))
            if l2 == "cold":
                shown.append(fmt_us(median_us))
        return f"{peer.name} {'/'.join(shown)}"

    def run(self, out_path: Path | None) -> int:
        o = self.options
        self.setup()
        slug = self.device["gpu_slug"]
        path = out_path or ROOT / "results" / slug / "peers.json"
        all_cases = cases_mod.build_cases(o)
        self.inputs(all_cases)
        print(f"{self.device['gpu_name']}: peak {float(self.device['peak_gbps']):.0f} GB/s, copy {self.copy_gbps:.0f} "
              f"GB/s; {len(all_cases)} cases, {len(self.peers)} peers; times in us, host/gpu clock, cold L2")
        last_write = time.perf_counter()
        try:
            for case in all_cases:
                offered = []
                for peer in self.peers:
                    reason = peer.not_offered(case.op, case.dtype, case.kind)
                    if not reason:
                        offered.append(peer)
                        continue
                    entry = {"peer": peer.name, "op": case.op, "dtype": case.dtype, "kind": case.kind, "reason": reason}
                    if entry not in self.not_offered:
                        self.not_offered.append(entry)
                if self.elapsed() > o.budget_s:
                    for peer in offered:
                        self.rows_for(peer, case, "skipped", f"the time budget (--budget-s {o.budget_s:.0f}) ran out",
                                      "cuda_events" if peer.gpu_clock else "wall_clock")
                    continue
                x2d = self.x[case.dtype][:case.n].view(case.rows, case.cols)
                self.reference = self.gpu.reference_torch(x2d, case.op)
                summary = [self.measure(peer, case) for peer in offered]
                print(f"[{self.elapsed():5.0f} s] {case.kind} {case.dtype} {case.op} {case.shape}: " + " | ".join(summary),
                      flush=True)
                if time.perf_counter() - last_write > 20:
                    write(path, self.document())
                    last_write = time.perf_counter()
        finally:
            write(path, self.document())
        timed = sum(r["status"] == "timed" for r in self.results)
        failed = sorted({(r["peer"], r["op"], r["dtype"]) for r in self.results if r["status"] == "failed"})
        skipped = sum(r["status"] == "skipped" for r in self.results)
        # A peer's wrong result is a finding, recorded in the file, not a failure of this program.
        print(f"wrote {path}: {timed} timed rows, {skipped} skipped by the budget, {len(failed)} peer/op/dtype with "
              f"failures{': ' + ', '.join(' '.join(f) for f in failed) if failed else ''}; {self.elapsed():.0f} s")
        return 0


def main(argv: list[str] | None = None) -> int:
    options = cases_mod.parse_options(argv)
    if options.self_test:
        import self_test
        return self_test.run()
    try:
        import torch
    except ImportError as e:
        print(f"peers_bench: the GPU run needs torch ({e}); --self-test runs without it", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("peers_bench: no CUDA GPU visible to torch; --self-test runs without one", file=sys.stderr)
        return 1
    return Run(options).run(Path(options.out) if options.out else None)


if __name__ == "__main__":
    sys.exit(main())
