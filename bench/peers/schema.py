"""The layout of results/<gpu-slug>/peers.json, written and checked here (notebooks/peers_loader.py reads it).

  context      the provenance every results file carries (report/provenance.hpp, the same keys in the
               same order, values as text), then this program's own keys
  peers        one entry per peer: package, version, available or why not, how it is called
  results      one row per (peer, case, clock, L2 state):
                 peer, call, op, dtype, kind, shape, n, rows, clock (host|gpu), l2 (cold|hot),
                 status   timed        checked, then timed: time_us is the median of `samples` calls
                          failed       the result was wrong, or the call raised: not timed
                          unavailable  this clock cannot time this peer (reason says why)
                          skipped      not run: the time budget ran out
                 time_us, samples, timer (cuda_events | wall_clock), checked, error, bound, reason
  first_calls  per (peer, case): wall time of the first call, with its compilation or plan, synchronised
  not_offered  (peer, op, dtype, kind) a peer does not offer, with the reason
"""
from __future__ import annotations

# report/provenance.hpp: the keys common to every results file, in this order.
PROVENANCE_KEYS = ("program", "code_id", "gpu_name", "gpu_slug", "compute_capability", "sm_count", "l2_bytes",
                   "memory_clock_khz", "bus_width_bits", "peak_gbps", "copy_gbps", "driver_version",
                   "cuda_runtime_version", "cccl_version", "build_type", "tuning")
PEERS_CONTEXT_KEYS = ("date", "python", "packages", "clock_host", "clock_gpu", "l2_mode", "timing", "check",
                      "sizes", "quick", "budget_s", "elapsed_s")
CONTEXT_KEYS = PROVENANCE_KEYS + PEERS_CONTEXT_KEYS

ROW_KEYS = ("peer", "call", "op", "dtype", "kind", "shape", "n", "rows", "clock", "l2", "status", "time_us",
            "samples", "timer", "checked", "error", "bound", "reason")
STATUSES = ("timed", "failed", "unavailable", "skipped")
CLOCKS = ("host", "gpu")
L2_STATES = ("cold", "hot")
TIMINGS = tuple((clock, l2) for clock in CLOCKS for l2 in L2_STATES)
TIMERS = ("cuda_events", "wall_clock")
PEER_KEYS = ("peer", "package", "version", "available", "reason", "calls")
FIRST_CALL_KEYS = ("peer", "op", "dtype", "kind", "shape", "first_call_ms", "first_of_op", "includes")
NOT_OFFERED_KEYS = ("peer", "op", "dtype", "kind", "reason")

CLOCK_HOST = ("CUDA events around the call as the host enqueues it on an idle GPU (a flush before it is waited "
              "for): the framework's Python dispatch and launch time included where it outlasts the GPU work. "
              "JAX, which runs on streams of its own: a wall clock around the call and block_until_ready()")
CLOCK_GPU = ("the flush, the events and the call queued behind a kernel that holds the stream until the host "
             "releases it (report/stream_blocker.cu, as a CuPy kernel on the stream torch, CuPy, Triton and "
             "cuda.compute share): GPU work only; unavailable where the peer runs on a stream of its own (JAX) "
             "or waits on the host")
L2_MODE = ("cold: a kernel reads 2x the L2 size before each timed call (outside the events, as bench/l2_flush.cu); "
           "hot: nothing between calls, the input stays in L2 as far as it fits")


def row(peer: str, call: str, case, clock: str, l2: str, status: str, time_us: float | None = None,
        samples: int = 0, timer: str = "cuda_events", checked: bool = False, error: float | None = None,
        bound: float | None = None, reason: str = "") -> dict:
    return {"peer": peer, "call": call, "op": case.op, "dtype": case.dtype, "kind": case.kind, "shape": case.shape,
            "n": case.n, "rows": case.rows, "clock": clock, "l2": l2, "status": status, "time_us": time_us,
            "samples": samples, "timer": timer, "checked": checked, "error": error, "bound": bound, "reason": reason}


def document(context: dict, peers: list[dict], results: list[dict], first_calls: list[dict],
             not_offered: list[dict]) -> dict:
    ordered = {key: context[key] for key in CONTEXT_KEYS if key in context}
    ordered.update({k: v for k, v in context.items() if k not in ordered})
    return {"context": ordered, "peers": peers, "results": results, "first_calls": first_calls,
            "not_offered": not_offered}


def validate(doc: dict) -> list[str]:
    """What is wrong with a peers.json document; empty when nothing is."""
    problems: list[str] = []
    for part in ("context", "peers", "results", "first_calls", "not_offered"):
        if part not in doc:
            problems.append(f"no '{part}'")
    if problems:
        return problems
    context = doc["context"]
    problems += [f"context lacks '{k}'" for k in CONTEXT_KEYS if k not in context]
    problems += [f"context '{k}' is not text" for k in PROVENANCE_KEYS if k in context and not isinstance(context[k], str)]
    if list(context)[:len(PROVENANCE_KEYS)] != list(PROVENANCE_KEYS):
        problems.append("context does not begin with the provenance keys in report/provenance.hpp's order")
    for entry in doc["peers"]:
        problems += [f"peer entry lacks '{k}': {entry}" for k in PEER_KEYS if k not in entry]
    names = {entry.get("peer") for entry in doc["peers"]}
    seen = set()
    for r in doc["results"]:
        missing = [k for k in ROW_KEYS if k not in r]
        if missing:
            problems.append(f"row lacks {missing}: {r}")
            continue
        where = f"{r['peer']} {r['op']} {r['dtype']} {r['shape']} {r['clock']}/{r['l2']}"
        if r["peer"] not in names:
            problems.append(f"{where}: peer not listed under 'peers'")
        if r["status"] not in STATUSES or r["clock"] not in CLOCKS or r["l2"] not in L2_STATES or r["timer"] not in TIMERS:
            problems.append(f"{where}: status, clock, l2 or timer out of range")
        key = (r["peer"], r["op"], r["dtype"], r["kind"], r["shape"], r["clock"], r["l2"])
        if key in seen:
            problems.append(f"{where}: two rows")
        seen.add(key)
        if r["status"] == "timed":
            if not (isinstance(r["time_us"], (int, float)) and r["time_us"] > 0 and r["checked"] and r["samples"] > 0):
                problems.append(f"{where}: timed without a positive time, a passed check and samples")
        elif r["time_us"] is not None or not r["reason"]:
            problems.append(f"{where}: {r['status']} rows carry no time and say why")
    for entry in doc["first_calls"]:
        problems += [f"first call lacks '{k}': {entry}" for k in FIRST_CALL_KEYS if k not in entry]
    for entry in doc["not_offered"]:
        problems += [f"not_offered entry lacks '{k}': {entry}" for k in NOT_OFFERED_KEYS if k not in entry]
    return problems
