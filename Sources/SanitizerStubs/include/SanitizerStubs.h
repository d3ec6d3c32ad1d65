// The entry points ThreadSanitizer's instrumentation calls, as plain functions that do the
// work (atomics, memcpy) and record nothing. See SanitizerStubs.c.
#pragma once
void workbook_sanitizer_stubs_linked(void);
