# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# find_package(ownsan): ownsan installed in a prefix (cmake --install, or the
# .deb in /usr). Several builds, one per LLVM major, may share the prefix;
# set OWNSAN_LLVM_MAJOR before find_package to choose one (default: the
# newest installed).
#
# Gives:
#   OWNSAN_EXECUTABLE        bin/ownsan (`ownsan run -- CMD`, `ownsan report`)
#   OWNSAN_LLVM_MAJOR        the major chosen; OWNSAN_LLVM_MAJORS all of them
#   OWNSAN_RUNTIME           the runtime to preload (LD_PRELOAD) for that major
#   ownsan::runtime          an imported target for it ($<TARGET_FILE:...>)
#   ownsan::headers          include/ownsan/ownsan.h (ownsan_set_error_callback...)
#   ownsan::link             link mode, when that runtime was built with it:
#                            target_link_libraries(prog PRIVATE ownsan::link)
#                            links prog against LLVM statically, checked
#                            (docs/link-mode.md); OWNSAN_LINK_FLAGS holds the
#                            same flags
get_filename_component(_ownsan_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.."
                       ABSOLUTE)
set(OWNSAN_EXECUTABLE "${_ownsan_prefix}/bin/ownsan")
file(GLOB _ownsan_dirs LIST_DIRECTORIES true
     "${_ownsan_prefix}/lib/ownsan/llvm-*")
set(OWNSAN_LLVM_MAJORS "")
foreach(_d IN LISTS _ownsan_dirs)
  if(EXISTS "${_d}/libownsan.so" AND _d MATCHES "llvm-([0-9]+)$")
    list(APPEND OWNSAN_LLVM_MAJORS ${CMAKE_MATCH_1})
  endif()
endforeach()
list(SORT OWNSAN_LLVM_MAJORS COMPARE NATURAL ORDER DESCENDING)

set(ownsan_FOUND TRUE)
if(NOT EXISTS "${OWNSAN_EXECUTABLE}" OR NOT OWNSAN_LLVM_MAJORS)
  set(ownsan_FOUND FALSE)
  set(ownsan_NOT_FOUND_MESSAGE
      "no ownsan runtime under ${_ownsan_prefix}/lib/ownsan/llvm-N")
  return()
endif()
if(NOT OWNSAN_LLVM_MAJOR)
  list(GET OWNSAN_LLVM_MAJORS 0 OWNSAN_LLVM_MAJOR)
elseif(NOT OWNSAN_LLVM_MAJOR IN_LIST OWNSAN_LLVM_MAJORS)
  set(ownsan_FOUND FALSE)
  set(ownsan_NOT_FOUND_MESSAGE "no ownsan runtime for LLVM "
      "${OWNSAN_LLVM_MAJOR} (installed: ${OWNSAN_LLVM_MAJORS})")
  return()
endif()
set(_ownsan_dir "${_ownsan_prefix}/lib/ownsan/llvm-${OWNSAN_LLVM_MAJOR}")
set(OWNSAN_RUNTIME "${_ownsan_dir}/libownsan.so")

if(NOT TARGET ownsan::runtime)
  add_library(ownsan::headers INTERFACE IMPORTED)
  set_target_properties(ownsan::headers PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_ownsan_prefix}/include")
  add_library(ownsan::runtime SHARED IMPORTED)
  set_target_properties(ownsan::runtime PROPERTIES
    IMPORTED_LOCATION "${OWNSAN_RUNTIME}"
    IMPORTED_NO_SONAME TRUE
    INTERFACE_INCLUDE_DIRECTORIES "${_ownsan_prefix}/include")
  set(OWNSAN_LINK_FLAGS "")
  if(EXISTS "${_ownsan_dir}/ownsan_link_runtime.o")
    execute_process(
      COMMAND "${OWNSAN_EXECUTABLE}" link-flags --llvm ${OWNSAN_LLVM_MAJOR}
      OUTPUT_VARIABLE _ownsan_flags OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE _ownsan_rc)
    if(_ownsan_rc EQUAL 0)
      separate_arguments(OWNSAN_LINK_FLAGS UNIX_COMMAND "${_ownsan_flags}")
      add_library(ownsan::link INTERFACE IMPORTED)
      # (Link libraries, not link options: CMake puts them after the
      # program's objects, where GNU ld takes the trampolines.)
      set_target_properties(ownsan::link PROPERTIES
        INTERFACE_LINK_LIBRARIES "${OWNSAN_LINK_FLAGS}")
    endif()
  endif()
endif()
