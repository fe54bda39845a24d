# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Seeded tests make real ownership mistakes: without ownsan (which skips
the offending calls in continue mode) they would touch freed memory. When
the ownsan runtime is not in the process, they are skipped."""
import ctypes

import pytest

UNDER_OWNSAN = hasattr(ctypes.CDLL(None), "ownsan_handle_state")


def pytest_collection_modifyitems(config, items):
    if UNDER_OWNSAN:
        return
    skip = pytest.mark.skip(reason="seeded bug: run under `ownsan run`")
    for item in items:
        if item.get_closest_marker("seeded"):
            item.add_marker(skip)
