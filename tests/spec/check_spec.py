#!/usr/bin/python3
"""Runs tests/spec/spec_cases.c under `ownsan run`: one correct use and one
misuse per entry of src/spec/ownership.spec that applies to the LLVM version.

For each case: `ok` must exit 0 under ownsan with no "OwnSan" on stderr and
the same stdout as without ownsan; `bad` must produce a report with the
expected kind, the function the handle was passed to, and (when given) the
call that freed/consumed it or a phrase of the explanation line.

Coverage: every spec entry that applies to --llvm-major must be mapped to a
case in COVERAGE below (or to a test elsewhere in EXTERNAL); an entry with
no case fails the run. Prints "N passed, M failed".

Cases in KNOWN_BUGS show a runtime limitation: their misuse is not reported
today. They are run and printed as XFAIL (XPASS once fixed) and do not fail
the run; the reason names the bug.
"""
import argparse
import os
import re
import sys

from ownsan_testing import clean_env
from ownsan_testing import run as testing_run

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
import gen_wrappers as gw  # noqa: E402

# case -> (kind, function the misuse passes the handle to, cause regex or
#          None, explanation phrase or None)
EXPECT = {
    "context_dispose": ("use-after-free", "LLVMGetModuleIdentifier", r"freed by LLVMContextDispose", None),
    "module_dispose": ("double-free", "LLVMDisposeModule", r"freed by LLVMDisposeModule", None),
    "module_provider": ("double-free", "LLVMDisposeModule", r"freed by LLVMDisposeModuleProvider", None),
    "builder_dispose": ("double-free", "LLVMDisposeBuilder", r"freed by LLVMDisposeBuilder", None),
    "memory_buffer_dispose": ("use-after-free", "LLVMGetBufferSize", r"freed by LLVMDisposeMemoryBuffer", None),
    "delete_function": ("use-after-free", "LLVMGetBasicBlockName", r"freed by LLVMDeleteFunction", None),
    "delete_global": ("use-after-free", "LLVMGetInitializer", r"freed by LLVMDeleteGlobal", None),
    "erase_global_ifunc": ("use-after-free", "LLVMGetGlobalIFuncResolver", r"freed by LLVMEraseGlobalIFunc", None),
    "remove_global_ifunc": ("invalid-free", "LLVMEraseGlobalIFunc", None, "detached"),
    "delete_basic_block": ("use-after-free", "LLVMGetBasicBlockName", r"freed by LLVMDeleteBasicBlock", None),
    "set_value_name2": ("use-after-free", "LLVMGetInstructionOpcode", r"freed by LLVMDeleteBasicBlock", r"\(instruction %total in block %entry\b"),
    "set_value_name": ("use-after-free", "LLVMGetInstructionOpcode", r"freed by LLVMDeleteBasicBlock", r"\(instruction %total in block %entry\b"),
    "instruction_erase": ("use-after-free", "LLVMGetInstructionOpcode", r"freed by LLVMInstructionEraseFromParent", None),
    "delete_instruction": ("invalid-free", "LLVMDeleteInstruction", None, "in a block|attached|still"),
    "remove_block": ("invalid-free", "LLVMDeleteBasicBlock", None, "detached"),
    "remove_instruction": ("invalid-free", "LLVMInstructionEraseFromParent", None, "detached|not in"),
    "append_existing_block": ("use-after-free", "LLVMGetBasicBlockName", r"freed by LLVMDeleteFunction", None),
    "insert_existing_block": ("use-after-free", "LLVMGetBasicBlockName", r"freed by LLVMDeleteFunction", None),
    "insert_into_builder": ("use-after-free", "LLVMGetInstructionOpcode", r"freed by LLVMDeleteFunction", None),
    "insert_into_builder_with_name": ("use-after-free", "LLVMGetInstructionOpcode", r"freed by LLVMDeleteFunction", None),
    "get_params": ("use-after-free", "LLVMTypeOf", r"freed by LLVMDeleteFunction", None),
    "get_basic_blocks": ("use-after-free", "LLVMGetBasicBlockName", r"freed by LLVMDeleteFunction", None),
    "get_param_types": ("use-after-free", "LLVMGetTypeKind", r"freed by LLVMContextDispose", None),
    "get_struct_element_types": ("use-after-free", "LLVMGetTypeKind", r"freed by LLVMContextDispose", None),
    "get_subtypes": ("use-after-free", "LLVMGetTypeKind", r"freed by LLVMContextDispose", None),
    "get_md_node_operands": ("use-after-free", "LLVMTypeOf", r"freed by LLVMContextDispose", None),
    "get_named_metadata_operands": ("use-after-free", "LLVMGetMDNodeNumOperands", r"freed by LLVMContextDispose", None),
    "position_builder": ("dangling-insertion-point", "LLVMBuildUnreachable", r"freed by LLVMDeleteBasicBlock", None),
    "position_builder_before": ("dangling-insertion-point", "LLVMBuildUnreachable", r"freed by LLVMDeleteBasicBlock", None),
    "position_builder_at_end": ("dangling-insertion-point", "LLVMBuildUnreachable", r"freed by LLVMDeleteBasicBlock", "end of a freed block"),
    "clear_insertion_position": ("use-after-free", "LLVMPositionBuilderAtEnd", r"freed by LLVMDeleteBasicBlock", None),
    "position_before_dbg_records": ("dangling-insertion-point", "LLVMBuildUnreachable", r"freed by LLVMDeleteBasicBlock", None),
    "position_before_instr_and_dbg_records": ("dangling-insertion-point", "LLVMBuildUnreachable", r"freed by LLVMDeleteBasicBlock", None),
    "run_passes": ("use-after-free", "LLVMGetInstructionOpcode", r'freed during LLVMRunPasses\("function\(dce\)"\)', None),
    "run_function": ("use-after-free", "LLVMRunFunction", r"freed by LLVMDisposeExecutionEngine", None),
    "run_function_as_main": ("use-after-free", "LLVMRunFunctionAsMain", r"freed by LLVMDisposeExecutionEngine", None),
    "free_machine_code": ("use-after-free", "LLVMFreeMachineCodeForFunction", r"freed by LLVMDisposeExecutionEngine", None),
    "get_pointer_to_global": ("use-after-free", "LLVMGetPointerToGlobal", r"freed by LLVMDisposeExecutionEngine", None),
    "add_global_mapping": ("use-after-free", "LLVMAddGlobalMapping", r"freed by LLVMDisposeExecutionEngine", None),
    "build_shuffle_vector": ("cross-context", "LLVMBuildShuffleVector", None, r"argument 3 belongs to context"),
    "const_shuffle_vector": ("cross-context", "LLVMConstShuffleVector", None, r"argument 2 belongs to context"),
    "cast_opcode": ("use-after-free", "LLVMGetCastOpcode", r"freed by LLVMContextDispose", None),
    "recompile_and_relink": ("use-after-free", "LLVMRecompileAndRelinkFunction", r"freed by LLVMDisposeExecutionEngine", None),
    "run_function_result": ("use-after-free", "LLVMGenericValueToInt", r"freed by LLVMDisposeGenericValue", r"created by LLVMRunFunction"),
    "parse_ir": ("use-after-consume", "LLVMDisposeMemoryBuffer", r"consumed by LLVMParseIRInContext", None),
    "parse_ir_failed": ("double-free", "LLVMDisposeMessage", r"freed by LLVMDisposeMessage", r"created by LLVMParseIRInContext"),
    "set_module_identifier": ("use-after-free", "LLVMGetModuleIdentifier", r"freed by LLVMDisposeModule", r'\(module "renamed"\)'),
    "get_bitcode_module": ("use-after-consume", "LLVMDisposeMemoryBuffer", r"consumed by LLVMGetBitcodeModuleInContext2", None),
    "link_modules": ("use-after-consume", "LLVMGetNamedFunction", r"consumed by LLVMLinkModules2", None),
    "create_execution_engine": ("invalid-free", "LLVMDisposeModule", None, "owns it since LLVMCreateExecutionEngineForModule"),
    "create_interpreter": ("invalid-free", "LLVMDisposeModule", None, "owns it since LLVMCreateInterpreterForModule"),
    "create_jit": ("use-after-consume", "LLVMDisposeModule", r"consumed during LLVMCreateJITCompilerForModule", None),
    "create_mcjit": ("use-after-consume", "LLVMDisposeModule", r"consumed during LLVMCreateMCJITCompilerForModule", None),
    "add_module": ("invalid-free", "LLVMDisposeModule", None, "owns it since LLVMAddModule"),
    "thread_safe_module": ("invalid-free", "LLVMDisposeModule", None, "owns it since LLVMOrcCreateNewThreadSafeModule"),
    "thread_safe_context_from_context": ("invalid-free", "LLVMContextDispose", None, "LLVM owns it since LLVMOrcCreateNewThreadSafeContextFromLLVMContext"),
    "engine_twice": ("invalid-transfer", "LLVMCreateInterpreterForModule", None, "already owns \\(since LLVMCreateInterpreterForModule\\): both would free it"),
    "add_module_twice": ("invalid-transfer", "LLVMAddModule", None, "already owns \\(since LLVMAddModule\\)"),
    "remove_module": ("use-after-free", "LLVMRemoveModule", r"freed by LLVMDisposeExecutionEngine", None),
    "dispose_engine": ("use-after-free", "LLVMGetNamedFunction", r"freed by LLVMDisposeExecutionEngine", None),
    "diag_info_description": ("double-free", "LLVMDisposeMessage", r"freed by LLVMDisposeMessage", r"created by LLVMGetDiagInfoDescription"),
    "emit_to_memory_buffer": ("double-free", "LLVMDisposeMemoryBuffer", r"freed by LLVMDisposeMemoryBuffer", r"created by LLVMTargetMachineEmitToMemoryBuffer"),
    "consume_error": ("double-free", "LLVMConsumeError", r"freed by LLVMConsumeError", r"created by LLVMCreateStringError"),
    "get_error_message": ("use-after-consume", "LLVMConsumeError", r"consumed by LLVMGetErrorMessage", r"created by LLVMCreateStringError"),
    "dispose_error_message": ("invalid-free", "LLVMDisposeMessage", None, "must be released with LLVMDisposeErrorMessage"),
    "dispose_message_foreign": ("invalid-free", "LLVMDisposeMessage", None, "lent: LLVMGetModuleIdentifier returned it"),
    "create_binary": ("double-free", "LLVMDisposeBinary", r"freed by LLVMDisposeBinary", r"created by LLVMCreateBinary"),
    "create_binary_bitcode": ("use-after-free", "LLVMBinaryGetType", r"freed by LLVMDisposeBinary", None),
    "create_binary_failed": ("double-free", "LLVMDisposeMessage", r"freed by LLVMDisposeMessage", r"created by LLVMCreateBinary"),
    "section_iterator": ("use-after-free", "LLVMMoveToNextSection", r"freed by LLVMDisposeBinary", r"created by LLVMObjectFileCopySectionIterator"),
    "symbol_iterator": ("double-free", "LLVMDisposeSymbolIterator", r"freed by LLVMDisposeSymbolIterator", r"created by LLVMObjectFileCopySymbolIterator"),
    "relocation_symbol": ("double-free", "LLVMDisposeSymbolIterator", r"freed by LLVMDisposeSymbolIterator", r"created by LLVMGetRelocationSymbol"),
    "relocation_iterator": ("double-free", "LLVMDisposeRelocationIterator", r"freed by LLVMDisposeRelocationIterator", r"created by LLVMGetRelocations"),
    "relocation_value_string": ("double-free", "LLVMDisposeMessage", r"freed by LLVMDisposeMessage", r"created by LLVMGetRelocationValueString"),
    "target_machine": ("double-free", "LLVMDisposeTargetMachine", r"freed by LLVMDisposeTargetMachine", r"created by LLVMCreateTargetMachine\b"),
    "target_machine_options": ("double-free", "LLVMDisposeTargetMachine", r"freed by LLVMDisposeTargetMachine", r"created by LLVMCreateTargetMachineWithOptions"),
    "target_machine_options_dispose": ("double-free", "LLVMDisposeTargetMachineOptions", r"freed by LLVMDisposeTargetMachineOptions", r"created by LLVMCreateTargetMachineOptions"),
    "target_data_layout": ("double-free", "LLVMDisposeTargetData", r"freed by LLVMDisposeTargetData", r"created by LLVMCreateTargetDataLayout"),
    "pass_manager": ("double-free", "LLVMDisposePassManager", r"freed by LLVMDisposePassManager", r"created by LLVMCreatePassManager"),
    "function_pass_manager": ("double-free", "LLVMDisposePassManager", r"freed by LLVMDisposePassManager", r"created by LLVMCreateFunctionPassManagerForModule"),
    "pass_builder_options": ("double-free", "LLVMDisposePassBuilderOptions", r"freed by LLVMDisposePassBuilderOptions", r"created by LLVMCreatePassBuilderOptions"),
    "dibuilder": ("double-free", "LLVMDisposeDIBuilder", r"freed by LLVMDisposeDIBuilder", r"created by LLVMCreateDIBuilder\b"),
    "dibuilder_disallow_unresolved": ("double-free", "LLVMDisposeDIBuilder", r"freed by LLVMDisposeDIBuilder", r"created by LLVMCreateDIBuilderDisallowUnresolved"),
    "generic_value_int": ("double-free", "LLVMDisposeGenericValue", r"freed by LLVMDisposeGenericValue", r"created by LLVMCreateGenericValueOfInt"),
    "generic_value_pointer": ("double-free", "LLVMDisposeGenericValue", r"freed by LLVMDisposeGenericValue", r"created by LLVMCreateGenericValueOfPointer"),
    "generic_value_float": ("double-free", "LLVMDisposeGenericValue", r"freed by LLVMDisposeGenericValue", r"created by LLVMCreateGenericValueOfFloat"),
    "operand_bundle": ("double-free", "LLVMDisposeOperandBundle", r"freed by LLVMDisposeOperandBundle", r"created by LLVMCreateOperandBundle"),
    "operand_bundle_at_index": ("double-free", "LLVMDisposeOperandBundle", r"freed by LLVMDisposeOperandBundle", r"created by LLVMGetOperandBundleAtIndex"),
    "relocation_type_name": ("double-free", "LLVMDisposeMessage", r"freed by LLVMDisposeMessage", r"created by LLVMGetRelocationTypeName"),
    "object_file": ("use-after-consume", "LLVMGetBufferSize", r"consumed by LLVMCreateObjectFile", None),
    "object_file_failed": ("use-after-consume", "LLVMDisposeMemoryBuffer", r"consumed by LLVMCreateObjectFile", None),
    "object_file_sections": ("use-after-free", "LLVMMoveToNextSection", r"freed by LLVMDisposeObjectFile", r"created by LLVMGetSections"),
    "object_file_iterator_twice": ("double-free", "LLVMDisposeSectionIterator", r"freed by LLVMDisposeObjectFile", r"created by LLVMGetSections"),
    "object_file_symbols": ("use-after-free", "LLVMMoveToNextSymbol", r"freed by LLVMDisposeObjectFile", r"created by LLVMGetSymbols"),
    "disasm": ("use-after-free", "LLVMDisasmInstruction", r"freed by LLVMDisasmDispose", r"created by LLVMCreateDisasm\b"),
    "disasm_cpu": ("double-free", "LLVMDisasmDispose", r"freed by LLVMDisasmDispose", r"created by LLVMCreateDisasmCPU\b"),
    "disasm_cpu_features": ("double-free", "LLVMDisasmDispose", r"freed by LLVMDisasmDispose", r"created by LLVMCreateDisasmCPUFeatures"),
    "module_flags": ("use-after-free", "LLVMModuleFlagEntriesGetKey", r"freed by LLVMDisposeModuleFlagsMetadata", r"created by LLVMCopyModuleFlagsMetadata"),
    "global_metadata": ("double-free", "LLVMDisposeValueMetadataEntries", r"freed by LLVMDisposeValueMetadataEntries", r"created by LLVMGlobalCopyAllMetadata"),
    "instruction_metadata": ("use-after-free", "LLVMValueMetadataEntriesGetMetadata", r"freed by LLVMDisposeValueMetadataEntries", r"created by LLVMInstructionGetAllMetadataOtherThanDebugLoc"),
    "temporary_md_node": ("double-free", "LLVMDisposeTemporaryMDNode", r"freed by LLVMDisposeTemporaryMDNode", r"created by LLVMTemporaryMDNode"),
    "temporary_md_rauw": ("double-free", "LLVMDisposeTemporaryMDNode", r"freed by LLVMMetadataReplaceAllUsesWith", r"created by LLVMTemporaryMDNode"),
    "replaceable_composite_type": ("double-free", "LLVMMetadataReplaceAllUsesWith", r"freed by LLVMMetadataReplaceAllUsesWith", r"created by LLVMDIBuilderCreateReplaceableCompositeType"),
    "temp_global_variable_fwd_decl": ("double-free", "LLVMDisposeTemporaryMDNode", r"freed by LLVMDisposeTemporaryMDNode", r"created by LLVMDIBuilderCreateTempGlobalVariableFwdDecl"),
    "remark_parser": ("use-after-free", "LLVMRemarkParserGetNext", r"freed by LLVMRemarkParserDispose", r"created by LLVMRemarkParserCreateYAML"),
    "remark_parser_bitstream": ("double-free", "LLVMRemarkParserDispose", r"freed by LLVMRemarkParserDispose", r"created by LLVMRemarkParserCreateBitstream"),
    "remark_entry": ("double-free", "LLVMRemarkEntryDispose", r"freed by LLVMRemarkEntryDispose", r"created by LLVMRemarkParserGetNext"),
    "remark_pass_name": ("use-after-free", "LLVMRemarkStringGetLen", r"freed by LLVMRemarkEntryDispose", r"created by LLVMRemarkEntryGetPassName"),
    "remark_remark_name": ("use-after-free", "LLVMRemarkStringGetLen", r"freed by LLVMRemarkEntryDispose", r"created by LLVMRemarkEntryGetRemarkName"),
    "remark_function_name": ("use-after-free", "LLVMRemarkStringGetLen", r"freed by LLVMRemarkEntryDispose", r"created by LLVMRemarkEntryGetFunctionName"),
    "remark_debug_loc": ("use-after-free", "LLVMRemarkDebugLocGetSourceLine", r"freed by LLVMRemarkEntryDispose", r"created by LLVMRemarkEntryGetDebugLoc"),
    "remark_first_arg": ("use-after-free", "LLVMRemarkArgGetKey", r"freed by LLVMRemarkEntryDispose", r"created by LLVMRemarkEntryGetFirstArg"),
    "remark_next_arg": ("use-after-free", "LLVMRemarkArgGetValue", r"freed by LLVMRemarkEntryDispose", r"created by LLVMRemarkEntryGetNextArg"),
    "remark_arg_value": ("use-after-free", "LLVMRemarkStringGetData", r"freed by LLVMRemarkEntryDispose", r"created by LLVMRemarkArgGetValue"),
    "pass_manager_builder": ("double-free", "LLVMPassManagerBuilderDispose", r"freed by LLVMPassManagerBuilderDispose", r"created by LLVMPassManagerBuilderCreate"),
    "pass_manager_builder_use": ("use-after-free", "LLVMPassManagerBuilderSetSizeLevel", r"freed by LLVMPassManagerBuilderDispose", r"on LLVMPassManagerBuilderRef (?s:.*)created by LLVMPassManagerBuilderCreate"),
    "mcjit_memory_manager": ("double-free", "LLVMDisposeMCJITMemoryManager", r"freed by LLVMDisposeMCJITMemoryManager", r"created by LLVMCreateSimpleMCJITMemoryManager"),
    "mcjit_owns_memory_manager": ("invalid-free", "LLVMDisposeMCJITMemoryManager", None, "owns it since LLVMCreateMCJITCompilerForModule"),
    "mcjit_failed_memory_manager": ("use-after-consume", "LLVMDisposeMCJITMemoryManager", r"consumed during LLVMCreateMCJITCompilerForModule", None),
    # ORC v2 (tests/spec/orc_cases.inc)
    "orc_thread_safe_context": ("double-free", "LLVMOrcDisposeThreadSafeContext", r"freed by LLVMOrcDisposeThreadSafeContext", None),
    "orc_thread_safe_context_get_context": ("invalid-free", "LLVMContextDispose", None, "owns it since LLVMOrcThreadSafeContextGetContext"),
    "orc_dispose_thread_safe_module": ("use-after-free", "LLVMGetModuleIdentifier", r"freed by LLVMOrcDisposeThreadSafeModule", None),
    "orc_add_module": ("use-after-consume", "LLVMGetNamedFunction", r"consumed by LLVMOrcLLJITAddLLVMIRModule", None),
    "orc_add_module_with_rt": ("use-after-consume", "LLVMOrcDisposeThreadSafeModule", r"consumed by LLVMOrcLLJITAddLLVMIRModuleWithRT", None),
    "orc_release_resource_tracker": ("use-after-free", "LLVMOrcResourceTrackerRemove", r"freed by LLVMOrcReleaseResourceTracker", None),
    "orc_main_dylib": ("use-after-free", "LLVMOrcJITDylibCreateResourceTracker", r"freed by LLVMOrcDisposeLLJIT", None),
    "orc_execution_session": ("use-after-free", "LLVMOrcExecutionSessionCreateBareJITDylib", r"freed by LLVMOrcDisposeLLJIT", None),
    "orc_bare_dylib": ("use-after-free", "LLVMOrcJITDylibCreateResourceTracker", r"freed by LLVMOrcDisposeLLJIT", None),
    "orc_dylib_by_name": ("use-after-free", "LLVMOrcJITDylibCreateResourceTracker", r"freed by LLVMOrcDisposeLLJIT", None),
    "orc_obj_linking_layer": ("use-after-free", "LLVMOrcObjectLayerAddObjectFile", r"freed by LLVMOrcDisposeLLJIT", None),
    "orc_obj_transform_layer": ("use-after-free", "LLVMOrcObjectTransformLayerSetTransform", r"freed by LLVMOrcDisposeLLJIT", None),
    "orc_ir_transform_layer": ("use-after-free", "LLVMOrcIRTransformLayerSetTransform", r"freed by LLVMOrcDisposeLLJIT", None),
    "orc_lljit_builder": ("use-after-consume", "LLVMOrcDisposeLLJITBuilder", r"consumed by LLVMOrcCreateLLJIT", None),
    "orc_jtmb": ("use-after-consume", "LLVMOrcDisposeJITTargetMachineBuilder", r"consumed by LLVMOrcLLJITBuilderSetJITTargetMachineBuilder", None),
    "orc_jtmb_from_tm": ("use-after-consume", "LLVMDisposeTargetMachine", r"consumed by LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine", None),
    "orc_add_object_file": ("use-after-consume", "LLVMGetBufferSize", r"consumed by LLVMOrcLLJITAddObjectFile", None),
    "orc_add_object_file_with_rt": ("use-after-consume", "LLVMGetBufferSize", r"consumed by LLVMOrcLLJITAddObjectFileWithRT", None),
    "orc_layer_add_object_file": ("use-after-consume", "LLVMGetBufferSize", r"consumed by LLVMOrcObjectLayerAddObjectFile", None),
    "orc_layer_add_object_file_with_rt": ("use-after-consume", "LLVMGetBufferSize", r"consumed by LLVMOrcObjectLayerAddObjectFileWithRT", None),
    "orc_ir_layer_emit": ("use-after-consume", "LLVMOrcDisposeThreadSafeModule", r"consumed by LLVMOrcIRTransformLayerEmit", None),
    "orc_object_layer_emit": ("use-after-consume", "LLVMDisposeMemoryBuffer", r"consumed by LLVMOrcObjectLayerEmit", None),
    "orc_responsibility_replace": ("use-after-consume", "LLVMOrcDisposeMaterializationUnit", r"consumed by LLVMOrcMaterializationResponsibilityReplace", None),
    "orc_responsibility_symbols": ("double-free", "LLVMOrcDisposeCSymbolFlagsMap", r"freed by LLVMOrcDisposeCSymbolFlagsMap", None),
    "orc_requested_symbols": ("double-free", "LLVMOrcDisposeSymbols", r"freed by LLVMOrcDisposeSymbols", None),
    "orc_define": ("use-after-consume", "LLVMOrcDisposeMaterializationUnit", r"consumed by LLVMOrcJITDylibDefine", None),
    "orc_dispose_materialization_unit": ("double-free", "LLVMOrcDisposeMaterializationUnit", r"freed by LLVMOrcDisposeMaterializationUnit", None),
    "orc_generator_for_process": ("use-after-consume", "LLVMOrcDisposeDefinitionGenerator", r"consumed by LLVMOrcJITDylibAddGenerator", None),
    "orc_generator_for_path": ("double-free", "LLVMOrcDisposeDefinitionGenerator", r"freed by LLVMOrcDisposeDefinitionGenerator", None),
    "orc_custom_generator": ("double-free", "LLVMOrcDisposeDefinitionGenerator", r"freed by LLVMOrcDisposeDefinitionGenerator", None),
    "orc_indirect_stubs_manager": ("double-free", "LLVMOrcDisposeIndirectStubsManager", r"freed by LLVMOrcDisposeIndirectStubsManager", None),
    "orc_lazy_call_through_manager": ("double-free", "LLVMOrcDisposeLazyCallThroughManager", r"freed by LLVMOrcDisposeLazyCallThroughManager", None),
    "orc_lazy_reexports": ("double-free", "LLVMOrcDisposeMaterializationUnit", r"freed by LLVMOrcDisposeMaterializationUnit", None),
    "orc_dump_objects": ("double-free", "LLVMOrcDisposeDumpObjects", r"freed by LLVMOrcDisposeDumpObjects", None),
}
# Owned strings: the misuse is a second LLVMDisposeMessage.
for _case, _fn in [
        ("create_message", "LLVMCreateMessage"), ("print_module", "LLVMPrintModuleToString"),
        ("print_type", "LLVMPrintTypeToString"), ("print_value", "LLVMPrintValueToString"),
        ("print_dbg_record", "LLVMPrintDbgRecordToString"),
        ("target_data_string", "LLVMCopyStringRepOfTargetData"),
        ("default_target_triple", "LLVMGetDefaultTargetTriple"),
        ("normalize_target_triple", "LLVMNormalizeTargetTriple"),
        ("host_cpu_name", "LLVMGetHostCPUName"), ("host_cpu_features", "LLVMGetHostCPUFeatures"),
        ("target_machine_triple", "LLVMGetTargetMachineTriple"),
        ("target_machine_cpu", "LLVMGetTargetMachineCPU"),
        ("target_machine_features", "LLVMGetTargetMachineFeatureString"),
        ("intrinsic_copy_overloaded_name", r"LLVMIntrinsicCopyOverloadedName\b"),
        ("intrinsic_copy_overloaded_name2", "LLVMIntrinsicCopyOverloadedName2"),
        ("jtmb_target_triple", "LLVMOrcJITTargetMachineBuilderGetTargetTriple"),
        ("verify_module", "LLVMVerifyModule"), ("print_module_to_file", "LLVMPrintModuleToFile"),
        ("buffer_from_file", "LLVMCreateMemoryBufferWithContentsOfFile"),
        ("buffer_from_stdin", "LLVMCreateMemoryBufferWithSTDIN"),
        ("emit_to_file", "LLVMTargetMachineEmitToFile")]:
    EXPECT[_case] = ("double-free", "LLVMDisposeMessage", r"freed by LLVMDisposeMessage",
                     "created by " + _fn)

# Spec function -> the case(s) that exercise its rule (correct use + misuse).
COVERAGE = {
    "LLVMContextDispose": ["context_dispose"],
    "LLVMDisposeModule": ["module_dispose"],
    "LLVMDisposeModuleProvider": ["module_provider"],
    "LLVMDisposeBuilder": ["builder_dispose"],
    "LLVMDisposeMemoryBuffer": ["memory_buffer_dispose"],
    "LLVMDeleteFunction": ["delete_function"],
    "LLVMDeleteGlobal": ["delete_global"],
    "LLVMEraseGlobalIFunc": ["erase_global_ifunc"],
    "LLVMDeleteBasicBlock": ["delete_basic_block", "remove_block"],
    "LLVMInstructionEraseFromParent": ["instruction_erase", "remove_instruction"],
    "LLVMDeleteInstruction": ["delete_instruction"],
    "LLVMRemoveBasicBlockFromParent": ["remove_block"],
    "LLVMInstructionRemoveFromParent": ["remove_instruction"],
    "LLVMRemoveGlobalIFunc": ["remove_global_ifunc"],
    "LLVMAppendExistingBasicBlock": ["append_existing_block"],
    "LLVMInsertExistingBasicBlockAfterInsertBlock": ["insert_existing_block"],
    "LLVMInsertIntoBuilder": ["insert_into_builder"],
    "LLVMSetValueName2": ["set_value_name2"],
    "LLVMSetValueName": ["set_value_name"],
    "LLVMSetModuleIdentifier": ["set_module_identifier"],
    "LLVMInsertIntoBuilderWithName": ["insert_into_builder_with_name"],
    "LLVMGetParams": ["get_params"],
    "LLVMGetBasicBlocks": ["get_basic_blocks"],
    "LLVMGetParamTypes": ["get_param_types"],
    "LLVMGetStructElementTypes": ["get_struct_element_types"],
    "LLVMGetSubtypes": ["get_subtypes"],
    "LLVMGetMDNodeOperands": ["get_md_node_operands"],
    "LLVMGetNamedMetadataOperands": ["get_named_metadata_operands"],
    "LLVMPositionBuilder": ["position_builder"],
    "LLVMPositionBuilderBefore": ["position_builder_before"],
    "LLVMPositionBuilderAtEnd": ["position_builder_at_end"],
    "LLVMClearInsertionPosition": ["clear_insertion_position"],
    "LLVMPositionBuilderBeforeDbgRecords": ["position_before_dbg_records"],
    "LLVMPositionBuilderBeforeInstrAndDbgRecords": ["position_before_instr_and_dbg_records"],
    "LLVMRunPasses": ["run_passes"],
    "LLVMRunFunction": ["run_function", "run_function_result"],
    "LLVMRunFunctionAsMain": ["run_function_as_main"],
    "LLVMFreeMachineCodeForFunction": ["free_machine_code"],
    "LLVMGetPointerToGlobal": ["get_pointer_to_global"],
    "LLVMAddGlobalMapping": ["add_global_mapping"],
    "LLVMRecompileAndRelinkFunction": ["recompile_and_relink"],
    "LLVMBuildShuffleVector": ["build_shuffle_vector"],
    "LLVMConstShuffleVector": ["const_shuffle_vector"],
    "LLVMGetCastOpcode": ["cast_opcode"],
    "LLVMParseIRInContext": ["parse_ir", "parse_ir_failed"],
    "LLVMLinkModules2": ["link_modules"],
    "LLVMGetBitcodeModuleInContext2": ["get_bitcode_module"],
    "LLVMCreateExecutionEngineForModule": ["create_execution_engine"],
    "LLVMCreateInterpreterForModule": ["create_interpreter", "engine_twice"],
    "LLVMCreateJITCompilerForModule": ["create_jit"],
    "LLVMCreateMCJITCompilerForModule": ["create_mcjit", "mcjit_owns_memory_manager", "mcjit_failed_memory_manager"],
    "LLVMAddModule": ["add_module", "add_module_twice"],
    "LLVMOrcCreateNewThreadSafeModule": ["thread_safe_module"],
    "LLVMOrcCreateNewThreadSafeContextFromLLVMContext": ["thread_safe_context_from_context"],
    "LLVMRemoveModule": ["remove_module"],
    "LLVMDisposeExecutionEngine": ["dispose_engine"],
    "LLVMDisposeMessage": ["create_message", "dispose_error_message", "dispose_message_foreign"],
    "LLVMCreateMessage": ["create_message"],
    "LLVMPrintModuleToString": ["print_module"],
    "LLVMPrintTypeToString": ["print_type"],
    "LLVMPrintValueToString": ["print_value"],
    "LLVMPrintDbgRecordToString": ["print_dbg_record"],
    "LLVMGetDiagInfoDescription": ["diag_info_description"],
    "LLVMCopyStringRepOfTargetData": ["target_data_string"],
    "LLVMGetDefaultTargetTriple": ["default_target_triple"],
    "LLVMNormalizeTargetTriple": ["normalize_target_triple"],
    "LLVMGetHostCPUName": ["host_cpu_name"],
    "LLVMGetHostCPUFeatures": ["host_cpu_features"],
    "LLVMGetTargetMachineTriple": ["target_machine_triple"],
    "LLVMGetTargetMachineCPU": ["target_machine_cpu"],
    "LLVMGetTargetMachineFeatureString": ["target_machine_features"],
    "LLVMIntrinsicCopyOverloadedName": ["intrinsic_copy_overloaded_name"],
    "LLVMIntrinsicCopyOverloadedName2": ["intrinsic_copy_overloaded_name2"],
    "LLVMOrcJITTargetMachineBuilderGetTargetTriple": ["jtmb_target_triple"],
    "LLVMGetRelocationValueString": ["relocation_value_string"],
    "LLVMVerifyModule": ["verify_module"],
    "LLVMPrintModuleToFile": ["print_module_to_file"],
    "LLVMCreateMemoryBufferWithContentsOfFile": ["buffer_from_file"],
    "LLVMCreateMemoryBufferWithSTDIN": ["buffer_from_stdin"],
    "LLVMTargetMachineEmitToFile": ["emit_to_file"],
    "LLVMTargetMachineEmitToMemoryBuffer": ["emit_to_memory_buffer"],
    "LLVMConsumeError": ["consume_error"],
    "LLVMGetErrorMessage": ["get_error_message"],
    "LLVMDisposeErrorMessage": ["dispose_error_message"],
    "LLVMCreateBinary": ["create_binary", "create_binary_bitcode", "create_binary_failed"],
    "LLVMDisposeBinary": ["create_binary", "create_binary_bitcode"],
    "LLVMObjectFileCopySectionIterator": ["section_iterator"],
    "LLVMObjectFileCopySymbolIterator": ["symbol_iterator"],
    "LLVMGetRelocations": ["relocation_iterator"],
    "LLVMGetRelocationSymbol": ["relocation_symbol"],
    "LLVMDisposeSectionIterator": ["section_iterator", "object_file_iterator_twice"],
    "LLVMDisposeSymbolIterator": ["symbol_iterator"],
    "LLVMDisposeRelocationIterator": ["relocation_iterator"],
    "LLVMCreateTargetMachine": ["target_machine"],
    "LLVMCreateTargetMachineWithOptions": ["target_machine_options"],
    "LLVMDisposeTargetMachine": ["target_machine"],
    "LLVMCreateTargetMachineOptions": ["target_machine_options_dispose"],
    "LLVMDisposeTargetMachineOptions": ["target_machine_options_dispose"],
    "LLVMCreateTargetDataLayout": ["target_data_layout"],
    "LLVMDisposeTargetData": ["target_data_layout"],
    "LLVMCreatePassManager": ["pass_manager"],
    "LLVMCreateFunctionPassManagerForModule": ["function_pass_manager"],
    "LLVMDisposePassManager": ["pass_manager"],
    "LLVMCreatePassBuilderOptions": ["pass_builder_options"],
    "LLVMDisposePassBuilderOptions": ["pass_builder_options"],
    "LLVMCreateDIBuilder": ["dibuilder"],
    "LLVMCreateDIBuilderDisallowUnresolved": ["dibuilder_disallow_unresolved"],
    "LLVMDisposeDIBuilder": ["dibuilder"],
    "LLVMCreateGenericValueOfInt": ["generic_value_int"],
    "LLVMCreateGenericValueOfPointer": ["generic_value_pointer"],
    "LLVMCreateGenericValueOfFloat": ["generic_value_float"],
    "LLVMDisposeGenericValue": ["generic_value_int"],
    "LLVMCreateOperandBundle": ["operand_bundle"],
    "LLVMGetOperandBundleAtIndex": ["operand_bundle_at_index"],
    "LLVMDisposeOperandBundle": ["operand_bundle"],
    "LLVMGetRelocationTypeName": ["relocation_type_name"],
    "LLVMCreateObjectFile": ["object_file", "object_file_failed"],
    "LLVMDisposeObjectFile": ["object_file_sections", "object_file_symbols"],
    "LLVMGetSections": ["object_file_sections"],
    "LLVMGetSymbols": ["object_file_symbols"],
    "LLVMCreateDisasm": ["disasm"],
    "LLVMCreateDisasmCPU": ["disasm_cpu"],
    "LLVMCreateDisasmCPUFeatures": ["disasm_cpu_features"],
    "LLVMDisasmDispose": ["disasm", "disasm_cpu"],
    "LLVMCopyModuleFlagsMetadata": ["module_flags"],
    "LLVMDisposeModuleFlagsMetadata": ["module_flags"],
    "LLVMGlobalCopyAllMetadata": ["global_metadata"],
    "LLVMInstructionGetAllMetadataOtherThanDebugLoc": ["instruction_metadata"],
    "LLVMDisposeValueMetadataEntries": ["global_metadata", "instruction_metadata"],
    "LLVMTemporaryMDNode": ["temporary_md_node", "temporary_md_rauw"],
    "LLVMDIBuilderCreateReplaceableCompositeType": ["replaceable_composite_type"],
    "LLVMDIBuilderCreateTempGlobalVariableFwdDecl": ["temp_global_variable_fwd_decl"],
    "LLVMDisposeTemporaryMDNode": ["temporary_md_node", "temp_global_variable_fwd_decl"],
    "LLVMMetadataReplaceAllUsesWith": ["temporary_md_rauw", "replaceable_composite_type"],
    "LLVMRemarkParserCreateYAML": ["remark_parser"],
    "LLVMRemarkParserCreateBitstream": ["remark_parser_bitstream"],
    "LLVMRemarkParserDispose": ["remark_parser", "remark_parser_bitstream"],
    "LLVMRemarkParserGetNext": ["remark_entry"],
    "LLVMRemarkEntryDispose": ["remark_entry"],
    "LLVMRemarkEntryGetPassName": ["remark_pass_name"],
    "LLVMRemarkEntryGetRemarkName": ["remark_remark_name"],
    "LLVMRemarkEntryGetFunctionName": ["remark_function_name"],
    "LLVMRemarkEntryGetDebugLoc": ["remark_debug_loc"],
    "LLVMRemarkEntryGetFirstArg": ["remark_first_arg"],
    "LLVMRemarkEntryGetNextArg": ["remark_next_arg"],
    "LLVMRemarkArgGetValue": ["remark_arg_value"],
    "LLVMPassManagerBuilderCreate": ["pass_manager_builder"],
    "LLVMPassManagerBuilderDispose": ["pass_manager_builder", "pass_manager_builder_use"],
    "LLVMCreateSimpleMCJITMemoryManager": ["mcjit_memory_manager"],
    "LLVMDisposeMCJITMemoryManager": ["mcjit_memory_manager", "mcjit_owns_memory_manager"],
    # ORC v2
    "LLVMOrcCreateNewThreadSafeContext": ["orc_thread_safe_context", "orc_thread_safe_context_get_context"],
    "LLVMOrcThreadSafeContextGetContext": ["orc_thread_safe_context_get_context"],
    "LLVMOrcDisposeThreadSafeContext": ["orc_thread_safe_context"],
    "LLVMOrcDisposeThreadSafeModule": ["orc_dispose_thread_safe_module"],
    "LLVMOrcLLJITAddLLVMIRModule": ["orc_add_module"],
    "LLVMOrcLLJITAddLLVMIRModuleWithRT": ["orc_add_module_with_rt"],
    "LLVMOrcIRTransformLayerEmit": ["orc_ir_layer_emit"],
    "LLVMOrcJITTargetMachineBuilderDetectHost": ["orc_jtmb"],
    "LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine": ["orc_jtmb_from_tm"],
    "LLVMOrcDisposeJITTargetMachineBuilder": ["orc_jtmb", "orc_jtmb_from_tm"],
    "LLVMOrcCreateLLJITBuilder": ["orc_lljit_builder"],
    "LLVMOrcLLJITBuilderSetJITTargetMachineBuilder": ["orc_jtmb"],
    "LLVMOrcDisposeLLJITBuilder": ["orc_lljit_builder"],
    "LLVMOrcCreateLLJIT": ["orc_lljit_builder", "orc_main_dylib"],
    "LLVMOrcDisposeLLJIT": ["orc_main_dylib", "orc_execution_session"],
    "LLVMOrcLLJITGetExecutionSession": ["orc_execution_session"],
    "LLVMOrcLLJITGetMainJITDylib": ["orc_main_dylib"],
    "LLVMOrcLLJITGetObjLinkingLayer": ["orc_obj_linking_layer"],
    "LLVMOrcLLJITGetObjTransformLayer": ["orc_obj_transform_layer"],
    "LLVMOrcLLJITGetIRTransformLayer": ["orc_ir_transform_layer"],
    "LLVMOrcExecutionSessionCreateBareJITDylib": ["orc_bare_dylib"],
    "LLVMOrcExecutionSessionGetJITDylibByName": ["orc_dylib_by_name"],
    "LLVMOrcLLJITAddObjectFile": ["orc_add_object_file"],
    "LLVMOrcLLJITAddObjectFileWithRT": ["orc_add_object_file_with_rt"],
    "LLVMOrcObjectLayerAddObjectFile": ["orc_layer_add_object_file"],
    "LLVMOrcObjectLayerAddObjectFileWithRT": ["orc_layer_add_object_file_with_rt"],
    "LLVMOrcObjectLayerEmit": ["orc_object_layer_emit"],
    "LLVMOrcJITDylibCreateResourceTracker": ["orc_release_resource_tracker"],
    "LLVMOrcReleaseResourceTracker": ["orc_release_resource_tracker"],
    "LLVMOrcAbsoluteSymbols": ["orc_define", "orc_dispose_materialization_unit"],
    "LLVMOrcCreateCustomMaterializationUnit": ["orc_ir_layer_emit"],
    "LLVMOrcLazyReexports": ["orc_lazy_reexports"],
    "LLVMOrcJITDylibDefine": ["orc_define"],
    "LLVMOrcMaterializationResponsibilityReplace": ["orc_responsibility_replace"],
    "LLVMOrcDisposeMaterializationUnit": ["orc_dispose_materialization_unit"],
    "LLVMOrcMaterializationResponsibilityGetSymbols": ["orc_responsibility_symbols"],
    "LLVMOrcDisposeCSymbolFlagsMap": ["orc_responsibility_symbols"],
    "LLVMOrcMaterializationResponsibilityGetRequestedSymbols": ["orc_requested_symbols"],
    "LLVMOrcDisposeSymbols": ["orc_requested_symbols"],
    "LLVMOrcCreateCustomCAPIDefinitionGenerator": ["orc_custom_generator"],
    "LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess": ["orc_generator_for_process"],
    "LLVMOrcCreateDynamicLibrarySearchGeneratorForPath": ["orc_generator_for_path"],
    "LLVMOrcJITDylibAddGenerator": ["orc_generator_for_process"],
    "LLVMOrcDisposeDefinitionGenerator": ["orc_generator_for_path", "orc_custom_generator"],
    "LLVMOrcCreateLocalIndirectStubsManager": ["orc_indirect_stubs_manager"],
    "LLVMOrcDisposeIndirectStubsManager": ["orc_indirect_stubs_manager"],
    "LLVMOrcCreateLocalLazyCallThroughManager": ["orc_lazy_call_through_manager"],
    "LLVMOrcDisposeLazyCallThroughManager": ["orc_lazy_call_through_manager"],
    "LLVMOrcCreateDumpObjects": ["orc_dump_objects"],
    "LLVMOrcDisposeDumpObjects": ["orc_dump_objects"],
}
# Entries whose rule is also tested elsewhere (informational).
EXTERNAL = {
    "LLVMDisposeModule": "tests/seeded double_dispose_module",
    "LLVMDeleteInstruction": "tests/seeded delete_attached_instruction",
    "LLVMRunPasses": "tests/lifetime pass_dce",
}

# Misuses ownsan does not report today (runtime limitations; see the
# reasons). Shown as XFAIL; they do not fail the run.
KNOWN_BUGS = {
}

HEADER_RE = re.compile(r"==\d+==ERROR: OwnSan: (\S+) on ")
USE_RE = re.compile(r"^  passed as argument \d+ of (\w+) on thread")


# Frames are not what these cases check (the report's kind, call, cause and
# explanation are); the seeded and lifetime tests check symbolized stacks.
# Without the symbolizer a report takes ~0.08 s instead of ~0.25 s.
RUN_OPTIONS = "symbolize=0"


def run(cmd, timeout=120):
    r = testing_run(cmd, env=clean_env(OWNSAN_OPTIONS=RUN_OPTIONS),
                    timeout=timeout)
    return r.returncode, r.out, r.err


def first_report(stderr):
    lines = stderr.splitlines()
    for i, l in enumerate(lines):
        if HEADER_RE.search(l):
            block = []
            for m in lines[i:]:
                block.append(m)
                if m.startswith("SUMMARY: OwnSan"):
                    break
            return block
    return None


def check_ok(ownsan, prog, case):
    rc, out, err = run([ownsan, "run", "--", prog, case, "ok"])
    if rc == 77:
        return "skip", out.strip().splitlines()[-1:] or ["exit 77"]
    problems = []
    if rc != 0:
        problems.append(f"exit status {rc} under ownsan")
    if "OwnSan" in err:
        problems.append("OwnSan on stderr: " + err.strip()[:2000])
    rc2, out2, _ = run([prog, case, "ok"])
    if rc2 != rc:
        problems.append(f"exit status {rc2} without ownsan")
    if out2 != out:
        problems.append(f"stdout differs: without ownsan {out2!r}, with {out!r}")
    return ("fail" if problems else "pass"), problems


def check_bad(ownsan, prog, case):
    kind, use_fn, cause, phrase = EXPECT[case]
    rc, out, err = run([ownsan, "run", "--", prog, case, "bad"])
    if rc == 77:
        return "skip", ["exit 77"]
    rep = first_report(err)
    if rep is None:
        return "fail", [f"no OwnSan report (exit {rc}); stderr tail: "
                        + err.strip()[-600:]]
    text = "\n".join(rep)
    problems = []
    got_kind = HEADER_RE.search(rep[0]).group(1)
    if got_kind != kind:
        problems.append(f"kind {got_kind}, want {kind}")
    uses = [USE_RE.match(l).group(1) for l in rep if USE_RE.match(l)]
    if uses[:1] != [use_fn]:
        problems.append(f"used in {uses[:1]}, want {use_fn}")
    if cause and not re.search(r"(freed|consumed) (by|during) ", text):
        problems.append("no freed/consumed line")
    if cause and not re.search(cause, text):
        problems.append(f"no match for {cause!r}")
    if phrase and not re.search(phrase, text):
        problems.append(f"no match for {phrase!r}")
    if problems:
        problems.append("report:\n" + "\n".join(
            l for l in rep if not l.startswith("    #")))
    return ("fail" if problems else "pass"), problems


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--llvm-major", type=int, required=True)
    ap.add_argument("--case", action="append",
                    help="run only these cases (coverage is still checked)")
    args = ap.parse_args(argv)

    passed = failed = 0
    listed = run([args.program, "--list"])[1].split()
    # 1. Coverage: every applicable spec entry has a case that exists.
    entries = [e for e in gw.parse_spec_file(args.spec)
               if e.applies_to(args.llvm_major)]
    for e in entries:
        cases = COVERAGE.get(e.function)
        bad = [c for c in cases or [] if c not in listed or c not in EXPECT]
        if not cases or bad:
            failed += 1
            print(f"FAIL coverage {e.function} ({e.path}:{e.line_no}): "
                  + ("no test case" if not cases else f"unknown case(s) {bad}"))
    stale = sorted(set(COVERAGE) - {e.function for e in
                                    gw.parse_spec_file(args.spec)})
    for fn in stale:
        failed += 1
        print(f"FAIL coverage {fn}: mapped but not in the spec")
    if not failed:
        passed += 1
        print(f"PASS coverage: {len(entries)} spec entries of LLVM "
              f"{args.llvm_major} mapped to cases")
    # 2. Run the cases of the applicable entries.
    wanted = sorted({c for e in entries for c in COVERAGE.get(e.function, [])
                     if c in listed})
    if args.case:
        wanted = [c for c in wanted if c in args.case]
    for case in wanted:
        for mode, fn in (("ok", check_ok), ("bad", check_bad)):
            status, problems = fn(args.ownsan, args.program, case)
            name = f"{case} {mode}"
            if status == "skip":
                print(f"SKIP {name}: {' '.join(problems)}")
                continue
            if mode == "bad" and case in KNOWN_BUGS:
                print(("XPASS " if status == "pass" else "XFAIL ") + name
                      + ": " + KNOWN_BUGS[case])
                passed += 1
                continue
            if status == "pass":
                passed += 1
                print(f"PASS {name}")
            else:
                failed += 1
                print(f"FAIL {name}")
                for p in problems:
                    print("    " + p.replace("\n", "\n    "))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
