#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Build link mode's trampoline archive, libownsan_link_wrappers.a.

`ld --wrap=LLVMFoo` turns the program's calls to LLVMFoo into calls to
__wrap_LLVMFoo and leaves LLVMFoo itself unreferenced, so the member of the
static LLVM library that defines it would not be linked in. Each trampoline
here is its own archive member, extracted only when the program calls its
function:

    __wrap_LLVMFoo:  jmp ownsan_link_LLVMFoo   (the wrapper, in the runtime)
                     + a reference to __real_LLVMFoo (= LLVMFoo under --wrap)

The reference pulls in LLVM's definition; the wrappers themselves refer to
__real_LLVMFoo weakly, so a program links in only the LLVM it uses. A jump,
not a call: the trampoline leaves no frame in stacks.

Usage:
  build_link_trampolines.py --wrap-list build/gen/ownsan.wrap \\
      --out build/lib/libownsan_link_wrappers.a
"""

import argparse
import os
import struct
import sys
from typing import List, Sequence, Tuple

# x86-64 relocation types (the psABI).
R_X86_64_NONE = 0
R_X86_64_PLT32 = 4


def trampoline_object(name: str) -> bytes:
    """A relocatable ELF64 x86-64 object defining __wrap_<name> as
    `jmp ownsan_link_<name>` with an R_X86_64_NONE reference to
    __real_<name>: what `as` makes of

        __wrap_NAME: jmp ownsan_link_NAME@PLT
                     .reloc ., R_X86_64_NONE, __real_NAME
                     int3

    written directly (one process per function would make the build slow)."""
    # jmp rel32, then an int3 that is never reached: the R_X86_64_NONE
    # reference sits at offset 5, which gold accepts only inside the section.
    text = b"\xe9\x00\x00\x00\x00\xcc"
    strtab = b"\0"
    names = {}
    for sym in (f"__wrap_{name}", f"ownsan_link_{name}", f"__real_{name}"):
        names[sym] = len(strtab)
        strtab += sym.encode() + b"\0"
    shstrtab = b"\0"
    sec_names = {}
    for sec in (".text", ".rela.text", ".symtab", ".strtab", ".shstrtab",
                ".note.GNU-stack"):
        sec_names[sec] = len(shstrtab)
        shstrtab += sec.encode() + b"\0"
    # Symbols: null, .text's section symbol, then the globals.
    sym = struct.Struct("<IBBHQQ")
    symtab = sym.pack(0, 0, 0, 0, 0, 0)
    symtab += sym.pack(0, 3, 0, 1, 0, 0)  # STT_SECTION, local, .text
    symtab += sym.pack(names[f"__wrap_{name}"], (1 << 4) | 2, 0, 1, 0,
                       len(text))  # GLOBAL FUNC in .text
    symtab += sym.pack(names[f"ownsan_link_{name}"], 1 << 4, 0, 0, 0, 0)
    symtab += sym.pack(names[f"__real_{name}"], 1 << 4, 0, 0, 0, 0)
    rela = struct.Struct("<QQq")
    relocs = rela.pack(1, (3 << 32) | R_X86_64_PLT32, -4)
    relocs += rela.pack(5, (4 << 32) | R_X86_64_NONE, 0)

    body = b""
    offsets = {}
    for sec, data, align in ((".text", text, 16), (".rela.text", relocs, 8),
                             (".symtab", symtab, 8), (".strtab", strtab, 1),
                             (".shstrtab", shstrtab, 1)):
        pad = (-(64 + len(body))) % align
        body += b"\0" * pad
        offsets[sec] = 64 + len(body)
        body += data
    pad = (-(64 + len(body))) % 8
    body += b"\0" * pad
    shoff = 64 + len(body)
    shdr = struct.Struct("<IIQQQQIIQQ")
    headers = shdr.pack(*([0] * 10))
    headers += shdr.pack(sec_names[".text"], 1, 6, 0, offsets[".text"],
                         len(text), 0, 0, 16, 0)  # PROGBITS, AX
    headers += shdr.pack(sec_names[".rela.text"], 4, 0x40, 0,
                         offsets[".rela.text"], len(relocs), 3, 1, 8,
                         rela.size)  # RELA, INFO_LINK; link symtab, info text
    headers += shdr.pack(sec_names[".symtab"], 2, 0, 0, offsets[".symtab"],
                         len(symtab), 4, 2, 8, sym.size)  # first global: 2
    headers += shdr.pack(sec_names[".strtab"], 3, 0, 0, offsets[".strtab"],
                         len(strtab), 0, 0, 1, 0)
    headers += shdr.pack(sec_names[".shstrtab"], 3, 0, 0,
                         offsets[".shstrtab"], len(shstrtab), 0, 0, 1, 0)
    headers += shdr.pack(sec_names[".note.GNU-stack"], 1, 0, 0, shoff, 0, 0,
                         0, 1, 0)
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    ehdr = struct.pack("<16sHHIQQQIHHHHHH", ident, 1, 62, 1, 0, 0, shoff, 0,
                       64, 0, 0, shdr.size, 7, 5)
    return ehdr + body + headers


def wrapped_llvm_functions(wrap_list: str) -> List[str]:
    """The C API's names of an ownsan.wrap file (LLVM-C's, MLIR-C's...):
    every name but the C++ ones, operator new/delete (`_Znwm`, `_ZdlPv`),
    which have their hooks in the runtime object and need no trampoline."""
    names = []
    with open(wrap_list, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("--wrap=") and not line.startswith(
                    "--wrap=_Z"):
                names.append(line[len("--wrap="):])
    return names


def ar_member_header(name: str, size: int) -> bytes:
    """A System V / GNU ar member header (deterministic: zero date and ids)."""
    header = (f"{name:<16}{0:<12}{0:<6}{0:<6}{644:<8}{size:<10}`\n")
    assert len(header) == 60
    return header.encode()


def archive(members: Sequence[Tuple[str, bytes]]) -> bytes:
    """A GNU ar archive of (defined symbol, object) pairs with its symbol
    index, written directly (running `ar` costs more than the rest)."""
    index_names = b"".join(sym.encode() + b"\0" for sym, _ in members)
    index_size = 4 + 4 * len(members) + len(index_names)
    index_size += index_size % 2
    offset = 8 + 60 + index_size
    offsets = []
    body = b""
    for i, (_, obj) in enumerate(members):
        offsets.append(offset + len(body))
        body += ar_member_header(f"{i}.o/", len(obj)) + obj
        if len(obj) % 2:
            body += b"\n"
    index = struct.pack(">I", len(members))
    index += b"".join(struct.pack(">I", o) for o in offsets) + index_names
    index += b"\0" * (index_size - len(index))
    return b"!<arch>\n" + ar_member_header("/", index_size) + index + body


def build(names: Sequence[str], out: str) -> None:
    data = archive([(f"__wrap_{name}", trampoline_object(name))
                    for name in names])
    tmp_out = out + ".tmp"
    with open(tmp_out, "wb") as f:
        f.write(data)
    os.replace(tmp_out, out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wrap-list", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    names = wrapped_llvm_functions(args.wrap_list)
    if not names:
        print(f"build_link_trampolines.py: no C API function in "
              f"{args.wrap_list}", file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    build(names, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
