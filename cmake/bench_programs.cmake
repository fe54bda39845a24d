# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Two programs of bench/ that the tests build too: the IR-building workload
# and the least tracker (the test bench.least_tracker runs one under the
# other). One definition of how each is built, for bench/CMakeLists.txt and
# tests/CMakeLists.txt.
#
# Included by the top-level CMakeLists.txt before either directory.

find_package(Threads REQUIRED)

# bench/ir_workload.c: frame pointers and no sibling calls, so that each
# call site keeps a distinct native stack.
function(ownsan_add_ir_workload target)
  add_executable(${target} ${PROJECT_SOURCE_DIR}/bench/ir_workload.c)
  target_include_directories(${target} SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
  target_compile_options(${target} PRIVATE -O2 ${OWNSAN_STACK_FLAGS}
                                           -fno-optimize-sibling-calls)
  target_link_libraries(${target} PRIVATE LLVM Threads::Threads)
endfunction()

# bench/least_tracker_preload.c: frame pointers for its stack walk.
function(ownsan_add_least_tracker_preload target)
  add_library(${target} SHARED ${PROJECT_SOURCE_DIR}/bench/least_tracker_preload.c)
  target_include_directories(${target} SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
  target_compile_options(${target} PRIVATE -O2 ${OWNSAN_STACK_FLAGS})
  target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
endfunction()
