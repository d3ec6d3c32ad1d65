// Two jobs, both in the runners on Linux: release points, and barrier work items under TSan
// (see its MARK below). OperationAnnouncementInterposers.c, beside it, takes an operation's
// willChangeValue/didChangeValue.
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
#include "OperationAnnouncements.h"
#include "Interposing.h"

#if defined(__linux__)
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>

typedef struct dispatch_queue_s *dispatch_queue_t;
typedef struct dispatch_semaphore_s *dispatch_semaphore_t;
typedef struct dispatch_group_s *dispatch_group_t;
typedef void *dispatch_block_t;  // a block, only passed through

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

// Allocation points: every Swift object is made by `swift_allocObject` (the runtime's, in
// libswiftCore), which libswift_Concurrency calls through its PLT when it makes a checked
// continuation's canary. Taking it here lets a check run something at the moment a thread of
// the learner's code creates a continuation (see ReleasePoints.h). TSan does not intercept it.
void *swift_allocObject(const void *metadata, size_t size, size_t alignMask);

void *swift_allocObject(const void *metadata, size_t size, size_t alignMask) {
    static void *(*cached)(const void *, size_t, size_t);
    void *(*real)(const void *, size_t, size_t) = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (!real) {
        real = (void *(*)(const void *, size_t, size_t))workbook_interposing_next("swift_allocObject");
        __atomic_store_n(&cached, real, __ATOMIC_RELEASE);
    }
    workbook_allocation_point_reached(metadata);
    return real(metadata, size, alignMask);
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

// MARK: Plain blocks on a concurrent queue, each with a clock of its own (TSan only)
//
// TSan orders everything one thread does, and libdispatch often runs two blocks of a concurrent
// queue on the same pool thread one after the other: a race between them (a count bumped in a
// plain block beside the barrier) was never reported. Under TSan a plain block submitted to a
// concurrent queue runs in a TSan fiber made on the submitting thread — so it starts from what
// the submitter had seen, as a submission orders it — and is ordered with the queue's barriers
// the way TSan's own libdispatch model orders them: after the last barrier (`queue`), before the
// next one (`queue` + one word). Nothing else orders it.
typedef void (*dispatch_function_t)(void *);
void dispatch_async_f(dispatch_queue_t queue, void *context, dispatch_function_t work);
INTERCEPTORS(dispatch_async_f)
extern void *__tsan_get_current_fiber(void) __attribute__((weak));
extern void *__tsan_create_fiber(unsigned flags) __attribute__((weak));
extern void __tsan_destroy_fiber(void *fiber) __attribute__((weak));
extern void __tsan_switch_to_fiber(void *fiber, unsigned flags) __attribute__((weak));
extern void AnnotateHappensBefore(const char *file, int line, const volatile void *address) __attribute__((weak));
extern void AnnotateHappensAfter(const char *file, int line, const volatile void *address) __attribute__((weak));
enum { fiber_switch_no_sync = 1 };

// libdispatch's layout of a queue for debuggers (exported; TSan reads the width the same way).
struct queue_offsets { uint16_t version, label, label_size, flags, flags_size, serialnum, serialnum_size, width, width_size; };
extern const struct queue_offsets dispatch_queue_offsets __attribute__((weak));

static int is_concurrent_queue(dispatch_queue_t queue) {
    if (!&dispatch_queue_offsets || dispatch_queue_offsets.width_size != 2) return 0;
    return *(const uint16_t *)((const char *)queue + dispatch_queue_offsets.width) > 1;
}

// A fiber needs a stack of its own: on the pool thread's stack, its frames were reported racing
// with that thread's earlier ones.
enum { fiber_stack_bytes = 1 << 20 };

// The fiber plumbing below is NOT_CHECKED_BY_TSAN: when CI's TSan lane instruments this file too,
// the job's fields, written on one fiber and read on another after a switch that deliberately
// orders nothing, were reported as races in every reference that uses a concurrent queue.

struct fiber_job {
    dispatch_block_t block;
    dispatch_queue_t queue;
    void *fiber, *thread, *stack;
    ucontext_t on_thread, in_fiber;
};

static void *(*block_copy)(const void *);
static void (*block_release)(const void *);

NOT_CHECKED_BY_TSAN static void fiber_body(unsigned int high, unsigned int low) {
    struct fiber_job *job = (struct fiber_job *)(((uintptr_t)high << 32) | (uintptr_t)low);
    AnnotateHappensAfter(__FILE__, __LINE__, job->queue);
    const struct block_header *header = job->block;
    ((void (*)(const void *))header->invoke)(job->block);
    AnnotateHappensBefore(__FILE__, __LINE__, (const char *)job->queue + sizeof(void *));
    __tsan_switch_to_fiber(job->thread, fiber_switch_no_sync);
    swapcontext(&job->in_fiber, &job->on_thread);
}

NOT_CHECKED_BY_TSAN static void run_fiber_job(void *context) {
    struct fiber_job *job = context;
    job->thread = __tsan_get_current_fiber();
    getcontext(&job->in_fiber);
    job->in_fiber.uc_stack.ss_sp = job->stack;
    job->in_fiber.uc_stack.ss_size = fiber_stack_bytes;
    job->in_fiber.uc_link = NULL;
    uintptr_t address = (uintptr_t)job;
    makecontext(&job->in_fiber, (void (*)(void))fiber_body, 2, (unsigned int)(address >> 32), (unsigned int)address);
    __tsan_switch_to_fiber(job->fiber, fiber_switch_no_sync);
    swapcontext(&job->on_thread, &job->in_fiber);
    __tsan_destroy_fiber(job->fiber);
    munmap(job->stack, fiber_stack_bytes);
    block_release(job->block);
    free(job);
}

// True when a plain block went to the queue in a fiber of its own.
NOT_CHECKED_BY_TSAN static int submitted_in_fiber(dispatch_queue_t queue, dispatch_block_t block) {
    __typeof__(&dispatch_async_f) submit = TSAN_INTERCEPTOR(dispatch_async_f);
    if (!submit || !__tsan_create_fiber || !AnnotateHappensAfter || !is_concurrent_queue(queue)) return 0;
    if (!__atomic_load_n(&block_release, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&block_copy, dlsym(RTLD_DEFAULT, "_Block_copy"), __ATOMIC_RELAXED);
        __atomic_store_n(&block_release, dlsym(RTLD_DEFAULT, "_Block_release"), __ATOMIC_RELEASE);
    }
    if (!block_copy || !block_release) return 0;
    struct fiber_job *job = malloc(sizeof *job);
    if (!job) return 0;
    job->stack = mmap(NULL, fiber_stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (job->stack == MAP_FAILED) { free(job); return 0; }
    job->block = block_copy(block);
    job->queue = queue;
    job->fiber = __tsan_create_fiber(0);  // on this thread: it starts from what this thread saw
    submit(queue, job, run_fiber_job);
    return 1;
}

// A submission is a release too (TSan orders the block after it): a pause right after it lets
// another thread submit between two blocks of one call.
void dispatch_async(dispatch_queue_t queue, dispatch_block_t block) {
    int enabled = workbook_linux_mechanisms_enabled();
    __typeof__(&dispatch_barrier_async) barrier = enabled && is_barrier_block(block) ? TSAN_INTERCEPTOR(dispatch_barrier_async) : NULL;
    if (barrier) {
        barrier(queue, block);
    } else if (!enabled || !submitted_in_fiber(queue, block)) {
        FORWARD(dispatch_async);
        real(queue, block);
    }
    workbook_release_point_reached();
}

void dispatch_barrier_async(dispatch_queue_t queue, dispatch_block_t block) {
    FORWARD(dispatch_barrier_async);
    real(queue, block);
    workbook_release_point_reached();
}

void dispatch_sync(dispatch_queue_t queue, dispatch_block_t block) {
    if (workbook_linux_mechanisms_enabled() && is_barrier_block(block)) {
        __typeof__(&dispatch_barrier_sync) barrier = TSAN_INTERCEPTOR(dispatch_barrier_sync);
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

void workbook_release_point_interposers_linked(void) {
    if (!workbook_linux_mechanisms_enabled()) return;
    workbook_release_points_mark_available();
#if defined(__x86_64__) || defined(__aarch64__)
    workbook_operation_announcements_mark_available();  // OperationAnnouncementInterposers.c
#endif
}
#else
void workbook_release_point_interposers_linked(void) {}
#endif
