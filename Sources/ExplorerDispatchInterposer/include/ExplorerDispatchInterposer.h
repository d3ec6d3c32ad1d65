// Jobs the Swift runtime hands straight to libdispatch from the explorer's driver thread, taken
// for the run instead (Linux). See the .c file.
#pragma once
#include <stdbool.h>
#include <stdint.h>

/// Takes a runtime job (an `ExecutorJob`'s pointer) for the run the calling thread drives, to
/// run now (`delay_nanoseconds` -1) or after a delay measured on a real clock; returns false to
/// let libdispatch have it.
typedef bool (*workbook_explorer_job_taker)(void *job, int64_t delay_nanoseconds);

/// Makes the calling thread a driver (`taker` non-null) or not. Thread-local.
void workbook_explorer_drive_jobs(workbook_explorer_job_taker taker);

/// The latest readings of the runtime's clock `runtime_clock` (1 continuous, 2 suspending; the
/// `swift_get_time` behind `ContinuousClock.now` and `SuspendingClock.now`) made on threads of a
/// run, newest first, in nanoseconds since the clock's origin: up to `capacity` into
/// `nanoseconds`; returns how many (0 if none, or not Linux).
int workbook_explorer_runtime_clock_readings(int runtime_clock, int64_t *nanoseconds, int capacity);

/// The run the calling thread runs jobs of (an unretained `ScheduleRun`), or null. A C
/// thread-local: reading it takes no lock and runs no one-time initializer, either of which
/// ThreadSanitizer would take as ordering between the threads that read it.
void workbook_explorer_set_current_run(const void *run);
const void *workbook_explorer_current_run(void);
/// Whether the calling lane thread is running a job isolated to the main actor (set by the lane).
void workbook_explorer_set_main_actor_job(bool running);
bool workbook_explorer_running_main_actor_job(void);
/// The address main-actor jobs are ordered on for ThreadSanitizer; main-queue drains are ordered
/// on it too (Linux).
void workbook_explorer_set_main_actor_order(const void *address);
/// Around a main-queue block that waits for the run (`mainQueueDrained`): the drain lets main-actor
/// jobs run meanwhile (Linux; a no-op elsewhere).
void workbook_explorer_main_queue_block_waits(bool waiting);

/// While the calling thread runs a job on one of the explorer's lanes (`on`), the Swift
/// runtime's releases (`_swift_tsan_release`) on static storage are not passed to
/// ThreadSanitizer. Every `swift_once` — a lazy global, the runtime's conformance cache, its
/// default executor — acquires and releases its predicate, so each one ordered every thread
/// that touched the same global after every thread before it: two tasks that both sleep or
/// cast were ordered for TSan though nothing of theirs was. Releases on the heap (a task, a
/// job, a continuation) pass, and so do all acquires (a global made by the driver is seen
/// made). Installed on first use; does nothing where the runtime does not export the pointer.
void workbook_explorer_filter_runtime_releases(bool on);

/// Names the calling thread (at most 15 bytes are kept), so ThreadSanitizer's reports name it.
void workbook_explorer_name_thread(const char *name);

/// Unstructured tasks (`Task {}`, `Task.detached`, `Task.immediate`) that code running on a
/// thread of a run makes with no executor preference of their own get this task executor (an
/// `UnownedTaskExecutor`'s two words) as their preference: their jobs and hops are the run's
/// choices. Null: none. Where the compiler has no Swift calling convention, nothing happens.
void workbook_explorer_steer_tasks_to(const void *identity, uintptr_t implementation);
