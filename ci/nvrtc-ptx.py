#!/usr/bin/env python3
"""Compiles one CUDA C file to PTX with NVRTC (libnvrtc.so.12 loaded through ctypes).

usage: nvrtc-ptx.py LIBNVRTC SOURCE.cu OUTPUT.ptx [NVRTC OPTION...]

Used by ci/gen-ptx.sh with the NVRTC of the pinned PyPI wheel nvidia-cuda-nvrtc-cu12==12.0.140,
so that the PTX has ISA .version 8.0 and loads on every driver from CUDA 12.0 on. The output
depends only on the source text, the options and the NVRTC build: the program is given the
source's base name, and nothing else (paths, time) reaches NVRTC.
"""
import ctypes
import os
import sys


def main():
    lib_path, src_path, out_path = sys.argv[1:4]
    options = sys.argv[4:]
    nvrtc = ctypes.CDLL(lib_path)
    nvrtc.nvrtcGetErrorString.restype = ctypes.c_char_p

    def check(result, what):
        if result != 0:
            msg = nvrtc.nvrtcGetErrorString(result).decode()
            raise SystemExit(f"nvrtc-ptx: {what} failed for {src_path}: {msg}")

    major, minor = ctypes.c_int(), ctypes.c_int()
    check(nvrtc.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
    with open(src_path, "rb") as f:
        source = f.read()
    prog = ctypes.c_void_p()
    check(nvrtc.nvrtcCreateProgram(ctypes.byref(prog), ctypes.c_char_p(source),
                                   ctypes.c_char_p(os.path.basename(src_path).encode()),
                                   0, None, None), "nvrtcCreateProgram")
    opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
    compiled = nvrtc.nvrtcCompileProgram(prog, len(options), opts)
    log_size = ctypes.c_size_t()
    check(nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(log_size)), "nvrtcGetProgramLogSize")
    log = ctypes.create_string_buffer(log_size.value)
    check(nvrtc.nvrtcGetProgramLog(prog, log), "nvrtcGetProgramLog")
    if log.value.strip():
        sys.stderr.write(log.value.decode(errors="replace"))
    check(compiled, "nvrtcCompileProgram")
    ptx_size = ctypes.c_size_t()
    check(nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(ptx_size)), "nvrtcGetPTXSize")
    ptx = ctypes.create_string_buffer(ptx_size.value)
    check(nvrtc.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX")
    nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    with open(out_path, "wb") as f:
        f.write(ptx.value)  # without the terminating NUL


if __name__ == "__main__":
    main()
