/*===- opts_oldpy.c - What ownsan sees of a CPython before 3.9 -------------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * `opts_prog oldpython` dlopens this library RTLD_GLOBAL: the process then
 * seems to host an initialized CPython 3.8 (Py_IsInitialized, Py_GetVersion)
 * that lacks 3.9's PyFrame_GetBack and PyFrame_GetCode, as a real 3.8 does.
 *
 *===----------------------------------------------------------------------===*/

int Py_IsInitialized(void) { return 1; }

const char *Py_GetVersion(void) {
  return "3.8.18 (default, Aug 25 2023) [GCC 12.2.0]";
}
