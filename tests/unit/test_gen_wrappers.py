#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Tests for tools/gen_wrappers.py and its modules (tools/wrapgen/).

Run from the repository root:
    /usr/bin/python3 -m unittest tests/unit/test_gen_wrappers.py
or directly:
    /usr/bin/python3 tests/unit/test_gen_wrappers.py

The spec tests need nothing installed. The heuristics tests need
python3-clang-19; the end-to-end tests also need the LLVM 14/19 headers and
libraries, g++ and gcc, and are skipped when those are missing.
"""

import argparse
import contextlib
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
GENERATOR = os.path.join(REPO_ROOT, "tools", "gen_wrappers.py")
SPEC = os.path.join(REPO_ROOT, "src", "profiles", "llvm_c", "ownership.spec")
# What the build defines from the profile's descriptor (profile.cmake).
HANDLE_TYPES_DEFINE = '-DOWNSAN_HANDLE_TYPES_DEF="profiles/llvm_c/handle_types.def"'
INTERPOSE_DIR = os.path.join(REPO_ROOT, "interpose")
# The wrappers' header includes core/object_record.h from src/.
SRC_DIR = os.path.join(REPO_ROOT, "src")
PYTHON = sys.executable or "/usr/bin/python3"


# The generator's modules (tools/wrapgen/) and its driver, from tools/.
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
import gen_conventions as gc  # noqa: E402
from gen_wrappers import Result  # noqa: E402
from wrapgen import api_profile  # noqa: E402
from wrapgen.api_profile import read_handle_types  # noqa: E402
from wrapgen.classify import classify  # noqa: E402
from wrapgen.cxx_types import render_aliases  # noqa: E402
from wrapgen.exports import (nm_command, parse_nm_output,  # noqa: E402
                             parse_nm_version_node, read_exports)
from wrapgen.headers import (DEFAULT_LIBCLANG, list_headers,  # noqa: E402
                             parse_headers)
from wrapgen.kinds import (kind_set_table, parse_kinds_text,  # noqa: E402
                           render_kind_expectations, resolve_kinds)
from wrapgen.model import (COUNT_INT_TYPES, EFFECT_KINDS,  # noqa: E402
                           Effect, Function, GenError, HandleArray,
                           HandleOut, Param, SpecError)
from wrapgen.render_link import (LINK_MODE_ALLOCATION_SYMBOLS,  # noqa: E402
                                 render_link_wrap_list,
                                 render_version_script)
from wrapgen.render_reports import (classification_line,  # noqa: E402
                                    render_classification, render_coverage)
from wrapgen.render_sources import (generated_banner,  # noqa: E402
                                    render_fn_info, render_real_declarations)
from wrapgen.render_wrapper import (lends_string,  # noqa: E402
                                    render_reget, render_wrapper)
from wrapgen.spec import (parse_effect, parse_spec_text,  # noqa: E402
                          resolve_spec)


def have_libclang() -> bool:
    """True if clang.cindex and the default libclang are available."""
    if importlib.util.find_spec("clang") is None:
        return False
    return os.path.exists(DEFAULT_LIBCLANG)


def wrapper_body(cpp: str, name: str) -> str:
    """The text of the wrapper definition of `name` in wrappers.cpp."""
    m = re.search(r'^extern "C" OWNSAN_EXPORT [^\n]*OWNSAN_WRAPPER_NAME\(' +
                  re.escape(name) + r"\)\(.*?^}\n", cpp, re.M | re.S)
    if m is None:
        raise AssertionError(f"no wrapper for {name}")
    return m.group(0)


def fn_names(cpp: str) -> list:
    """kFnNames' names in order (wrappers.cpp)."""
    block = re.search(r"^const char kFnNames\[\] =\n(.*?);$", cpp,
                      re.M | re.S)
    if block is None:
        raise AssertionError("no kFnNames")
    return re.findall(r'^    "(\w+)\\0"', block.group(1) + "\n", re.M)


def fn_info_rows(cpp: str) -> dict:
    """kFnInfo's (name offset, first effect, effect count) by name."""
    return {m[4]: (int(m[1]), int(m[2]), int(m[3])) for m in re.finditer(
        r"^    \{(\d+), (\d+), (\d+), \d+\}, // (\w+)$", cpp, re.M)}


def fn_info_row(cpp: str, name: str) -> tuple:
    """kFnInfo's (name offset, first effect, effect count) for `name`."""
    row = fn_info_rows(cpp).get(name)
    if row is None:
        raise AssertionError(f"no kFnInfo row for {name}")
    return row


def make_fn(name, params, ret="void", ret_handle=None, ret_typedef=""):
    """A Function model from (name, spelling, handle, elem_handle) tuples."""
    plist = []
    for i, (pname, spelling, handle, elem) in enumerate(params):
        plist.append(Param(index=i, name=pname, spelling=spelling,
                           handle=handle, elem_handle=elem,
                           is_integer=spelling in COUNT_INT_TYPES))
    return Function(name=name, ret=ret, params=plist, ret_handle=ret_handle,
                    ret_typedef=ret_typedef)


# A small declared API for the spec resolution tests.
FAKE_DECLARED = {
    f.name: f for f in [
        make_fn("LLVMDisposeThing", [("T", "LLVMThingRef", "Other", None)]),
        make_fn("LLVMDisposeMessage", [("Message", "char *", None, None)]),
        make_fn("LLVMAttach", [("B", "LLVMBuilderRef", "Builder", None),
                               ("V", "LLVMValueRef", "Value", None),
                               ("Name", "const char *", None, None)]),
        make_fn("LLVMGetItems", [("M", "LLVMModuleRef", "Module", None),
                                 ("Name", "const char *", None, None),
                                 ("Dest", "LLVMValueRef *", None, "Value"),
                                 ("Count", "unsigned int", None, None)]),
        make_fn("LLVMCountItems", [("M", "LLVMModuleRef", "Module", None),
                                   ("Name", "const char *", None, None)],
                ret="unsigned int"),
        make_fn("LLVMCountHidden", [("M", "LLVMModuleRef", "Module", None)],
                ret="unsigned int"),
    ]
}
FAKE_WRAPPED = set(FAKE_DECLARED) - {"LLVMCountHidden"}


class SpecParsingTest(unittest.TestCase):
    """parse_spec_text: syntax of entry lines."""

    def test_good_lines(self):
        text = textwrap.dedent("""\
            # a comment

            LLVMFoo free(0) since=14 until=19  # why: Core.cpp
            LLVMBar attach(1,parent=0) attach(2,builder=0) detach(3)
            LLVMBaz out_array(2,count=LLVMCount(0,1)) out_array(1,count=arg(3))
            LLVMQux free_attached(0) free_detached(1) until=18
            """)
        entries = parse_spec_text(text, "x.spec")
        self.assertEqual([e.function for e in entries],
                         ["LLVMFoo", "LLVMBar", "LLVMBaz", "LLVMQux"])
        foo, bar, baz, qux = entries
        self.assertEqual(foo.line_no, 3)
        self.assertEqual((foo.since, foo.until), (14, 19))
        self.assertEqual(foo.effects, [Effect("free", 0)])
        self.assertEqual(bar.effects,
                         [Effect("attach", 1, other=0),
                          Effect("attach_at_builder", 2, other=0),
                          Effect("detach", 3)])
        self.assertEqual(baz.effects[0].count_fn, "LLVMCount")
        self.assertEqual(baz.effects[0].count_args, (0, 1))
        self.assertEqual(baz.effects[1].count_arg, 3)
        self.assertEqual((qux.since, qux.until), (None, 18))
        self.assertEqual([e.kind for e in qux.effects],
                         ["free_attached", "free_detached"])

    def test_struct_field_and_unterminated(self):
        entry = parse_spec_text(
            "LLVMMake own(2.MCJMM,by=out=0) consume_if_failed(2.MCJMM) "
            "forget(1.X) unterminated_message(ret)")[0]
        self.assertEqual(entry.effects[0],
                         Effect("own_by_out", 2, other=0, field="MCJMM"))
        self.assertEqual(entry.effects[1],
                         Effect("consume_if_failed", 2, field="MCJMM"))
        self.assertEqual(entry.effects[3].kind, "unterminated_message")
        self.assertEqual(
            " ".join(e.spec_text() for e in entry.effects),
            "own(2.MCJMM,by=out=0) consume_if_failed(2.MCJMM) forget(1.X) "
            "unterminated_message(ret)")
        # Fields only for effects that act after the call.
        for bad in ("consume(2.MCJMM)", "free(2.MCJMM)",
                    "free_message(1.X)", "unterminated_message(ret,parent=0)"):
            with self.subTest(bad=bad):
                with self.assertRaises(SpecError):
                    parse_spec_text(f"LLVMMake {bad}")

    def test_spec_text_round_trips(self):
        line = ("LLVMBaz out_array(2,count=LLVMCountItems(0,1)) "
                "attach(1,builder=0) attach(1,parent=0) "
                "out_array(1,count=arg(3))")
        entry = parse_spec_text(line)[0]
        self.assertEqual(" ".join(e.spec_text() for e in entry.effects),
                         line.split(" ", 1)[1])

    def test_applies_to(self):
        entry = parse_spec_text("LLVMFoo free(0) since=15 until=19")[0]
        self.assertFalse(entry.applies_to(14))
        self.assertTrue(entry.applies_to(15))
        self.assertTrue(entry.applies_to(19))
        self.assertFalse(entry.applies_to(22))

    def assertSpecError(self, line, fragment):
        """The line is rejected with a message naming line 2 and fragment."""
        text = "# header\n" + line + "\n"
        with self.assertRaises(SpecError) as ctx:
            parse_spec_text(text, "bad.spec")
        message = str(ctx.exception)
        self.assertTrue(message.startswith("bad.spec:2: "), message)
        self.assertIn(fragment, message)
        self.assertNotIn("\n", message)

    def test_unknown_effect(self):
        self.assertSpecError("LLVMFoo frees(0)", "unknown effect 'frees(0)'")

    def test_non_numeric_index(self):
        self.assertSpecError("LLVMFoo free(a)", "unknown effect 'free(a)'")

    def test_space_inside_parentheses(self):
        self.assertSpecError("LLVMFoo free( 0)", "unknown effect 'free('")

    def test_bad_attach_target(self):
        self.assertSpecError("LLVMFoo attach(1,sibling=0)",
                             "unknown effect 'attach(1,sibling=0)'")

    def test_bad_count_function(self):
        self.assertSpecError("LLVMFoo out_array(1,count=strlen(0))",
                             "unknown effect")

    def test_no_effect(self):
        self.assertSpecError("LLVMFoo since=14", "no effects")

    def test_since_after_until(self):
        self.assertSpecError("LLVMFoo free(0) since=19 until=14",
                             "since=19 is after until=14")

    def test_bad_function_name(self):
        self.assertSpecError("free(0) LLVMFoo", "expected a function name")


class SpecResolutionTest(unittest.TestCase):
    """resolve_spec: entries checked against the declarations."""

    def resolve(self, text, major=19):
        entries = parse_spec_text(text, "r.spec")
        return resolve_spec(entries, major, FAKE_DECLARED, FAKE_WRAPPED)

    def assertResolveError(self, text, fragment, major=19):
        with self.assertRaises(SpecError) as ctx:
            self.resolve(text, major)
        message = str(ctx.exception)
        self.assertTrue(message.startswith("r.spec:1: "), message)
        self.assertIn(fragment, message)

    def test_good_entries(self):
        effects = self.resolve(
            "LLVMDisposeThing free(0)\n"
            "LLVMAttach attach(1,builder=0)\n"
            "LLVMGetItems out_array(2,count=LLVMCountItems(0,1))\n")
        self.assertEqual(effects["LLVMDisposeThing"], [Effect("free", 0)])
        self.assertEqual(effects["LLVMAttach"][0].kind, "attach_at_builder")
        self.assertEqual(effects["LLVMGetItems"][0].count_args, (0, 1))

    def test_field_of_non_struct(self):
        self.assertResolveError("LLVMDisposeThing forget(0.Field)",
                                "is not a pointer to a struct")

    def test_unterminated_message_needs_string_result(self):
        self.assertResolveError("LLVMDisposeThing unterminated_message(ret)",
                                "not char *")

    def test_index_out_of_range(self):
        self.assertResolveError("LLVMDisposeThing free(1)",
                                "argument index 1 out of range")

    def test_other_index_out_of_range(self):
        self.assertResolveError("LLVMAttach attach(1,parent=7)",
                                "argument index 7 out of range")

    def test_count_index_out_of_range(self):
        self.assertResolveError(
            "LLVMGetItems out_array(2,count=LLVMCountItems(0,9))",
            "count argument index 9 out of range")

    def test_undeclared_function(self):
        self.assertResolveError("LLVMNoSuchThing free(0)",
                                "not declared in the LLVM 19 headers")

    def test_undeclared_function_outside_range_is_skipped(self):
        effects = self.resolve("LLVMNoSuchThing free(0) since=20\n"
                               "LLVMOther free(0) until=18\n")
        self.assertEqual(effects, {})

    def test_free_of_non_handle(self):
        self.assertResolveError("LLVMDisposeMessage free(0)",
                                "is not a handle")

    def test_attach_parent_non_handle(self):
        self.assertResolveError("LLVMAttach attach(1,parent=2)",
                                "parameter 2 (const char *) is not a handle")

    def test_renames_value(self):
        effects = self.resolve("LLVMAttach attach(1,builder=0) renames(1)\n")
        self.assertEqual(effects["LLVMAttach"][1], Effect("renames", 1))

    def test_renames_needs_value_block_or_module(self):
        self.assertResolveError("LLVMAttach renames(0)",
                                "is not a value, block or module")

    def test_data_only_value(self):
        effects = self.resolve("LLVMAttach data_only(1)\n")
        self.assertEqual(effects["LLVMAttach"], [Effect("data_only", 1)])

    def test_data_only_needs_value_or_type(self):
        self.assertResolveError("LLVMAttach data_only(0)",
                                "is not a value or type")
        self.assertResolveError("LLVMAttach data_only(2)",
                                "is not a value or type")

    def test_attach_builder_must_be_builder(self):
        self.assertResolveError("LLVMAttach attach(0,builder=1)",
                                "is not a builder")

    def test_out_array_on_non_array(self):
        self.assertResolveError("LLVMGetItems out_array(0,count=arg(3))",
                                "is not a handle array")

    def test_out_array_count_arg_not_integer(self):
        self.assertResolveError("LLVMGetItems out_array(2,count=arg(1))",
                                "is not an integer")

    def test_out_array_count_function_undeclared(self):
        self.assertResolveError("LLVMGetItems out_array(2,count=LLVMNope(0))",
                                "count function LLVMNope is not declared")

    def test_out_array_count_function_not_exported(self):
        self.assertResolveError(
            "LLVMGetItems out_array(2,count=LLVMCountHidden(0))",
            "not exported")

    def test_out_array_count_function_arity(self):
        self.assertResolveError(
            "LLVMGetItems out_array(2,count=LLVMCountItems(0))",
            "LLVMCountItems takes 2 arguments")

    def test_duplicate_entry(self):
        with self.assertRaises(SpecError) as ctx:
            self.resolve("LLVMDisposeThing free(0)\n"
                         "LLVMDisposeThing free(0)\n")
        self.assertIn("r.spec:2: ", str(ctx.exception))
        self.assertIn("duplicate entry (also on line 1)", str(ctx.exception))


# Declarations for the expected-kind tests.
KINDS_DECLARED = {
    f.name: f for f in [
        make_fn("LLVMFirst", [("Fn", "LLVMValueRef", "Value", None)],
                ret="LLVMValueRef", ret_handle="Value"),
        make_fn("LLVMBlockParent", [("BB", "LLVMBasicBlockRef", "BasicBlock",
                                     None)], ret="LLVMValueRef",
                ret_handle="Value"),
        make_fn("LLVMNamed", [("M", "LLVMModuleRef", "Module", None),
                              ("Name", "const char *", None, None)],
                ret="LLVMValueRef", ret_handle="Value"),
    ]
}


class KindsSpecTest(unittest.TestCase):
    """parse_kinds_text / resolve_kinds: the expected-kind table."""

    def resolve(self, text, major=19):
        return resolve_kinds(parse_kinds_text(text, "k.spec"), major,
                             KINDS_DECLARED)

    def assertKindsError(self, text, fragment, line=1):
        with self.assertRaises(SpecError) as ctx:
            self.resolve(text)
        message = str(ctx.exception)
        self.assertTrue(message.startswith(f"k.spec:{line}: "), message)
        self.assertIn(fragment, message)

    def test_sets_types_and_entries(self):
        expects = self.resolve(
            'kinds gv = function|global_variable "a global"  # why\n'
            "LLVMBasicBlockRef = block  # why\n"
            "LLVMFirst 0=gv  # why\n")
        self.assertEqual(expects["LLVMFirst"][0].kinds,
                         ("function", "global_variable"))
        self.assertEqual(expects["LLVMFirst"][0].description, "a global")
        # The type rule reaches every LLVMBasicBlockRef parameter.
        self.assertEqual(expects["LLVMBlockParent"][0].kinds, ("block",))
        self.assertEqual(expects["LLVMBlockParent"][0].description,
                         "a basic block")
        self.assertNotIn("LLVMNamed", expects)

    def test_version_range(self):
        self.assertEqual(self.resolve("LLVMFirst 0=function until=14  # w\n"),
                         {})
        self.assertEqual(self.resolve("LLVMGone 0=function until=14  # w\n"),
                         {})

    def test_errors(self):
        self.assertKindsError("LLVMFirst 0=function\n", "no `# why")
        self.assertKindsError("LLVMFirst 0=functon  # w\n",
                              "unknown kind 'functon'")
        self.assertKindsError("LLVMFirst 1=function  # w\n",
                              "argument 1 out of range")
        self.assertKindsError("LLVMNamed 0=function  # w\n",
                              "is not an LLVMValueRef")
        self.assertKindsError("LLVMGone 0=function  # w\n",
                              "not declared in the LLVM 19 headers")
        self.assertKindsError("LLVMFirst 0=function  # w\n"
                              "LLVMFirst 0=block  # w\n", "duplicate entry",
                              line=2)
        self.assertKindsError("LLVMModuleRef = function  # w\n",
                              "kinds apply to")

    def test_rendered_check_and_table(self):
        expects = self.resolve("LLVMFirst 0=function  # w\n")
        table = kind_set_table(expects)
        cls = classify(KINDS_DECLARED["LLVMFirst"], ())
        cls.expects = {0: (1, expects["LLVMFirst"][0])}
        text = render_wrapper(KINDS_DECLARED["LLVMFirst"], cls,
                              KINDS_DECLARED)
        self.assertIn("call.CheckHandle(0, p0, ownsan::HandleType::Value, 1);",
                      text)
        self.assertIn("kinds=[0:function]", classification_line(
            KINDS_DECLARED["LLVMFirst"], cls))
        rendered = render_kind_expectations(table)
        self.assertIn("{0, nullptr},", rendered)
        self.assertIn('{(1u << unsigned(ObjectKind::Function)), '
                      '"a function"},', rendered)


class NmParsingTest(unittest.TestCase):
    """parse_nm_output: versions stripped, only LLVM* functions kept."""

    def test_parse(self):
        text = textwrap.dedent("""\
            0000000000000000 A LLVM_19.1
            0000000002cbfb80 T LLVMABIAlignmentOfType@@LLVM_19.1
            0000000002cbfae0 T LLVMOld@LLVM_14
            0000000002cbfae0 W LLVMWeak@@LLVM_19.1
            0000000002cbfae0 D LLVMSomeData@@LLVM_19.1
            0000000002cbfae0 T _ZN4llvm3fooEv@@LLVM_19.1
            """)
        self.assertEqual(parse_nm_output(text),
                         {"LLVMABIAlignmentOfType", "LLVMOld", "LLVMWeak"})

    def test_version_node(self):
        """The default version of the LLVM* functions, if any."""
        text = textwrap.dedent("""\
            0000000000000000 A LLVM_19.1
            0000000002cbfb80 T LLVMABIAlignmentOfType@@LLVM_19.1
            0000000002cbfae0 T LLVMOld@LLVM_14
            0000000002cbfae0 T _ZN4llvm3fooEv@@OTHER
            """)
        self.assertEqual(parse_nm_version_node(text), "LLVM_19.1")
        self.assertIsNone(parse_nm_version_node(
            "0000000002cbfb80 T LLVMABIAlignmentOfType\n"))
        with self.assertRaises(GenError):
            parse_nm_version_node("1 T LLVMA@@LLVM_14\n2 T LLVMB@@V2\n")


class VersionScriptTest(unittest.TestCase):
    """render_version_script: LLVM* versioned, C++ leftovers local."""

    def test_versioned(self):
        text = render_version_script(19, "spec", "LLVM_19.1")
        body = re.sub(r"/\*.*?\*/", "", text, flags=re.S).split()
        self.assertEqual(body[:5], ["LLVM_19.1", "{", "global:", "LLVM*;",
                                    "local:"])
        self.assertEqual(body[-1], "};")
        self.assertNotIn("*;", body[5:])  # no `local: *`: dlsym stays global

    def test_unversioned_library(self):
        text = render_version_script(19, "spec", None)
        body = re.sub(r"/\*.*?\*/", "", text, flags=re.S).split()
        self.assertEqual(body[:4], ["{", "global:", "LLVM*;", "local:"])


FAKE_HEADER = textwrap.dedent("""\
    #ifndef FAKE_H
    #define FAKE_H
    #include <stddef.h>
    #include <stdint.h>
    #ifdef __cplusplus
    extern "C" {
    #endif
    typedef int LLVMBool;
    typedef struct LLVMOpaqueContext *LLVMContextRef;
    typedef struct LLVMOpaqueModule *LLVMModuleRef;
    typedef struct LLVMOpaqueModule *LLVMModuleProviderRef;
    typedef struct LLVMOpaqueValue *LLVMValueRef;
    typedef struct LLVMOpaqueBuilder *LLVMBuilderRef;
    typedef struct LLVMOpaqueError *LLVMErrorRef;
    typedef struct LLVMOpaqueWidget *LLVMWidgetRef;
    typedef void *LLVMVoidHandleRef;
    typedef void (*LLVMCallbackRef)(void *);
    typedef unsigned LLVMNumberRef;
    typedef struct LLVMOpaqueFlagEntry LLVMModuleFlagEntry;
    struct LLVMWidgetOptions {
      unsigned Level;
      LLVMWidgetRef Helper;
    };

    void LLVMUseArray(LLVMValueRef *Vals, unsigned NumVals);
    void LLVMUseArraySize(LLVMBuilderRef B, LLVMValueRef *Vals,
                          size_t ValsSize);
    void LLVMUseArrayLen(const LLVMWidgetRef *Ws, uint64_t Len);
    void LLVMUseArrayCount(LLVMModuleProviderRef *MPs, int MPCount);
    void LLVMNotArrayName(LLVMValueRef *Vals, unsigned Flags);
    void LLVMNotArrayType(LLVMValueRef *Vals, double NumVals);
    LLVMBool LLVMMakeModule(LLVMContextRef C, LLVMModuleRef *OutM,
                            char **OutMessage);
    LLVMErrorRef LLVMMakeWidget(LLVMWidgetRef *OutW);
    void LLVMMakeVoid(LLVMModuleRef *OutM);
    LLVMBool LLVMFindIt(LLVMValueRef *Result);
    void LLVMFillValues(LLVMModuleRef M, LLVMValueRef *Dest, unsigned NumDest);
    unsigned LLVMCountValues(LLVMModuleRef M);
    void LLVMGetValues(LLVMModuleRef M, LLVMValueRef *Dest);
    void LLVMDisposeWidget(LLVMWidgetRef W);
    void LLVMSetCallback(LLVMContextRef C, void (*Cb)(void *),
                         LLVMCallbackRef Cb2, LLVMVoidHandleRef H,
                         LLVMNumberRef N);
    int LLVMSum(const uint64_t Words[], unsigned NumWords);
    LLVMValueRef LLVMGetValue(LLVMModuleRef M);
    void LLVMNoArgs(void);
    LLVMModuleFlagEntry *LLVMCopyFlags(LLVMModuleRef M, size_t *Len);
    void LLVMDisposeFlags(LLVMModuleFlagEntry *Entries);
    LLVMBool LLVMMakeWithOptions(LLVMWidgetRef *OutW,
                                 struct LLVMWidgetOptions *Options,
                                 size_t SizeOfOptions);
    const char *LLVMRawName(LLVMWidgetRef W);
    void LLVMNotExported(void);
    static inline void LLVMInlineHelper(void) { LLVMNoArgs(); }
    void notAnLLVMFunction(void);
    #ifdef __cplusplus
    }
    #endif
    #endif
    """)

FAKE_SPEC = textwrap.dedent("""\
    # spec for the fake header
    LLVMDisposeWidget free(0)  # test
    LLVMFillValues out_array(1,count=arg(2))
    LLVMGetValues out_array(1,count=LLVMCountValues(0))
    LLVMSomethingNew free(0) since=99
    LLVMCopyFlags new(ret)
    LLVMDisposeFlags free(0)
    LLVMMakeWithOptions new(out=0,when=ok) own(1.Helper,by=out=0) \
        consume_if_failed(1.Helper)
    LLVMRawName unterminated_message(ret)
    """)


@unittest.skipUnless(have_libclang(), "needs python3-clang-19 and libclang")
class HeuristicsTest(unittest.TestCase):
    """Parsing and classification of a small fake llvm-c header."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ownsan-gw-")
        os.makedirs(os.path.join(cls.tmp, "llvm-c"))
        with open(os.path.join(cls.tmp, "llvm-c", "Fake.h"), "w",
                  encoding="utf-8") as f:
            f.write(FAKE_HEADER)
        cls.declared = parse_headers(cls.tmp, list_headers(cls.tmp))
        entries = parse_spec_text(FAKE_SPEC, "fake.spec")
        cls.effects = resolve_spec(entries, 19, cls.declared,
                                   set(cls.declared))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def classify(self, name):
        return classify(self.declared[name], self.effects.get(name, ()))

    def render(self, name):
        return render_wrapper(self.declared[name], self.classify(name),
                              self.declared)

    def test_declarations_collected(self):
        self.assertIn("LLVMUseArray", self.declared)
        self.assertIn("LLVMNoArgs", self.declared)
        self.assertNotIn("LLVMInlineHelper", self.declared)  # static inline
        self.assertNotIn("notAnLLVMFunction", self.declared)

    def test_handle_types(self):
        params = self.declared["LLVMSetCallback"].params
        self.assertEqual(params[0].handle, "Context")
        self.assertIsNone(params[1].handle)  # inline function pointer
        self.assertIsNone(params[2].handle)  # function pointer typedef
        self.assertEqual(params[3].handle, "Other")  # void * typedef
        self.assertIsNone(params[4].handle)  # *Ref that is not a pointer
        self.assertEqual(self.declared["LLVMGetValue"].ret_handle, "Value")
        self.assertEqual(self.declared["LLVMDisposeWidget"].params[0].handle,
                         "Other")
        self.assertEqual(
            self.declared["LLVMUseArrayCount"].params[0].elem_handle, "Module")

    def test_owned_struct_arrays_are_handles(self):
        copy = self.declared["LLVMCopyFlags"]
        self.assertEqual(copy.ret_handle, "Other")
        self.assertEqual(self.declared["LLVMDisposeFlags"].params[0].handle,
                         "Other")
        self.assertIsNone(self.declared["LLVMDisposeFlags"].params[0]
                          .elem_handle)
        self.assertIn('"LLVMModuleFlagEntry"', render_fn_info(
            [copy], {"LLVMCopyFlags": self.classify("LLVMCopyFlags")}))

    def test_struct_field_effects(self):
        fn = self.declared["LLVMMakeWithOptions"]
        self.assertEqual(fn.params[1].record, "struct LLVMWidgetOptions")
        self.assertEqual(fn.params[1].fields, {"Level": None,
                                               "Helper": "Other"})
        effects = self.classify("LLVMMakeWithOptions").effects
        # The field gets pseudo argument 3, after the three real ones.
        self.assertEqual([(e.kind, e.arg) for e in effects],
                         [("new", 0), ("own_by_out", 3),
                          ("consume_if_failed", 3)])
        text = self.render("LLVMMakeWithOptions")
        self.assertIn(
            "const void *args[] = {(const void *)p0, nullptr, nullptr, "
            "(p1 && (size_t)p2 >= offsetof(struct LLVMWidgetOptions, Helper)"
            " + sizeof(p1->Helper)) ? (const void *)p1->Helper : nullptr};",
            text)
        self.assertIn("own(1.Helper,by=out=0) consume_if_failed(1.Helper)",
                      classification_line(
                          fn, self.classify("LLVMMakeWithOptions")))
        # arg_type: the field's handle type (how an unseen helper is adopted).
        self.assertIn('{EffectKind::OwnByOut, 3, 0, kNoArg, "LLVMWidgetRef", '
                      'ownsan::HandleType::Other}',
                      render_fn_info([fn], {fn.name: self.classify(
                          fn.name)}))

    def test_bad_struct_fields(self):
        for line, fragment in [
                ("LLVMMakeWithOptions forget(1.Nope)", "has no field Nope"),
                ("LLVMMakeWithOptions forget(1.Level)", "is not a handle"),
        ]:
            with self.subTest(line=line):
                entries = parse_spec_text(line, "f.spec")
                with self.assertRaises(SpecError) as ctx:
                    resolve_spec(entries, 19, self.declared,
                                 set(self.declared))
                self.assertIn(fragment, str(ctx.exception))

    def test_input_arrays(self):
        expected = {
            "LLVMUseArray": [HandleArray(0, "Value", 1)],
            "LLVMUseArraySize": [HandleArray(1, "Value", 2)],
            "LLVMUseArrayLen": [HandleArray(0, "Other", 1)],
            "LLVMUseArrayCount": [HandleArray(0, "Module", 1)],
            "LLVMNotArrayName": [],
            "LLVMNotArrayType": [],
        }
        for name, arrays in expected.items():
            with self.subTest(name=name):
                self.assertEqual(self.classify(name).arrays, arrays)
        self.assertEqual(self.classify("LLVMNotArrayName").unchecked_ptrs,
                         [HandleOut(0, "Value")])

    def test_array_check_emitted(self):
        self.assertIn("call.CheckArray(1, (const void *const *)p1, "
                      "(size_t)p2, "
                      "ownsan::HandleType::Value);",
                      self.render("LLVMUseArraySize"))
        self.assertNotIn("CheckArray", self.render("LLVMNotArrayType"))

    def test_out_handles(self):
        make_module = self.classify("LLVMMakeModule")
        self.assertEqual(make_module.outs, [HandleOut(1, "Module")])
        self.assertEqual(make_module.out_condition, "r == 0")
        self.assertIn("if (r == 0 && p1)\n"
                      "      call.Returned(*p1, ownsan::HandleType::Module);",
                      self.render("LLVMMakeModule"))
        # An untyped handle is never registered: no call for it.
        self.assertEqual(self.classify("LLVMMakeWidget").outs,
                         [HandleOut(0, "Other")])
        self.assertNotIn("HandleType::Other);",
                         self.render("LLVMMakeWidget"))
        self.assertEqual(self.declared["LLVMCopyFlags"].ret_handle, "Other")
        self.assertNotIn("Returned", self.render("LLVMCopyFlags"))
        self.assertIn("call.Returned(r, ownsan::HandleType::Error);",
                      self.render("LLVMMakeWidget"))
        # A returned LLVMErrorRef is a new object the caller must consume.
        self.assertIn("call.Returned(r, ownsan::HandleType::Error);",
                      self.render("LLVMMakeWidget"))
        make_void = self.classify("LLVMMakeVoid")
        self.assertEqual(make_void.outs, [])
        self.assertEqual(make_void.out_unregistered,
                         [HandleOut(0, "Module")])
        self.assertNotIn("Returned", self.render("LLVMMakeVoid"))
        find_it = self.classify("LLVMFindIt")
        self.assertEqual(find_it.outs, [])
        self.assertEqual(find_it.unchecked_ptrs, [HandleOut(0, "Value")])

    def test_spec_out_array_overrides_input_heuristic(self):
        fill = self.classify("LLVMFillValues")
        self.assertEqual(fill.arrays, [])
        text = self.render("LLVMFillValues")
        self.assertNotIn("CheckArray", text)
        self.assertIn("call.OutArray(1, (const void *const *)p1, (size_t)p2, "
                      "ownsan::HandleType::Value);", text)
        self.assertNotIn("Before", text)  # out_array alone needs no hooks

    def test_out_array_with_count_function(self):
        text = self.render("LLVMGetValues")
        self.assertIn("call.OutArray(1, (const void *const *)p1, "
                      "(size_t)OWNSAN_REAL(LLVMCountValues, "
                      "unsigned int (*)(LLVMModuleRef))(p0), "
                      "ownsan::HandleType::Value);", text)
        # after the real call
        self.assertLess(text.index("OWNSAN_REAL(LLVMGetValues, "),
                        text.index("call.OutArray"))

    def test_free_hooks(self):
        text = self.render("LLVMDisposeWidget")
        self.assertIn("const void *args[] = {(const void *)p0};", text)
        check = text.index(
            "call.CheckHandle(0, p0, ownsan::HandleType::Other);")
        before = text.index("call.Before(args);")
        real = text.index("OWNSAN_REAL(LLVMDisposeWidget, "
                          "void (*)(LLVMWidgetRef))(p0);")
        after = text.index("call.After(args, nullptr, true);")
        self.assertLess(check, before)
        self.assertLess(before, real)
        self.assertLess(real, after)

    def test_aliases_for_function_pointers_and_arrays(self):
        functions = [self.declared["LLVMSetCallback"],
                     self.declared["LLVMSum"]]
        aliases = render_aliases(functions)
        self.assertIn("using LLVMSetCallback_p1 = void (*)(void *);", aliases)
        self.assertIn("using LLVMSum_p0 = const uint64_t[];", aliases)
        text = self.render("LLVMSetCallback")
        self.assertIn("ownsan::gen::LLVMSetCallback_p1 p1,", text)
        self.assertIn("LLVMCallbackRef p2", text)

    def test_link_mode_real_declarations(self):
        functions = [self.declared["LLVMNoArgs"],
                     self.declared["LLVMDisposeWidget"]]
        text = render_real_declarations(functions, "OWNSAN_REAL_WEAK ",
                                        strong={"LLVMNoArgs"})
        self.assertIn("decltype(::LLVMNoArgs) __real_LLVMNoArgs;\n", text)
        self.assertNotIn("OWNSAN_REAL_WEAK decltype(::LLVMNoArgs)", text)
        self.assertIn("OWNSAN_REAL_WEAK decltype(::LLVMDisposeWidget) "
                      "__real_LLVMDisposeWidget;", text)
        self.assertTrue(text.startswith("#if OWNSAN_LINK_MODE\n"))

    def test_link_mode_wrap_list(self):
        functions = [self.declared["LLVMNoArgs"],
                     self.declared["LLVMDisposeWidget"]]
        lines = render_link_wrap_list(functions).splitlines()
        self.assertEqual(lines[:2], ["--wrap=LLVMNoArgs",
                                     "--wrap=LLVMDisposeWidget"])
        self.assertIn("--wrap=_ZdlPv", lines)
        self.assertIn("--wrap=_Znwm", lines)
        self.assertEqual(len(lines), 2 + len(LINK_MODE_ALLOCATION_SYMBOLS))

    def test_zero_argument_function(self):
        text = self.render("LLVMNoArgs")
        self.assertIn("void OWNSAN_WRAPPER_NAME(LLVMNoArgs)() {", text)
        self.assertIn("OWNSAN_REAL(LLVMNoArgs, void (*)())();", text)
        self.assertNotIn("Checking", text)

    def test_classification_line(self):
        fn = self.declared["LLVMUseArraySize"]
        self.assertEqual(
            classification_line(fn, self.classify("LLVMUseArraySize")),
            "LLVMUseArraySize ret=- args=[0:Builder] arrays=[1:Value[2]]"
            " out=[] out_unregistered=[] unchecked_ptrs=[] effects=[]")


@unittest.skipUnless(have_libclang() and shutil.which("gcc")
                     and shutil.which("g++") and shutil.which("nm"),
                     "needs libclang, gcc, g++ and nm")
class FakeLibraryEndToEndTest(unittest.TestCase):
    """The whole generator on the fake header and a library built from it."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ownsan-gw-lib-")
        include = os.path.join(cls.tmp, "include")
        os.makedirs(os.path.join(include, "llvm-c"))
        with open(os.path.join(include, "llvm-c", "Fake.h"), "w",
                  encoding="utf-8") as f:
            f.write(FAKE_HEADER)
        # Exports every declared function but LLVMNotExported, plus one
        # function the header does not declare.
        names = [n for n in re.findall(r"\b(LLVM\w+)\(", FAKE_HEADER)
                 if n not in ("LLVMNotExported", "LLVMInlineHelper")]
        source = "".join(f"void {n}(void) {{}}\n" for n in sorted(set(names)))
        source += "void LLVMUndeclaredExport(void) {}\n"
        c_file = os.path.join(cls.tmp, "fake.c")
        with open(c_file, "w", encoding="utf-8") as f:
            f.write(source)
        cls.lib = os.path.join(cls.tmp, "libFake.so")
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", cls.lib, c_file],
                       check=True)
        cls.spec = os.path.join(cls.tmp, "fake.spec")
        with open(cls.spec, "w", encoding="utf-8") as f:
            f.write(FAKE_SPEC)
        cls.include = include
        cls.out = os.path.join(cls.tmp, "gen")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def run_generator(self, spec, major="19"):
        return subprocess.run(
            [PYTHON, GENERATOR, "--include-dir", self.include, "--lib",
             self.lib, "--llvm-major", major, "--spec", spec, "--out-dir",
             self.out], capture_output=True, text=True, check=False)

    def test_generates_and_compiles(self):
        result = self.run_generator(self.spec)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(),
                         "ownsan: wrapped 22 of 23 exported LLVM-C functions"
                         " (23 declared in headers), LLVM 19")
        coverage_path = os.path.join(self.out, "coverage.txt")
        with open(coverage_path, encoding="utf-8") as f:
            coverage = f.read()
        self.assertIn("exported_not_declared LLVMUndeclaredExport\n", coverage)
        self.assertIn("declared_not_exported LLVMNotExported\n", coverage)
        compile_cpp = subprocess.run(
            ["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra",
             "-Werror", HANDLE_TYPES_DEFINE, f"-I{self.include}",
             f"-I{INTERPOSE_DIR}",
             f"-I{SRC_DIR}", f"-I{self.out}",
             os.path.join(self.out, "wrappers.cpp")],
            capture_output=True, text=True, check=False)
        self.assertEqual(compile_cpp.returncode, 0, compile_cpp.stderr)

    def test_spec_error_exits_nonzero_with_one_line(self):
        bad_spec = os.path.join(self.tmp, "bad.spec")
        with open(bad_spec, "w", encoding="utf-8") as f:
            f.write("# bad\nLLVMDisposeWidget free(3)\n")
        result = self.run_generator(bad_spec)
        self.assertNotEqual(result.returncode, 0)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1,
                         result.stderr)
        self.assertIn("bad.spec:2: LLVMDisposeWidget: argument index 3 out of"
                      " range", result.stderr)

    def test_wrong_major_for_spec_range(self):
        # since=99 applies at 99, and LLVMSomethingNew is not declared.
        result = self.run_generator(self.spec, major="99")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("fake.spec:5: LLVMSomethingNew: not declared in the"
                      " LLVM 99 headers", result.stderr)


LLVM_INSTALLS = {
    14: ("/usr/lib/llvm-14/include", "/usr/lib/llvm-14/lib/libLLVM-14.so.1"),
    19: ("/usr/lib/llvm-19/include", "/usr/lib/llvm-19/lib/libLLVM.so.19.1"),
}


class RealLLVMEndToEndBase:
    """End-to-end run against an installed LLVM; subclasses set MAJOR."""

    MAJOR = 0

    @classmethod
    def setUpClass(cls):
        include, lib = LLVM_INSTALLS[cls.MAJOR]
        if not (have_libclang() and os.path.isdir(include)
                and os.path.exists(lib) and shutil.which("nm")):
            raise unittest.SkipTest(f"LLVM {cls.MAJOR} or libclang missing")
        cls.include = include
        cls.tmp = tempfile.mkdtemp(prefix=f"ownsan-gw-{cls.MAJOR}-")
        cls.result = subprocess.run(
            [PYTHON, GENERATOR, "--include-dir", include, "--lib", lib,
             "--llvm-major", str(cls.MAJOR), "--spec", SPEC, "--out-dir",
             cls.tmp], capture_output=True, text=True, check=False)
        cls.files = {}
        for name in ("fn_ids.h", "wrappers.cpp", "symbols.c", "coverage.txt",
                     "classification.txt"):
            path = os.path.join(cls.tmp, name)
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    cls.files[name] = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_run_succeeds_with_summary(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        m = re.fullmatch(r"ownsan: wrapped (\d+) of (\d+) exported LLVM-C"
                         r" functions \((\d+) declared in headers\),"
                         r" LLVM (\d+)",
                         self.result.stdout.strip())
        self.assertIsNotNone(m, self.result.stdout)
        wrapped, exported, declared, major = map(int, m.groups())
        self.assertEqual(major, self.MAJOR)
        self.assertGreater(wrapped, 1000)
        self.assertLessEqual(wrapped, exported)
        self.assertLessEqual(wrapped, declared)
        coverage = self.files["coverage.txt"]
        self.assertIn(f"llvm_major {self.MAJOR}\n", coverage)
        self.assertIn(f"exported {exported}\n", coverage)
        self.assertIn(f"declared {declared}\n", coverage)
        self.assertIn(f"wrapped {wrapped}\n", coverage)
        # LLVMRemarkVersion lives in libRemarks, not libLLVM (catalog T17).
        self.assertIn("declared_not_exported LLVMRemarkVersion\n", coverage)

    def test_dispose_module_frees_arg0(self):
        cpp = self.files["wrappers.cpp"]
        self.assertIn("    /* LLVMDisposeModule: */ "
                      "{EffectKind::Free, 0, 0, kNoArg, nullptr, "
                      "ownsan::HandleType::Module},\n", cpp)
        self.assertEqual(fn_info_row(cpp, "LLVMDisposeModule")[2], 1)
        # Each effect names its argument's C type (adoption of unseen
        # objects): a block, a consumed module.
        self.assertIn("/* LLVMDeleteBasicBlock: */ {EffectKind::Free"
                      "Attached, 0, 0, kNoArg, nullptr, "
                      "ownsan::HandleType::BasicBlock},\n", cpp)
        self.assertIn("/* LLVMLinkModules2: */ {EffectKind::Consume, "
                      "1, 0, kNoArg, nullptr, ownsan::HandleType::Module},\n",
                      cpp)
        body = wrapper_body(cpp, "LLVMDisposeModule")
        self.assertIn("call.Before(args);", body)
        self.assertIn("call.After(args, nullptr, true);", body)

    def test_build_call2_checks_args_array(self):
        body = wrapper_body(self.files["wrappers.cpp"], "LLVMBuildCall2")
        self.assertIn("call.CheckArray(3, (const void *const *)p3, "
                      "(size_t)p4, "
                      "ownsan::HandleType::Value);", body)
        self.assertIn("call.Returned(r, ownsan::HandleType::Value);", body)

    def test_parse_ir_registers_out_module(self):
        body = wrapper_body(self.files["wrappers.cpp"], "LLVMParseIRInContext")
        self.assertIn("if (r == 0 && p2)\n"
                      "      call.Returned(*p2, ownsan::HandleType::Module);",
                      body)

    def test_get_params_out_array(self):
        body = wrapper_body(self.files["wrappers.cpp"], "LLVMGetParams")
        self.assertIn("call.OutArray(1, (const void *const *)p1, "
                      "(size_t)OWNSAN_REAL(LLVMCountParams, "
                      "unsigned int (*)(LLVMValueRef))(p0), "
                      "ownsan::HandleType::Value);", body)

    def test_static_inline_skipped_macro_functions_kept(self):
        ids = self.files["fn_ids.h"]
        self.assertNotIn("kFn_LLVMInitializeAllTargets ", ids)
        self.assertIn("kFn_LLVMInitializeX86TargetInfo ", ids)

    def test_ids_dense_and_sorted(self):
        ids = re.findall(r"^  kFn_(\w+) = (\d+),$", self.files["fn_ids.h"],
                         re.M)
        self.assertGreater(len(ids), 1000)
        self.assertEqual([int(i) for _, i in ids], list(range(len(ids))))
        names = [n for n, _ in ids]
        self.assertEqual(names, sorted(names))
        self.assertIn(f"const unsigned kFnCount = {len(ids)};",
                      self.files["wrappers.cpp"])

    def test_fn_info_offsets_index_names_and_effects(self):
        cpp = self.files["wrappers.cpp"]
        names = fn_names(cpp)
        self.assertGreater(len(names), 1000)
        effects = dict(re.findall(r"^    /\* (\w+): \*/ (.*),$", cpp, re.M))
        self.assertTrue(effects)
        rows = fn_info_rows(cpp)
        offset = first = 0
        for name in names:
            count = effects.get(name, "").count("{EffectKind::")
            self.assertEqual(rows.get(name), (offset, first, count), name)
            offset += len(name) + 1
            first += count
        self.assertEqual(first, sum(e.count("{EffectKind::")
                                    for e in effects.values()))

    def test_context_exempt_from_the_effects(self):
        # serialized_by: every argument (0x80); data_only(i): bit i.
        cpp = self.files["wrappers.cpp"]
        def exempt(name):
            return int(re.search(r"^    \{\d+, \d+, \d+, (\d+)\}, // " +
                                 re.escape(name) + "$", cpp, re.M).group(1))
        self.assertEqual(exempt("LLVMRunFunction"), 0x80)
        self.assertEqual(exempt("LLVMBuildShuffleVector"), 1 << 3)
        self.assertEqual(exempt("LLVMConstShuffleVector"), 1 << 2)
        self.assertEqual(exempt("LLVMBuildAdd"), 0)

    def test_symbols_sorted_and_consistent(self):
        text = self.files["symbols.c"]
        self.assertNotIn("#include", text)
        # (Distances from the table, which the static linker fills in: no
        # pointers, so no relocation at start-up.)
        self.assertNotIn("(void *)", text)
        wrappers = re.findall(
            r'^    "  \.long (\w+) - ownsan_wrapper_offsets\\n"$', text, re.M)
        self.assertGreater(len(wrappers), 1000)
        cpp = self.files["wrappers.cpp"]
        names = fn_names(cpp)
        self.assertEqual(names, sorted(names, key=lambda s: s.encode()))
        self.assertEqual(len(set(names)), len(names))
        ids = dict(re.findall(r"^  kFn_(\w+) = (\d+),$",
                              self.files["fn_ids.h"], re.M))
        self.assertEqual(len(wrappers), len(names))
        for fn_id, (name, wrapper) in enumerate(zip(names, wrappers)):
            # (Each wrapper's hidden alias, defined in wrappers.cpp.)
            self.assertEqual("ownsan_wrapper_" + name, wrapper)
            self.assertEqual(int(ids[name]), fn_id)
        self.assertIn('"  .hidden ownsan_wrapper_offsets\\n"', text)
        for name in names:
            self.assertIn(f'__attribute__((alias("{name}"), '
                          f'visibility("hidden"))) decltype(::{name}) '
                          f"ownsan_wrapper_{name};", cpp)

    def test_frees_of_malloced_arrays_are_marked(self):
        cpp = self.files["wrappers.cpp"]
        self.assertIn("/* LLVMDisposeValueMetadataEntries: */ "
                      "{EffectKind::Free, 0, 0, kFreesMallocedArray,", cpp)
        self.assertIn("/* LLVMDisposeModuleFlagsMetadata: */ "
                      "{EffectKind::Free, 0, 0, kFreesMallocedArray,", cpp)
        line = re.search(r"^    /\* LLVMDisposeModule: \*/.*$",
                         cpp, re.M).group(0)
        self.assertNotIn("kFreesMallocedArray", line)

    def test_classification_golden_lines(self):
        text = self.files["classification.txt"]
        self.assertIn("\nLLVMBuildAdd ret=Value args=[0:Builder 1:Value"
                      " 2:Value] arrays=[] out=[] out_unregistered=[]"
                      " unchecked_ptrs=[] effects=[]\n", text)
        self.assertIn("\nLLVMInsertIntoBuilderWithName ret=- args=[0:Builder"
                      " 1:Value] arrays=[] out=[] out_unregistered=[]"
                      " unchecked_ptrs=[] effects=[attach(1,builder=0) renames(1)]\n",
                      text)
        self.assertIn("\nLLVMGetNamedMetadataOperands ret=- args=[0:Module]"
                      " arrays=[] out=[] out_unregistered=[] unchecked_ptrs=[]"
                      " effects=[out_array(2,count="
                      "LLVMGetNamedMetadataNumOperands(0,1))]\n", text)

    def test_banner(self):
        self.assertTrue(self.files["wrappers.cpp"].startswith(
            "// GENERATED by tools/gen_wrappers.py from the llvm-c headers of"
            f" LLVM {self.MAJOR} and src/profiles/llvm_c/ownership.spec - DO NOT EDIT\n"))

    @unittest.skipUnless(shutil.which("g++"), "needs g++")
    def test_wrappers_compile_cleanly(self):
        result = subprocess.run(
            ["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra",
             "-Werror", "-Wno-deprecated-declarations", HANDLE_TYPES_DEFINE,
             f"-I{self.include}",
             f"-I{INTERPOSE_DIR}", f"-I{SRC_DIR}", f"-I{self.tmp}",
             os.path.join(self.tmp, "wrappers.cpp")],
            capture_output=True, text=True, check=False)
        self.assertEqual(result.returncode, 0, result.stderr[:4000])

    @unittest.skipUnless(shutil.which("gcc"), "needs gcc")
    def test_symbols_compile_cleanly(self):
        result = subprocess.run(
            ["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-c",
             os.path.join(self.tmp, "symbols.c"), "-o",
             os.path.join(self.tmp, "symbols.o")],
            capture_output=True, text=True, check=False)
        self.assertEqual(result.returncode, 0, result.stderr[:4000])


class RealLLVM19Test(RealLLVMEndToEndBase, unittest.TestCase):
    """LLVM 19: has LLVMDeleteInstruction (spec since=15)."""

    MAJOR = 19

    def test_delete_instruction_frees_detached(self):
        self.assertIn("    /* LLVMDeleteInstruction: */ "
                      "{EffectKind::FreeDetached, 0, 0, kNoArg, nullptr, "
                      "ownsan::HandleType::Value},\n",
                      self.files["wrappers.cpp"])


class RealLLVM14Test(RealLLVMEndToEndBase, unittest.TestCase):
    """LLVM 14: the since=15 entry is skipped, not an error."""

    MAJOR = 14

    def test_delete_instruction_absent(self):
        self.assertNotIn("LLVMDeleteInstruction", self.files["fn_ids.h"])
        self.assertIn("declared_not_exported"
                      " LLVMOrcObjectLayerAddObjectFileWithRT\n",
                      self.files["coverage.txt"])



# --------------------------------------------------------------------------
# Another API's conventions (tools/gen_conventions.py): MLIR-C's
# --------------------------------------------------------------------------

# MLIR-C's options, as src/profiles/mlir_c/profile.cmake passes them.
MLIR_OPTIONS = [
    "--prefix", "mlir", "--header-glob", "mlir-c/**/*.h",
    "--exclude-header", "mlir-c/Bindings/Python/Interop.h",
    "--struct-handles", "--pointer-handles=",
    "--count-before=^(n|num)([A-Z].*)?$", "--count-after=^size$",
    "--out-success=MlirLogicalResult=r.value != 0",
    "--string-ref", "MlirStringRef"]
MLIR_HANDLE_TYPES = os.path.join(REPO_ROOT, "src", "profiles", "mlir_c",
                                 "handle_types.def")


def conventions_from(options):
    """The Conventions a command line's options choose."""
    parser = argparse.ArgumentParser()
    gc.add_arguments(parser)
    return gc.from_args(parser.parse_args(options))


@contextlib.contextmanager
def using(conventions, named_handle_types=None):
    """Runs the generator's functions with these conventions (and handle
    typedefs), as main() would set them."""
    saved = api_profile.CONVENTIONS, api_profile.NAMED_HANDLE_TYPES
    api_profile.CONVENTIONS = conventions
    if named_handle_types is not None:
        api_profile.NAMED_HANDLE_TYPES = named_handle_types
    try:
        yield
    finally:
        api_profile.CONVENTIONS, api_profile.NAMED_HANDLE_TYPES = saved


class ConventionsTest(unittest.TestCase):
    """gen_conventions: the options, and what they change."""

    def test_defaults_are_llvm_c(self):
        conv = conventions_from([])
        self.assertEqual(conv, gc.Conventions())
        self.assertEqual(conv.prefix, "LLVM")
        self.assertEqual(conv.header_globs,
                         ("llvm-c/*.h", "llvm-c/Transforms/*.h"))
        self.assertEqual(conv.excluded_headers, ("llvm-c/lto.h",))
        self.assertFalse(conv.struct_handles)
        self.assertEqual(conv.string_ref, "")
        self.assertEqual(conv.out_success_conditions,
                         {"LLVMBool": "r == 0", "LLVMErrorRef": "r == nullptr"})
        self.assertEqual((conv.header_dir, conv.api_name),
                         ("llvm-c", "LLVM-C"))

    def test_mlir_options(self):
        conv = conventions_from(MLIR_OPTIONS)
        self.assertEqual(conv.prefix, "mlir")
        self.assertEqual(conv.header_globs, ("mlir-c/**/*.h",))
        self.assertEqual(conv.excluded_headers,
                         ("mlir-c/Bindings/Python/Interop.h",))
        self.assertTrue(conv.struct_handles)
        self.assertEqual(conv.string_ref, "MlirStringRef")
        self.assertIsNone(conv.pointer_handle_re())
        self.assertEqual(conv.out_success_conditions,
                         {"MlirLogicalResult": "r.value != 0"})
        self.assertEqual((conv.header_dir, conv.api_name),
                         ("mlir-c", "MLIR-C"))
        # Globs of its own: no llvm-c exclusion is kept.
        self.assertEqual(conventions_from(
            ["--header-glob", "x/*.h"]).excluded_headers, ())

    def test_extra_includes(self):
        self.assertEqual(conventions_from([]).extra_includes, ())
        conv = conventions_from(MLIR_OPTIONS + [
            "--extra-include", "/a/include", "--extra-include", "/b"])
        self.assertEqual(conv.extra_includes, ("/a/include", "/b"))

    @unittest.skipUnless(have_libclang(), "needs python3-clang-19 and libclang")
    def test_extra_include_reaches_libclang(self):
        # mlir-c/Target/LLVMIR.h includes llvm-c/Core.h: with MLIR unpacked
        # apart from its LLVM, the llvm-c headers are in another directory;
        # their functions are not the API's.
        tmp = tempfile.mkdtemp(prefix="ownsan-gw-extra-")
        self.addCleanup(shutil.rmtree, tmp)
        mlir, llvm = os.path.join(tmp, "mlir"), os.path.join(tmp, "llvm")
        os.makedirs(os.path.join(mlir, "mlir-c"))
        os.makedirs(os.path.join(llvm, "llvm-c"))
        with open(os.path.join(llvm, "llvm-c", "Core.h"), "w") as f:
            f.write("typedef struct LLVMOpaqueType *LLVMTypeRef;\n"
                    "void LLVMThing(void);\n")
        with open(os.path.join(mlir, "mlir-c", "LLVMIR.h"), "w") as f:
            f.write('#include "llvm-c/Core.h"\n'
                    "struct MlirType { void *ptr; };\n"
                    "typedef struct MlirType MlirType;\n"
                    "LLVMTypeRef mlirTypeToLLVM(MlirType t);\n")
        with using(conventions_from(MLIR_OPTIONS)):
            headers = list_headers(mlir)
            self.assertEqual(headers, ["mlir-c/LLVMIR.h"])
            with self.assertRaisesRegex(GenError, "llvm-c/Core.h"):
                parse_headers(mlir, headers)
        with using(conventions_from(MLIR_OPTIONS + ["--extra-include", llvm])):
            declared = parse_headers(mlir, headers)
        self.assertEqual(sorted(declared), ["mlirTypeToLLVM"])
        self.assertEqual(declared["mlirTypeToLLVM"].header, "mlir-c/LLVMIR.h")

    def test_bad_options(self):
        for options in (["--out-success", "MlirLogicalResult"],
                        ["--out-success", "=r"],
                        ["--count-before", "("],
                        ["--prefix", "ml-ir"]):
            with self.subTest(options=options):
                with self.assertRaises(ValueError):
                    conventions_from(options)

    def test_library_label(self):
        self.assertEqual(gc.library_label(
            ["/usr/lib/llvm-19/lib/libLLVM.so.19.1"]), "libLLVM")
        self.assertEqual(gc.library_label(
            ["/usr/lib/llvm-14/lib/libLLVM-14.so.1"]), "libLLVM")
        self.assertEqual(gc.library_label(
            ["/l/libMLIRCAPIIR.a", "/l/libMLIRCAPIArith.a"]), "libMLIRCAPI*")

    def test_spec_names_take_the_prefix(self):
        with using(conventions_from(MLIR_OPTIONS)):
            entries = parse_spec_text(
                "mlirContextDestroy free(0)\n"
                "mlirGetThings out_array(1,count=mlirCountThings(0))\n")
            self.assertEqual([e.function for e in entries],
                             ["mlirContextDestroy", "mlirGetThings"])
            self.assertEqual(entries[1].effects[0].count_fn,
                             "mlirCountThings")
            with self.assertRaises(SpecError) as ctx:
                parse_spec_text("LLVMContextDispose free(0)\n", "m.spec")
            self.assertIn("expected a function name", str(ctx.exception))
            with self.assertRaises(SpecError):
                parse_spec_text(
                    "mlirGet out_array(1,count=LLVMCount(0))\n")
            with self.assertRaises(SpecError):
                parse_kinds_text("LLVMFirst 0=function  # w\n")
        with self.assertRaises(SpecError):
            parse_spec_text("mlirContextDestroy free(0)\n")

    def test_texts_name_the_api(self):
        with using(conventions_from(MLIR_OPTIONS)):
            self.assertTrue(generated_banner(19, "s.spec", "//").startswith(
                "// GENERATED by tools/gen_wrappers.py from the mlir-c"
                " headers of LLVM 19 and s.spec"))
            script = render_version_script(19, "s", None, "libMLIRCAPI*")
            self.assertIn("\n    mlir*;\n", script)
            self.assertNotIn("LLVM*", script)
            coverage = render_coverage(19, {"mlirA"}, {}, [], [],
                                       "libMLIRCAPI*")
            self.assertIn("# exported by libMLIRCAPI* but not declared in the"
                          " mlir-c headers (1)", coverage)
            self.assertEqual(Result(set(), {}, [], {}).summary(19),
                             "ownsan: wrapped 0 of 0 exported MLIR-C functions"
                             " (0 declared in headers), LLVM 19")

    def test_handle_types_table_rows_of_every_profile(self):
        """The MLIR-C table's OWNSAN_WATCHED_* and OWNSAN_KIND_ALSO_NAMED
        rows are not handle types or kinds."""
        named, kinds = read_handle_types(MLIR_HANDLE_TYPES)
        self.assertEqual(named["MlirOperation"], "Operation")
        self.assertEqual(named["MlirBlock"], "BasicBlock")
        self.assertEqual(len(named), 9)
        self.assertEqual(kinds[:3], ["Unknown", "Context", "Module"])
        self.assertEqual(len(kinds), len(set(kinds)))


class ArchiveNmTest(unittest.TestCase):
    """Exports of static archives: `nm --defined-only`, no versions."""

    NM_ARCHIVE = textwrap.dedent("""\

        IR.cpp.o:
        0000000000000000 t _ZL5helperv
        0000000000000010 T mlirContextCreate
        0000000000000020 T mlirContextDestroy
        0000000000000000 W _ZN4mlir6detail15CallbackOstreamD2Ev
        0000000000000000 V _ZTVN4mlir6detail15CallbackOstreamE
        0000000000000000 r .L.str

        Arith.cpp.o:
        0000000000000000 T mlirGetDialectHandle__arith__
        0000000000000008 W mlirInlineDefinedTwice
        0000000000000008 W mlirInlineDefinedTwice
        0000000000000000 D mlirSomeData
        0000000000000000 T LLVMNotOurs
        """)

    def test_parse_archive_output(self):
        with using(conventions_from(MLIR_OPTIONS)):
            self.assertEqual(parse_nm_output(self.NM_ARCHIVE),
                             {"mlirContextCreate", "mlirContextDestroy",
                              "mlirGetDialectHandle__arith__",
                              "mlirInlineDefinedTwice"})
            self.assertIsNone(parse_nm_version_node(self.NM_ARCHIVE))
        # The LLVM-C prefix picks the other one.
        self.assertEqual(parse_nm_output(self.NM_ARCHIVE), {"LLVMNotOurs"})

    def test_nm_command(self):
        self.assertEqual(nm_command(["/l/libLLVM.so.19.1"]),
                         ["nm", "-D", "--defined-only", "/l/libLLVM.so.19.1"])
        # Archives: their members' symbol tables, every archive in one run.
        self.assertEqual(nm_command(["/l/libA.a", "/l/libB.a"]),
                         ["nm", "--defined-only", "/l/libA.a", "/l/libB.a"])

    @unittest.skipUnless(shutil.which("gcc") and shutil.which("ar")
                         and shutil.which("nm"), "needs gcc, ar and nm")
    def test_read_exports_of_archives(self):
        tmp = tempfile.mkdtemp(prefix="ownsan-gw-ar-")
        self.addCleanup(shutil.rmtree, tmp)
        archives = []
        for name, source in (("A", "void mlirA(void) {}\n"
                              "void mlirBoth(void) {}\n"
                              "static void mlirLocal(void) {}\n"
                              "void (*keep)(void) = mlirLocal;\n"),
                             ("B", "void mlirB(void) {}\n"
                              "void mlirBoth(void) {}\n"
                              "int mlirData = 1;\n")):
            c_file = os.path.join(tmp, f"{name}.c")
            with open(c_file, "w", encoding="utf-8") as f:
                f.write(source)
            obj = os.path.join(tmp, f"{name}.o")
            subprocess.run(["gcc", "-c", "-o", obj, c_file], check=True)
            archive = os.path.join(tmp, f"libMLIRCAPI{name}.a")
            subprocess.run(["ar", "rcs", archive, obj], check=True)
            archives.append(archive)
        with using(conventions_from(MLIR_OPTIONS)):
            exported, version = read_exports(archives)
        self.assertEqual(exported, {"mlirA", "mlirB", "mlirBoth"})
        self.assertIsNone(version)
        with self.assertRaises(GenError):
            read_exports(archives + [os.path.join(tmp, "libNone.a")])


FAKE_MLIR_HEADER = textwrap.dedent("""\
    #ifndef FAKE_MLIR_H
    #define FAKE_MLIR_H
    #include <stdbool.h>
    #include <stddef.h>
    #include <stdint.h>
    #ifdef __cplusplus
    extern "C" {
    #endif
    #define DEFINE_C_API_STRUCT(name, storage) \\
      struct name { storage *ptr; };           \\
      typedef struct name name
    DEFINE_C_API_STRUCT(MlirContext, void);
    DEFINE_C_API_STRUCT(MlirOperation, void);
    DEFINE_C_API_STRUCT(MlirBlock, void);
    DEFINE_C_API_STRUCT(MlirModule, const void);
    DEFINE_C_API_STRUCT(MlirType, const void);
    DEFINE_C_API_STRUCT(MlirValue, const void);
    DEFINE_C_API_STRUCT(MlirAffineMap, const void);
    #undef DEFINE_C_API_STRUCT
    struct MlirDialectHandle { const void *ptr; };
    typedef struct MlirDialectHandle MlirDialectHandle;
    typedef struct { const char *data; size_t length; } MlirStringRef;
    typedef struct { int8_t value; } MlirLogicalResult;
    typedef struct { void (*ptr)(void); } MlirCallbackBox;
    typedef struct { void *data; } MlirNotPtr;
    typedef void *MlirVoidRef;
    typedef struct {
      MlirOperation op;
      unsigned count;
    } MlirOpHolder;
    typedef struct { MlirContext ctx; intptr_t nResults; } MlirOpState;

    #define DECLARE_DIALECT(Namespace) \\
      MlirDialectHandle mlirGetDialectHandle__##Namespace##__(void)

    MlirContext mlirContextCreate(void);
    void mlirContextDestroy(MlirContext context);
    MlirModule mlirModuleCreateEmpty(MlirContext context);
    bool mlirValueIsNull(MlirValue value);
    void mlirAddOperands(MlirOpState *state, intptr_t n,
                         MlirValue const *operands);
    MlirBlock mlirBlockCreate(intptr_t nArgs, MlirType const *args,
                              MlirValue const *locs);
    void mlirCompress(MlirAffineMap *affineMaps, intptr_t size,
                      void *result);
    MlirType mlirReplace(MlirType t, MlirType const *dims,
                         intptr_t numResultDims);
    MlirLogicalResult mlirMakeOp(MlirContext ctx, MlirOperation *OutOp);
    MlirLogicalResult mlirAbsorb(MlirOperation into, MlirOperation op);
    const char *mlirOperationName(MlirOperation op);
    MlirStringRef mlirTypeText(MlirType t);
    MlirContext mlirTypeGetContext(MlirType t);
    void mlirHolderTake(MlirOpHolder *holder);
    void mlirUseOthers(MlirStringRef s, MlirLogicalResult r,
                       MlirCallbackBox b, MlirVoidRef v, MlirNotPtr d);
    void LLVMNotMlir(void);
    static inline bool mlirContextIsNull(MlirContext c) { return !c.ptr; }
    #ifdef __cplusplus
    }
    #endif
    #endif
    """)
FAKE_MLIR_DIALECT_HEADER = textwrap.dedent("""\
    #include "mlir-c/Fake.h"
    #ifdef __cplusplus
    extern "C" {
    #endif
    DECLARE_DIALECT(func);
    #ifdef __cplusplus
    }
    #endif
    """)
FAKE_MLIR_SPEC = textwrap.dedent("""\
    mlirContextDestroy free(0)
    mlirModuleCreateEmpty new(ret)
    mlirAbsorb consume_if_ok(1)
    mlirHolderTake forget(0.op)
    mlirTypeText lends(ret,context=mlirTypeGetContext(0))
    """)
# A table for the fake header whose handle types llvm_c's has too (the
# wrappers compile with that one).
FAKE_MLIR_HANDLE_TYPES = textwrap.dedent("""\
    OWNSAN_HANDLE_TYPE(Other,        "")
    OWNSAN_HANDLE_TYPE(Context,      "MlirContext")
    OWNSAN_HANDLE_TYPE(Module,       "MlirModule")
    OWNSAN_HANDLE_TYPE(BasicBlock,   "MlirBlock")
    OWNSAN_HANDLE_TYPE(Value,        "MlirValue")
    OWNSAN_HANDLE_TYPE(Type,         "MlirType")
    OWNSAN_WATCHED_HANDLE_TYPE(Value)
    OWNSAN_OBJECT_KIND(Unknown,  Other,  "handle", "object",  false)
    OWNSAN_OBJECT_KIND(Context,  Context, "",      "context", true)
    OWNSAN_WATCHED_KINDS(Context, Context)
    OWNSAN_KIND_ALSO_NAMED(Context, Module)
    """)


def write_fake_mlir_include(root):
    """root/mlir-c/Fake.h and root/mlir-c/Dialect/Func.h (a subdirectory:
    the recursive glob)."""
    os.makedirs(os.path.join(root, "mlir-c", "Dialect"))
    for rel, text in (("Fake.h", FAKE_MLIR_HEADER),
                      ("Dialect/Func.h", FAKE_MLIR_DIALECT_HEADER)):
        with open(os.path.join(root, "mlir-c", rel), "w",
                  encoding="utf-8") as f:
            f.write(text)


@unittest.skipUnless(have_libclang(), "needs python3-clang-19 and libclang")
class StructHandlesTest(unittest.TestCase):
    """MLIR-C's conventions on a small fake mlir-c header: handles that are
    structs of one pointer, counts before their arrays, `mlir` names."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ownsan-gw-mlir-")
        write_fake_mlir_include(cls.tmp)
        def_path = os.path.join(cls.tmp, "handle_types.def")
        with open(def_path, "w", encoding="utf-8") as f:
            f.write(FAKE_MLIR_HANDLE_TYPES)
        cls.conventions = conventions_from(MLIR_OPTIONS)
        cls.named, _ = read_handle_types(def_path)
        with using(cls.conventions, cls.named):
            cls.headers = list_headers(cls.tmp)
            cls.declared = parse_headers(cls.tmp, cls.headers)
            entries = parse_spec_text(FAKE_MLIR_SPEC, "fake.spec")
            cls.effects = resolve_spec(entries, 19, cls.declared,
                                       set(cls.declared))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def setUp(self):
        scope = using(self.conventions, self.named)
        scope.__enter__()
        self.addCleanup(scope.__exit__, None, None, None)

    def classify(self, name):
        return classify(self.declared[name], self.effects.get(name, ()))

    def render(self, name):
        return render_wrapper(self.declared[name], self.classify(name),
                              self.declared)

    def test_headers_and_names(self):
        self.assertEqual(self.headers, ["mlir-c/Dialect/Func.h",
                                        "mlir-c/Fake.h"])
        # The dialect registration macro declares a function too.
        self.assertIn("mlirGetDialectHandle__func__", self.declared)
        self.assertNotIn("LLVMNotMlir", self.declared)
        self.assertNotIn("mlirContextIsNull", self.declared)  # static inline
        self.assertEqual(self.declared["mlirValueIsNull"].ret, "bool")

    def test_struct_handles(self):
        d = self.declared
        self.assertEqual(d["mlirContextCreate"].ret_handle, "Context")
        self.assertTrue(d["mlirContextCreate"].ret_struct)
        destroy = d["mlirContextDestroy"].params[0]
        self.assertEqual((destroy.handle, destroy.struct_handle),
                         ("Context", True))
        # Unnamed in the table: Other (void * and const void * both).
        self.assertEqual(d["mlirAbsorb"].params[0].handle, "Other")
        self.assertEqual(d["mlirGetDialectHandle__func__"].ret_handle, "Other")
        self.assertEqual(d["mlirModuleCreateEmpty"].ret_handle, "Module")
        # Not handles: two fields, a field not named ptr, a function
        # pointer, a void * typedef (no pointer handles in MLIR-C), a
        # pointer not named ptr.
        self.assertEqual(len(d["mlirUseOthers"].params), 5)
        for p in d["mlirUseOthers"].params:
            with self.subTest(param=p.spelling):
                self.assertIsNone(p.handle)
                self.assertFalse(p.struct_handle)
        self.assertIsNone(d["mlirAbsorb"].ret_handle)
        self.assertEqual(d["mlirHolderTake"].params[0].field_structs, {"op"})

    def test_counts_before_their_arrays(self):
        expected = {
            "mlirAddOperands": [HandleArray(2, "Value", 1)],
            # Both arrays after the count.
            "mlirBlockCreate": [HandleArray(1, "Type", 0),
                                HandleArray(2, "Value", 0)],
            # A count after the array, as --count-after names it.
            "mlirCompress": [HandleArray(0, "Other", 1)],
            # numResultDims follows, but --count-after does not name it.
            "mlirReplace": [],
        }
        for name, arrays in expected.items():
            with self.subTest(name=name):
                self.assertEqual(self.classify(name).arrays, arrays)
        self.assertEqual(self.classify("mlirReplace").unchecked_ptrs,
                         [HandleOut(1, "Type")])
        self.assertIn("call.CheckArray(2, (const void *const *)p2, "
                      "(size_t)p1, ownsan::HandleType::Value);",
                      self.render("mlirAddOperands"))

    def test_checks_and_results_use_ptr(self):
        text = self.render("mlirContextDestroy")
        self.assertIn("const void *args[] = {(const void *)p0.ptr};", text)
        self.assertIn("call.CheckHandle(0, p0.ptr, "
                      "ownsan::HandleType::Context);", text)
        self.assertIn("OWNSAN_REAL(mlirContextDestroy, "
                      "void (*)(MlirContext))(p0);", text)
        text = self.render("mlirModuleCreateEmpty")
        self.assertIn("call.After(args, (const void *)r.ptr, "
                      "r.ptr != nullptr);", text)
        self.assertIn("call.Returned(r.ptr, ownsan::HandleType::Module);",
                      text)
        self.assertIn("return std::remove_cv_t<MlirModule>{};", text)

    def test_logical_result_is_success(self):
        make = self.classify("mlirMakeOp")
        self.assertEqual(make.outs, [HandleOut(1, "Other")])
        self.assertEqual(make.out_condition, "r.value != 0")
        # (An untyped out handle is never registered: no call for it.)
        self.assertNotIn("Returned", self.render("mlirMakeOp"))
        text = self.render("mlirAbsorb")
        self.assertIn("call.After(args, nullptr, r.value != 0);", text)
        self.assertIn("void *const slots[] = {(void *)&p0, (void *)&p1};",
                      text)

    def test_struct_field_of_a_struct_handle(self):
        self.assertIn("const void *args[] = {nullptr, (p0) ? "
                      "(const void *)p0->op.ptr : nullptr};",
                      self.render("mlirHolderTake"))

    def test_borrowed_string_reget_builds_the_struct(self):
        fn = self.declared["mlirOperationName"]
        self.assertTrue(lends_string(fn, self.classify(fn.name)))
        self.assertIn("MlirOperation{const_cast<void *>(a[0])}",
                      render_reget(fn))
        self.assertIn("call.BorrowedString(r, (const void *)p0.ptr, nullptr,"
                      " nullptr, &ownsan_reget_mlirOperationName);",
                      self.render(fn.name))

    def test_string_ref_arguments_are_checked(self):
        # MlirStringRef (--string-ref): its data is checked, and a call
        # with only such an argument can be held back by a report too.
        params = self.declared["mlirUseOthers"].params
        self.assertEqual([p.string_ref for p in params],
                         [True, False, False, False, False])
        text = self.render("mlirUseOthers")
        self.assertIn("call.CheckStringRef(0, p0.data);", text)
        self.assertIn("if (call.Skipped())\n    return;", text)
        self.assertIn(" strings=[0]",
                      classification_line(self.declared["mlirUseOthers"],
                                          self.classify("mlirUseOthers")))

    def test_lends_registers_the_string_with_its_context(self):
        (effect,) = self.effects["mlirTypeText"]
        self.assertEqual(effect.spec_text(),
                         "lends(ret,context=mlirTypeGetContext(0))")
        self.assertIn("if (r.data && r.length)\n"
                      "      call.LentString(r.data, r.length, "
                      "(const void *)OWNSAN_REAL(mlirTypeGetContext, "
                      "MlirContext (*)(MlirType))(p0).ptr);",
                      self.render("mlirTypeText"))

    def test_lends_errors(self):
        bad = {
            # Not a string struct result.
            "mlirContextCreate lends(ret,context=mlirTypeGetContext(0))":
                "not the string struct",
            # The context function does not return a context.
            "mlirTypeText lends(ret,context=mlirTypeText(0))":
                "return a context",
            # Not declared.
            "mlirTypeText lends(ret,context=mlirNoSuch(0))":
                "not an exported function",
            # Arg 0 is not what the context function takes.
            "mlirTypeText lends(ret,context=mlirModuleCreateEmpty(0))":
                "return a context",
        }
        for line, message in bad.items():
            with self.subTest(line=line):
                entries = parse_spec_text(line, "bad.spec")
                with self.assertRaisesRegex(SpecError, message):
                    resolve_spec(entries, 19, self.declared,
                                 set(self.declared))
        self.assertEqual(parse_effect("free_caller_owned(1)"),
                         Effect(kind="free_caller_owned", arg=1))
        self.assertEqual(EFFECT_KINDS["free_caller_owned"],
                         "FreeCallerOwned")
        self.assertIsNone(parse_effect("lends(0,context=mlirX(0))"))
        self.assertIsNone(parse_effect("lends(ret,context=LLVMX(0))"))

    def test_classification_header(self):
        text = render_classification([], {}, 19, "m.spec", "k.spec")
        self.assertIn("(return type is not MlirLogicalResult)", text)
        self.assertIn("other pointer-to-handle arguments", text)
        self.assertIn("spec effects (m.spec)", text)


@unittest.skipUnless(have_libclang() and shutil.which("gcc")
                     and shutil.which("g++") and shutil.which("ar")
                     and shutil.which("nm"),
                     "needs libclang, gcc, g++, ar and nm")
class FakeMlirEndToEndTest(unittest.TestCase):
    """The whole generator, MLIR-C's options, on the fake mlir-c header
    and two static archives defining its functions."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ownsan-gw-mlir-lib-")
        include = os.path.join(cls.tmp, "include")
        write_fake_mlir_include(include)
        names = sorted(set(re.findall(r"\b(mlir\w+)\(", FAKE_MLIR_HEADER))
                       - {"mlirContextIsNull", "mlirGetDialectHandle__"})
        names.append("mlirGetDialectHandle__func__")
        cls.libs = []
        for i, part in enumerate((names[::2], names[1::2])):
            c_file = os.path.join(cls.tmp, f"part{i}.c")
            with open(c_file, "w", encoding="utf-8") as f:
                f.write("".join(f"void {n}(void) {{}}\n" for n in part))
            obj = os.path.join(cls.tmp, f"part{i}.o")
            subprocess.run(["gcc", "-c", "-o", obj, c_file], check=True)
            lib = os.path.join(cls.tmp, f"libMLIRCAPIPart{i}.a")
            subprocess.run(["ar", "rcs", lib, obj], check=True)
            cls.libs.append(lib)
        cls.spec = os.path.join(cls.tmp, "fake.spec")
        with open(cls.spec, "w", encoding="utf-8") as f:
            f.write(FAKE_MLIR_SPEC)
        cls.handle_types = os.path.join(cls.tmp, "handle_types.def")
        with open(cls.handle_types, "w", encoding="utf-8") as f:
            f.write(FAKE_MLIR_HANDLE_TYPES)
        cls.include = include
        cls.out = os.path.join(cls.tmp, "gen")
        command = [PYTHON, GENERATOR, "--include-dir", include]
        for lib in cls.libs:
            command += ["--lib", lib]
        command += ["--llvm-major", "19", "--spec", cls.spec,
                    "--handle-types", cls.handle_types,
                    "--out-dir", cls.out] + MLIR_OPTIONS
        cls.result = subprocess.run(command, capture_output=True, text=True,
                                    check=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def read(self, name):
        with open(os.path.join(self.out, name), encoding="utf-8") as f:
            return f.read()

    def test_generates(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        self.assertEqual(self.result.stdout.strip(),
                         "ownsan: wrapped 16 of 16 exported MLIR-C functions"
                         " (16 declared in headers), LLVM 19")
        self.assertIn("--wrap=mlirGetDialectHandle__func__\n",
                      self.read("ownsan.wrap"))
        self.assertIn("\n    mlir*;\n", self.read("ownsan.map"))

    def compile(self, compiler):
        return subprocess.run(
            [compiler, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra",
             "-Werror", HANDLE_TYPES_DEFINE, "-DOWNSAN_LINK_MODE=1",
             f"-I{self.include}", f"-I{INTERPOSE_DIR}", f"-I{SRC_DIR}",
             f"-I{self.out}", os.path.join(self.out, "wrappers.cpp")],
            capture_output=True, text=True, check=False)

    def test_wrappers_compile_with_gcc(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        result = self.compile("g++")
        self.assertEqual(result.returncode, 0, result.stderr[:4000])

    @unittest.skipUnless(shutil.which("clang++-19"), "needs clang++-19")
    def test_wrappers_compile_with_clang(self):
        """(clang++ does not take C's _Bool: the spellings say bool.)"""
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        result = self.compile("clang++-19")
        self.assertEqual(result.returncode, 0, result.stderr[:4000])

    def test_trampolines_for_mlir_names(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        spec = importlib.util.spec_from_file_location(
            "build_link_trampolines",
            os.path.join(REPO_ROOT, "tools", "build_link_trampolines.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        names = module.wrapped_llvm_functions(
            os.path.join(self.out, "ownsan.wrap"))
        self.assertEqual(len(names), 16)
        self.assertIn("mlirContextDestroy", names)
        self.assertFalse([n for n in names if n.startswith("_Z")])


MLIR19_INCLUDE = "/usr/lib/llvm-19/include"
MLIR19_LIBS = sorted(glob.glob("/usr/lib/llvm-19/lib/libMLIRCAPI*.a"))


@unittest.skipUnless(have_libclang() and shutil.which("nm") and MLIR19_LIBS
                     and os.path.exists(os.path.join(MLIR19_INCLUDE, "mlir-c",
                                                     "IR.h")),
                     "needs libmlir-19-dev and libclang")
class RealMlir19Test(unittest.TestCase):
    """MLIR-C of LLVM 19 (libmlir-19-dev) with the MLIR-C profile's files."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ownsan-gw-mlir19-")
        profile = os.path.join(REPO_ROOT, "src", "profiles", "mlir_c")
        command = [PYTHON, GENERATOR, "--include-dir", MLIR19_INCLUDE]
        for lib in MLIR19_LIBS:
            command += ["--lib", lib]
        command += [
            "--llvm-major", "19",
            "--spec", os.path.join(profile, "ownership.spec"),
            "--kinds", os.path.join(profile, "handle_kinds.spec"),
            "--handle-types", os.path.join(profile, "handle_types.def"),
            "--fn-flags", os.path.join(profile, "fn_flags.txt"),
            "--out-dir", cls.tmp] + MLIR_OPTIONS
        cls.result = subprocess.run(command, capture_output=True, text=True,
                                    check=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def read(self, name):
        with open(os.path.join(self.tmp, name), encoding="utf-8") as f:
            return f.read()

    def test_every_export_is_declared_and_wrapped(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        m = re.fullmatch(r"ownsan: wrapped (\d+) of (\d+) exported MLIR-C"
                         r" functions \((\d+) declared in headers\), LLVM 19",
                         self.result.stdout.strip())
        self.assertIsNotNone(m, self.result.stdout)
        wrapped, exported, declared = map(int, m.groups())
        self.assertGreater(wrapped, 1000)
        self.assertEqual(wrapped, exported)
        self.assertEqual(wrapped, declared)

    def test_classification(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        text = self.read("classification.txt")
        for line in (
                "mlirOperationStateAddOperands ret=- args=[] arrays="
                "[2:Value[1]] out=[] out_unregistered=[] unchecked_ptrs=[]"
                " effects=[]",
                "mlirBlockCreate ret=BasicBlock args=[] arrays=[1:Type[0]"
                " 2:Location[0]] out=[] out_unregistered=[] unchecked_ptrs=[]"
                " effects=[]",
                "mlirContextDestroy ret=- args=[0:Context] arrays=[] out=[]"
                " out_unregistered=[] unchecked_ptrs=[] effects=[free(0)]",
                "mlirGetDialectHandle__func__ ret=Other args=[] arrays=[]"
                " out=[] out_unregistered=[] unchecked_ptrs=[] effects=[]"):
            with self.subTest(line=line):
                self.assertIn(f"\n{line}\n", text)

    @unittest.skipUnless(
        shutil.which("g++") and "OWNSAN_WATCHED_KINDS" in open(
            os.path.join(SRC_DIR, "core", "handle_types.h"),
            encoding="utf-8").read(),
        "needs g++ and a runtime that reads the MLIR-C handle-type table")
    def test_wrappers_compile(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        result = subprocess.run(
            ["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra",
             "-Werror",
             '-DOWNSAN_HANDLE_TYPES_DEF="profiles/mlir_c/handle_types.def"',
             "-DOWNSAN_LINK_MODE=1", f"-I{MLIR19_INCLUDE}",
             f"-I{INTERPOSE_DIR}", f"-I{SRC_DIR}", f"-I{self.tmp}",
             os.path.join(self.tmp, "wrappers.cpp")],
            capture_output=True, text=True, check=False)
        self.assertEqual(result.returncode, 0, result.stderr[:4000])


if __name__ == "__main__":
    unittest.main()
