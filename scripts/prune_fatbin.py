#!/usr/bin/env python3
"""Keeps one GPU architecture's device code in a shared library and zeroes the rest.

Usage: prune_fatbin.py IN.so OUT.so --arch 90

A CUDA shared library carries, in its ELF section .nv_fatbin, fat binaries holding one cubin per
architecture (and PTX). kbench used this to carry NVIDIA cuDSS (wheel nvidia-cudss-cu13,
libcudss.so.1: 167 MB, of which 15 MB is sm_90 code) to a GPU machine whose file transfer is
limited: every entry that is not an ELF cubin of --arch has its payload zeroed, in place, so
that offsets and sizes stay valid and the library compresses well (xz: 17 MB). The driver
loads the entry of the GPU's own architecture; the library then works only on that one.

Fat binary layout (as documented by the CUDA binary utilities and read by cuobjdump): a
container header {u32 magic 0xBA55ED50, u16 version, u16 header size, u64 payload size}, then
entries {u16 kind (1 PTX, 2 ELF), u16, u32 header size, u64 payload size, ..., u32 arch at
offset 28}. Exits with an error when the section or the architecture is missing.
"""
import argparse
import struct
import sys

FATBIN_MAGIC = 0xBA55ED50
KIND_ELF = 2


def section(data, name):
    """(offset, size) of the ELF64 section `name`."""
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]
    for h in headers:
        start = strtab + h[0]
        if data[start:data.index(b"\0", start)].decode() == name:
            return h[4], h[5]
    raise SystemExit(f"prune_fatbin: no section {name} (not a CUDA library?)")


def prune(data, arch):
    """Zeroes every fat binary entry but the ELF cubins of `arch`; returns (kept, zeroed) bytes."""
    pos, size = section(data, ".nv_fatbin")
    end = pos + size
    kept = zeroed = 0
    while pos < end:
        magic, _, header, payload = struct.unpack_from("<IHHQ", data, pos)
        if magic != FATBIN_MAGIC:  # containers are 8-byte aligned
            pos += 8
            continue
        entry, stop = pos + header, pos + header + payload
        while entry < stop:
            kind, _, eheader, esize = struct.unpack_from("<HHIQ", data, entry)
            earch = struct.unpack_from("<I", data, entry + 28)[0]
            body = entry + eheader
            if kind == KIND_ELF and earch == arch:
                kept += esize
            else:
                data[body:body + esize] = bytes(esize)
                zeroed += esize
            entry = body + esize
        pos = stop
    return kept, zeroed


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--arch", type=int, required=True, help="e.g. 90 for sm_90 (H100, H200)")
    a = p.parse_args()
    data = bytearray(open(a.input, "rb").read())
    kept, zeroed = prune(data, a.arch)
    if kept == 0:
        sys.exit(f"prune_fatbin: {a.input} has no sm_{a.arch} cubin; nothing written")
    open(a.output, "wb").write(data)
    print(f"kept {kept / 1e6:.1f} MB of sm_{a.arch} code, zeroed {zeroed / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
