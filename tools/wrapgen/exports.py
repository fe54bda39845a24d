# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the libraries export: `nm` of the shared library or the static
archives, read as the API's function names and the default symbol
version."""

import os
import subprocess
from typing import List, Optional, Sequence, Set, Tuple, Union

from wrapgen import api_profile
from wrapgen.model import GenError


def parse_nm_output(text: str) -> Set[str]:
    """Exported LLVM* function names (CONVENTIONS.prefix) from `nm -D
    --defined-only` output, or `nm --defined-only` of a static archive.

    Symbol versions (`@@LLVM_19.1`, `@LLVM_14`) are stripped.
    """
    names = set()
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        sym_type, name = fields[-2], fields[-1]
        if sym_type not in ("T", "W", "i"):
            continue  # not a function (or the version node itself)
        name = name.split("@", 1)[0]
        if name.startswith(api_profile.CONVENTIONS.prefix):
            names.add(name)
    return names


def parse_nm_version_node(text: str) -> Optional[str]:
    """The default symbol version of the LLVM* functions in `nm -D` output.

    Debian's libLLVM versions its exports (`LLVMFoo@@LLVM_19.1`,
    `@@LLVM_14`); None for a library without symbol versions. Two different
    default versions on LLVM* functions are an error: the runtime can carry
    only one.
    """
    nodes = set()
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 2 or fields[-2] not in ("T", "W", "i"):
            continue
        name, sep, version = fields[-1].partition("@@")
        if sep and name.startswith(api_profile.CONVENTIONS.prefix):
            nodes.add(version)
    if len(nodes) > 1:
        raise GenError(f"LLVM* functions with several default symbol"
                       f" versions: {sorted(nodes)}")
    return nodes.pop() if nodes else None


def is_archive(lib: str) -> bool:
    """A static archive (its members' symbols), not a shared library."""
    return lib.endswith(".a")


def nm_command(libs: Sequence[str]) -> List[str]:
    """`nm -D --defined-only` of a shared library (its dynamic symbols);
    `nm --defined-only` of static archives (every member's symbol table,
    all archives in one run: nm takes a second to start)."""
    return ["nm"] + ([] if is_archive(libs[0]) else ["-D"]) + [
        "--defined-only"] + list(libs)


def run_nm(lib: Union[str, Sequence[str]]) -> str:
    """The defined symbols of the library, or of the archives
    (nm_command)."""
    libs = [lib] if isinstance(lib, str) else list(lib)
    for path in libs:
        if not os.path.exists(path):
            raise GenError(f"library not found: {path}")
    command = nm_command(libs)
    try:
        result = subprocess.run(command, check=True, capture_output=True,
                                text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise GenError(f"{' '.join(command[:-len(libs) - 1])} failed on"
                       f" {' '.join(libs)}: {e}")
    return result.stdout


def read_exports(libs: Sequence[str]) -> Tuple[Set[str], Optional[str]]:
    """The LLVM* functions the libraries export (a function several
    archives define counts once) and the shared libraries' default symbol
    version (parse_nm_version_node; an archive's symbols have none)."""
    archives = [lib for lib in libs if is_archive(lib)]
    texts = [run_nm(lib) for lib in libs if not is_archive(lib)]
    exported: Set[str] = set()
    for text in texts + ([run_nm(archives)] if archives else []):
        exported |= parse_nm_output(text)
    return exported, parse_nm_version_node("".join(texts))


def read_exported_functions(lib: Union[str, Sequence[str]]) -> Set[str]:
    """The LLVM* functions the library (or libraries) export."""
    return read_exports([lib] if isinstance(lib, str) else lib)[0]
