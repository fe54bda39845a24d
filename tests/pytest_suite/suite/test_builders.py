# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Builders: building and verifying a function (clean), and one seeded
double dispose of a builder."""
import pytest

from llvmbind import Builder, Context, Module


@pytest.fixture
def ctx():
    c = Context()
    yield c
    c.dispose()


def build_add_one(ctx, m):
    i32 = ctx.i32()
    f = m.add_function("add_one", ctx.function_type(i32, [i32]))
    b = Builder(ctx)
    b.position_at_end(f.append_block(ctx, "entry"))
    b.ret(b.add(f.param(0), b.const_i32(1), "sum"))
    b.dispose()
    return f


def test_build_and_verify(ctx):
    m = Module(ctx, "m")
    f = build_add_one(ctx, m)
    assert f.block_count() == 1
    assert m.verify()
    assert "add i32 %0, 1" in m.ir()
    m.dispose()


def test_two_builders(ctx):
    a, b = Builder(ctx), Builder(ctx)
    assert a.handle != b.handle
    a.dispose()
    b.dispose()


@pytest.mark.seeded
def test_builder_disposed_twice(ctx):
    b = Builder(ctx)
    b.dispose()  # SEEDED-FREE: builder-disposed-twice
    b.dispose()  # SEEDED-USE: builder-disposed-twice
