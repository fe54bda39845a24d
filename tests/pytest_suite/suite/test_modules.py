# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Modules: creation, printing, verification (clean), and two seeded bugs:
a module disposed twice, and a fixture whose teardown disposes a module
after its context."""
import pytest

from llvmbind import Context, Module


@pytest.fixture
def ctx():
    c = Context()
    yield c
    c.dispose()


def test_create_and_dispose(ctx):
    m = Module(ctx, "a")
    m.dispose()


def test_ir_names_the_module(ctx):
    m = Module(ctx, "named_module")
    assert "named_module" in m.ir()
    m.dispose()


def test_two_modules_in_one_context(ctx):
    a, b = Module(ctx, "a"), Module(ctx, "b")
    assert a.handle != b.handle
    b.dispose()
    a.dispose()


def test_empty_module_verifies(ctx):
    m = Module(ctx, "empty")
    assert m.verify()
    m.dispose()


@pytest.mark.xfail(reason="an empty module has no functions", strict=True)
def test_expected_failure(ctx):
    m = Module(ctx, "empty")
    try:
        assert m.get_function("nothing") is not None
    finally:
        m.dispose()


@pytest.mark.seeded
def test_module_disposed_twice():
    c = Context()
    m = Module(c, "twice")
    m.dispose()  # SEEDED-FREE: module-disposed-twice
    m.dispose()  # SEEDED-USE: module-disposed-twice
    c.dispose()


@pytest.fixture
def module_in_context():
    c = Context()
    m = Module(c, "from_fixture")
    yield m
    c.dispose()  # SEEDED-FREE: module-after-context-in-teardown
    m.dispose()  # SEEDED-USE: module-after-context-in-teardown


@pytest.mark.seeded
def test_with_module_fixture(module_in_context):
    assert "from_fixture" in module_in_context.ir()
