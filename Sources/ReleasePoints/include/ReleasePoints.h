// Release points: a thread can ask to be paused right after its k-th release of a lock (or
// semaphore signal, queue `sync`, group `leave`). See ReleasePoints.c.
#pragma once
#include <stdbool.h>

typedef void (*workbook_release_handler)(void *context);

/// True once the interposers are linked into this process (the runners on Linux).
bool workbook_release_points_available(void);
/// Pauses the calling thread after its `count`-th release from now: calls `handler(context)`
/// there, once, with the thread disarmed. `count` 0 disarms.
void workbook_arm_release_point(int count, workbook_release_handler handler, void *context);

/// Allocation points: calls `handler(context)` once, on the calling thread, the next time it
/// allocates an object whose class is `metadata` — before the allocation. With a checked
/// continuation's canary class, that is where the thread creates a continuation. NULL disarms.
void workbook_arm_allocation_point(const void *metadata, workbook_release_handler handler, void *context);

// For the interposers.
void workbook_release_point_reached(void);
void workbook_allocation_point_reached(const void *metadata);
void workbook_release_points_mark_available(void);

// The same module also carries the operation announcements.
#include "OperationAnnouncements.h"
