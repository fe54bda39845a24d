# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Whose code each frame of a stack is, as the runtime decides it
(src/report/frame_roles.cpp): the test runner's and the interpreter's
frames are folded (`... 22 frames in pytest`), and the frame a report
points at is the first of the user's code, past the binding's wrapper
(binding_frame, for every output of `ownsan report`; is_internal: the frames
left out of a leak's id).

Frames are ownsan_records.Frame objects (language, file, module, ...)."""

import os
import re

_PYTEST_NAMES = re.compile(
    r"^(?:_pytest|pytest|pluggy|xdist|execnet|py|py\.py|pytest-3|py\.test|"
    r"pytest_.*|_pytest.*)$")
_STDLIB = re.compile(r"/lib/python3[^/]*/(.*)$")
_NOT_OWN_MODULES = re.compile(
    r"^(?:libownsan|libLLVM|libc\.so|libc-|ld-linux|libstdc\+\+|libgcc_s|"
    r"libpthread|libdl[.-]|libffi|_ctypes|python|libpython)")


def runner_group(f):
    """'pytest', 'unittest' or 'python' for a Python frame of the test
    runner or the standard library; None for every other frame."""
    if not f.is_language:
        return None
    if not f.file or f.file.startswith("<"):
        return "python"
    m = _STDLIB.search(f.file)
    if m is None:
        if f.file.endswith("/ownsan/unittest.py"):  # python/ownsan
            return "unittest"
        base = os.path.basename(f.file)
        return "pytest" if _PYTEST_NAMES.match(base) else None
    rest = m.group(1)
    top, _, tail = rest.partition("/")
    if top in ("site-packages", "dist-packages"):
        top = tail.partition("/")[0]
        return "pytest" if _PYTEST_NAMES.match(top) else None
    return "unittest" if top == "unittest" else "python"


def is_own(f):
    """The program's own code: the binding and its user."""
    if f.is_language:
        return runner_group(f) is None
    if not f.module:
        return False
    return not _NOT_OWN_MODULES.match(os.path.basename(f.module))


def _binding_unit(path):
    """The top-level package directory (with '/') of a Python file, or the
    file itself outside a package."""
    d, top = os.path.dirname(path), None
    while d and os.path.exists(os.path.join(d, "__init__.py")):
        top, d = d, os.path.dirname(d)
    return top + "/" if top else path


def user_frame(stack):
    """The first frame of the user's code: in a Python stack, the first own
    Python frame outside the innermost own frame's file or package (the
    binding's wrapper), else that innermost frame; otherwise the first own
    frame; else the first frame with a file, else None."""
    first, unit = None, None
    for f in stack:
        if not is_own(f):
            continue
        if first is None:
            first = f
            if not f.is_language or not f.file:
                return f
            unit = _binding_unit(f.file)
            continue
        if f.is_language and f.file and not (
                f.file.startswith(unit) if unit.endswith("/")
                else f.file == unit):
            return f
    if first is not None:
        return first
    return next((f for f in stack if f.file), None)


def fold(stack, enabled=True):
    """The stack as a list of frames and (count, 'pytest, python') tuples:
    each run of two or more runner frames is one tuple."""
    out, run = [], []

    def flush():
        if len(run) >= 2:
            groups = []
            for g in (runner_group(f) for f in run):
                if g not in groups:
                    groups.append(g)
            out.append((len(run), ", ".join(groups)))
        else:
            out.extend(run)
        run.clear()

    for f in stack:
        if enabled and runner_group(f) is not None:
            run.append(f)
            continue
        flush()
        out.append(f)
    flush()
    return out


# --- which frame is the binding's --------------------------------------------

_NATIVE_MODULES = re.compile(
    r"^(?:libownsan|libLLVM|libpython|python\d*(?:\.\d+)?$|libffi|_ctypes|"
    r"libc[.-]|ld-linux|libstdc\+\+|libgcc_s|libpthread|libdl[.-])")
_NATIVE_FUNCTIONS = re.compile(
    r"^(?:__ownsan|ownsan::|_Py|Py[A-Z_]|ffi_|__libc_start|_start$|llvm::)")


def is_internal(f):
    """ownsan, libLLVM, the interpreter and test-runner internals."""
    if f.is_language:
        return runner_group(f) is not None
    if f.module and _NATIVE_MODULES.search(os.path.basename(f.module)):
        return True
    return bool(f.function and _NATIVE_FUNCTIONS.search(f.function))


def binding_frame(stack):
    """The frame a report points at. In a language (Python) stack, the first
    frame of the user's code past the binding's wrapper (the runtime's
    SUMMARY frame, user_frame); else the first native frame with a source
    file, skipping internals; failing that the first frame with a file."""
    uf = user_frame(stack)
    if uf is not None and uf.is_language and uf.file:
        return uf
    for f in stack:
        if not f.is_language and f.file and not is_internal(f):
            return f
    for f in stack:
        if f.file:
            return f
    return None
