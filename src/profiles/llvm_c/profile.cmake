# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The LLVM-C profile: what the build needs to check a program's calls into
# LLVM's C API. A profile is this set of files (see docs/architecture.md,
# "A profile"); the runtime's own files name none of its functions.
#
# Read by the top-level CMakeLists.txt (-DOWNSAN_PROFILE=llvm_c, the default)
# after find_package(LLVM), which sets LLVM_INCLUDE_DIRS, LLVM_LIBRARY_DIR
# and the version variables used here. Every profile sets the same
# OWNSAN_PROFILE_* variables.

# What notes and docs call it.
set(OWNSAN_PROFILE_NAME "LLVM-C")
set(OWNSAN_PROFILE_DIR ${CMAKE_CURRENT_LIST_DIR})

# The installed headers the wrappers are generated from (every function they
# declare that the library exports is wrapped).
set(OWNSAN_PROFILE_INCLUDE_DIR ${LLVM_INCLUDE_DIRS})
set(OWNSAN_PROFILE_HEADER_GLOB "llvm-c/*.h")

# The ownership spec (one line per function with an effect, each with its
# source), the expected handle kinds, and the functions left plain on
# purpose, with why.
set(OWNSAN_PROFILE_SPEC ${OWNSAN_PROFILE_DIR}/ownership.spec)
set(OWNSAN_PROFILE_KINDS_SPEC ${OWNSAN_PROFILE_DIR}/handle_kinds.spec)
set(OWNSAN_PROFILE_PLAIN ${OWNSAN_PROFILE_DIR}/plain.txt)

# The handle-type table: C handle types and the kinds of object they name.
# The runtime's enums come from it (OWNSAN_HANDLE_TYPES_DEF); the generator
# reads it too.
set(OWNSAN_PROFILE_HANDLE_TYPES ${OWNSAN_PROFILE_DIR}/handle_types.def)
set(OWNSAN_PROFILE_HANDLE_TYPES_INCLUDE "profiles/llvm_c/handle_types.def")

# What a function's name tells (LLVMIsA* casts, LLVMBuild* inserts at a
# builder's position): the generator's name rules.
set(OWNSAN_PROFILE_FN_FLAGS ${OWNSAN_PROFILE_DIR}/fn_flags.txt)

# The library to find: its exports decide what is wrapped, and the preloaded
# runtime forwards to the loaded copy of this major.
find_file(OWNSAN_PROFILE_LIBRARY
  NAMES libLLVM.so.${LLVM_VERSION_MAJOR}.${LLVM_VERSION_MINOR}
        libLLVM-${LLVM_VERSION_MAJOR}.so.1 libLLVM-${LLVM_VERSION_MAJOR}.so
  PATHS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH REQUIRED)

# The runtime's calls into the library (src/runtime/profile.h's hooks),
# compiled with the runtime.
set(OWNSAN_PROFILE_RUNTIME_SOURCES ${OWNSAN_PROFILE_DIR}/hooks.cpp)
# The helpers that need the library's C++ API (libownsan_observer.so).
set(OWNSAN_PROFILE_OBSERVER_SOURCES ${OWNSAN_PROFILE_DIR}/value_observer.cpp)
