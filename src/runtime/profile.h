//===- profile.h - What a checked C API tells the runtime -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A profile is one C API with its ownership rules: its headers, its spec,
// its handle-type table and the library to find (the descriptor
// src/profiles/NAME/profile.cmake, read by the build), and these hooks:
// the only calls the runtime makes into the checked library, and the few
// phrases of its reports that name the API's own functions.
//
// The runtime's files (src/runtime, src/core, src/report) name no function
// or type of a profile's API; tools/check_runtime_layout.py checks it. The
// hooks are called without a runtime lock held (the library may call back
// into the runtime) and only on objects the caller knows to be alive.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_RUNTIME_PROFILE_H
#define OWNSAN_RUNTIME_PROFILE_H

#include "core/handle_types.h"
#include "core/quarantine.h"

#include <cstddef>
#include <string>

namespace ownsan {

/// What a live handle is, and the object that owns it now.
struct Classification {
  ObjectKind kind = ObjectKind::Unknown;
  const void *parent = nullptr;
  HandleType parent_type = HandleType::Other;
};

/// The container a removable object is in now (an instruction's block), for
/// the frees that require an attached or a detached object.
struct Container {
  const void *parent = nullptr; ///< null: detached
  const char *what = "";        ///< "instructions": the kind, plural
  const char *noun = "";        ///< "block": what holds such objects
  /// How to register the container (LLVM's blocks and functions are
  /// values).
  HandleType parent_type = HandleType::Value;
  /// The call that takes such an object out ("" if none).
  const char *take_out = "";
};

struct ProfileHooks {
  /// "LLVM": how notes name the library ("LLVM owns it").
  const char *library_noun;
  /// "LLVM-C": how reports name its C API ("outside any LLVM-C call").
  const char *api_name;
  /// A function every build of the library defines: its code is the
  /// library's, whose frames stacks leave out.
  const char *anchor_function;

  /// The kind of the live object `h`, handed out as `type`, and its owner.
  Classification (*classify)(const void *h, HandleType type);
  /// The library's global root object (LLVM's global context), or null.
  const void *(*global_root)();
  /// Does the removable object `h` (handed out as `type`) have a container
  /// now? False when the frees' preconditions do not concern its kind.
  bool (*container_of)(const void *h, HandleType type, Container *out);
  /// The block a builder inserts into now (null: none).
  const void *(*insert_block)(const void *builder);

  /// Names as the library says them now: a value's, a module's identifier,
  /// a type printed.
  std::string (*value_name)(const void *h, ObjectKind kind);
  std::string (*module_name)(const void *h);
  /// The printed form of a live object of a kind the table prints
  /// (OWNSAN_KIND_PRINTED): a type (`i32`), an MLIR attribute (`7 : i32`).
  std::string (*printed_text)(const void *h, ObjectKind kind);
  /// How a report names a watched object of kind `kind` whose name (as
  /// value_name said it) is `name`, at address `addr` ("0x..."):
  /// `function @f`, `block %entry`.
  std::string (*watched_label)(ObjectKind kind, const std::string &name,
                               const std::string &addr);
  /// The bytes of a memory buffer's contents (it is held whole in the
  /// quarantine).
  size_t (*buffer_size)(const void *h);
  /// Releases a held chunk with the library's disposer (the calls the
  /// program made, deferred by the quarantine).
  void (*dispose_held)(Quarantine::Chunk::Release how, void *p);

  // Phrases of report notes that name the API's functions.
  const char *take_back_example;      ///< how to take a module back
  const char *message_disposer;       ///< releases owned strings
  const char *error_message_disposer; ///< releases error messages
  const char *owned_strings_example;  ///< calls handing out owned strings
  const char *context_type;           ///< what threads must not share
};

/// The profile this runtime was built for (src/profiles/NAME/hooks.cpp).
extern const ProfileHooks kProfile;

} // namespace ownsan

#endif // OWNSAN_RUNTIME_PROFILE_H
