/*===- rtld_lower.c - The second of the two layered libraries -------------===*/
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "rtld_layers.h"

const char *layer_name(void) { return "lower"; }
const char *LLVMCallpathsLayer(void) { return "lower"; }
int lower_is_loaded(void) { return 1; }
