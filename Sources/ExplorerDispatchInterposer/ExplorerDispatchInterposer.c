// The explorer's driver thread runs the code's jobs; the runtime sends most of them through its
// hooks, but since the 6.2 runtime a job for the default global executor goes straight to
// libdispatch: `Task.yield()` (`dispatch_async_f`) and `Task.sleep` (`dispatch_after_f`) in a task
// without the run's executor preference, once an actor hop took the runtime's fast path. They ran
// on a pool thread, outside the run: uncontrolled, on the real clock, and timing-dependent under
// load.
//
// On Linux a function defined in the executable takes the calls libswift_Concurrency makes to it
// (the release-point interposers do the same for locks). On a driver thread, a job from the
// concurrency runtime for a queue other than the main queue goes to the run — now, or as a timer
// after the delay its deadline leaves; every other call goes on, to ThreadSanitizer's interceptor
// when it is linked (so TSan still sees it), else to libdispatch. Apple platforms resolve symbols per library: there this has no effect and
// such a job stays uncontrolled, as the report says.
#if defined(__linux__)
#define _GNU_SOURCE 1  // dladdr, RTLD_NEXT: before any header
#endif
#include "ExplorerDispatchInterposer.h"
#include "Interposing.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

void workbook_explorer_name_thread(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
#if defined(__APPLE__)
    pthread_setname_np(shortened);
#else
    pthread_setname_np(pthread_self(), shortened);
#endif
}

static _Thread_local const void *current_run;
static _Thread_local bool filtering_releases;

typedef void (*tsan_function)(const void *);
static tsan_function original_release;

// A release on static storage — a `swift_once` predicate, a runtime cache's — is dropped on a
// lane; one on the heap (a task, a job, a continuation: the runtime's own ordering of a task's
// steps) passes.
static void filtered_release(const void *address) {
    if (!original_release) return;
    if (filtering_releases) {
        Dl_info info;
        if (dladdr(address, &info) && info.dli_fname) return;
    }
    original_release(address);
}

void workbook_explorer_filter_runtime_releases(bool on) {
    static int installed;  // first call: on the driver thread, before any lane runs a job
    if (!__atomic_load_n(&installed, __ATOMIC_ACQUIRE)) {
        tsan_function *slot = (tsan_function *)dlsym(RTLD_DEFAULT, "_swift_tsan_release");
        if (slot && *slot && *slot != filtered_release) {
            original_release = *slot;
            *slot = filtered_release;
        }
        __atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
    }
    filtering_releases = on;
}

void workbook_explorer_set_current_run(const void *run) { current_run = run; }

static _Thread_local bool running_main_actor_job;
#if defined(__linux__)
static void hold_main_executor(bool hold);
#endif
void workbook_explorer_set_main_actor_job(bool running) {
#if defined(__linux__)
    hold_main_executor(running);
#endif
    running_main_actor_job = running;
}
bool workbook_explorer_running_main_actor_job(void) { return running_main_actor_job; }
const void *workbook_explorer_current_run(void) { return current_run; }

#if defined(__linux__)
#include <stdint.h>
#include <time.h>

typedef struct dispatch_queue_s *dispatch_queue_t;
typedef void (*dispatch_function_t)(void *);
typedef uint64_t dispatch_time_t;
void dispatch_async_f(dispatch_queue_t queue, void *context, dispatch_function_t work);
void dispatch_after_f(dispatch_time_t when, dispatch_queue_t queue, void *context, dispatch_function_t work);
dispatch_time_t dispatch_time(dispatch_time_t when, int64_t delta);
INTERCEPTORS(dispatch_async_f)
INTERCEPTORS(dispatch_after_f)
extern struct dispatch_queue_s _dispatch_main_q __attribute__((weak));

static _Thread_local workbook_explorer_job_taker taker;

void workbook_explorer_drive_jobs(workbook_explorer_job_taker new_taker) { taker = new_taker; }

#include <link.h>

// Where libswift_Concurrency is mapped, found once: the span of its loaded segments. A range
// check, not `dladdr` per call: `dladdr` walks the symbol table of the image it finds (the
// runner's is large), and `clock_gettime` is called on every step of a run.
static uintptr_t concurrency_start, concurrency_end;  // written once, before main

static int note_concurrency_span(struct dl_phdr_info *image, size_t size, void *base) {
    (void)size;
    if ((const void *)image->dlpi_addr != base) return 0;
    concurrency_start = UINTPTR_MAX;
    for (int i = 0; i < image->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &image->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD) continue;
        uintptr_t from = image->dlpi_addr + segment->p_vaddr;
        if (from < concurrency_start) concurrency_start = from;
        if (from + segment->p_memsz > concurrency_end) concurrency_end = from + segment->p_memsz;
    }
    return 1;
}

// At load, before any thread: the library is a dependency of the executable, so it is mapped.
__attribute__((constructor)) static void find_concurrency_span(void) {
    Dl_info info = {0};
    void *known = dlsym(RTLD_DEFAULT, "swift_task_enqueueGlobal");
    if (known && dladdr(known, &info) && info.dli_fbase) dl_iterate_phdr(note_concurrency_span, info.dli_fbase);
}

static int from_concurrency_runtime(const void *code) {
    uintptr_t address = (uintptr_t)code;
    return address >= concurrency_start && address < concurrency_end;
}

static int takes(dispatch_queue_t queue, dispatch_function_t work) {
    return taker && queue != &_dispatch_main_q && workbook_linux_mechanisms_enabled() && from_concurrency_runtime((const void *)work);
}

void dispatch_async_f(dispatch_queue_t queue, void *context, dispatch_function_t work) {
    if (takes(queue, work) && taker(context, -1)) return;
    FORWARD(dispatch_async_f);
    real(queue, context, work);
}

// libdispatch's time encoding: bit 63 alone marks the monotonic clock (`ContinuousClock`),
// bits 63 and 62 the wall clock; neither, the uptime clock; all ones, never.
enum { up_or_monotonic = 63, wall = 62 };

/// Nanoseconds from now to `when` on its own clock; -1 for a deadline not on a steady clock.
static int64_t nanoseconds_until(dispatch_time_t when) {
    const uint64_t monotonic_bit = 1ull << up_or_monotonic, wall_bit = 1ull << wall;
    if (when == ~0ull || (when & wall_bit)) return -1;
    dispatch_time_t now = dispatch_time(when & monotonic_bit, 0);
    int64_t delta = (int64_t)((when & ~monotonic_bit) - (now & ~monotonic_bit));
    return delta < 0 ? 0 : delta;
}

void dispatch_after_f(dispatch_time_t when, dispatch_queue_t queue, void *context, dispatch_function_t work) {
    if (takes(queue, work)) {
        int64_t delay = nanoseconds_until(when);
        if (delay >= 0 && taker(context, delay)) return;
    }
    FORWARD(dispatch_after_f);
    real(when, queue, context, work);
}

// The runtime's clock readings (`swift_get_time`, behind `ContinuousClock` and `SuspendingClock`)
// made on threads of a run: the latest few, process-wide. Code that reads a clock through a
// generic `some Clock` goes through the runtime's witness, which the runner cannot answer; the
// deadline it makes from that reading is then read back exactly (`workbook_explorer_runtime_clock_readings`).
// Relaxed atomics: nothing here orders one task after another for ThreadSanitizer.
INTERCEPTORS(clock_gettime)
enum { readings_kept = 16 };
static unsigned readings_next;
static struct { int clock; int64_t nanoseconds; } readings[readings_kept];

NOT_CHECKED_BY_TSAN int clock_gettime(clockid_t clock, struct timespec *time) {
    FORWARD(clock_gettime);
    int result = real(clock, time);
    if (current_run && result == 0 && workbook_linux_mechanisms_enabled() && from_concurrency_runtime(__builtin_return_address(0))) {
        unsigned slot = __atomic_fetch_add(&readings_next, 1, __ATOMIC_RELAXED) % readings_kept;
        __atomic_store_n(&readings[slot].clock, (int)clock, __ATOMIC_RELAXED);
        __atomic_store_n(&readings[slot].nanoseconds, (int64_t)time->tv_sec * 1000000000 + time->tv_nsec, __ATOMIC_RELAXED);
    }
    return result;
}

// On Apple platforms the main queue and the main actor are one serial executor. Under the explorer
// on Linux the main actor's jobs run on the explorer's lanes, each acquiring and releasing one
// address for ThreadSanitizer (`Lane.mainActorOrder`), while the runner's main thread drains the
// main queue: each drain is ordered on the same address, so code that reaches the main actor
// through `DispatchQueue.main` is told apart from a race as it would be on a Mac.
//
// Ordering alone is not enough: a drain and a main-actor job could still run at the same moment
// and race for real. So whoever acts as that one serial executor holds `main_executor` meanwhile —
// a lane or the driver running a main-actor job, or the main thread draining the main queue.
static const void *main_actor_order;
void workbook_explorer_set_main_actor_order(const void *address) { __atomic_store_n(&main_actor_order, address, __ATOMIC_RELAXED); }

static pthread_mutex_t main_executor = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local bool holding_main_executor;

static void hold_main_executor(bool hold) {
    if (hold == holding_main_executor || !workbook_linux_mechanisms_enabled()) return;
    if (hold) pthread_mutex_lock(&main_executor);
    else pthread_mutex_unlock(&main_executor);
    holding_main_executor = hold;
}

void workbook_explorer_main_queue_block_waits(bool waiting) {
    static _Thread_local bool released;
    if (waiting && holding_main_executor) { hold_main_executor(false); released = true; }
    else if (!waiting && released) { hold_main_executor(true); released = false; }
}

typedef void (*annotation)(const char *file, int line, const volatile void *address);
void _dispatch_main_queue_callback_4CF(void *message);
INTERCEPTORS(_dispatch_main_queue_callback_4CF)

void _dispatch_main_queue_callback_4CF(void *message) {
    static annotation after, before;
    static int looked_up;
    if (!__atomic_load_n(&looked_up, __ATOMIC_ACQUIRE)) {  // the main thread only: no race
        after = (annotation)dlsym(RTLD_DEFAULT, "AnnotateHappensAfter");
        before = (annotation)dlsym(RTLD_DEFAULT, "AnnotateHappensBefore");
        __atomic_store_n(&looked_up, 1, __ATOMIC_RELEASE);
    }
    const void *order = workbook_linux_mechanisms_enabled() ? __atomic_load_n(&main_actor_order, __ATOMIC_RELAXED) : NULL;
    hold_main_executor(true);
    if (order && after) after(NULL, 0, order);
    FORWARD(_dispatch_main_queue_callback_4CF);
    real(message);
    if (order && before) before(NULL, 0, order);
    hold_main_executor(false);
}

NOT_CHECKED_BY_TSAN int workbook_explorer_runtime_clock_readings(int runtime_clock, int64_t *nanoseconds, int capacity) {
    int clock = runtime_clock == 1 ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;  // as `swift_get_time` reads them
    unsigned next = __atomic_load_n(&readings_next, __ATOMIC_RELAXED);
    int found = 0;
    for (unsigned i = 1; i <= readings_kept && i <= next && found < capacity; i++) {  // newest first
        unsigned slot = (next - i) % readings_kept;
        if (__atomic_load_n(&readings[slot].clock, __ATOMIC_RELAXED) == clock) {
            nanoseconds[found++] = __atomic_load_n(&readings[slot].nanoseconds, __ATOMIC_RELAXED);
        }
    }
    return found;
}
#else
void workbook_explorer_drive_jobs(workbook_explorer_job_taker new_taker) { (void)new_taker; }
void workbook_explorer_set_main_actor_order(const void *address) { (void)address; }  // one executor there
void workbook_explorer_main_queue_block_waits(bool waiting) { (void)waiting; }
int workbook_explorer_runtime_clock_readings(int runtime_clock, int64_t *nanoseconds, int capacity) {
    (void)runtime_clock; (void)nanoseconds; (void)capacity;
    return 0;
}
#endif

// MARK: Unstructured tasks made by the code under exploration (Linux and Apple platforms)
//
// `Task {}`, `Task.detached` and `Task.immediate` are emitted into the calling module, which
// calls the runtime's `swift_task_create` itself. The runners link the learner's code into the
// same executable as this definition, so the static linker binds those calls here (on Apple
// platforms too: a symbol defined in the image being linked wins over a library's), and on
// Linux the executable's definition takes every other caller's too. On a thread that runs jobs
// of a run, a task made with no preference of its own gets the explorer's task executor as its
// initial preference (an `InitialTaskExecutorUnowned` option record, kind 5, known to every
// Swift 6 runtime): its first job and every hop it makes are enqueued there, and so are
// scheduling choices, instead of the first job alone (the global enqueue hook) and the rest
// run inside it (an idle actor's fast path). Everything else is passed on unchanged.
#if __has_attribute(swiftcall) && __has_attribute(swift_context)
#include <stdio.h>
#include <stdlib.h>

// The runtime's types, as include/swift/ABI/Task.h and TaskOptions.h lay them out.
typedef struct { void *task; void *context; } workbook_task_and_context;
typedef struct option_record { size_t flags; struct option_record *parent; } option_record;
typedef struct { option_record base; const void *identity; uintptr_t implementation; } executor_record;
enum {  // TaskOptionRecordKind (include/swift/ABI/MetadataValues.h): the low byte of `flags`
    kind_task_group = 1, kind_async_let = 2, kind_async_let_with_buffer = 3,
    kind_task_executor_unowned = 5, kind_task_executor_owned = 6, kind_run_inline = 255,
};
enum { flag_child_task = 1u << 8, flag_inline_task = 1u << 9 };  // TaskCreateFlags

typedef workbook_task_and_context (*task_create_function)(size_t, option_record *, const void *, void *, void *)
    __attribute__((swiftcall));

__attribute__((swiftcall, visibility("default")))
workbook_task_and_context swift_task_create(size_t flags, option_record *options, const void *result_type,
                                            void *closure_entry, void *closure_context);

static const void *steer_identity;
static uintptr_t steer_implementation;

void workbook_explorer_steer_tasks_to(const void *identity, uintptr_t implementation) {
    __atomic_store_n(&steer_implementation, implementation, __ATOMIC_RELAXED);
    __atomic_store_n(&steer_identity, identity, __ATOMIC_RELEASE);
}

/// The runtime's own `swift_task_create`, looked up in the library that defines the runtime's
/// other entry points: not with `RTLD_NEXT`, which searches only the images loaded after the
/// caller's — on Apple platforms a test bundle is loaded after the runtime, and would find nothing.
static task_create_function real_task_create(void) {
    static task_create_function cached;
    task_create_function real = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (!real) {
        Dl_info info = {0};
        void *known = dlsym(RTLD_DEFAULT, "swift_task_enqueueGlobal");
        void *library = known && dladdr(known, &info) && info.dli_fname ? dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD) : NULL;
        if (library) real = (task_create_function)dlsym(library, "swift_task_create");
        if (!real || real == swift_task_create) real = (task_create_function)dlsym(RTLD_NEXT, "swift_task_create");
        if (!real || real == swift_task_create) {
            fputs("workbook: the Swift runtime's swift_task_create was not found\n", stderr);
            abort();
        }
        __atomic_store_n(&cached, real, __ATOMIC_RELEASE);
    }
    return real;
}

/// A task of its own the caller makes (not a child, not inline), with no executor preference
/// and not one of a group's or an `async let`'s.
static int steerable(size_t flags, const option_record *options) {
    if (flags & (flag_child_task | flag_inline_task)) return 0;
    for (const option_record *record = options; record; record = record->parent) {
        switch ((unsigned char)record->flags) {
        case kind_task_group: case kind_async_let: case kind_async_let_with_buffer:
        case kind_task_executor_unowned: case kind_task_executor_owned: case kind_run_inline:
            return 0;
        default: break;
        }
    }
    return 1;
}

__attribute__((swiftcall, visibility("default")))
workbook_task_and_context swift_task_create(size_t flags, option_record *options, const void *result_type,
                                            void *closure_entry, void *closure_context) {
    task_create_function real = real_task_create();
    const void *identity = __atomic_load_n(&steer_identity, __ATOMIC_ACQUIRE);
    if (!identity || !current_run || !steerable(flags, options))
        return real(flags, options, result_type, closure_entry, closure_context);
    executor_record record = {
        { kind_task_executor_unowned, options }, identity, __atomic_load_n(&steer_implementation, __ATOMIC_RELAXED) };
    return real(flags, &record.base, result_type, closure_entry, closure_context);
}
#else
void workbook_explorer_steer_tasks_to(const void *identity, uintptr_t implementation) { (void)identity; (void)implementation; }
#endif
