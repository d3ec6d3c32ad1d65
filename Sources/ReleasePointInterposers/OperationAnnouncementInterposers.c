// Takes the learner's calls to Foundation's `Operation.willChangeValue(forKey:)`,
// `didChangeValue(forKey:)` and their key-path forms (Linux, swift-corelibs-foundation), forwards
// each to Foundation, then reports it (OperationAnnouncements.c).
//
// They are Swift methods, so these definitions use Swift's calling convention: the key string's
// two words (or the key path and the generic `Value` metadata) as arguments, `self` in the
// context register (`swiftcall`, `swift_context`). The learner's code calls them by their mangled
// names; a definition in the executable takes those calls, as with the C interposers. Foundation's
// own calls inside its library stay its own.
#include "ReleasePointInterposers.h"
#include "OperationAnnouncements.h"
#include "Interposing.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <stdint.h>
#include <string.h>

#define WILL_KEY "$s10Foundation9OperationC15willChangeValue6forKeyySS_tF"
#define DID_KEY "$s10Foundation9OperationC14didChangeValue6forKeyySS_tF"
#define WILL_KEY_PATH "$s10Foundation9OperationC15willChangeValue3forys7KeyPathCyACxG_tlF"
#define DID_KEY_PATH "$s10Foundation9OperationC14didChangeValue3forys7KeyPathCyACxG_tlF"

typedef __attribute__((swiftcall)) void (*KeyMethod)(uint64_t word0, uint64_t word1, __attribute__((swift_context)) void *self);
typedef __attribute__((swiftcall)) void (*KeyPathMethod)(const void *keyPath, const void *valueType,
                                                        __attribute__((swift_context)) void *self);

__attribute__((swiftcall)) void interposed_will_change_key(uint64_t, uint64_t, __attribute__((swift_context)) void *) __asm__(WILL_KEY);
__attribute__((swiftcall)) void interposed_did_change_key(uint64_t, uint64_t, __attribute__((swift_context)) void *) __asm__(DID_KEY);
__attribute__((swiftcall)) void interposed_will_change_key_path(const void *, const void *, __attribute__((swift_context)) void *) __asm__(WILL_KEY_PATH);
__attribute__((swiftcall)) void interposed_did_change_key_path(const void *, const void *, __attribute__((swift_context)) void *) __asm__(DID_KEY_PATH);

/// The function after the executable's, looked up once.
NOT_CHECKED_BY_TSAN static void *next(void **cache, const char *name) {
    void *found = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!found) {
        found = workbook_interposing_next(name);
        __atomic_store_n(cache, found, __ATOMIC_RELEASE);
    }
    return found;
}

/// A Swift string's bytes when it is in the small form, which every key of up to 15 UTF-8 bytes
/// takes on 64-bit platforms (a literal such as "isFinished" included): the bytes inline in the two
/// words, the count in the low nibble of the last byte, whose high nibble has the small-form bit
/// (0x20) set. Anything else gives "".
NOT_CHECKED_BY_TSAN static void smallString(uint64_t word0, uint64_t word1, char out[16]) {
    uint8_t flags = (uint8_t)(word1 >> 56);
    out[0] = 0;
    if (!(flags & 0x20)) return;
    size_t count = flags & 0x0F;
    uint8_t bytes[16];
    memcpy(bytes, &word0, 8);
    memcpy(bytes + 8, &word1, 8);
    memcpy(out, bytes, count);
    out[count] = 0;
}

/// Set while a key-path form runs, in case Foundation's own call of the string form reaches ours.
static _Thread_local int inKeyPathForm;

NOT_CHECKED_BY_TSAN static void keyForm(void **cache, const char *name, workbook_announcement_kind kind,
                                        uint64_t word0, uint64_t word1, void *self) {
    ((KeyMethod)next(cache, name))(word0, word1, self);
    if (inKeyPathForm || !workbook_operation_announcements_available()) return;  // off: as on a Mac
    char key[16];
    smallString(word0, word1, key);
    workbook_operation_announced(self, kind, key, NULL);
}

NOT_CHECKED_BY_TSAN static void keyPathForm(void **cache, const char *name, workbook_announcement_kind kind,
                                            const void *keyPath, const void *valueType, void *self) {
    inKeyPathForm++;
    ((KeyPathMethod)next(cache, name))(keyPath, valueType, self);
    inKeyPathForm--;
    if (!workbook_operation_announcements_available()) return;
    workbook_operation_announced(self, kind, "", keyPath);
}

static void *willKey, *didKey, *willKeyPath, *didKeyPath;

NOT_CHECKED_BY_TSAN __attribute__((swiftcall)) void interposed_will_change_key(uint64_t word0, uint64_t word1, __attribute__((swift_context)) void *self) {
    keyForm(&willKey, WILL_KEY, workbook_will_change_key, word0, word1, self);
}
NOT_CHECKED_BY_TSAN __attribute__((swiftcall)) void interposed_did_change_key(uint64_t word0, uint64_t word1, __attribute__((swift_context)) void *self) {
    keyForm(&didKey, DID_KEY, workbook_did_change_key, word0, word1, self);
}
NOT_CHECKED_BY_TSAN __attribute__((swiftcall)) void interposed_will_change_key_path(const void *keyPath, const void *valueType, __attribute__((swift_context)) void *self) {
    keyPathForm(&willKeyPath, WILL_KEY_PATH, workbook_will_change_key_path, keyPath, valueType, self);
}
NOT_CHECKED_BY_TSAN __attribute__((swiftcall)) void interposed_did_change_key_path(const void *keyPath, const void *valueType, __attribute__((swift_context)) void *self) {
    keyPathForm(&didKeyPath, DID_KEY_PATH, workbook_did_change_key_path, keyPath, valueType, self);
}
#endif
