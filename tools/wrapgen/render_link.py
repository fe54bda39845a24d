# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Rendering the linker's inputs: ownsan.wrap (link mode's --wrap list) and
ownsan.map (the runtime's version script)."""

from typing import Optional, Sequence

from wrapgen import api_profile
from wrapgen.model import Function
from wrapgen.render_sources import generated_banner


# What link mode wraps besides the LLVM-C functions: C++ operator new and
# delete (every variant libstdc++ defines), so that LLVM's own allocations
# and deletions reach the runtime whatever allocator the program brings
# (interpose/link_allocation.cpp defines a __wrap_ hook for each).
LINK_MODE_ALLOCATION_SYMBOLS = (
    "_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t",
    "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t",
    "_ZnwmSt11align_val_tRKSt9nothrow_t", "_ZnamSt11align_val_tRKSt9nothrow_t",
    "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZdlPvRKSt9nothrow_t",
    "_ZdaPvRKSt9nothrow_t", "_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t",
    "_ZdlPvSt11align_val_tRKSt9nothrow_t",
    "_ZdaPvSt11align_val_tRKSt9nothrow_t",
)


def render_link_wrap_list(functions: Sequence[Function]) -> str:
    """ownsan.wrap: the linker options of link mode (`-Wl,@ownsan.wrap`),
    one --wrap per wrapped function and (unless the library is a shared
    object) allocation function."""
    names = [fn.name for fn in functions]
    if api_profile.CONVENTIONS.wrap_allocation:
        names += list(LINK_MODE_ALLOCATION_SYMBOLS)
    return "".join(f"--wrap={name}\n" for name in names)


# C++ names the runtime's objects may define with default visibility
# although no source asks for it: instantiations of libstdc++ templates
# (std:: is declared visibility("default")), vtables, typeinfo, guard
# variables, function-local statics. None of operator new/delete's names
# (_Znw*, _Zna*, _Zdl*, _Zda*) matches.
VERSION_SCRIPT_LOCAL = ("_ZN*", "_ZS*", "_ZT*", "_ZGV*", "_ZZ*")


def render_version_script(major: int, spec_label: str,
                          version_node: Optional[str],
                          library: str = "libLLVM") -> str:
    """ownsan.map: the version script libownsan.so is linked with.

    The wrappers get the symbol version of the libLLVM they wrap. ld.so
    binds a versioned reference (a program's PLT slot for
    `LLVMFoo@LLVM_14`) to an unversioned definition of any object before
    it, so a runtime exporting plain `LLVMFoo` would take the calls a
    program makes into every libLLVM major. With `LLVMFoo@@LLVM_19.1` only
    references to that version (and unversioned ones) reach the wrapper;
    `LLVMFoo@LLVM_14` goes on to libLLVM-14. The other exports (dlsym,
    dlvsym, the ownsan.h API, operator new/delete) stay unversioned, so they
    keep interposing references of any version (`dlsym@GLIBC_2.34`,
    `_Znwm@GLIBCXX_3.4`). A script with a named version node cannot also
    have an anonymous one, nor `local: *` (that would hide those), so what
    is exported besides LLVM* is decided by visibility: the sources mark it
    (-fvisibility=hidden, static libraries linked with --exclude-libs), and
    the C++ names in VERSION_SCRIPT_LOCAL are kept local here. (Static
    archives, MLIR-C's, have no symbol versions: the script has none.)
    """
    local = "".join(f"    {pattern};\n" for pattern in VERSION_SCRIPT_LOCAL)
    node = f"{version_node} " if version_node else ""
    why = (f"the symbol version of the {library}'s own"
           f" {api_profile.CONVENTIONS.api_name} functions"
           if version_node else
           f"no version: the {library} it wraps has no symbol versions")
    prefix = api_profile.CONVENTIONS.prefix
    return (generated_banner(major, spec_label, "/*")[:-1] + " */\n"
            f"/* The wrappers ({prefix}*) carry {why}; see\n"
            f"   render_version_script in tools/wrapgen/render_link.py. */\n"
            f"{node}{{\n"
            f"  global:\n"
            f"    {prefix}*;\n"
            f"  local:\n"
            f"{local}"
            f"}};\n")
