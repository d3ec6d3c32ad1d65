// Two jobs, both in the runners on Linux: release points, and barrier work items under TSan
// (see its MARK below).
//
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
void dispatch_async(dispatch_queue_t queue, dispatch_block_t block);
void dispatch_barrier_async(dispatch_queue_t queue, dispatch_block_t block);
INTERCEPTORS(pthread_mutex_unlock)
INTERCEPTORS(dispatch_semaphore_signal)
INTERCEPTORS(dispatch_group_leave)
INTERCEPTORS(dispatch_sync)
INTERCEPTORS(dispatch_barrier_sync)
INTERCEPTORS(dispatch_async)
INTERCEPTORS(dispatch_barrier_async)

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

// MARK: Barrier work items under ThreadSanitizer
//
// A block made by `dispatch_block_create` — Swift's `DispatchWorkItem`, and `async`/`sync` given a
// QoS or flags besides `.barrier` alone — carries its flags inside, and libdispatch honours a
// barrier flag found there. TSan's `dispatch_async`/`dispatch_sync` interceptors do not look: they
// hand libdispatch a plain function (`dispatch_async_f`), so under TSan such a barrier is no
// barrier at all, and a correct answer's writes were reported racing with its reads. Here, with
// TSan linked, a block flagged as a barrier goes to TSan's barrier interceptor instead: the block
// runs as a barrier, and TSan knows it. (`dispatch_group_async` and `dispatch_after` are not
// redirected; the Swift overlay uses them for `async(group:flags:)` and `asyncAfter(flags:)`.)

// The flags of a `dispatch_block_create` block: libdispatch's layout (block.cpp,
// `_dispatch_block_get_data`) — a block whose invoke function is `_dispatch_block_special_invoke`
// captures its private data right after the block header, magic number first.
struct block_header { void *isa; int flags; int reserved; void *invoke; void *descriptor; };
struct private_block_data { unsigned long magic; unsigned long flags; };
enum { private_block_data_magic = 0xD159B10C, block_flag_barrier = 0x1 };

static int is_barrier_block(dispatch_block_t block) {
    static void *const *special_invoke;  // the address of libdispatch's function pointer
    static int looked_up;
    if (!__atomic_load_n(&looked_up, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&special_invoke, dlsym(RTLD_DEFAULT, "_dispatch_block_special_invoke"), __ATOMIC_RELAXED);
        __atomic_store_n(&looked_up, 1, __ATOMIC_RELEASE);
    }
    void *const *invoke = __atomic_load_n(&special_invoke, __ATOMIC_RELAXED);
    if (!block || !invoke) return 0;
    const struct block_header *header = block;
    if (header->invoke != *invoke) return 0;
    const struct private_block_data *data = (const void *)(header + 1);
    return data->magic == private_block_data_magic && (data->flags & block_flag_barrier);
}

// TSan's barrier interceptor for `name`, or NULL without TSan (then nothing is redirected:
// libdispatch itself reads the flag).
#define BARRIER_INTERCEPTOR(name) \
    (___interceptor_##name ? ___interceptor_##name : __interceptor_##name ? __interceptor_##name : NULL)

void dispatch_async(dispatch_queue_t queue, dispatch_block_t block) {
    if (is_barrier_block(block)) {
        __typeof__(&dispatch_barrier_async) barrier = BARRIER_INTERCEPTOR(dispatch_barrier_async);
        if (barrier) { barrier(queue, block); return; }
    }
    FORWARD(dispatch_async);
    real(queue, block);
}

void dispatch_sync(dispatch_queue_t queue, dispatch_block_t block) {
    if (is_barrier_block(block)) {
        __typeof__(&dispatch_barrier_sync) barrier = BARRIER_INTERCEPTOR(dispatch_barrier_sync);
        if (barrier) {
            barrier(queue, block);
            workbook_release_point_reached();
            return;
        }
    }
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
