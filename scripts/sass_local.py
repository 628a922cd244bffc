#!/usr/bin/env python3
"""Compile emitted CUDA C for sm_90 on a machine without a GPU and report what ptxas made of each kernel.

NVRTC, ptxas's report and cuobjdump/nvdisasm come from NVIDIA's Python wheels (nvidia-cuda-nvrtc-cu12,
nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm), fetched once with pip into a cache folder (SASS_TOOLS, default
~/.cache/dg-sass-tools); no driver is needed. dg compiles its kernels the same way (NVRTC, -std=c++17, the device's
architecture). For each source: registers, stack, spills and shared memory per kernel, and with --sass the kernel's
static SASS instruction counts (all, HMMA, DFMA/FFMA, LDS/STS, LDG/STG, LDC, BAR); --keep writes the listing beside
the source (NAME.sass).

Usage:  dg emit maxwell2d --order 8 --variant SPEC --target cuda > k.cu
        python3 scripts/sass_local.py [--sass] [--kernel NAME] [--keep] k.cu [more.cu ...]
"""
import argparse
import ctypes
import glob
import os
import re
import subprocess
import sys

TOOLS = os.environ.get("SASS_TOOLS", os.path.expanduser("~/.cache/dg-sass-tools"))
WHEELS = ["nvidia-cuda-nvrtc-cu12", "nvidia-cuda-cuobjdump", "nvidia-cuda-nvdisasm"]


def tools():
    """The NVRTC library and the folder holding cuobjdump and nvdisasm, installed on first use."""
    def find():
        nvrtc = glob.glob(os.path.join(TOOLS, "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so.*"))
        cuobjdump = glob.glob(os.path.join(TOOLS, "nvidia", "*", "bin", "cuobjdump"))
        return (nvrtc[0] if nvrtc else None), (os.path.dirname(cuobjdump[0]) if cuobjdump else None)
    nvrtc, bindir = find()
    if nvrtc is None or bindir is None:
        print(f"installing {', '.join(WHEELS)} into {TOOLS} (once)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", TOOLS, *WHEELS],
                       check=True)
        nvrtc, bindir = find()
        if nvrtc is None or bindir is None:
            sys.exit(f"the wheels did not provide libnvrtc and cuobjdump under {TOOLS}")
    for tool in glob.glob(os.path.join(bindir, "*")):
        os.chmod(tool, 0o755)
    return ctypes.CDLL(nvrtc), bindir


def compile_source(lib, source, arch, verbose):
    """(ok, log, cubin) of one NVRTC compilation."""
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), source, b"kernel.cu", 0, None, None) != 0:
        return False, "nvrtcCreateProgram failed", b""
    opts = [f"--gpu-architecture={arch}".encode(), b"-std=c++17"] + ([b"--ptxas-options=--verbose"] if verbose else [])
    ok = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts)) == 0
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    cubin = b""
    if ok:
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetCUBIN(prog, buf)
        cubin = buf.raw
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return ok, log.value.decode(errors="replace"), cubin


def resources(log):
    """{kernel: 'R registers, S bytes stack, spills st/ld, M bytes smem'} from ptxas's verbose log."""
    out, name = {}, None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            name = m.group(1)
            out[name] = []
        elif name and ("spill" in line or "registers" in line):
            out[name].append(re.sub(r"^ptxas\s+(info\s+:)?\s*\.?\s*", "", line).strip())
    return {k: "; ".join(v) for k, v in out.items()}


def sass_counts(listing):
    ops = re.findall(r"^\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", listing, re.M)
    count = lambda *names: sum(1 for o in ops if o in names)
    return (f"{len(ops)} instructions: HMMA {count('HMMA', 'DMMA')}, FFMA/DFMA {count('FFMA', 'DFMA')}, "
            f"LDS {count('LDS', 'LDSM')}, STS {count('STS')}, LDG {count('LDG')}, STG {count('STG')}, "
            f"LDC {count('LDC')}, BAR {count('BAR')}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources", nargs="+")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--sass", action="store_true", help="static SASS counts per kernel")
    parser.add_argument("--kernel", help="only this kernel")
    parser.add_argument("--keep", action="store_true", help="write SOURCE.sass")
    args = parser.parse_args()
    lib, bindir = tools()
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    failed = False
    for path in args.sources:
        with open(path, "rb") as f:
            ok, log, cubin = compile_source(lib, f.read(), args.arch, True)
        if not ok:
            print(f"{path}: does not compile\n{log}")
            failed = True
            continue
        for kernel, text in resources(log).items():
            if args.kernel and kernel != args.kernel:
                continue
            line = f"{path} {kernel}: {text}"
            if args.sass:
                cubin_path = path + ".cubin"
                with open(cubin_path, "wb") as f:
                    f.write(cubin)
                listing = subprocess.run(["cuobjdump", "-sass", "-fun", kernel, cubin_path], env=env, check=True,
                                         capture_output=True, text=True).stdout
                os.remove(cubin_path)
                if args.keep:
                    with open(f"{path}.sass" if not args.kernel else f"{path}.{kernel}.sass", "w") as f:
                        f.write(listing)
                line += f"; SASS {sass_counts(listing)}"
            print(line)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
