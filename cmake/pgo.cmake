# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Profile-guided optimization of the runtime (libownsan.so, the link-mode
# runtime, libownsan_observer.so): -DOWNSAN_PGO=ON.
#
# Two stages in one build: an instrumented copy of the runtime and the
# benchmark programs is built in BUILD/pgo-instrumented (an external
# project of this same source, -DOWNSAN_PGO_INSTRUMENT=ON), trained by
# bench/pgo_train.py on the benchmarks' workloads, and the runtime here is
# compiled with the merged profile (BUILD/pgo/ownsan.profdata). A change to
# the runtime's sources rebuilds the copy, trains again and recompiles the
# runtime. The profile changes code layout and inlining only, never what
# the runtime does; docs/performance.md has what it gains.
#
# Included by the top-level CMakeLists.txt once the runtime targets exist;
# OWNSAN_PGO_TARGETS names them.

option(OWNSAN_PGO "Optimize the runtime with a profile of its benchmarks"
       OFF)
option(OWNSAN_PGO_INSTRUMENT
       "Instrument the runtime for a profile (the first stage of OWNSAN_PGO)"
       OFF)

if(OWNSAN_PGO OR OWNSAN_PGO_INSTRUMENT)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR OWNSAN_SANITIZE OR
     NOT OWNSAN_PROFILE STREQUAL "llvm_c")
    message(FATAL_ERROR "ownsan: OWNSAN_PGO needs clang, the llvm_c profile "
                        "and no OWNSAN_SANITIZE")
  endif()
endif()

if(OWNSAN_PGO_INSTRUMENT)
  foreach(_t ${OWNSAN_PGO_TARGETS})
    target_compile_options(${_t} PRIVATE -fprofile-instr-generate)
    get_target_property(_type ${_t} TYPE)
    if(NOT _type STREQUAL "OBJECT_LIBRARY")
      target_link_options(${_t} PRIVATE -fprofile-instr-generate)
    endif()
  endforeach()
elseif(OWNSAN_PGO)
  string(REGEX MATCH "^[0-9]+" _cc_major "${CMAKE_CXX_COMPILER_VERSION}")
  find_program(OWNSAN_LLVM_PROFDATA NAMES llvm-profdata-${_cc_major}
               HINTS ${LLVM_TOOLS_BINARY_DIR} NO_CACHE)
  if(NOT OWNSAN_LLVM_PROFDATA)
    message(FATAL_ERROR "ownsan: OWNSAN_PGO needs llvm-profdata-${_cc_major} "
                        "(the compiler's)")
  endif()
  include(ExternalProject)
  set(_targets ownsan ownsan_observer ownsan_bench_ir_workload
      ownsan_bench_jit_server)
  if(CMAKE_GENERATOR MATCHES "Make")
    set(_build $(MAKE) ${_targets}) # (make's jobs shared with this build)
  else()
    set(_build ${CMAKE_COMMAND} --build <BINARY_DIR> --target ${_targets})
  endif()
  set(_stage1 ${CMAKE_BINARY_DIR}/pgo-instrumented)
  # The stage's own flags: the build type's, with neither debug info nor
  # the full optimization. Clang's profile counts regions of the source
  # (front-end instrumentation), the same at any -O; the defines (NDEBUG)
  # must stay, or functions would not match their profile.
  string(TOUPPER "${CMAKE_BUILD_TYPE}" _type)
  set(_stage1_flags "")
  foreach(_lang C CXX)
    string(REGEX REPLACE "(^| )-g[^ ]*" "" _f "${CMAKE_${_lang}_FLAGS_${_type}}")
    string(REGEX REPLACE "(^| )-O[0-9sz]?" "" _f "${_f}")
    list(APPEND _stage1_flags "-DCMAKE_${_lang}_FLAGS_${_type}=-O1 -g0 ${_f}")
  endforeach()
  set(_args -DLLVM_DIR=${LLVM_DIR} -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
      ${_stage1_flags} -DOWNSAN_DEBUG_INFO=build-type
      -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
      -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
      -DOWNSAN_ABSL_PIC_DIR=${OWNSAN_ABSL_PIC_DIR}
      -DOWNSAN_BUILD_TESTS=OFF -DOWNSAN_BUILD_BENCH=ON -DOWNSAN_LINK_MODE=OFF
      -DOWNSAN_PGO=OFF -DOWNSAN_PGO_INSTRUMENT=ON)
  foreach(_v CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER)
    if(${_v})
      list(APPEND _args -D${_v}=${${_v}})
    endif()
  endforeach()
  ExternalProject_Add(ownsan_pgo_instrumented
    SOURCE_DIR ${CMAKE_SOURCE_DIR}
    BINARY_DIR ${_stage1}
    CMAKE_ARGS ${_args}
    BUILD_COMMAND ${_build}
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON # (its sources are this tree's; it knows when it is done)
    BUILD_BYPRODUCTS ${_stage1}/lib/libownsan.so)
  set(OWNSAN_PGO_PROFDATA ${CMAKE_BINARY_DIR}/pgo/ownsan.profdata)
  # The training, less its output (--out follows).
  set(_train ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/bench/pgo_train.py
      --stage1 ${_stage1} --llvm-bin ${LLVM_TOOLS_BINARY_DIR}
      --profdata ${OWNSAN_LLVM_PROFDATA})
  add_custom_command(OUTPUT ${OWNSAN_PGO_PROFDATA}
    COMMAND ${_train} --out ${OWNSAN_PGO_PROFDATA}
    DEPENDS ownsan_pgo_instrumented ${_stage1}/lib/libownsan.so
      ${CMAKE_SOURCE_DIR}/bench/pgo_train.py
    COMMENT "ownsan: training the instrumented runtime (bench/pgo_train.py)"
    VERBATIM)
  add_custom_target(ownsan_pgo_profile DEPENDS ${OWNSAN_PGO_PROFDATA})
  # A second training must give the same profile, byte for byte (see
  # bench/pgo_train.py): two builds of one source are then one code, and a
  # change's before and after differ by the change (scripts/test.sh).
  set(_repeat ${CMAKE_BINARY_DIR}/pgo/repeat.profdata)
  add_custom_target(ownsan_pgo_repeat
    COMMAND ${_train} --out ${_repeat}
    COMMAND ${CMAKE_COMMAND} -E compare_files ${OWNSAN_PGO_PROFDATA} ${_repeat}
    DEPENDS ${OWNSAN_PGO_PROFDATA}
    COMMENT "ownsan: training again, for the same profile"
    VERBATIM)
  foreach(_t ${OWNSAN_PGO_TARGETS})
    add_dependencies(${_t} ownsan_pgo_profile)
    # (Functions the training never ran, and ones changed since, are
    # compiled as without a profile: no warning each. Blocks the training
    # never ran leave their functions for a cold section, so the hot paths,
    # which run between LLVM's own code, take fewer lines of the
    # instruction cache.)
    target_compile_options(${_t} PRIVATE
      -fprofile-instr-use=${OWNSAN_PGO_PROFDATA} -fsplit-machine-functions
      -Wno-profile-instr-unprofiled -Wno-profile-instr-out-of-date)
    get_target_property(_sources ${_t} SOURCES)
    list(FILTER _sources EXCLUDE REGEX "^\\$<") # (other targets' objects)
    set_property(SOURCE ${_sources} APPEND PROPERTY OBJECT_DEPENDS
                 ${OWNSAN_PGO_PROFDATA})
  endforeach()
endif()
