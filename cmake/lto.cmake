# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Link-time optimization of the preloaded runtime (libownsan.so):
# -DOWNSAN_LTO=ON, the default of a profile-optimized build (OWNSAN_PGO).
#
# The object path crosses many small translation units (a registration runs
# through the runtime's, the core's and the profile's files); ThinLTO lets
# the compiler inline across them, and with a profile it inlines the calls
# the profile shows hot. Only what lld links takes it: the core archive
# (and so everything linking it), the runtime's objects and libownsan.so.
# The link-mode runtime is linked by the program's own linker (ld.bfd,
# which reads no bitcode): its objects stay native.
#
# Included by the top-level CMakeLists.txt once the runtime targets exist.

option(OWNSAN_LTO "Link the preloaded runtime with ThinLTO (clang, lld)"
       ${OWNSAN_PGO})

if(OWNSAN_LTO)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR OWNSAN_SANITIZE OR
     OWNSAN_PGO_INSTRUMENT)
    message(FATAL_ERROR "ownsan: OWNSAN_LTO needs clang and no "
                        "OWNSAN_SANITIZE (nor the instrumented PGO stage)")
  endif()
  # (The compiler's own lld reads its bitcode; Debian names it by major.)
  string(REGEX MATCH "^[0-9]+" _cc_major "${CMAKE_CXX_COMPILER_VERSION}")
  find_program(OWNSAN_LTO_LLD NAMES ld.lld-${_cc_major} ld.lld NO_CACHE)
  if(NOT OWNSAN_LTO_LLD)
    message(FATAL_ERROR "ownsan: OWNSAN_LTO needs lld (ld.lld-${_cc_major})")
  endif()
  # An lld older than the compiler cannot read its bitcode (a plain ld.lld
  # may be another LLVM's): say so here, not as a failed link.
  execute_process(COMMAND ${OWNSAN_LTO_LLD} --version
                  OUTPUT_VARIABLE _lld_version ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(_lld_major 0)
  if(_lld_version MATCHES "LLD ([0-9]+)")
    set(_lld_major ${CMAKE_MATCH_1})
  endif()
  if(_lld_major LESS _cc_major)
    message(FATAL_ERROR "ownsan: OWNSAN_LTO needs an lld of at least the "
                        "compiler's version ${_cc_major}; ${OWNSAN_LTO_LLD} "
                        "is '${_lld_version}' (install lld-${_cc_major})")
  endif()
  foreach(_t ownsan_core ownsan_runtime ownsan)
    if(TARGET ${_t})
      target_compile_options(${_t} PRIVATE -flto=thin)
    endif()
  endforeach()
  # Every link of their objects reads bitcode: what links the core archive
  # (the runtime, the unit tests, the tools) and the runtime's objects.
  set(_lto_link -flto=thin --ld-path=${OWNSAN_LTO_LLD})
  target_link_options(ownsan_core INTERFACE ${_lto_link})
  foreach(_t ownsan state_machine_test)
    if(TARGET ${_t})
      target_link_options(${_t} PRIVATE ${_lto_link})
    endif()
  endforeach()
endif()
