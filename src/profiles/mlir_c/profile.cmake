# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The MLIR-C profile: what the build needs to check a program's calls into
# MLIR's C API (mlir-c/*.h). Selected with -DOWNSAN_PROFILE=mlir_c, with the
# LLVM whose MLIR is checked (-DLLVM_DIR=/usr/lib/llvm-N/lib/cmake/llvm);
# sets the same OWNSAN_PROFILE_* variables as src/profiles/llvm_c's, and
# the link-mode ones below.
#
# Debian ships MLIR's C API only as static archives (libMLIRCAPI*.a of
# libmlir-N-dev), over the shared libMLIR.so: a program carries the C API
# it calls, so link mode is the only way in (docs/mlir.md).

set(OWNSAN_PROFILE_NAME "MLIR-C")
set(OWNSAN_PROFILE_DIR ${CMAKE_CURRENT_LIST_DIR})

# Where MLIR is: include/mlir-c (and mlir/), lib/libMLIRCAPI*.a and
# lib/libMLIR.so. Debian installs it in the LLVM prefix (libmlir-N-dev), the
# default; libmlir-19-dev and libmlir-22-dev conflict, so the other major's
# MLIR may be a package unpacked elsewhere (`dpkg-deb -x`, docs/mlir.md):
# -DOWNSAN_MLIR_ROOT=<root>/usr/lib/llvm-22.
get_filename_component(_ownsan_llvm_prefix ${LLVM_LIBRARY_DIR} DIRECTORY)
set(OWNSAN_MLIR_ROOT ${_ownsan_llvm_prefix} CACHE PATH
    "MLIR's prefix: include/mlir-c, lib/libMLIRCAPI*.a, lib/libMLIR.so (default: LLVM's)")
get_filename_component(OWNSAN_MLIR_ROOT_ABS ${OWNSAN_MLIR_ROOT} ABSOLUTE)
set(OWNSAN_MLIR_INCLUDE_DIR ${OWNSAN_MLIR_ROOT_ABS}/include)
set(OWNSAN_MLIR_LIBRARY_DIR ${OWNSAN_MLIR_ROOT_ABS}/lib)
if(NOT EXISTS ${OWNSAN_MLIR_INCLUDE_DIR}/mlir-c/IR.h)
  message(FATAL_ERROR "ownsan: no ${OWNSAN_MLIR_INCLUDE_DIR}/mlir-c/IR.h "
                      "(install libmlir-${LLVM_VERSION_MAJOR}-dev, or set "
                      "OWNSAN_MLIR_ROOT)")
endif()

set(OWNSAN_PROFILE_INCLUDE_DIR ${OWNSAN_MLIR_INCLUDE_DIR})
set(OWNSAN_PROFILE_HEADER_GLOB "mlir-c/**/*.h")
# What the runtime, the C++ helper and the tests compile with: MLIR's
# headers, then LLVM's (mlir-c/Target/LLVMIR.h includes llvm-c/; MLIR's
# C++ headers include llvm/). One directory when MLIR is in LLVM's prefix.
set(OWNSAN_PROFILE_API_INCLUDE_DIRS ${OWNSAN_MLIR_INCLUDE_DIR} ${LLVM_INCLUDE_DIRS})
list(REMOVE_DUPLICATES OWNSAN_PROFILE_API_INCLUDE_DIRS)
# LLVM's include directories the generator's libclang needs beside MLIR's.
set(_ownsan_mlir_extra_includes ${OWNSAN_PROFILE_API_INCLUDE_DIRS})
list(REMOVE_ITEM _ownsan_mlir_extra_includes ${OWNSAN_MLIR_INCLUDE_DIR})

set(OWNSAN_PROFILE_SPEC ${OWNSAN_PROFILE_DIR}/ownership.spec)
set(OWNSAN_PROFILE_KINDS_SPEC ${OWNSAN_PROFILE_DIR}/handle_kinds.spec)
set(OWNSAN_PROFILE_PLAIN ${OWNSAN_PROFILE_DIR}/plain.txt)
set(OWNSAN_PROFILE_HANDLE_TYPES ${OWNSAN_PROFILE_DIR}/handle_types.def)
set(OWNSAN_PROFILE_HANDLE_TYPES_INCLUDE "profiles/mlir_c/handle_types.def")
set(OWNSAN_PROFILE_FN_FLAGS ${OWNSAN_PROFILE_DIR}/fn_flags.txt)

# The C API's archives: their exports decide what is wrapped, and link
# mode's group brings them in.
file(GLOB OWNSAN_PROFILE_LIBRARY ${OWNSAN_MLIR_LIBRARY_DIR}/libMLIRCAPI*.a)
if(NOT OWNSAN_PROFILE_LIBRARY)
  message(FATAL_ERROR "ownsan: no ${OWNSAN_MLIR_LIBRARY_DIR}/libMLIRCAPI*.a "
                      "(install libmlir-${LLVM_VERSION_MAJOR}-dev, or set "
                      "OWNSAN_MLIR_ROOT)")
endif()
# (Not find_file: its cached result would outlive a change of
# OWNSAN_MLIR_ROOT.)
set(OWNSAN_PROFILE_MLIR_SO ${OWNSAN_MLIR_LIBRARY_DIR}/libMLIR.so)
if(NOT EXISTS ${OWNSAN_PROFILE_MLIR_SO})
  message(FATAL_ERROR "ownsan: no ${OWNSAN_PROFILE_MLIR_SO}")
endif()

# The generator's conventions for these headers: mlir* functions, handles
# that are structs of one pointer passed by value.
# (--pointer-handles= is one token: CMake drops an empty list element.)
set(OWNSAN_PROFILE_GEN_ARGS
  --prefix mlir
  --header-glob "mlir-c/**/*.h"
  --exclude-header mlir-c/Bindings/Python/Interop.h
  --struct-handles --pointer-handles=
  "--count-before=^(n|num)([A-Z].*)?$" "--count-after=^size$"
  "--out-success=MlirLogicalResult=r.value != 0"
  --string-ref MlirStringRef
  --no-wrap-allocation)
foreach(_dir IN LISTS _ownsan_mlir_extra_includes)
  list(APPEND OWNSAN_PROFILE_GEN_ARGS --extra-include ${_dir})
endforeach()

# Link mode only; MLIR's own code is a shared library, whose allocations
# the runtime sees by defining the allocation functions (operator new and
# delete, malloc and free), not by wrapping the program's references.
set(OWNSAN_PROFILE_LINK_ONLY ON)
set(OWNSAN_PROFILE_LIBRARY_SHARED ON)
# The link group and what follows it.
set(OWNSAN_PROFILE_LINK_ARCHIVES ${OWNSAN_PROFILE_LIBRARY})
# libMLIR.so found at run time where it was linked, and the libLLVM.so it
# needs (its own directory's, or LLVM's when MLIR is elsewhere).
set(_ownsan_mlir_rpath "-Wl,-rpath,${OWNSAN_MLIR_LIBRARY_DIR}")
if(NOT OWNSAN_MLIR_LIBRARY_DIR STREQUAL LLVM_LIBRARY_DIR)
  string(APPEND _ownsan_mlir_rpath " -Wl,-rpath,${LLVM_LIBRARY_DIR}")
endif()
set(OWNSAN_PROFILE_LINK_AFTER
    "${OWNSAN_PROFILE_MLIR_SO} ${_ownsan_mlir_rpath} -L${LLVM_LIBRARY_DIR} -lLLVM")

set(OWNSAN_PROFILE_RUNTIME_SOURCES ${OWNSAN_PROFILE_DIR}/hooks.cpp)
set(OWNSAN_PROFILE_OBSERVER_SOURCES ${OWNSAN_PROFILE_DIR}/ir_helpers.cpp)
set(OWNSAN_PROFILE_TESTS mlir)
set(OWNSAN_PROFILE_INSTALL_NAME mlir)
