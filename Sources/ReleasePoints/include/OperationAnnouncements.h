// Operation announcements: what an operation tells Foundation with willChangeValue/didChangeValue,
// seen as it is sent (Linux runners). See OperationAnnouncements.c.
#pragma once
#include <stdbool.h>
#include <stdint.h>

/// Which announcement: `willChangeValue` or `didChangeValue`, by key string or by key path.
typedef enum {
    workbook_will_change_key = 0,
    workbook_did_change_key = 1,
    workbook_will_change_key_path = 2,
    workbook_did_change_key_path = 3,
} workbook_announcement_kind;

/// Called on the announcing thread, after Foundation has handled the announcement. `key` is the
/// key string's UTF-8 bytes (NUL-terminated, at most 15; empty when the string is not in Swift's
/// small form) for the key kinds; `keyPath` is the borrowed `KeyPath` object for the key-path
/// kinds.
typedef void (*workbook_announcement_handler)(const void *operation, workbook_announcement_kind kind,
                                              const char *key, const void *keyPath);

/// True once the interposers are linked into this process and switched on (the runners on Linux).
bool workbook_operation_announcements_available(void);
/// Sets the one handler (NULL: none).
void workbook_set_announcement_handler(workbook_announcement_handler handler);

// For the interposers.
void workbook_operation_announced(const void *operation, workbook_announcement_kind kind, const char *key,
                                  const void *keyPath);
void workbook_operation_announcements_mark_available(void);
