# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Cooperating with ownsan from a ctypes binding (include/ownsan/ownsan.h).

The functions are looked up in the running process with dlsym: under
`ownsan run` they exist, otherwise they do not and the binding runs as
usual. Nothing links against ownsan.
"""
import ctypes
import threading

OWNSAN_HANDLE_UNKNOWN, OWNSAN_HANDLE_LIVE, OWNSAN_HANDLE_FREED = 0, 1, 2

ERROR_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_char_p,
                                  ctypes.c_void_p)


class LLVMMemoryError(Exception):
    """An LLVM-C call was given a handle whose object is gone."""

    def __init__(self, kind, report):
        super().__init__(f"{kind}: {report.splitlines()[0]}")
        self.kind = kind
        self.report = report


class Ownsan:
    def __init__(self):
        process = ctypes.CDLL(None)  # dlopen(NULL): the whole process
        self._state = getattr(process, "ownsan_handle_state", None)
        self._describe = getattr(process, "ownsan_describe_handle", None)
        self._set_callback = getattr(process, "ownsan_set_error_callback",
                                     None)
        self.present = None not in (self._state, self._describe,
                                    self._set_callback)
        if self.present:
            self._state.argtypes = [ctypes.c_void_p]
            self._state.restype = ctypes.c_int
            self._describe.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                       ctypes.c_size_t]
            self._describe.restype = ctypes.c_size_t
            self._set_callback.argtypes = [ERROR_CALLBACK, ctypes.c_void_p]
            self._set_callback.restype = None
        self._errors = threading.local()
        # Keep the C callable alive as long as ownsan may call it.
        self._callback = ERROR_CALLBACK(self._on_error)

    def handle_state(self, handle):
        """OWNSAN_HANDLE_LIVE / _FREED / _UNKNOWN (always unknown without
        ownsan)."""
        return self._state(handle) if self.present else OWNSAN_HANDLE_UNKNOWN

    def describe(self, handle):
        """The object's description and history, or None without ownsan."""
        if not self.present:
            return None
        size = self._describe(handle, None, 0) + 1
        buf = ctypes.create_string_buffer(size)
        self._describe(handle, buf, size)
        return buf.value.decode()

    def raise_on_errors(self, enable=True):
        """Turn ownsan's reports into LLVMMemoryError (see check())."""
        if self.present:
            # ERROR_CALLBACK() is a NULL function pointer: the default back.
            self._set_callback(self._callback if enable else ERROR_CALLBACK(),
                               None)

    def _on_error(self, kind, report, user):
        # Runs inside the LLVM-C call, on the calling thread: only remember.
        self._errors.pending = (kind.decode(), report.decode())

    def check(self):
        """Call after every LLVM-C call: raises the error ownsan reported
        during it. The call itself was skipped and returned 0 / NULL."""
        pending = getattr(self._errors, "pending", None)
        if pending:
            self._errors.pending = None
            raise LLVMMemoryError(*pending)


ownsan = Ownsan()


def checked(fn):
    """Wraps a ctypes function so ownsan's reports become exceptions."""
    def call(*args):
        result = fn(*args)
        ownsan.check()
        return result
    call.__name__ = fn.__name__
    return call
