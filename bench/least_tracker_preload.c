/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The least an ownership tracker does, for workload (c): preloaded into
   `ir_workload modules N`, it wraps the LLVM-C functions that mode calls
   (and no other) and, for each call,
     - looks up every handle argument in a table of the live handles, and,
       if it is not there, in the shadow of the freed; stops the program if
       the handle's object was freed (the check);
     - enters each handle the call returns in the live table with its owner
       (the module or context whose dispose frees it) and appends it to the
       owner's list of children (the registration);
     - on a module's, builder's or context's dispose, moves the owner and
       every child in its list from the live table to the shadow (the
       deaths): by default a bit an 8-byte granule plus the entry appended
       to a ring log (LEAST_TRACKER_SHADOW=table: a second hash table);
     - with LEAST_TRACKER_STACK_FRAMES=N (N > 0), captures the stack of each
       registration and each dispose by walking at most N frame pointers and
       keeps one hash of it in a depot table (no frames stored, no
       deduplication by content, no symbolization).
   It is single-threaded (no thread-local state; a lock only with
   LEAST_TRACKER_ADD, below), keeps no names, kinds or free events unless
   LEAST_TRACKER_ADD asks, expires a freed entry only when a new object
   registers at its address (or, with LEAST_TRACKER_ADD=alloc, when
   operator new hands its memory out), and has no quarantine of its own: preload
   bench/quarantine_preload.c after it for that (its LLVMDisposeModule is
   found by this one's dlsym(RTLD_NEXT)). So it is not general (one
   workload's calls, one thread, handles only from return values) and it is
   not the least any design could do; it is what the work (c) needs costs
   when done plainly: a reference for the targets of issue 22
   (docs/performance.md, "the least tracker"). LEAST_TRACKER_COUNT=1 prints
   what it tracked at exit, to set beside ownsan's `verbosity=1` work line. */
#define _GNU_SOURCE
#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>

#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tables keyed by address, open addressing with linear probing: the live
   handles (small: what the program holds now), and with
   LEAST_TRACKER_SHADOW=table the freed ones. A handle's entry keeps its
   owner and its registration's stack. */
typedef struct Entry {
  uintptr_t key;  /* the handle; 0: empty slot */
  uint32_t owner; /* index into owners[] of the list it is in, 0: none */
  uint32_t stack; /* depot slot + 1 of the registration's stack, 0: none */
} Entry;

typedef struct Table {
  Entry *slots;
  size_t mask, used;
  int shift;
} Table;

static Table live, freed;
static uint64_t registered, checks, deaths, captures;

static inline size_t Slot(const Table *t, uintptr_t p) {
  return (size_t)((p * 0x9E3779B97F4A7C15ull) >> t->shift);
}

static void Grow(Table *t) {
  Entry *old = t->slots;
  size_t old_size = old ? t->mask + 1 : 0;
  size_t size = old_size ? old_size * 2 : (size_t)1 << 16;
  t->slots = calloc(size, sizeof(Entry));
  t->mask = size - 1;
  t->shift = 64 - __builtin_ctzll(size);
  for (size_t i = 0; i < old_size; ++i) {
    if (!old[i].key)
      continue;
    size_t s = Slot(t, old[i].key);
    while (t->slots[s].key)
      s = (s + 1) & t->mask;
    t->slots[s] = old[i];
  }
  free(old);
}

/* The entry of p in t; NULL if none. */
static inline Entry *Find(const Table *t, const void *p) {
  uintptr_t k = (uintptr_t)p;
  for (size_t s = Slot(t, k);; s = (s + 1) & t->mask) {
    if (t->slots[s].key == k)
      return &t->slots[s];
    if (!t->slots[s].key)
      return NULL;
  }
}

/* p's entry in t, made if there was none. */
static inline Entry *Insert(Table *t, const void *p) {
  if ((t->used + 1) * 2 > t->mask + 1)
    Grow(t);
  uintptr_t k = (uintptr_t)p;
  size_t s = Slot(t, k);
  for (; t->slots[s].key; s = (s + 1) & t->mask)
    if (t->slots[s].key == k)
      return &t->slots[s];
  ++t->used;
  t->slots[s].key = k;
  return &t->slots[s];
}

/* Removes e from t, shifting back the entries after it (no tombstones). */
static void Erase(Table *t, Entry *e) {
  size_t hole = (size_t)(e - t->slots);
  for (size_t s = (hole + 1) & t->mask; t->slots[s].key;
       s = (s + 1) & t->mask) {
    size_t home = Slot(t, t->slots[s].key);
    /* Moves s into the hole unless its home lies cyclically in (hole, s]. */
    if (((s - home) & t->mask) >= ((s - hole) & t->mask)) {
      t->slots[hole] = t->slots[s];
      hole = s;
    }
  }
  t->slots[hole].key = 0;
  --t->used;
}

/* The shadow of the freed, LEAST_TRACKER_SHADOW=bitmap (the default): one
   bit an 8-byte granule of address space, set at a death, cleared when a
   new object registers there, in bitmaps of 2 MB regions found through a
   small table (the last region used cached); and each death's entry in a
   ring log, read only when a report needs it. A death writes near the
   other deaths of its dispose (LLVM allocated them together): no cache
   miss a death. LEAST_TRACKER_SHADOW=table keeps the freed entries in a
   second hash table instead, each death an insertion at a random place. */
enum { kRegionShift = 21, kGranuleShift = 3, kRegionSlots = 4096 };
/* The words of a region's bitmap: a bit an 8-byte granule of 2 MiB. */
enum { kRegionWords = 1 << (kRegionShift - kGranuleShift - 6) };
typedef struct Region {
  uintptr_t number; /* address >> kRegionShift, + 1; 0: empty */
  uint64_t *bits;
  uint64_t *live_bits; /* LEAST_TRACKER_ADD=free: the live values' granules */
} Region;
static Region regions[kRegionSlots];
static Region *last_region;
static int shadow_in_table;
static Entry *death_log;
static size_t death_log_size = (size_t)1 << 20, death_log_next;

static uint64_t *RegionBits(uintptr_t a, int make) {
  uintptr_t n = (a >> kRegionShift) + 1;
  if (last_region && last_region->number == n)
    return last_region->bits;
  size_t s = (size_t)((n * 0x9E3779B97F4A7C15ull) >> 52);
  for (; regions[s].number; s = (s + 1) & (kRegionSlots - 1))
    if (regions[s].number == n)
      return (last_region = &regions[s])->bits;
  if (!make)
    return NULL;
  regions[s].number = n;
  regions[s].bits = calloc(kRegionWords, sizeof(uint64_t));
  return (last_region = &regions[s])->bits;
}

/* The live-value bits of a's region, made on the first value registered
   there (only the `free` hook keeps them). */
static uint64_t *LiveBits(uintptr_t a, int make) {
  if (!RegionBits(a, make))
    return NULL;
  if (!last_region->live_bits && make)
    last_region->live_bits = calloc(kRegionWords, sizeof(uint64_t));
  return last_region->live_bits;
}

static inline size_t Granule(uintptr_t a) {
  return (a & (((uintptr_t)1 << kRegionShift) - 1)) >> kGranuleShift;
}

/* a's bit in its region's bitmap `bits` (NULL: no bitmap, no bit). */
static inline int TestBit(const uint64_t *bits, uintptr_t a) {
  size_t g = Granule(a);
  return bits && (bits[g >> 6] >> (g & 63) & 1);
}
static inline void SetBit(uint64_t *bits, uintptr_t a) {
  size_t g = Granule(a);
  bits[g >> 6] |= (uint64_t)1 << (g & 63);
}
static inline void ClearBit(uint64_t *bits, uintptr_t a) {
  size_t g = Granule(a);
  if (bits)
    bits[g >> 6] &= ~((uint64_t)1 << (g & 63));
}

static inline int ShadowTest(const void *p) {
  if (shadow_in_table)
    return Find(&freed, p) != NULL;
  return TestBit(RegionBits((uintptr_t)p, 0), (uintptr_t)p);
}

static inline void ShadowClear(const void *p) {
  if (shadow_in_table)
    return; /* (the new object's death overwrites the entry) */
  ClearBit(RegionBits((uintptr_t)p, 0), (uintptr_t)p);
}

static inline void ShadowSet(const Entry *e) {
  if (shadow_in_table) {
    Entry *f = Insert(&freed, (const void *)e->key);
    f->owner = e->owner;
    f->stack = e->stack;
    return;
  }
  SetBit(RegionBits(e->key, 1), e->key);
  death_log[death_log_next] = *e;
  death_log_next = (death_log_next + 1) & (death_log_size - 1);
}

/* Owners (contexts, modules): the handles each one's dispose frees. Few
   are live at a time, so the live ones are found by a scan. */
typedef struct Owner {
  const void *handle; /* NULL once disposed */
  const void **children;
  size_t count, cap;
} Owner;
static Owner *owners;
static size_t owner_count = 1, owner_cap; /* owners[0]: none */

static uint64_t *depot; /* stack hashes, 0: empty */
static size_t depot_mask;
static int stack_frames;
static uintptr_t stack_lo, stack_hi;

static void ParseAdd(void);

static void __attribute__((constructor)) Init(void) {
  const char *frames = getenv("LEAST_TRACKER_STACK_FRAMES");
  stack_frames = frames ? atoi(frames) : 0;
  pthread_attr_t attr;
  void *base;
  size_t size;
  if (!pthread_getattr_np(pthread_self(), &attr)) {
    pthread_attr_getstack(&attr, &base, &size);
    stack_lo = (uintptr_t)base;
    stack_hi = stack_lo + size;
    pthread_attr_destroy(&attr);
  }
  depot_mask = ((size_t)1 << 16) - 1;
  depot = calloc(depot_mask + 1, sizeof(uint64_t));
  const char *shadow = getenv("LEAST_TRACKER_SHADOW");
  shadow_in_table = shadow && !strcmp(shadow, "table");
  death_log = calloc(death_log_size, sizeof(Entry));
  ParseAdd();
  Grow(&live);
  if (shadow_in_table)
    Grow(&freed);
}

static __attribute__((noinline)) uint32_t CaptureStack(void) {
  ++captures;
  uint64_t h = 0xcbf29ce484222325ull;
  uintptr_t *fp = __builtin_frame_address(0);
  for (int i = 0; i < stack_frames; ++i) {
    if ((uintptr_t)fp < stack_lo || (uintptr_t)fp + 16 > stack_hi ||
        ((uintptr_t)fp & 7))
      break;
    h = (h ^ fp[1]) * 0x100000001b3ull;
    uintptr_t *next = (uintptr_t *)fp[0];
    if (next <= fp)
      break;
    fp = next;
  }
  h |= 1;
  size_t s = (size_t)(h >> 32) & depot_mask;
  while (depot[s] && depot[s] != h)
    s = (s + 1) & depot_mask;
  depot[s] = h; /* (the depot stays small here: (c) has few call sites) */
  return (uint32_t)s + 1;
}

/* A new owner's list, in the slot (and the array) of a disposed one if
   there is one: no allocation a module. */
static uint32_t NewOwner(const void *handle) {
  for (size_t i = 1; i < owner_count; ++i)
    if (!owners[i].handle) {
      owners[i].handle = handle;
      owners[i].count = 0;
      return (uint32_t)i;
    }
  if (owner_count >= owner_cap) {
    owner_cap = owner_cap ? owner_cap * 2 : 64;
    owners = realloc(owners, owner_cap * sizeof(Owner));
  }
  memset(&owners[owner_count], 0, sizeof(Owner));
  owners[owner_count].handle = handle;
  return (uint32_t)owner_count++;
}

/* The list of a live context or module. */
static uint32_t OwnListOf(const void *p) {
  for (size_t i = owner_count; i-- > 1;)
    if (owners[i].handle == p)
      return (uint32_t)i;
  return 0;
}

static void AddChild(uint32_t owner, const void *p) {
  Owner *o = &owners[owner];
  if (o->count == o->cap) {
    o->cap = o->cap ? o->cap * 2 : 256;
    o->children = realloc(o->children, o->cap * sizeof(void *));
  }
  o->children[o->count++] = p;
}

/* LEAST_TRACKER_ADD, a comma-separated list, adds work ownsan does beyond
   this least, one piece at a time, to tell what each costs in time:
     lock      a mutex taken around each registration and each dispose;
     record    a 64-byte record an object in a ring of 16 MB (ownsan's
               history bound), written at registration, marked at death;
     classify  the object's kind and parent asked of libLLVM at
               registration (LLVMGetValueKind and the parent's getter);
     name      the value's name read and copied into its record;
     alloc     operator new tests the shadow bits of the block it returns
               and clears any (expiry on reuse, for objects the program
               never saw registered);
     free      operator delete tests the live values' bits of the block it
               frees, and a value found there dies (a death no dispose
               announced: LLVM erasing an instruction itself). */
static int add_lock, add_record, add_classify, add_name, add_alloc, add_free;
static pthread_mutex_t tracker_mu = PTHREAD_MUTEX_INITIALIZER;

typedef struct Record {
  uintptr_t addr;
  const void *parent;
  uint32_t owner, stack, kind, state;
  char name[32];
} Record;
enum { kRecords = (16 << 20) / sizeof(Record) };
static Record *records;
static size_t next_record;
static volatile uintptr_t sink;

static void ParseAdd(void) {
  const char *add = getenv("LEAST_TRACKER_ADD");
  if (!add)
    return;
  add_lock = strstr(add, "lock") != NULL;
  add_record = strstr(add, "record") != NULL;
  add_classify = strstr(add, "classify") != NULL;
  add_name = strstr(add, "name") != NULL;
  add_alloc = strstr(add, "alloc") != NULL;
  add_free = strstr(add, "free") != NULL;
  if (add_record)
    records = calloc(kRecords, sizeof(Record));
}

static inline void Lock(void) {
  if (add_lock)
    pthread_mutex_lock(&tracker_mu);
}
static inline void Unlock(void) {
  if (add_lock)
    pthread_mutex_unlock(&tracker_mu);
}

/* `Var`, a static pointer to the next definition of `Name` (libLLVM's, or
   libstdc++'s), found on first use. */
#define REAL_AS(Var, Ret, Name, ...)                                           \
  static Ret (*Var)(__VA_ARGS__);                                              \
  if (!Var)                                                                    \
  Var = (Ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #Name)
#define REAL_FN(Ret, Name, ...) REAL_AS(real_##Name, Ret, Name, __VA_ARGS__)
#define REAL(Ret, Name, ...) REAL_AS(real, Ret, Name, __VA_ARGS__)

/* What `classify` and `name` ask of a value (`is_block`: a block handle). */
static __attribute__((noinline)) void Describe(const void *p, int is_block,
                                               Record *r) {
  const void *parent = NULL;
  uint32_t kind = 0;
  if (add_classify) {
    if (is_block) {
      REAL_FN(LLVMValueRef, LLVMGetBasicBlockParent, LLVMBasicBlockRef);
      parent = real_LLVMGetBasicBlockParent((LLVMBasicBlockRef)p);
    } else {
      REAL_FN(LLVMValueKind, LLVMGetValueKind, LLVMValueRef);
      REAL_FN(LLVMBasicBlockRef, LLVMGetInstructionParent, LLVMValueRef);
      REAL_FN(LLVMValueRef, LLVMGetParamParent, LLVMValueRef);
      REAL_FN(LLVMModuleRef, LLVMGetGlobalParent, LLVMValueRef);
      kind = real_LLVMGetValueKind((LLVMValueRef)p);
      if (kind == LLVMInstructionValueKind)
        parent = real_LLVMGetInstructionParent((LLVMValueRef)p);
      else if (kind == LLVMArgumentValueKind)
        parent = real_LLVMGetParamParent((LLVMValueRef)p);
      else if (kind == LLVMFunctionValueKind)
        parent = real_LLVMGetGlobalParent((LLVMValueRef)p);
    }
  }
  const char *name = "";
  size_t len = 0;
  if (add_name && !is_block) {
    REAL_FN(const char *, LLVMGetValueName2, LLVMValueRef, size_t *);
    name = real_LLVMGetValueName2((LLVMValueRef)p, &len);
  }
  if (r) {
    r->parent = parent;
    r->kind = kind;
    if (len >= sizeof r->name)
      len = sizeof r->name - 1;
    memcpy(r->name, name, len);
    r->name[len] = 0;
  } else {
    sink = (uintptr_t)parent + kind + len;
  }
}

/* The check of one handle argument: a live handle passes; one that is
   not live is looked up among the freed. */
static inline void Check(const void *p, const char *fn) {
  ++checks;
  if (!p || Find(&live, p))
    return;
  if (__builtin_expect(ShadowTest(p), 0)) {
    fprintf(stderr, "least_tracker: %s: handle %p was freed\n", fn, p);
    abort();
  }
}

/* The registration of a returned handle, a child of `owner`. (A freed
   entry at the same address stays: the live one hides it from checks, and
   the new object's death overwrites it.) */
enum { kOther, kValue, kBlock };
static inline void RegisterAs(const void *p, uint32_t owner, int what) {
  if (!p)
    return;
  Lock();
  size_t before = live.used;
  Entry *e = Insert(&live, p);
  if (live.used == before) {
    Unlock();
    return; /* known and live */
  }
  ++registered;
  ShadowClear(p);
  e->owner = owner;
  uint32_t stack = stack_frames ? CaptureStack() : 0;
  Record *r = NULL;
  if (add_record) {
    /* (the record's index takes the stack's place in the entry) */
    e->stack = (uint32_t)next_record;
    r = &records[next_record];
    next_record = (next_record + 1) % kRecords;
    r->addr = (uintptr_t)p;
    r->owner = owner;
    r->stack = stack;
    r->state = 1;
  } else {
    e->stack = stack;
  }
  if (what != kOther && (add_classify || add_name))
    Describe(p, what == kBlock, r);
  if (what != kOther && add_free)
    SetBit(LiveBits((uintptr_t)p, 1), (uintptr_t)p);
  if (owner)
    AddChild(owner, p);
  Unlock();
}
static inline void Register(const void *p, uint32_t owner) {
  RegisterAs(p, owner, kOther);
}
static inline void RegisterValue(const void *p, uint32_t owner) {
  RegisterAs(p, owner, kValue);
}
static inline void RegisterBlock(const void *p, uint32_t owner) {
  RegisterAs(p, owner, kBlock);
}

static inline uint32_t OwnerOf(const void *p) {
  Entry *e = p ? Find(&live, p) : NULL;
  return e ? e->owner : 0;
}

/* One death: the entry leaves the live table for the shadow. */
static inline void Kill(Entry *e) {
  if (add_record && records[e->stack].addr == e->key)
    records[e->stack].state = 2;
  if (add_free)
    ClearBit(LiveBits(e->key, 0), e->key);
  ShadowSet(e);
  Erase(&live, e);
  ++deaths;
}

/* A dispose: the object and, if it owns any, every child in its list die. */
static void DieLocked(const void *p);
static void Die(const void *p) {
  Lock();
  DieLocked(p);
  Unlock();
}
static void DieLocked(const void *p) {
  Entry *e = p ? Find(&live, p) : NULL;
  if (!e)
    return;
  if (stack_frames)
    CaptureStack(); /* the free stack, one a dispose */
  Kill(e);
  uint32_t own = OwnListOf(p);
  if (!own)
    return;
  Owner *o = &owners[own];
  for (size_t i = 0; i < o->count; ++i) {
    Entry *c = Find(&live, o->children[i]);
    if (c)
      Kill(c);
  }
  o->count = 0;
  o->handle = NULL;
}

/* Builders: where each one is, as the module its block belongs to (few
   builders at a time in (c)). */
enum { kMaxBuilders = 64 };
static const void *builder_key[kMaxBuilders];
static uint32_t builder_module[kMaxBuilders];

static uint32_t *BuilderSlot(const void *b) {
  for (int i = 0; i < kMaxBuilders; ++i)
    if (builder_key[i] == b)
      return &builder_module[i];
  for (int i = 0; i < kMaxBuilders; ++i)
    if (!builder_key[i]) {
      builder_key[i] = b;
      return &builder_module[i];
    }
  return &builder_module[0];
}

LLVMContextRef LLVMContextCreate(void) {
  REAL(LLVMContextRef, LLVMContextCreate, void);
  LLVMContextRef c = real();
  Register(c, 0);
  NewOwner(c);
  return c;
}

void LLVMContextDispose(LLVMContextRef c) {
  REAL(void, LLVMContextDispose, LLVMContextRef);
  Check(c, __func__);
  Die(c);
  real(c);
}

LLVMModuleRef LLVMModuleCreateWithNameInContext(const char *name,
                                                LLVMContextRef c) {
  REAL(LLVMModuleRef, LLVMModuleCreateWithNameInContext, const char *,
       LLVMContextRef);
  Check(c, __func__);
  LLVMModuleRef m = real(name, c);
  Register(m, OwnListOf(c));
  NewOwner(m);
  return m;
}

void LLVMDisposeModule(LLVMModuleRef m) {
  REAL(void, LLVMDisposeModule, LLVMModuleRef);
  Check(m, __func__);
  Die(m);
  real(m);
}

LLVMTypeRef LLVMInt64TypeInContext(LLVMContextRef c) {
  REAL(LLVMTypeRef, LLVMInt64TypeInContext, LLVMContextRef);
  Check(c, __func__);
  LLVMTypeRef t = real(c);
  Register(t, OwnListOf(c));
  return t;
}

LLVMTypeRef LLVMFunctionType(LLVMTypeRef ret, LLVMTypeRef *params, unsigned n,
                             LLVMBool va) {
  REAL(LLVMTypeRef, LLVMFunctionType, LLVMTypeRef, LLVMTypeRef *, unsigned,
       LLVMBool);
  Check(ret, __func__);
  for (unsigned i = 0; i < n; ++i)
    Check(params[i], __func__);
  LLVMTypeRef t = real(ret, params, n, va);
  Register(t, OwnerOf(ret));
  return t;
}

LLVMValueRef LLVMConstInt(LLVMTypeRef t, unsigned long long v, LLVMBool s) {
  REAL(LLVMValueRef, LLVMConstInt, LLVMTypeRef, unsigned long long, LLVMBool);
  Check(t, __func__);
  LLVMValueRef c = real(t, v, s);
  RegisterValue(c, OwnerOf(t));
  return c;
}

LLVMBuilderRef LLVMCreateBuilderInContext(LLVMContextRef c) {
  REAL(LLVMBuilderRef, LLVMCreateBuilderInContext, LLVMContextRef);
  Check(c, __func__);
  LLVMBuilderRef b = real(c);
  Register(b, 0);
  *BuilderSlot(b) = 0;
  return b;
}

void LLVMDisposeBuilder(LLVMBuilderRef b) {
  REAL(void, LLVMDisposeBuilder, LLVMBuilderRef);
  Check(b, __func__);
  Die(b);
  for (int i = 0; i < kMaxBuilders; ++i)
    if (builder_key[i] == b)
      builder_key[i] = NULL;
  real(b);
}

LLVMValueRef LLVMAddFunction(LLVMModuleRef m, const char *name, LLVMTypeRef t) {
  REAL(LLVMValueRef, LLVMAddFunction, LLVMModuleRef, const char *, LLVMTypeRef);
  Check(m, __func__);
  Check(t, __func__);
  LLVMValueRef f = real(m, name, t);
  RegisterValue(f, OwnListOf(m));
  return f;
}

LLVMValueRef LLVMGetParam(LLVMValueRef f, unsigned i) {
  REAL(LLVMValueRef, LLVMGetParam, LLVMValueRef, unsigned);
  Check(f, __func__);
  LLVMValueRef p = real(f, i);
  RegisterValue(p, OwnerOf(f));
  return p;
}

LLVMBasicBlockRef LLVMAppendBasicBlockInContext(LLVMContextRef c,
                                                LLVMValueRef f,
                                                const char *name) {
  REAL(LLVMBasicBlockRef, LLVMAppendBasicBlockInContext, LLVMContextRef,
       LLVMValueRef, const char *);
  Check(c, __func__);
  Check(f, __func__);
  LLVMBasicBlockRef bb = real(c, f, name);
  RegisterBlock(bb, OwnerOf(f));
  return bb;
}

void LLVMPositionBuilderAtEnd(LLVMBuilderRef b, LLVMBasicBlockRef bb) {
  REAL(void, LLVMPositionBuilderAtEnd, LLVMBuilderRef, LLVMBasicBlockRef);
  Check(b, __func__);
  Check(bb, __func__);
  *BuilderSlot(b) = OwnerOf(bb);
  real(b, bb);
}

void LLVMClearInsertionPosition(LLVMBuilderRef b) {
  REAL(void, LLVMClearInsertionPosition, LLVMBuilderRef);
  Check(b, __func__);
  *BuilderSlot(b) = 0;
  real(b);
}

/* An instruction built at the builder's position belongs to its module. */
static LLVMValueRef Built(LLVMBuilderRef b, LLVMValueRef v) {
  RegisterValue(v, *BuilderSlot(b));
  return v;
}

#define BINARY(Name)                                                           \
  LLVMValueRef Name(LLVMBuilderRef b, LLVMValueRef l, LLVMValueRef r,          \
                    const char *name) {                                        \
    REAL(LLVMValueRef, Name, LLVMBuilderRef, LLVMValueRef, LLVMValueRef,       \
         const char *);                                                        \
    Check(b, __func__);                                                        \
    Check(l, __func__);                                                        \
    Check(r, __func__);                                                        \
    return Built(b, real(b, l, r, name));                                      \
  }
BINARY(LLVMBuildAdd)
BINARY(LLVMBuildSub)
BINARY(LLVMBuildMul)
BINARY(LLVMBuildXor)
BINARY(LLVMBuildLShr)

LLVMValueRef LLVMBuildICmp(LLVMBuilderRef b, LLVMIntPredicate op,
                           LLVMValueRef l, LLVMValueRef r, const char *name) {
  REAL(LLVMValueRef, LLVMBuildICmp, LLVMBuilderRef, LLVMIntPredicate,
       LLVMValueRef, LLVMValueRef, const char *);
  Check(b, __func__);
  Check(l, __func__);
  Check(r, __func__);
  return Built(b, real(b, op, l, r, name));
}

LLVMValueRef LLVMBuildPhi(LLVMBuilderRef b, LLVMTypeRef t, const char *name) {
  REAL(LLVMValueRef, LLVMBuildPhi, LLVMBuilderRef, LLVMTypeRef, const char *);
  Check(b, __func__);
  Check(t, __func__);
  return Built(b, real(b, t, name));
}

LLVMValueRef LLVMBuildBr(LLVMBuilderRef b, LLVMBasicBlockRef dest) {
  REAL(LLVMValueRef, LLVMBuildBr, LLVMBuilderRef, LLVMBasicBlockRef);
  Check(b, __func__);
  Check(dest, __func__);
  return Built(b, real(b, dest));
}

LLVMValueRef LLVMBuildCondBr(LLVMBuilderRef b, LLVMValueRef c,
                             LLVMBasicBlockRef t, LLVMBasicBlockRef e) {
  REAL(LLVMValueRef, LLVMBuildCondBr, LLVMBuilderRef, LLVMValueRef,
       LLVMBasicBlockRef, LLVMBasicBlockRef);
  Check(b, __func__);
  Check(c, __func__);
  Check(t, __func__);
  Check(e, __func__);
  return Built(b, real(b, c, t, e));
}

LLVMValueRef LLVMBuildRet(LLVMBuilderRef b, LLVMValueRef v) {
  REAL(LLVMValueRef, LLVMBuildRet, LLVMBuilderRef, LLVMValueRef);
  Check(b, __func__);
  Check(v, __func__);
  return Built(b, real(b, v));
}

void LLVMAddIncoming(LLVMValueRef phi, LLVMValueRef *values,
                     LLVMBasicBlockRef *blocks, unsigned n) {
  REAL(void, LLVMAddIncoming, LLVMValueRef, LLVMValueRef *, LLVMBasicBlockRef *,
       unsigned);
  Check(phi, __func__);
  for (unsigned i = 0; i < n; ++i) {
    Check(values[i], __func__);
    Check(blocks[i], __func__);
  }
  real(phi, values, blocks, n);
}

unsigned LLVMCountBasicBlocks(LLVMValueRef f) {
  REAL(unsigned, LLVMCountBasicBlocks, LLVMValueRef);
  Check(f, __func__);
  return real(f);
}

LLVMBool LLVMVerifyModule(LLVMModuleRef m, LLVMVerifierFailureAction a,
                          char **msg) {
  REAL(LLVMBool, LLVMVerifyModule, LLVMModuleRef, LLVMVerifierFailureAction,
       char **);
  Check(m, __func__);
  LLVMBool r = real(m, a, msg);
  if (msg)
    Register(*msg, 0);
  return r;
}

void LLVMDisposeMessage(char *msg) {
  REAL(void, LLVMDisposeMessage, char *);
  Check(msg, __func__);
  Die(msg);
  real(msg);
}

/* The walk over the module after verification: each handle it returns is
   one the program now holds, so each is found (or entered) in the table. */
#define NEXT(Ret, Name, Arg, RegisterFn)                                       \
  Ret Name(Arg x) {                                                            \
    REAL(Ret, Name, Arg);                                                      \
    Check(x, __func__);                                                        \
    Ret r = real(x);                                                           \
    RegisterFn(r, OwnerOf(x));                                                 \
    return r;                                                                  \
  }
LLVMValueRef LLVMGetFirstFunction(LLVMModuleRef m) {
  REAL(LLVMValueRef, LLVMGetFirstFunction, LLVMModuleRef);
  Check(m, __func__);
  LLVMValueRef f = real(m);
  RegisterValue(f, OwnListOf(m));
  return f;
}
NEXT(LLVMValueRef, LLVMGetNextFunction, LLVMValueRef, RegisterValue)
NEXT(LLVMBasicBlockRef, LLVMGetFirstBasicBlock, LLVMValueRef, RegisterBlock)
NEXT(LLVMBasicBlockRef, LLVMGetNextBasicBlock, LLVMBasicBlockRef, RegisterBlock)
NEXT(LLVMValueRef, LLVMGetNextInstruction, LLVMValueRef, RegisterValue)

LLVMValueRef LLVMGetFirstInstruction(LLVMBasicBlockRef bb) {
  REAL(LLVMValueRef, LLVMGetFirstInstruction, LLVMBasicBlockRef);
  Check(bb, __func__);
  LLVMValueRef in = real(bb);
  RegisterValue(in, OwnerOf(bb));
  return in;
}

LLVMOpcode LLVMGetInstructionOpcode(LLVMValueRef in) {
  REAL(LLVMOpcode, LLVMGetInstructionOpcode, LLVMValueRef);
  Check(in, __func__);
  return real(in);
}

/* Calls fn on each word of `bits` that [p, p + granules granules) meets,
   with the mask of the granules it meets there and the address of the
   word's first granule (within p's region). */
typedef void (*WordFn)(uint64_t *word, uint64_t mask, uintptr_t at);
static void ForEachWord(uint64_t *bits, uintptr_t p, size_t granules,
                        WordFn fn) {
  uintptr_t base = p & ~(((uintptr_t)1 << kRegionShift) - 1);
  size_t g = Granule(p), end = g + granules;
  size_t region_granules = (size_t)1 << (kRegionShift - kGranuleShift);
  if (end > region_granules)
    end = region_granules;
  while (g < end) {
    size_t w = g >> 6, hi = (w + 1) << 6 < end ? (w + 1) << 6 : end;
    uint64_t mask =
        (hi - g == 64 ? ~(uint64_t)0 : (((uint64_t)1 << (hi - g)) - 1))
        << (g & 63);
    fn(&bits[w], mask, base + ((w << 6) << kGranuleShift));
    g = hi;
  }
}

static void ClearWord(uint64_t *word, uint64_t mask, uintptr_t at) {
  (void)at;
  if (*word & mask)
    *word &= ~mask;
}

/* operator new (`alloc`): a block handed out where freed objects were
   ends their shadow (the bits of its granules, within its first region). */
static void Expire(const void *p, size_t n) {
  uint64_t *bits = RegionBits((uintptr_t)p, 0);
  if (bits)
    ForEachWord(bits, (uintptr_t)p, (n + 7) >> kGranuleShift, ClearWord);
}

static void *New(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p)
    abort();
  if (add_alloc && !shadow_in_table)
    Expire(p, n);
  return p;
}
void *_Znwm(size_t n) { return New(n); }
void *_Znam(size_t n) { return New(n); }

/* operator delete (`free`): a live value in the block dies. */
static void KillInWord(uint64_t *word, uint64_t mask, uintptr_t at) {
  for (uint64_t m = *word & mask; m; m &= m - 1) {
    const void *a =
        (const void *)(at + ((uintptr_t)__builtin_ctzll(m) << kGranuleShift));
    Lock();
    Entry *e = Find(&live, a);
    if (e)
      Kill(e);
    Unlock();
  }
}

static void ValuesDied(void *p) {
  uint64_t *bits = LiveBits((uintptr_t)p, 0);
  if (bits)
    ForEachWord(bits, (uintptr_t)p, malloc_usable_size(p) >> kGranuleShift,
                KillInWord);
}

void _ZdlPv(void *p) {
  REAL(void, _ZdlPv, void *);
  if (p && add_free)
    ValuesDied(p);
  real(p);
}
void _ZdlPvm(void *p, size_t n) {
  REAL(void, _ZdlPvm, void *, size_t);
  if (p && add_free)
    ValuesDied(p);
  real(p, n);
}

static void __attribute__((destructor)) Report(void) {
  if (getenv("LEAST_TRACKER_COUNT"))
    fprintf(stderr,
            "least_tracker: %llu objects registered, %llu deaths, %llu "
            "handle checks, %llu stacks captured, %zu live and %zu freed "
            "entries\n",
            (unsigned long long)registered, (unsigned long long)deaths,
            (unsigned long long)checks, (unsigned long long)captures, live.used,
            freed.used);
}
