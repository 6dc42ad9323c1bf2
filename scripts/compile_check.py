#!/usr/bin/env python3
"""Compile checks beside a configured build, from its compile commands (`ninja -t compdb`).

  device BUILD ARCH...   every CUDA source's device code for each ARCH (SASS: e.g. 75 120), device side
                         only (nvcc -fatbin: no host pass, which the build itself has compiled). It shows
                         that every kernel and every feature gate compiles for the oldest and newest GPU of
                         the portable list without paying for a build of each (docs/gpus.md).
  cuda12 BUILD INCLUDE   every C++ (host) source against another CUDA Toolkit's runtime headers (INCLUDE:
                         the folder holding cuda_runtime_api.h, e.g. the nvidia-cuda-runtime-cu12 wheel's),
                         syntax only: the host code uses no API that CUDA 12 lacks.

Sources run in parallel (-j, default: the machine's cores); --under FOLDER keeps those under a folder of
the repository (e.g. exercises). The first failures are printed whole, and the exit status is 1 if any
source failed.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def compile_commands(build):
    out = subprocess.run(["ninja", "-C", build, "-t", "compdb"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def without_outputs(args):
    """The arguments without dependency-file, output and compile-only flags."""
    kept, skip = [], 0
    for a in args:
        if skip:
            skip -= 1
            continue
        if a in ("-MT", "-MF", "-o"):
            skip = 1
            continue
        if a in ("-MD", "-c"):
            continue
        kept.append(a)
    return kept


def device_command(entry, archs, out_path):
    args = without_outputs(shlex.split(entry["command"]))
    args = [a for a in args if not a.startswith("--generate-code") and not a.startswith("-gencode")]
    gencode = [f"--generate-code=arch=compute_{a},code=sm_{a}" for a in archs]
    return args[:1] + gencode + args[1:] + ["-fatbin", "-o", out_path]


def cuda12_command(entry, include):
    args = without_outputs(shlex.split(entry["command"]))
    kept, skip = [], 0
    for i, a in enumerate(args):
        if skip:
            skip -= 1
            continue
        # The toolkit's own headers go; the other toolkit's runtime headers take their place.
        if a == "-isystem" and i + 1 < len(args) and "/cuda" in args[i + 1] and "site-packages" not in args[i + 1]:
            skip = 1
            continue
        if (a.startswith("-I") or a.startswith("-isystem")) and "/usr/local/cuda" in a:
            continue
        kept.append(a)
    return kept[:1] + ["-isystem", include] + kept[1:] + ["-fsyntax-only"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["device", "cuda12"])
    parser.add_argument("build")
    parser.add_argument("rest", nargs="+", help="device: architectures (75 120); cuda12: the include folder")
    parser.add_argument("-j", type=int, default=os.cpu_count())
    parser.add_argument("--under", help="only the sources under this folder of the repository")
    args = parser.parse_args()

    entries = compile_commands(args.build)
    if args.under:
        folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), args.under, "")
        entries = [e for e in entries if os.path.abspath(e["file"]).startswith(folder)]
    out_dir = tempfile.mkdtemp(prefix="compile_check.")
    if args.mode == "device":
        sources = [e for e in entries if e["file"].endswith(".cu")]
        commands = [(e, device_command(e, args.rest, os.path.join(out_dir, f"{i}.fatbin"))) for i, e in enumerate(sources)]
        what = "device code for " + ", ".join("sm_" + a for a in args.rest)
    else:
        include = os.path.abspath(args.rest[0])
        if not os.path.exists(os.path.join(include, "cuda_runtime_api.h")):
            sys.exit(f"compile_check: no cuda_runtime_api.h in {include}")
        sources = [e for e in entries if e["file"].endswith(".cpp")]
        commands = [(e, cuda12_command(e, include)) for e in sources]
        what = "host code against " + include

    def run(item):
        entry, command = item
        done = subprocess.run(command, cwd=entry["directory"], capture_output=True, text=True)
        return entry["file"], done.returncode, done.stdout + done.stderr

    failed = []
    with ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
        for path, code, output in pool.map(run, commands):
            if code != 0:
                failed.append(path)
                if len(failed) <= 3:
                    print(f"compile_check: FAILED {path}\n{output}", file=sys.stderr)
    subprocess.run(["rm", "-rf", out_dir])
    print(f"compile_check: {what}: {len(commands) - len(failed)} of {len(commands)} sources compiled"
          + (f"; failed: {', '.join(os.path.relpath(p) for p in failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
