"""What ownsan must report for each seeded-bug case.

One entry per case of tests/seeded/c/seeded.c and tests/seeded/python/seeded.py
(the same case names in both). check_report.py compares a report against its
entry; the report format is the one in docs (header, use stack, free line and
stack, creation stack, ownership chain, SUMMARY).

Regex fields are matched against the whole text (re.fullmatch). Two
placeholders stand for pointers the test program prints to stderr as
"seeded: <role> = 0x...":
  {CONTEXT}  the context the case created,
  {SUBJECT}  the handle the report is about.
"""

from dataclasses import dataclass
from typing import Optional

# Label regexes of the objects of the tiny module every case builds.
MODULE = r'module "m"'
FUNCTION = r'function @foo in module "m"'
BLOCK = r'block %entry of function @foo in module "m"'
INSTRUCTION = r'instruction %sum in block %entry of function @foo in module "m"'
CONTEXT = r"context {CONTEXT}"
BUILDER = r"builder {SUBJECT}"
PASS_MANAGER_BUILDER = r"pass manager builder {SUBJECT}"
TYPE_I32 = r"type i32\b.*"  # the contract allows more after "type i32"

# Ownership chains ("context 0x... -> module "m" -> ...").
CHAIN_MODULE = r'context {CONTEXT} -> module "m"'
CHAIN_FUNCTION = CHAIN_MODULE + r" -> function @foo"
CHAIN_BLOCK = CHAIN_FUNCTION + r" -> block %entry"
CHAIN_INSTRUCTION = CHAIN_BLOCK + r" -> instruction %sum"

# After re-insertion with LLVMInsertIntoBuilder, which renames the instruction
# to "" (IRBuilder::Insert's default name): %sum is unnamed, in block %other.
INSTRUCTION_IN_OTHER = (r'instruction <unnamed> in block %other of function '
                        r'@foo in module "m"')
CHAIN_INSTRUCTION_IN_OTHER = (CHAIN_FUNCTION +
                              r" -> block %other -> instruction <unnamed>")
# Block %entry after it moved from @foo to @bar.
BLOCK_IN_BAR = r'block %entry of function @bar in module "m"'
FUNCTION_BAR = r'function @bar in module "m"'
CHAIN_BLOCK_IN_BAR = CHAIN_MODULE + r" -> function @bar -> block %entry"


@dataclass(frozen=True)
class Stacks:
    """Functions of the test program that must appear in each stack.

    Each is the step that made the call: `use` made the bad call, `free` the
    call that freed the object earlier (None when nothing freed it), `create`
    the call that created it. The steps never call each other, so each name
    must also be absent from the other two stacks.
    """

    use: str
    free: Optional[str]
    create: str


@dataclass(frozen=True)
class Expectation:
    kind: str  # use-after-free | double-free | invalid-free
    handle_type: str  # LLVMValueRef, LLVMModuleRef, ...
    call: str  # "passed as argument <arg> of <call>"
    arg: int  # 1-based
    label: str  # regex for the header's (label)
    free_call: Optional[str]  # "freed by <free_call>(...)"; None: no such section
    free_label: Optional[str]  # regex for the label inside "freed by X(...)"
    because: Optional[str]  # "because it belonged to that <because>", or None
    create_call: str  # "created by <create_call>"
    chain: Optional[str]  # regex for the ownership chain; None: not checked
    note: Optional[str]  # regex one extra explanation line must match, or None
    c: Stacks  # function names in the C program's stacks
    python: Stacks  # function names in the Python program's stacks

    def stacks(self, lang):
        return {"c": self.c, "python": self.python}[lang]


EXPECTATIONS = {
    "use_after_module_dispose": Expectation(
        kind="use-after-free",
        handle_type="LLVMValueRef",
        call="LLVMGetValueName2",
        arg=1,
        label=FUNCTION,
        free_call="LLVMDisposeModule",
        free_label=MODULE,
        because="module",
        create_call="LLVMAddFunction",
        chain=CHAIN_FUNCTION,
        note=None,
        c=Stacks("use_function_name", "dispose_the_module", "make_function"),
        python=Stacks("use_function_name", "dispose_the_module", "make_function"),
    ),
    "use_after_context_dispose": Expectation(
        kind="use-after-free",
        handle_type="LLVMTypeRef",
        call="LLVMGetTypeKind",
        arg=1,
        label=TYPE_I32,
        free_call="LLVMContextDispose",
        free_label=CONTEXT,
        because="context",
        create_call="LLVMInt32TypeInContext",
        chain=r"context {CONTEXT} -> type i32\b.*",
        note=None,
        c=Stacks("use_type_kind", "dispose_the_context", "make_i32_type"),
        python=Stacks("use_type_kind", "dispose_the_context", "make_i32_type"),
    ),
    "use_instruction_after_block_delete": Expectation(
        kind="use-after-free",
        handle_type="LLVMValueRef",
        call="LLVMGetValueName2",
        arg=1,
        label=INSTRUCTION,
        free_call="LLVMDeleteBasicBlock",
        free_label=BLOCK,
        because="block",
        create_call="LLVMBuildAdd",
        chain=CHAIN_INSTRUCTION,
        note=None,
        c=Stacks("use_instruction_name", "delete_the_block", "build_sum"),
        python=Stacks("use_instruction_name", "delete_the_block", "build_sum"),
    ),
    # The function itself is used (as argument 2), so there is no "because".
    "use_after_delete_function": Expectation(
        kind="use-after-free",
        handle_type="LLVMValueRef",
        call="LLVMAppendBasicBlockInContext",
        arg=2,
        label=FUNCTION,
        free_call="LLVMDeleteFunction",
        free_label=FUNCTION,
        because=None,
        create_call="LLVMAddFunction",
        chain=CHAIN_FUNCTION,
        note=None,
        c=Stacks("append_block_to_function", "delete_the_function", "make_function"),
        python=Stacks("append_block_to_function", "delete_the_function",
                      "make_function"),
    ),
    "use_block_after_delete_function": Expectation(
        kind="use-after-free",
        handle_type="LLVMBasicBlockRef",
        call="LLVMGetBasicBlockName",
        arg=1,
        label=BLOCK,
        free_call="LLVMDeleteFunction",
        free_label=FUNCTION,
        because="function",
        create_call="LLVMAppendBasicBlockInContext",
        chain=CHAIN_BLOCK,
        note=None,
        c=Stacks("use_block_name", "delete_the_function", "make_entry_block"),
        python=Stacks("use_block_name", "delete_the_function", "make_entry_block"),
    ),
    "double_dispose_module": Expectation(
        kind="double-free",
        handle_type="LLVMModuleRef",
        call="LLVMDisposeModule",
        arg=1,
        label=MODULE,
        free_call="LLVMDisposeModule",
        free_label=MODULE,
        because=None,
        create_call="LLVMModuleCreateWithNameInContext",
        chain=CHAIN_MODULE,
        note=None,
        c=Stacks("dispose_module_again", "dispose_the_module", "make_module"),
        python=Stacks("dispose_module_again", "dispose_the_module", "make_module"),
    ),
    "dispose_module_after_context": Expectation(
        kind="double-free",
        handle_type="LLVMModuleRef",
        call="LLVMDisposeModule",
        arg=1,
        label=MODULE,
        free_call="LLVMContextDispose",
        free_label=CONTEXT,
        because="context",
        create_call="LLVMModuleCreateWithNameInContext",
        chain=CHAIN_MODULE,
        note=None,
        c=Stacks("dispose_the_module", "dispose_the_context", "make_module"),
        python=Stacks("dispose_the_module", "dispose_the_context", "make_module"),
    ),
    "double_dispose_builder": Expectation(
        kind="double-free",
        handle_type="LLVMBuilderRef",
        call="LLVMDisposeBuilder",
        arg=1,
        label=BUILDER,
        free_call="LLVMDisposeBuilder",
        free_label=BUILDER,
        because=None,
        create_call="LLVMCreateBuilderInContext",
        # A builder is not owned by its context; accept either spelling.
        chain=r"(?:context {CONTEXT} -> )?builder {SUBJECT}",
        note=None,
        c=Stacks("dispose_builder_again", "dispose_the_builder", "make_builder"),
        python=Stacks("dispose_builder_again", "dispose_the_builder",
                      "make_builder"),
    ),
    # Nothing freed %sum before, so there is no "freed by" section (and the
    # chain line reads "ownership chain:", not "... when freed:").
    "delete_attached_instruction": Expectation(
        kind="invalid-free",
        handle_type="LLVMValueRef",
        call="LLVMDeleteInstruction",
        arg=1,
        label=INSTRUCTION,
        free_call=None,
        free_label=None,
        because=None,
        create_call="LLVMBuildAdd",
        chain=CHAIN_INSTRUCTION,
        note=(r"LLVMDeleteInstruction frees only detached instructions; "
              r"this one is still in block %entry\b.*"),
        c=Stacks("delete_the_instruction", None, "build_sum"),
        python=Stacks("delete_the_instruction", None, "build_sum"),
    ),
    "use_erased_instruction": Expectation(
        kind="use-after-free",
        handle_type="LLVMValueRef",
        call="LLVMGetInstructionOpcode",
        arg=1,
        label=INSTRUCTION,
        free_call="LLVMInstructionEraseFromParent",
        free_label=INSTRUCTION,
        because=None,
        create_call="LLVMBuildAdd",
        chain=CHAIN_INSTRUCTION,
        note=None,
        c=Stacks("use_instruction_opcode", "erase_the_instruction", "build_sum"),
        python=Stacks("use_instruction_opcode", "erase_the_instruction",
                      "build_sum"),
    ),
    # %sum was detached before %entry was deleted (so it survived that, with
    # no report), then re-inserted into a new block %other: deleting %other
    # frees it. The creation is still the original LLVMBuildAdd.
    "use_reinserted_instruction_after_new_block_delete": Expectation(
        kind="use-after-free",
        handle_type="LLVMValueRef",
        call="LLVMGetValueName2",
        arg=1,
        label=INSTRUCTION_IN_OTHER,
        free_call="LLVMDeleteBasicBlock",
        free_label=r'block %other of function @foo in module "m"',
        because="block",
        create_call="LLVMBuildAdd",
        chain=CHAIN_INSTRUCTION_IN_OTHER,
        note=None,
        c=Stacks("use_instruction_name", "delete_the_other_block", "build_sum"),
        python=Stacks("use_instruction_name", "delete_the_other_block",
                      "build_sum"),
    ),
    # %entry was detached before @foo was deleted (so it survived that, with
    # no report), then appended to @bar: deleting @bar frees it.
    "use_detached_block_after_function_delete": Expectation(
        kind="use-after-free",
        handle_type="LLVMBasicBlockRef",
        call="LLVMGetBasicBlockName",
        arg=1,
        label=BLOCK_IN_BAR,
        free_call="LLVMDeleteFunction",
        free_label=FUNCTION_BAR,
        because="function",
        create_call="LLVMAppendBasicBlockInContext",
        chain=CHAIN_BLOCK_IN_BAR,
        note=None,
        c=Stacks("use_block_name", "delete_the_bar_function", "make_entry_block"),
        python=Stacks("use_block_name", "delete_the_bar_function",
                      "make_entry_block"),
    ),
    # LLVM 14 to 16: the legacy pass manager builder belongs to no context.
    "use_after_pass_manager_builder_dispose": Expectation(
        kind="use-after-free",
        handle_type="LLVMPassManagerBuilderRef",
        call="LLVMPassManagerBuilderSetOptLevel",
        arg=1,
        label=PASS_MANAGER_BUILDER,
        free_call="LLVMPassManagerBuilderDispose",
        free_label=PASS_MANAGER_BUILDER,
        because=None,
        create_call="LLVMPassManagerBuilderCreate",
        chain=PASS_MANAGER_BUILDER,
        note=None,
        c=Stacks("set_the_opt_level", "dispose_the_pass_manager_builder",
                 "make_pass_manager_builder"),
        python=Stacks("set_the_opt_level", "dispose_the_pass_manager_builder",
                      "make_pass_manager_builder"),
    ),
}
