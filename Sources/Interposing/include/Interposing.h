// What the interposers share (Linux): a function defined in the executable takes the calls the
// shared libraries make to it, and forwards them — to ThreadSanitizer's interceptor when its
// runtime is linked (its own definitions of these names are weak aliases of the interceptors, so
// ours win), else to the next library's definition. See ReleasePointInterposers.c and
// ExplorerDispatchInterposer.c.
#pragma once
#include <stdbool.h>
#include <stddef.h>  // NULL

/// True on Linux unless `WORKBOOK_LINUX_MECHANISMS=off`: the interposers, TSan fibers, the
/// explorer's libdispatch redirect and `/proc` observation are in use. Always false elsewhere:
/// Apple platforms resolve symbols per library, so none of them can work there. Turning them off
/// on Linux runs the checks as a Mac runs them (`scripts/verdicts.sh … --as-on-apple`).
bool workbook_linux_mechanisms_enabled(void);

/// Declares ThreadSanitizer's interceptors for `name` (weak: absent without TSan) —
/// `___interceptor_<name>` since LLVM 17, `__interceptor_<name>` before.
#define INTERCEPTORS(name) \
    extern __typeof__(name) ___interceptor_##name __attribute__((weak)); \
    extern __typeof__(name) __interceptor_##name __attribute__((weak));

/// TSan's interceptor for `name`, or NULL without TSan.
#define TSAN_INTERCEPTOR(name) \
    (___interceptor_##name ? ___interceptor_##name : __interceptor_##name ? __interceptor_##name : NULL)

/// The definition after the executable's (`dlsym(RTLD_NEXT, name)`); traps if there is none —
/// better a clear crash than a hang.
void *workbook_interposing_next(const char *name);

/// Declares `real`: TSan's interceptor for `name` if linked (so TSan still sees the call), else the
/// next library's. Looked up once; the pointer is read and written atomically (any thread may be
/// first, and in CI's TSan lane these files are instrumented too).
#define FORWARD(name) \
    static __typeof__(&name) cached; \
    __typeof__(&name) real = __atomic_load_n(&cached, __ATOMIC_ACQUIRE); \
    if (!real) { \
        real = TSAN_INTERCEPTOR(name); \
        if (!real) real = (__typeof__(&name))workbook_interposing_next(#name); \
        __atomic_store_n(&cached, real, __ATOMIC_RELEASE); \
    }

/// Code that is the model TSan is told rather than code for it to check (the fiber plumbing, the
/// per-thread release-point state), left out when CI's TSan lane instruments everything.
#define NOT_CHECKED_BY_TSAN __attribute__((no_sanitize("thread")))
