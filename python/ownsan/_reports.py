# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The runtime's reports, collected with ownsan_set_error_callback."""

import ctypes
import threading

_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_char_p,
                             ctypes.c_void_p)


def summary_line(text):
    """'OwnSan: double-free in ...' from a report's SUMMARY line (the last
    one when there are several reports)."""
    lines = [l for l in text.splitlines() if l.startswith("SUMMARY: ")]
    return lines[-1][len("SUMMARY: "):] if lines else "OwnSan report"


class Reports:
    """Reports the runtime made since the last take(). The callback runs on
    the thread that made the offending call; it only appends (the runtime
    forbids calling it back from there)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._pending = []
        self._setter = None
        self._callback = None  # kept alive while installed
        self.outside = []  # reports no test owned (the plugin's summary)

    @property
    def active(self):
        return self._setter is not None

    def install(self):
        """True when the runtime is in the process and the callback is
        installed."""
        try:
            setter = ctypes.CDLL(None).ownsan_set_error_callback
        except (OSError, AttributeError):
            return False  # not under ownsan
        setter.restype = None
        setter.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self._callback = _CALLBACK(self._on_report)
        setter(ctypes.cast(self._callback, ctypes.c_void_p), None)
        self._setter = setter
        return True

    def uninstall(self):
        """Back to the runtime's default (print, then halt or continue)."""
        if self._setter is not None:
            self._setter(None, None)
            self._setter = None

    def _on_report(self, kind, report, user):
        text = (report or b"").decode("utf-8", "replace")
        with self._lock:
            self._pending.append(text)

    def take(self):
        """The reports since the last call, as one text ("" for none)."""
        with self._lock:
            found, self._pending = self._pending, []
        return "\n".join(t.rstrip("\n") for t in found) + (
            "\n" if found else "")
