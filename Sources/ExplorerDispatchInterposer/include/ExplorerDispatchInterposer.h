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
