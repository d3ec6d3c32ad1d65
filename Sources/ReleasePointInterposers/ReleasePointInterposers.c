// Takes the calls that release something another thread may be waiting for —
// `pthread_mutex_unlock` (NSLock, NSCondition, NSRecursiveLock), `dispatch_semaphore_signal`,
// `dispatch_group_leave`, and the return from `dispatch_sync` / `dispatch_barrier_sync` — does
// them, then tells ReleasePoints, which pauses the thread there if a check asked for it.
//
// On Linux a function defined in the executable takes the calls the shared libraries
// (Foundation, libdispatch's Swift overlay) make to it. Under ThreadSanitizer the runtime's own
// definitions of these names are weak aliases of its interceptors, so these win, and forward to
// the interceptor (`___interceptor_<name>`, LLVM 17 and later; `__interceptor_<name>` before) so
// TSan still sees every release; without TSan they forward to the next definition, libc's or
// libdispatch's. Apple platforms resolve symbols per library, so this has no effect there and
// the checks that need pauses say they could not pause.
#include "ReleasePointInterposers.h"
#include "ReleasePoints.h"

#if defined(__linux__)
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <pthread.h>

typedef struct dispatch_queue_s *dispatch_queue_t;
typedef struct dispatch_semaphore_s *dispatch_semaphore_t;
typedef struct dispatch_group_s *dispatch_group_t;
typedef void *dispatch_block_t;  // a block, only passed through

// ThreadSanitizer's interceptors, when its runtime is linked in (weak: absent otherwise).
#define INTERCEPTORS(name) \
    extern __typeof__(name) ___interceptor_##name __attribute__((weak)); \
    extern __typeof__(name) __interceptor_##name __attribute__((weak));

int pthread_mutex_unlock(pthread_mutex_t *mutex);
long dispatch_semaphore_signal(dispatch_semaphore_t semaphore);
void dispatch_group_leave(dispatch_group_t group);
void dispatch_sync(dispatch_queue_t queue, dispatch_block_t block);
void dispatch_barrier_sync(dispatch_queue_t queue, dispatch_block_t block);
INTERCEPTORS(pthread_mutex_unlock)
INTERCEPTORS(dispatch_semaphore_signal)
INTERCEPTORS(dispatch_group_leave)
INTERCEPTORS(dispatch_sync)
INTERCEPTORS(dispatch_barrier_sync)

static void *next(const char *name) {
    void *found = dlsym(RTLD_NEXT, name);
    if (!found) __builtin_trap();  // nothing to forward to: better a clear crash than a hang
    return found;
}

// TSan's interceptor if linked (so TSan still sees the release), else the next library's.
// Looked up once; the pointer is read and written atomically (any thread may be first, and in
// CI's TSan lane this file is instrumented too).
#define FORWARD(name) \
    static __typeof__(&name) cached; \
    __typeof__(&name) real = __atomic_load_n(&cached, __ATOMIC_ACQUIRE); \
    if (!real) { \
        real = ___interceptor_##name ? ___interceptor_##name \
            : __interceptor_##name ? __interceptor_##name : (__typeof__(&name))next(#name); \
        __atomic_store_n(&cached, real, __ATOMIC_RELEASE); \
    }

int pthread_mutex_unlock(pthread_mutex_t *mutex) {
    FORWARD(pthread_mutex_unlock);
    int result = real(mutex);
    workbook_release_point_reached();
    return result;
}

long dispatch_semaphore_signal(dispatch_semaphore_t semaphore) {
    FORWARD(dispatch_semaphore_signal);
    long result = real(semaphore);
    workbook_release_point_reached();
    return result;
}

void dispatch_group_leave(dispatch_group_t group) {
    FORWARD(dispatch_group_leave);
    real(group);
    workbook_release_point_reached();
}

void dispatch_sync(dispatch_queue_t queue, dispatch_block_t block) {
    FORWARD(dispatch_sync);
    real(queue, block);
    workbook_release_point_reached();
}

void dispatch_barrier_sync(dispatch_queue_t queue, dispatch_block_t block) {
    FORWARD(dispatch_barrier_sync);
    real(queue, block);
    workbook_release_point_reached();
}

void workbook_release_point_interposers_linked(void) { workbook_release_points_mark_available(); }
#else
void workbook_release_point_interposers_linked(void) {}
#endif
