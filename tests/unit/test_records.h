//===- test_records.h - Records for the core unit tests ---------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Addresses and ObjectRecords made up for the tests of the core data
// structures, which only look at a record's address and state; the
// internal allocator's huge-page setting for the tests that need it.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_TESTS_UNIT_TEST_RECORDS_H
#define OWNSAN_TESTS_UNIT_TEST_RECORDS_H

#include "core/internal_allocator.h"
#include "core/object_record.h"

#include <cstdint>
#include <deque>

namespace ownsan {
namespace testing_records {

inline const void *Addr(uintptr_t a) {
  return reinterpret_cast<const void *>(a);
}

/// Records that live as long as the test (they never move).
struct Records {
  std::deque<ObjectRecord> all;
  ObjectRecord *At(uintptr_t a, ObjectState state = ObjectState::Live) {
    ObjectRecord &r = all.emplace_back();
    r.addr = Addr(a);
    r.state = state;
    return &r;
  }
  ObjectRecord *Freed(uintptr_t a) { return At(a, ObjectState::Freed); }
};

/// Huge pages allowed (the runtime's huge_pages_for_metadata) while it lives.
class HugePagesAllowed {
public:
  HugePagesAllowed() { InternalSetHugePagesAllowed(true); }
  ~HugePagesAllowed() { InternalSetHugePagesAllowed(false); }
};

} // namespace testing_records
} // namespace ownsan

#endif // OWNSAN_TESTS_UNIT_TEST_RECORDS_H
