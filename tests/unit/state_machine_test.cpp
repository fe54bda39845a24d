//===- state_machine_test.cpp - One transition of a handle per test -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The runtime and the generated wrappers of this build, over a fake LLVM
// (fake_llvm.cpp): each test makes the calls that lead to one transition of
// the state machine (src/runtime/tracker_registration.cpp) and checks the
// handle's state and what was reported, in the shape of the Vulkan layers'
// negative tests: expect one error, make one call, verify.
//
// The runtime reads OWNSAN_OPTIONS when the binary loads; main() re-runs the
// binary with the options below if they are not set (reports go on, to the
// callback; history_size_mb=1 so that eviction is reachable).
//
//===----------------------------------------------------------------------===//

#include "fake_llvm.h"

#include "core/object_record.h"
#include "interpose/allocation_hooks.h"

#include "ownsan/ownsan.h"

#include "gtest/gtest.h"

#include <llvm-c/Core.h>

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr const char *kOptions =
    "halt_on_error=0:print_summary=0:symbolize=0:history_size_mb=1:"
    "handle_segv=0";

struct Reported {
  std::string kind, text;
};
std::vector<Reported> g_reports;

void OnError(const char *kind, const char *report, void *) {
  g_reports.push_back({kind, report});
}

class StateMachine : public ::testing::Test {
protected:
  void SetUp() override {
    ownsan_set_error_callback(&OnError, nullptr);
    g_reports.clear();
    ctx = LLVMContextCreate();
  }
  void TearDown() override {
    LLVMContextDispose(ctx);
    EXPECT_TRUE(g_reports.empty())
        << "unexpected report: " << g_reports.front().text;
  }
  /// The one report the last calls made, of `kind`; clears the list.
  std::string TakeOneReport(const char *kind) {
    EXPECT_EQ(g_reports.size(), 1u);
    if (g_reports.empty())
      return "";
    EXPECT_EQ(g_reports[0].kind, kind) << g_reports[0].text;
    std::string text = g_reports[0].text;
    g_reports.clear();
    return text;
  }
  /// New memory inside the granule of `h` but past it, and just before
  /// it: neither covers its address.
  static void AllocateBesideNotOver(const void *h) {
    const char *at = static_cast<const char *>(h);
    OwnsanOnAllocation(at + 1, 4);
    OwnsanOnAllocation(at - 64, 64);
  }
  LLVMValueRef AddFunction(LLVMModuleRef m, const char *name) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
    return LLVMAddFunction(m, name, LLVMFunctionType(i32, nullptr, 0, 0));
  }

  LLVMContextRef ctx = nullptr;
};

// unknown -> LIVE: LLVM hands a handle out (Register).
TEST_F(StateMachine, UnknownBecomesLiveWhenLLVMHandsItOut) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  EXPECT_EQ(ownsan_handle_state(m), OWNSAN_HANDLE_LIVE);
  LLVMDisposeModule(m);
}

// LIVE -> FREED: the binding's dispose (Before of a spec'd free).
TEST_F(StateMachine, LiveBecomesFreedByItsDispose) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMDisposeModule(m);
  EXPECT_EQ(ownsan_handle_state(m), OWNSAN_HANDLE_FREED);
}

// A use of a FREED handle is reported, naming the call that freed it.
TEST_F(StateMachine, UseOfFreedIsReported) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMDisposeModule(m);
  size_t len;
  LLVMGetModuleIdentifier(m, &len); // skipped: reported instead
  std::string text = TakeOneReport("use-after-free");
  EXPECT_NE(text.find("LLVMGetModuleIdentifier"), std::string::npos) << text;
  EXPECT_NE(text.find("LLVMDisposeModule"), std::string::npos) << text;
}

// LIVE -> FREED: descendants die with their parent (FreeWithDescendants and
// the values' deaths seen through operator delete).
TEST_F(StateMachine, DescendantsDieWithTheirParent) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMValueRef f = AddFunction(m, "f");
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(ctx, f, "entry");
  ASSERT_EQ(ownsan_handle_state(bb), OWNSAN_HANDLE_LIVE);
  LLVMDisposeModule(m);
  EXPECT_EQ(ownsan_handle_state(f), OWNSAN_HANDLE_FREED);
  EXPECT_EQ(ownsan_handle_state(bb), OWNSAN_HANDLE_FREED);
  size_t len;
  LLVMGetValueName2(f, &len);
  std::string text = TakeOneReport("use-after-free");
  EXPECT_NE(text.find("@f"), std::string::npos) << text;
}

// LIVE -> FREED: a value LLVM deletes by itself, during any call, is seen
// through operator delete (ValuesDied, batched per call).
TEST_F(StateMachine, ValueDeletedByLLVMDies) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  LLVMValueRef f = AddFunction(m, "f");
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(ctx, f, "entry");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, bb);
  LLVMValueRef ret = LLVMBuildRetVoid(b);
  ASSERT_EQ(ownsan_handle_state(ret), OWNSAN_HANDLE_LIVE);
  LLVMDeleteFunction(f); // deletes the block and the ret too
  EXPECT_EQ(ownsan_handle_state(ret), OWNSAN_HANDLE_FREED);
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
}

// A second free of a FREED handle is a double free, and is not made.
TEST_F(StateMachine, SecondFreeIsADoubleFree) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMDisposeBuilder(b);
  int live = fake_llvm::LiveObjects();
  LLVMDisposeBuilder(b);
  std::string text = TakeOneReport("double-free");
  EXPECT_NE(text.find("LLVMDisposeBuilder"), std::string::npos) << text;
  EXPECT_EQ(fake_llvm::LiveObjects(), live) << "the second free was made";
}

// FREED -> expired: memory allocated over the address (operator new) may
// hold an object ownsan never saw; the address stops matching.
TEST_F(StateMachine, FreedExpiresWhenItsMemoryIsAllocatedAgain) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMDisposeBuilder(b);
  ASSERT_EQ(ownsan_handle_state(b), OWNSAN_HANDLE_FREED);
  OwnsanOnAllocation(b, 16);
  EXPECT_EQ(ownsan_handle_state(b), OWNSAN_HANDLE_UNKNOWN);
}

// The allocation hook clears the bits of the granules it finds empty, so
// that the next allocation there takes no lock; a granule that still holds
// a freed address keeps its bit: memory allocated within the granule but
// past the address leaves it FREED, and memory over it still expires it.
TEST_F(StateMachine, FreedStillExpiresAfterAnAllocationBesideItInItsGranule) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMDisposeBuilder(b);
  AllocateBesideNotOver(b);
  ASSERT_EQ(ownsan_handle_state(b), OWNSAN_HANDLE_FREED);
  OwnsanOnAllocation(b, 16);
  EXPECT_EQ(ownsan_handle_state(b), OWNSAN_HANDLE_UNKNOWN)
      << "the address's bit went with its neighbour's";
}

// The same for a live object whose deletion ownsan does not see (a module
// C++ code deletes): memory beside it leaves it live, memory over it ends
// it.
TEST_F(StateMachine, UnwatchedLiveStillEndsAfterAnAllocationBesideIt) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  AllocateBesideNotOver(m);
  ASSERT_EQ(ownsan_handle_state(m), OWNSAN_HANDLE_LIVE);
  OwnsanOnAllocation(m, 16);
  EXPECT_NE(ownsan_handle_state(m), OWNSAN_HANDLE_LIVE)
      << "the module's bit went with its neighbour's";
}

// A live unwatched object keeps its bit after an allocation beside it: a
// thread that has not seen it lately (an empty record cache) still finds
// its record, so the call that mixes it with another context's type is
// reported.
TEST_F(StateMachine, UnwatchedLiveIsStillFoundAfterAnAllocationBesideIt) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
  AllocateBesideNotOver(m);
  LLVMContextRef other = LLVMContextCreate();
  LLVMTypeRef i32 = LLVMInt32TypeInContext(other);
  LLVMTypeRef fn_type = LLVMFunctionType(i32, nullptr, 0, 0);
  std::thread([&] { LLVMAddFunction(m, "f", fn_type); }).join();
  std::string text = TakeOneReport("cross-context");
  EXPECT_NE(text.find("LLVMAddFunction"), std::string::npos) << text;
  LLVMDisposeModule(m);
  LLVMContextDispose(other);
}

// FREED -> evicted: past history_size_mb the oldest records go; a use of
// the address is still reported, saying the history is gone.
TEST_F(StateMachine, EvictedIsStillReportedWithoutItsHistory) {
  LLVMBuilderRef first = LLVMCreateBuilderInContext(ctx);
  LLVMDisposeBuilder(first);
  for (int i = 0; i < 30000; ++i) // 1 MiB of history, and more
    LLVMDisposeBuilder(LLVMCreateBuilderInContext(ctx));
  EXPECT_EQ(ownsan_handle_state(first), OWNSAN_HANDLE_FREED);
  LLVMGetInsertBlock(first);
  std::string text = TakeOneReport("use-after-free");
  EXPECT_NE(text.find("history is gone"), std::string::npos) << text;
  EXPECT_NE(text.find("history_size_mb=1"), std::string::npos) << text;
}

// FREED -> evicted, a dispose at a time: the records one dispose freed
// share its free event, which EvictHistory releases once for each run of
// them; the event is recycled when its last record goes, so the events in
// use stay about those of the records in the history, however many
// disposes came before (a miscounted run leaks one event a dispose).
TEST_F(StateMachine, EvictionRecyclesEachDisposesEvent) {
  auto make_and_dispose = [&] {
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", ctx);
    LLVMValueRef f = AddFunction(m, "f");
    for (int b = 0; b < 4; ++b)
      LLVMAppendBasicBlockInContext(ctx, f, "b");
    LLVMDisposeModule(m);
  };
  for (int i = 0; i < 2000; ++i) // (about what 1 MiB of history holds)
    make_and_dispose();
  size_t held_after_first = ownsan::FreeEventsInUse();
  for (int i = 0; i < 20000; ++i) // (ten times that: evicted, most)
    make_and_dispose();
  EXPECT_GT(held_after_first, 0u);
  EXPECT_LT(ownsan::FreeEventsInUse(), held_after_first + 2000)
      << "free events leak as disposes go through the history";
}

} // namespace

int main(int argc, char **argv) {
  if (!getenv("OWNSAN_OPTIONS")) {
    setenv("OWNSAN_OPTIONS", kOptions, 1);
    execv("/proc/self/exe", argv);
    return 127;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
