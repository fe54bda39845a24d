# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Parametrized tests: clean ones, and one seeded bug hit by three
parameters from the same lines (one problem, counted three times)."""
import pytest

from llvmbind import Context, Module


@pytest.mark.parametrize("n_blocks", [1, 2, 3])
def test_block_counts(n_blocks):
    c = Context()
    m = Module(c, "m")
    f = m.add_function("f", c.function_type(c.i32(), []))
    for i in range(n_blocks):
        f.append_block(c, f"b{i}")
    assert f.block_count() == n_blocks
    m.dispose()
    c.dispose()


@pytest.mark.seeded
@pytest.mark.parametrize("attempt", [0, 1, 2])
def test_block_count_after_context_dispose(attempt):
    c = Context()
    m = Module(c, "m")
    f = m.add_function("f", c.function_type(c.i32(), []))
    c.dispose()  # SEEDED-FREE: block-count-after-context-dispose
    f.block_count()  # SEEDED-USE: block-count-after-context-dispose
