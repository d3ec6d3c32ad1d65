// Operation announcements. On Apple platforms a check sees an operation's willChangeValue and
// didChangeValue through key-value observing. Linux has none: there `Operation.willChangeValue(
// forKey:)` does nothing and `didChangeValue(forKey:)` updates Foundation's own record. The
// interposers (ReleasePointInterposers/OperationAnnouncementInterposers.c) take the learner's calls
// to both, forward them, and report each here; a check's handler records it and may probe what the
// learner's code holds at that moment, as a key-value observer would on a Mac.
#include "OperationAnnouncements.h"
#include "Interposing.h"
#include <stddef.h>

static workbook_announcement_handler handler;
static int available;

bool workbook_operation_announcements_available(void) { return __atomic_load_n(&available, __ATOMIC_ACQUIRE) != 0; }
void workbook_operation_announcements_mark_available(void) { __atomic_store_n(&available, 1, __ATOMIC_RELEASE); }

void workbook_set_announcement_handler(workbook_announcement_handler newHandler) {
    __atomic_store_n(&handler, newHandler, __ATOMIC_RELEASE);
}

void workbook_operation_announced(const void *operation, workbook_announcement_kind kind, const char *key,
                                  const void *keyPath) {
    workbook_announcement_handler current = __atomic_load_n(&handler, __ATOMIC_ACQUIRE);
    if (current) current(operation, kind, key, keyPath);
}
