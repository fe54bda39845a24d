# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ownsan's wrapper generator, one module per job; tools/gen_wrappers.py is
its command line, and the tools that reuse it import the module of each
name they need (with tools/ on sys.path).

  model           errors, effect kinds and constants, the data classes
  api_profile     the profile run for: conventions, handle-type table,
                  function-name flags (set by gen_wrappers.main())
  headers         the API's headers, read with libclang
  exports         the libraries' exports (nm)
  spec            the ownership spec: parsing and validation
  kinds           the expected-kinds spec and its table
  classify        what a wrapper does with each pointer to handles
  cxx_types       how the generated C++ spells the API's types
  render_wrapper  one function's wrapper
  render_sources  fn_ids.h, wrappers.cpp, real_fns.h, symbols.c
  render_link     ownsan.wrap and ownsan.map
  render_reports  coverage.txt and classification.txt
"""
