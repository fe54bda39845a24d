# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Classifying a wrapped function's pointers to handles: input arrays (with
their count), out-handles registered when the call succeeds, and the
others."""

from typing import Sequence

from wrapgen import api_profile
from wrapgen.model import (Classification, Effect, Function, HandleArray,
                           HandleOut)


# Return types after which a single `Out*` handle parameter is registered,
# with the condition meaning "the call succeeded": CONVENTIONS.out_success
# (LLVMBool: r == 0, LLVMErrorRef: r == nullptr).
def classify(fn: Function, effects: Sequence[Effect]) -> Classification:
    """Decides which handle-pointer params are arrays, outs, or neither."""
    out_array_params = {e.arg for e in effects if e.kind == "out_array"}
    out_condition = api_profile.CONVENTIONS.out_success_conditions.get(
        fn.ret_typedef, "")
    cls = Classification(arrays=[], outs=[], out_condition=out_condition,
                         out_unregistered=[], unchecked_ptrs=[],
                         effects=list(effects))
    for param in fn.params:
        if param.elem_handle is None or param.index in out_array_params:
            continue
        count = api_profile.CONVENTIONS.count_param(fn.params, param.index)
        if count is not None:
            cls.arrays.append(HandleArray(param.index, param.elem_handle,
                                          count))
        elif param.name.startswith("Out") and out_condition:
            cls.outs.append(HandleOut(param.index, param.elem_handle))
        elif param.name.startswith("Out"):
            cls.out_unregistered.append(HandleOut(param.index,
                                                  param.elem_handle))
        else:
            cls.unchecked_ptrs.append(HandleOut(param.index,
                                                param.elem_handle))
    return cls
