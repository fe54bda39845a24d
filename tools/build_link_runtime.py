#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Build link mode's runtime object, ownsan_link_runtime.o.

One relocatable object, made with `ld -r` from the runtime's and the core's
objects (the same sources as libownsan.so, compiled with OWNSAN_LINK_MODE=1)
and any --archives members they need (Abseil stays a shared library:
`ownsan link-flags` names it):

  * its code is one section, ownsan_text (interpose/link_mode.ld), so that
    stacks can leave the runtime's frames out (__start_/__stop_ownsan_text);
  * only the runtime's exported symbols stay global (those its own objects
    define with default visibility: the wrappers, the operator new/delete
    hooks, the longjmp/sigaction entries, the public ownsan_* API); the
    rest becomes local, so it never meets the program's own symbols.

With --wrap-list, it also writes the linker options of `-Wl,@ownsan.wrap`
to --wrap-out: the --wrap list, then `--undefined=LLVMFoo` for each C API
function the runtime calls on its own (the profile's hooks name objects
with LLVMGetValueName2, mlirOperationGetName...; wrappers size out-arrays
with LLVMCountParams...). A program need not call those; --undefined
brings their archive members in whatever the linker (lld 14 binds a
__real_LLVMFoo that nothing else pulls in to address 0); last,
--export-dynamic-symbol=ownsan_linked_runtime, the mark a preloaded runtime
stands aside for.

Usage:
  build_link_runtime.py --ld ld --objcopy objcopy --script link_mode.ld \\
      --out ownsan_link_runtime.o --objects A.o B.o ... [--archives A.a ...]
      [--wrap-list gen/ownsan.wrap --wrap-out lib/ownsan.wrap]
"""

import argparse
import os
import subprocess
import sys
from typing import List, Sequence


def exported_symbols(objects: Sequence[str]) -> List[str]:
    """Symbols the objects define as GLOBAL with default visibility (the
    runtime is compiled with -fvisibility=hidden: these are its exports;
    weak ones are inline functions and template instances, kept private)."""
    names = set()
    out = subprocess.run(["readelf", "-sW"] + list(objects), check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        fields = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(fields) < 8 or not fields[0].endswith(":"):
            continue
        bind, vis, ndx, name = fields[4], fields[5], fields[6], fields[7]
        if bind == "GLOBAL" and vis == "DEFAULT" and ndx != "UND":
            names.add(name)
    return sorted(names)


def own_real_calls(runtime_object: str) -> List[str]:
    """The C API functions (LLVMFoo of each __real_LLVMFoo) the runtime
    calls on its own: its strong undefined __real_ references. (Each
    wrapper's call of its own function is weak: a program links in only
    the LLVM it calls. The hooks' calls, and a wrapper's calls of other
    functions, such as LLVMCountParams to size LLVMGetParams' array, are
    strong.) The operator new/delete hooks' __real__Znwm... are left out:
    the C++ runtime, a shared library, defines those."""
    out = subprocess.run(["readelf", "-sW", runtime_object], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(fields) < 8 or not fields[0].endswith(":"):
            continue
        bind, ndx, name = fields[4], fields[6], fields[7]
        if (bind == "GLOBAL" and ndx == "UND" and name.startswith("__real_")
                and not name.startswith("__real__Z")):
            names.add(name[len("__real_"):])
    return sorted(names)


def write_wrap_options(wrap_list: str, runtime_object: str,
                       out: str) -> None:
    with open(wrap_list, encoding="utf-8") as f:
        text = f.read()
    wrapped = {line.strip()[len("--wrap="):] for line in text.splitlines()
               if line.strip().startswith("--wrap=")}
    extra = [name for name in own_real_calls(runtime_object)
             if name in wrapped]
    # (A response file has no comments: the lines say what they are.)
    text += "".join(f"--undefined={name}\n" for name in extra)
    # The mark a preloaded runtime stands aside for (`ownsan run` on the
    # program: src/runtime/runtime.cpp looks it up with dlsym), in the
    # executable's dynamic symbols, where only what a shared object it links
    # refers to goes by default.
    text += "--export-dynamic-symbol=ownsan_linked_runtime\n"
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(out + ".tmp", out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ld", required=True)
    parser.add_argument("--objcopy", required=True)
    parser.add_argument("--script", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--objects", nargs="+", required=True)
    parser.add_argument("--archives", nargs="*", default=[])
    parser.add_argument("--wrap-list", help="gen/ownsan.wrap")
    parser.add_argument("--wrap-out", help="the options file to write")
    args = parser.parse_args(argv)
    if bool(args.wrap_list) != bool(args.wrap_out):
        parser.error("--wrap-list and --wrap-out go together")
    # (CMake lists a target's precompiled header among its objects.)
    args.objects = [o for o in args.objects if not o.endswith(".pch")]
    merged = args.out + ".merged.o"
    group = (["--start-group"] + args.archives + ["--end-group"]
             if args.archives else [])
    # --force-group-allocation: the comdat groups (inline functions, template
    # instances) become plain sections. Their symbols turn local below, and
    # a group left in place would still make the final link drop the
    # program's own copy of it (same group name), leaving its calls unbound.
    subprocess.run([args.ld, "-r", "--force-group-allocation", "-T",
                    args.script, "-o", merged] +
                   args.objects + group, check=True)
    exports = exported_symbols(args.objects)
    # (ownsan_link_LLVMFoo, ownsan_link_mlirFoo: one per wrapped function.)
    if not any(name.startswith("ownsan_link_") for name in exports):
        print("build_link_runtime.py: no wrapper among the exports",
              file=sys.stderr)
        return 1
    keep = args.out + ".exports"
    with open(keep, "w", encoding="utf-8") as f:
        f.write("".join(name + "\n" for name in exports))
    subprocess.run([args.objcopy, f"--keep-global-symbols={keep}", merged,
                    args.out + ".tmp"], check=True)
    os.replace(args.out + ".tmp", args.out)
    os.remove(merged)
    if args.wrap_list:
        write_wrap_options(args.wrap_list, args.out, args.wrap_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
