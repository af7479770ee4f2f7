#!/usr/bin/env python3
"""Prints the global loads the compiler emits for each kernel of a CUDA file, by width.

    labs/02_global_memory/load_widths.py [--src FILE.cu] [--arch sm_90] [--check]

Compiles FILE (default: alignment_demo.cu beside this script) with nvcc to PTX and, where
cuobjdump is installed, to SASS, and lists per kernel the widths of its global loads
(ld.global[.v2|.v4] in PTX, LDG.E[.64|.128] in SASS). --check compares the demo's kernels with
what their alignment allows and exits 1 on a difference. Exit 77: no nvcc here.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# ld.global.v2.u32 {..}: 2 x 32 bits; ld.global.nc.f32: 32 bits. Vector count times element bits.
PTX_LOAD = re.compile(r"\bld\.global(?:\.nc)?(?:\.v(\d))?\.[busf](\d+)\b")
PTX_ENTRY = re.compile(r"^\.visible \.entry (\S+)\(", re.M)
SASS_FUNCTION = re.compile(r"Function : (\S+)")
SASS_LOAD = re.compile(r"\bLDG\.E(?:\.(64|128))?\b")

# What each instance of the demo's copy kernel must load with: one load per field, or one wide.
EXPECTED = {
    "TwoFloats": [32, 32],
    "TwoFloatsAligned": [64],
    "FourFloats": [32, 32, 32, 32],
    "FourFloatsAligned": [128],
    "float3": [32, 32, 32],
    "float4": [128],
}


def demangle(name):
    """_Z11copy_kernelI9TwoFloatsEvPKT_PS1_i -> TwoFloats (the template argument), else name."""
    m = re.match(r"_Z\d+copy_kernelI(\d+)(\w+)", name)
    if m:
        length = int(m.group(1))
        return m.group(2)[:length]
    return name


def ptx_loads(ptx):
    kernels = {}
    starts = [(m.start(), m.group(1)) for m in PTX_ENTRY.finditer(ptx)] + [(len(ptx), None)]
    for (begin, name), (end, _) in zip(starts, starts[1:]):
        kernels[name] = [int(v or 1) * int(bits) for v, bits in PTX_LOAD.findall(ptx[begin:end])]
    return kernels


def sass_loads(sass):
    kernels, name = {}, None
    for line in sass.splitlines():
        m = SASS_FUNCTION.search(line)
        if m:
            name = m.group(1)
            kernels[name] = []
        elif name:
            kernels[name] += [int(w or 32) for w in SASS_LOAD.findall(line)]
    return kernels


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=os.path.join(HERE, "alignment_demo.cu"))
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if not nvcc:
        print("load_widths: no nvcc here; the compiled code cannot be read", file=sys.stderr)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        ptx_file, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        common = [nvcc, "-O3", "-arch=" + args.arch, "-I" + HERE, args.src]
        run(common + ["-ptx", "-o", ptx_file])
        with open(ptx_file) as f:
            kernels = ptx_loads(f.read())
        source = "PTX (ld.global)"
        cuobjdump = shutil.which("cuobjdump")
        if cuobjdump:  # the machine code itself, where the tool is installed
            run(common + ["-cubin", "-o", cubin])
            kernels = sass_loads(run([cuobjdump, "-sass", cubin]))
            source = "SASS (LDG.E)"
    print(f"global loads per thread, from the {source} of {os.path.basename(args.src)} "
          f"for {args.arch}:")
    wrong = []
    for name, widths in sorted(kernels.items(), key=lambda kv: demangle(kv[0])):
        label = demangle(name)
        print(f"  {label:<20} {len(widths)} load(s): "
              + (", ".join(f"{w} bits" for w in widths) or "none"))
        if args.check and label in EXPECTED and sorted(widths) != sorted(EXPECTED[label]):
            wrong.append(f"{label}: expected {EXPECTED[label]}, got {widths}")
    if args.check:
        missing = sorted(set(EXPECTED) - {demangle(n) for n in kernels})
        wrong += [f"{label}: no such kernel in the compiled code" for label in missing]
        for line in wrong:
            print("MISMATCH " + line)
        return 1 if wrong else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
