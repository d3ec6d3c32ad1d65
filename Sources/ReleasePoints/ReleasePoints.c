// Release points let a check stop one thread of the learner's code at an exact place: right
// after it has released a lock, signalled a semaphore, left a queue's `sync` or a group. Another
// thread then runs its whole step, and the first one goes on. A check-then-act split across two
// locked steps ("record the reply" … "if nothing is left, complete") shows itself every run,
// instead of once in a thousand.
//
// The state is per thread and costs one thread-local load per release when nothing is armed.
// The interposers (ReleasePointInterposers, linked into the runners on Linux only) call
// `workbook_release_point_reached` after each release; elsewhere nothing calls it, and
// `workbook_release_points_available` says so, so the check knows it cannot pause.
#include "ReleasePoints.h"
#include "Interposing.h"
#include <stddef.h>

// The functions below are NOT_CHECKED_BY_TSAN: a dispatch block may run in a TSan fiber of its
// own (ReleasePointInterposers) on a pool thread, and its reads of that thread's state here were
// reported racing with the thread's TLS set-up when CI's TSan lane instruments this file. The
// state is the thread's own.

static _Thread_local int left;
static _Thread_local workbook_release_handler armedHandler;
static _Thread_local void *armedContext;
static int available;

bool workbook_release_points_available(void) { return __atomic_load_n(&available, __ATOMIC_ACQUIRE) != 0; }
void workbook_release_points_mark_available(void) { __atomic_store_n(&available, 1, __ATOMIC_RELEASE); }

NOT_CHECKED_BY_TSAN void workbook_arm_release_point(int count, workbook_release_handler handler, void *context) {
    left = count > 0 && handler ? count : 0;
    armedHandler = left ? handler : NULL;
    armedContext = left ? context : NULL;
}

static _Thread_local const void *armedClass;
static _Thread_local workbook_release_handler allocationHandler;
static _Thread_local void *allocationContext;

NOT_CHECKED_BY_TSAN void workbook_arm_allocation_point(const void *metadata, workbook_release_handler handler, void *context) {
    armedClass = handler ? metadata : NULL;
    allocationHandler = armedClass ? handler : NULL;
    allocationContext = armedClass ? context : NULL;
}

NOT_CHECKED_BY_TSAN void workbook_allocation_point_reached(const void *metadata) {
    if (armedClass == NULL || metadata != armedClass) return;
    workbook_release_handler handler = allocationHandler;
    void *context = allocationContext;
    armedClass = NULL;
    allocationHandler = NULL;
    allocationContext = NULL;
    handler(context);
}

NOT_CHECKED_BY_TSAN void workbook_release_point_reached(void) {
    if (left == 0 || --left > 0) return;
    workbook_release_handler handler = armedHandler;
    void *context = armedContext;
    armedHandler = NULL;
    armedContext = NULL;
    if (handler) handler(context);
}
