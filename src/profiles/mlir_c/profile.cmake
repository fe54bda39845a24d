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

set(OWNSAN_PROFILE_INCLUDE_DIR ${LLVM_INCLUDE_DIRS})
set(OWNSAN_PROFILE_HEADER_GLOB "mlir-c/**/*.h")

set(OWNSAN_PROFILE_SPEC ${OWNSAN_PROFILE_DIR}/ownership.spec)
set(OWNSAN_PROFILE_KINDS_SPEC ${OWNSAN_PROFILE_DIR}/handle_kinds.spec)
set(OWNSAN_PROFILE_PLAIN ${OWNSAN_PROFILE_DIR}/plain.txt)
set(OWNSAN_PROFILE_HANDLE_TYPES ${OWNSAN_PROFILE_DIR}/handle_types.def)
set(OWNSAN_PROFILE_HANDLE_TYPES_INCLUDE "profiles/mlir_c/handle_types.def")
set(OWNSAN_PROFILE_FN_FLAGS ${OWNSAN_PROFILE_DIR}/fn_flags.txt)

# The C API's archives: their exports decide what is wrapped, and link
# mode's group brings them in.
file(GLOB OWNSAN_PROFILE_LIBRARY ${LLVM_LIBRARY_DIR}/libMLIRCAPI*.a)
if(NOT OWNSAN_PROFILE_LIBRARY)
  message(FATAL_ERROR "ownsan: no ${LLVM_LIBRARY_DIR}/libMLIRCAPI*.a "
                      "(install libmlir-${LLVM_VERSION_MAJOR}-dev)")
endif()
find_file(OWNSAN_PROFILE_MLIR_SO NAMES libMLIR.so
  PATHS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH REQUIRED)

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
  --no-wrap-allocation)

# Link mode only; MLIR's own code is a shared library, whose allocations
# the runtime sees by defining the allocation functions (operator new and
# delete, malloc and free), not by wrapping the program's references.
set(OWNSAN_PROFILE_LINK_ONLY ON)
set(OWNSAN_PROFILE_LIBRARY_SHARED ON)
# The link group and what follows it.
set(OWNSAN_PROFILE_LINK_ARCHIVES ${OWNSAN_PROFILE_LIBRARY})
set(OWNSAN_PROFILE_LINK_AFTER
    "${OWNSAN_PROFILE_MLIR_SO} -Wl,-rpath,${LLVM_LIBRARY_DIR} -L${LLVM_LIBRARY_DIR} -lLLVM")

set(OWNSAN_PROFILE_RUNTIME_SOURCES ${OWNSAN_PROFILE_DIR}/hooks.cpp)
set(OWNSAN_PROFILE_OBSERVER_SOURCES ${OWNSAN_PROFILE_DIR}/ir_helpers.cpp)
set(OWNSAN_PROFILE_TESTS mlir)
set(OWNSAN_PROFILE_INSTALL_NAME mlir)
