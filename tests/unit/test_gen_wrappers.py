#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Tests for tools/gen_wrappers.py.

Run from the repository root:
    /usr/bin/python3 -m unittest tests/unit/test_gen_wrappers.py
or directly:
    /usr/bin/python3 tests/unit/test_gen_wrappers.py

The spec tests need nothing installed. The heuristics tests need
python3-clang-19; the end-to-end tests also need the LLVM 14/19 headers and
libraries, g++ and gcc, and are skipped when those are missing.
"""

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


def load_generator():
    """Imports tools/gen_wrappers.py as a module."""
    spec = importlib.util.spec_from_file_location("gen_wrappers", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_wrappers"] = module
    spec.loader.exec_module(module)
    return module


gw = load_generator()


def have_libclang() -> bool:
    """True if clang.cindex and the default libclang are available."""
    if importlib.util.find_spec("clang") is None:
        return False
    return os.path.exists(gw.DEFAULT_LIBCLANG)


def wrapper_body(cpp: str, name: str) -> str:
    """The text of the wrapper definition of `name` in wrappers.cpp."""
    m = re.search(r'^extern "C" OWNSAN_EXPORT [^\n]*OWNSAN_WRAPPER_NAME\(' +
                  re.escape(name) + r"\)\(.*?^}\n", cpp, re.M | re.S)
    if m is None:
        raise AssertionError(f"no wrapper for {name}")
    return m.group(0)


def make_fn(name, params, ret="void", ret_handle=None, ret_typedef=""):
    """A Function model from (name, spelling, handle, elem_handle) tuples."""
    plist = []
    for i, (pname, spelling, handle, elem) in enumerate(params):
        plist.append(gw.Param(index=i, name=pname, spelling=spelling,
                              handle=handle, elem_handle=elem,
                              is_integer=spelling in gw.COUNT_INT_TYPES))
    return gw.Function(name=name, ret=ret, params=plist, ret_handle=ret_handle,
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
        entries = gw.parse_spec_text(text, "x.spec")
        self.assertEqual([e.function for e in entries],
                         ["LLVMFoo", "LLVMBar", "LLVMBaz", "LLVMQux"])
        foo, bar, baz, qux = entries
        self.assertEqual(foo.line_no, 3)
        self.assertEqual((foo.since, foo.until), (14, 19))
        self.assertEqual(foo.effects, [gw.Effect("free", 0)])
        self.assertEqual(bar.effects,
                         [gw.Effect("attach", 1, other=0),
                          gw.Effect("attach_at_builder", 2, other=0),
                          gw.Effect("detach", 3)])
        self.assertEqual(baz.effects[0].count_fn, "LLVMCount")
        self.assertEqual(baz.effects[0].count_args, (0, 1))
        self.assertEqual(baz.effects[1].count_arg, 3)
        self.assertEqual((qux.since, qux.until), (None, 18))
        self.assertEqual([e.kind for e in qux.effects],
                         ["free_attached", "free_detached"])

    def test_struct_field_and_unterminated(self):
        entry = gw.parse_spec_text(
            "LLVMMake own(2.MCJMM,by=out=0) consume_if_failed(2.MCJMM) "
            "forget(1.X) unterminated_message(ret)")[0]
        self.assertEqual(entry.effects[0],
                         gw.Effect("own_by_out", 2, other=0, field="MCJMM"))
        self.assertEqual(entry.effects[1],
                         gw.Effect("consume_if_failed", 2, field="MCJMM"))
        self.assertEqual(entry.effects[3].kind, "unterminated_message")
        self.assertEqual(
            " ".join(e.spec_text() for e in entry.effects),
            "own(2.MCJMM,by=out=0) consume_if_failed(2.MCJMM) forget(1.X) "
            "unterminated_message(ret)")
        # Fields only for effects that act after the call.
        for bad in ("consume(2.MCJMM)", "free(2.MCJMM)",
                    "free_message(1.X)", "unterminated_message(ret,parent=0)"):
            with self.subTest(bad=bad):
                with self.assertRaises(gw.SpecError):
                    gw.parse_spec_text(f"LLVMMake {bad}")

    def test_spec_text_round_trips(self):
        line = ("LLVMBaz out_array(2,count=LLVMCountItems(0,1)) "
                "attach(1,builder=0) attach(1,parent=0) "
                "out_array(1,count=arg(3))")
        entry = gw.parse_spec_text(line)[0]
        self.assertEqual(" ".join(e.spec_text() for e in entry.effects),
                         line.split(" ", 1)[1])

    def test_applies_to(self):
        entry = gw.parse_spec_text("LLVMFoo free(0) since=15 until=19")[0]
        self.assertFalse(entry.applies_to(14))
        self.assertTrue(entry.applies_to(15))
        self.assertTrue(entry.applies_to(19))
        self.assertFalse(entry.applies_to(22))

    def assertSpecError(self, line, fragment):
        """The line is rejected with a message naming line 2 and fragment."""
        text = "# header\n" + line + "\n"
        with self.assertRaises(gw.SpecError) as ctx:
            gw.parse_spec_text(text, "bad.spec")
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
        entries = gw.parse_spec_text(text, "r.spec")
        return gw.resolve_spec(entries, major, FAKE_DECLARED, FAKE_WRAPPED)

    def assertResolveError(self, text, fragment, major=19):
        with self.assertRaises(gw.SpecError) as ctx:
            self.resolve(text, major)
        message = str(ctx.exception)
        self.assertTrue(message.startswith("r.spec:1: "), message)
        self.assertIn(fragment, message)

    def test_good_entries(self):
        effects = self.resolve(
            "LLVMDisposeThing free(0)\n"
            "LLVMAttach attach(1,builder=0)\n"
            "LLVMGetItems out_array(2,count=LLVMCountItems(0,1))\n")
        self.assertEqual(effects["LLVMDisposeThing"], [gw.Effect("free", 0)])
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
        self.assertEqual(effects["LLVMAttach"][1], gw.Effect("renames", 1))

    def test_renames_needs_value_block_or_module(self):
        self.assertResolveError("LLVMAttach renames(0)",
                                "is not a value, block or module")

    def test_data_only_value(self):
        effects = self.resolve("LLVMAttach data_only(1)\n")
        self.assertEqual(effects["LLVMAttach"], [gw.Effect("data_only", 1)])

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
        with self.assertRaises(gw.SpecError) as ctx:
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
        return gw.resolve_kinds(gw.parse_kinds_text(text, "k.spec"), major,
                                KINDS_DECLARED)

    def assertKindsError(self, text, fragment, line=1):
        with self.assertRaises(gw.SpecError) as ctx:
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
        table = gw.kind_set_table(expects)
        cls = gw.classify(KINDS_DECLARED["LLVMFirst"], ())
        cls.expects = {0: (1, expects["LLVMFirst"][0])}
        text = gw.render_wrapper(KINDS_DECLARED["LLVMFirst"], cls,
                                 KINDS_DECLARED)
        self.assertIn("call.CheckHandle(0, p0, ownsan::HandleType::Value, 1);",
                      text)
        self.assertIn("kinds=[0:function]", gw.classification_line(
            KINDS_DECLARED["LLVMFirst"], cls))
        rendered = gw.render_kind_expectations(table)
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
        self.assertEqual(gw.parse_nm_output(text),
                         {"LLVMABIAlignmentOfType", "LLVMOld", "LLVMWeak"})

    def test_version_node(self):
        """The default version of the LLVM* functions, if any."""
        text = textwrap.dedent("""\
            0000000000000000 A LLVM_19.1
            0000000002cbfb80 T LLVMABIAlignmentOfType@@LLVM_19.1
            0000000002cbfae0 T LLVMOld@LLVM_14
            0000000002cbfae0 T _ZN4llvm3fooEv@@OTHER
            """)
        self.assertEqual(gw.parse_nm_version_node(text), "LLVM_19.1")
        self.assertIsNone(gw.parse_nm_version_node(
            "0000000002cbfb80 T LLVMABIAlignmentOfType\n"))
        with self.assertRaises(gw.GenError):
            gw.parse_nm_version_node("1 T LLVMA@@LLVM_14\n2 T LLVMB@@V2\n")


class VersionScriptTest(unittest.TestCase):
    """render_version_script: LLVM* versioned, C++ leftovers local."""

    def test_versioned(self):
        text = gw.render_version_script(19, "spec", "LLVM_19.1")
        body = re.sub(r"/\*.*?\*/", "", text, flags=re.S).split()
        self.assertEqual(body[:5], ["LLVM_19.1", "{", "global:", "LLVM*;",
                                    "local:"])
        self.assertEqual(body[-1], "};")
        self.assertNotIn("*;", body[5:])  # no `local: *`: dlsym stays global

    def test_unversioned_library(self):
        text = gw.render_version_script(19, "spec", None)
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
        cls.declared = gw.parse_headers(cls.tmp, gw.list_headers(cls.tmp))
        entries = gw.parse_spec_text(FAKE_SPEC, "fake.spec")
        cls.effects = gw.resolve_spec(entries, 19, cls.declared,
                                      set(cls.declared))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def classify(self, name):
        return gw.classify(self.declared[name], self.effects.get(name, ()))

    def render(self, name):
        return gw.render_wrapper(self.declared[name], self.classify(name),
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
        self.assertIn('"LLVMModuleFlagEntry"', gw.render_fn_info(
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
                      gw.classification_line(
                          fn, self.classify("LLVMMakeWithOptions")))
        # arg_type: the field's handle type (how an unseen helper is adopted).
        self.assertIn('{EffectKind::OwnByOut, 3, 0, kNoArg, "LLVMWidgetRef", '
                      'ownsan::HandleType::Other}',
                      gw.render_fn_info([fn], {fn.name: self.classify(
                          fn.name)}))

    def test_bad_struct_fields(self):
        for line, fragment in [
                ("LLVMMakeWithOptions forget(1.Nope)", "has no field Nope"),
                ("LLVMMakeWithOptions forget(1.Level)", "is not a handle"),
        ]:
            with self.subTest(line=line):
                entries = gw.parse_spec_text(line, "f.spec")
                with self.assertRaises(gw.SpecError) as ctx:
                    gw.resolve_spec(entries, 19, self.declared,
                                    set(self.declared))
                self.assertIn(fragment, str(ctx.exception))

    def test_input_arrays(self):
        expected = {
            "LLVMUseArray": [gw.HandleArray(0, "Value", 1)],
            "LLVMUseArraySize": [gw.HandleArray(1, "Value", 2)],
            "LLVMUseArrayLen": [gw.HandleArray(0, "Other", 1)],
            "LLVMUseArrayCount": [gw.HandleArray(0, "Module", 1)],
            "LLVMNotArrayName": [],
            "LLVMNotArrayType": [],
        }
        for name, arrays in expected.items():
            with self.subTest(name=name):
                self.assertEqual(self.classify(name).arrays, arrays)
        self.assertEqual(self.classify("LLVMNotArrayName").unchecked_ptrs,
                         [gw.HandleOut(0, "Value")])

    def test_array_check_emitted(self):
        self.assertIn("call.CheckArray(1, (const void *const *)p1, "
                      "(size_t)p2, "
                      "ownsan::HandleType::Value);",
                      self.render("LLVMUseArraySize"))
        self.assertNotIn("CheckArray", self.render("LLVMNotArrayType"))

    def test_out_handles(self):
        make_module = self.classify("LLVMMakeModule")
        self.assertEqual(make_module.outs, [gw.HandleOut(1, "Module")])
        self.assertEqual(make_module.out_condition, "r == 0")
        self.assertIn("if (r == 0 && p1)\n"
                      "      call.Returned(*p1, ownsan::HandleType::Module);",
                      self.render("LLVMMakeModule"))
        self.assertIn("if (r == nullptr && p0)\n"
                      "      call.Returned(*p0, ownsan::HandleType::Other);",
                      self.render("LLVMMakeWidget"))
        # A returned LLVMErrorRef is a new object the caller must consume.
        self.assertIn("call.Returned(r, ownsan::HandleType::Error);",
                      self.render("LLVMMakeWidget"))
        make_void = self.classify("LLVMMakeVoid")
        self.assertEqual(make_void.outs, [])
        self.assertEqual(make_void.out_unregistered,
                         [gw.HandleOut(0, "Module")])
        self.assertNotIn("Returned", self.render("LLVMMakeVoid"))
        find_it = self.classify("LLVMFindIt")
        self.assertEqual(find_it.outs, [])
        self.assertEqual(find_it.unchecked_ptrs, [gw.HandleOut(0, "Value")])

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
        aliases = gw.render_aliases(functions)
        self.assertIn("using LLVMSetCallback_p1 = void (*)(void *);", aliases)
        self.assertIn("using LLVMSum_p0 = const uint64_t[];", aliases)
        text = self.render("LLVMSetCallback")
        self.assertIn("ownsan::gen::LLVMSetCallback_p1 p1,", text)
        self.assertIn("LLVMCallbackRef p2", text)

    def test_link_mode_real_declarations(self):
        functions = [self.declared["LLVMNoArgs"],
                     self.declared["LLVMDisposeWidget"]]
        text = gw.render_real_declarations(functions, "OWNSAN_REAL_WEAK ",
                                           strong={"LLVMNoArgs"})
        self.assertIn("decltype(::LLVMNoArgs) __real_LLVMNoArgs;\n", text)
        self.assertNotIn("OWNSAN_REAL_WEAK decltype(::LLVMNoArgs)", text)
        self.assertIn("OWNSAN_REAL_WEAK decltype(::LLVMDisposeWidget) "
                      "__real_LLVMDisposeWidget;", text)
        self.assertTrue(text.startswith("#if OWNSAN_LINK_MODE\n"))

    def test_link_mode_wrap_list(self):
        functions = [self.declared["LLVMNoArgs"],
                     self.declared["LLVMDisposeWidget"]]
        lines = gw.render_link_wrap_list(functions).splitlines()
        self.assertEqual(lines[:2], ["--wrap=LLVMNoArgs",
                                     "--wrap=LLVMDisposeWidget"])
        self.assertIn("--wrap=_ZdlPv", lines)
        self.assertIn("--wrap=_Znwm", lines)
        self.assertEqual(len(lines), 2 + len(gw.LINK_MODE_ALLOCATION_SYMBOLS))

    def test_zero_argument_function(self):
        text = self.render("LLVMNoArgs")
        self.assertIn("void OWNSAN_WRAPPER_NAME(LLVMNoArgs)() {", text)
        self.assertIn("OWNSAN_REAL(LLVMNoArgs, void (*)())();", text)
        self.assertNotIn("Checking", text)

    def test_classification_line(self):
        fn = self.declared["LLVMUseArraySize"]
        self.assertEqual(
            gw.classification_line(fn, self.classify("LLVMUseArraySize")),
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
        self.assertIn("const Effect kEffects_LLVMDisposeModule[] = "
                      "{{EffectKind::Free, 0, 0, kNoArg, nullptr, "
                      "ownsan::HandleType::Module}};", cpp)
        self.assertIn('{"LLVMDisposeModule", kEffects_LLVMDisposeModule, 1},',
                      cpp)
        # Each effect names its argument's C type (adoption of unseen
        # objects): a block, a consumed module.
        self.assertIn("kEffects_LLVMDeleteBasicBlock[] = {{EffectKind::Free"
                      "Attached, 0, 0, kNoArg, nullptr, "
                      "ownsan::HandleType::BasicBlock}};", cpp)
        self.assertIn("kEffects_LLVMLinkModules2[] = {{EffectKind::Consume, "
                      "1, 0, kNoArg, nullptr, ownsan::HandleType::Module}};", cpp)
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

    def test_symbols_sorted_and_consistent(self):
        text = self.files["symbols.c"]
        self.assertNotIn("#include", text)
        rows = re.findall(r'^    \{"(\w+)", \(void \*\)(\w+), (\d+)\},$', text,
                          re.M)
        self.assertGreater(len(rows), 1000)
        names = [r[0] for r in rows]
        self.assertEqual(names, sorted(names, key=lambda s: s.encode()))
        ids = dict(re.findall(r"^  kFn_(\w+) = (\d+),$",
                              self.files["fn_ids.h"], re.M))
        for name, wrapper, fn_id in rows:
            self.assertEqual(name, wrapper)
            self.assertEqual(ids[name], fn_id)
        self.assertIn(f"const unsigned ownsan_symbol_count = {len(rows)};",
                      text)
        self.assertEqual(len(re.findall(r"^extern void LLVM\w+\(void\);$",
                                        text, re.M)), len(rows))

    def test_frees_of_malloced_arrays_are_marked(self):
        cpp = self.files["wrappers.cpp"]
        self.assertIn("kEffects_LLVMDisposeValueMetadataEntries[] = "
                      "{{EffectKind::Free, 0, 0, kFreesMallocedArray,", cpp)
        self.assertIn("kEffects_LLVMDisposeModuleFlagsMetadata[] = "
                      "{{EffectKind::Free, 0, 0, kFreesMallocedArray,", cpp)
        line = re.search(r"^const Effect kEffects_LLVMDisposeModule\[\].*$",
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
        self.assertIn("const Effect kEffects_LLVMDeleteInstruction[] = "
                      "{{EffectKind::FreeDetached, 0, 0, kNoArg, nullptr, "
                      "ownsan::HandleType::Value}};",
                      self.files["wrappers.cpp"])


class RealLLVM14Test(RealLLVMEndToEndBase, unittest.TestCase):
    """LLVM 14: the since=15 entry is skipped, not an error."""

    MAJOR = 14

    def test_delete_instruction_absent(self):
        self.assertNotIn("LLVMDeleteInstruction", self.files["fn_ids.h"])
        self.assertIn("declared_not_exported"
                      " LLVMOrcObjectLayerAddObjectFileWithRT\n",
                      self.files["coverage.txt"])


if __name__ == "__main__":
    unittest.main()
