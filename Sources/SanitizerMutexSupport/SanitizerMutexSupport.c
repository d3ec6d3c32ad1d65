// Makes Synchronization.Mutex visible to ThreadSanitizer on Linux, so a correct answer that uses
// it is not reported as racing.
//
// `Mutex.withLock` is inlined into the learner's (instrumented) code: its uncontended lock and
// unlock are atomics TSan sees. Under contention it calls `_MutexHandle._lockSlow` and
// `_unlockSlow` in libswiftSynchronization.so, which wait and wake with futex system calls in
// uninstrumented code, so TSan never saw that the waiter acquired what the holder released: a
// correct Mutex-based SafeCounter was reported racing in 8 runs of 8. These definitions,
// linked into the TSan runners only, take the calls, forward them to the library's own
// functions, and tell TSan the acquire and the release. (On Apple platforms Mutex is an
// `os_unfair_lock`, which TSan intercepts; nothing is needed there.)
#include "SanitizerMutexSupport.h"

void workbook_sanitizer_mutex_support_linked(void) {}

#if defined(__linux__) && defined(__has_attribute)
#if __has_attribute(swiftcall) && __has_attribute(swift_context)
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stdint.h>
#include <stdbool.h>

void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

#define SWIFTCALL __attribute__((swiftcall))
#define SELF __attribute__((swift_context))

typedef SWIFTCALL void (*LockSlow)(uint32_t, void *SELF);
typedef SWIFTCALL void (*UnlockSlow)(void *SELF);
typedef SWIFTCALL bool (*TryLockSlow)(void *SELF);

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"

static void *next(const char *name) {
    void *real = dlsym(RTLD_NEXT, name);
    if (!real) __builtin_trap();  // the library changed: better a clear crash than a hang
    return real;
}

SWIFTCALL void workbook_lock_slow(uint32_t expected, void *SELF handle) __asm__(LOCK_SLOW);
SWIFTCALL void workbook_lock_slow(uint32_t expected, void *SELF handle) {
    static LockSlow real;
    if (!real) real = (LockSlow)next(LOCK_SLOW);
    real(expected, handle);
    __tsan_acquire(handle);
}

SWIFTCALL void workbook_unlock_slow(void *SELF handle) __asm__(UNLOCK_SLOW);
SWIFTCALL void workbook_unlock_slow(void *SELF handle) {
    static UnlockSlow real;
    if (!real) real = (UnlockSlow)next(UNLOCK_SLOW);
    __tsan_release(handle);
    real(handle);
}

SWIFTCALL bool workbook_try_lock_slow(void *SELF handle) __asm__(TRY_LOCK_SLOW);
SWIFTCALL bool workbook_try_lock_slow(void *SELF handle) {
    static TryLockSlow real;
    if (!real) real = (TryLockSlow)next(TRY_LOCK_SLOW);
    bool locked = real(handle);
    if (locked) __tsan_acquire(handle);
    return locked;
}
#endif
#endif
