// Lets code compiled with `-sanitize=thread` run without ThreadSanitizer's runtime.
//
// The learner's exercises are compiled once, instrumented. `exercise-runner` links them with
// TSan, which reports data races — and also wraps every block passed to `dispatch_async`,
// dropping a barrier carried by the block itself (a `DispatchWorkItem(flags: .barrier)`, or
// `async(qos:flags:)`), so under TSan such a correct barrier write overlaps reads.
// `exercise-runner-plain` links the same objects with these stubs instead: instrumentation
// calls do only what the instrumented instruction would have done, and libdispatch is not
// intercepted. A failure seen under TSan that is not a race is confirmed there.
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include "SanitizerStubs.h"

void workbook_sanitizer_stubs_linked(void) {}

#define SEQ __ATOMIC_SEQ_CST
// Weak: where the whole build is compiled with `--sanitize=thread` (CI's TSan lane), TSan's own
// runtime is linked too, and its definitions win.
#define WEAK __attribute__((weak))

WEAK void __tsan_init(void) {}
WEAK void __tsan_func_entry(void *pc) { (void)pc; }
WEAK void __tsan_func_exit(void) {}
WEAK void __tsan_ignore_thread_begin(void) {}
WEAK void __tsan_ignore_thread_end(void) {}
WEAK void __tsan_flush_memory(void) {}
WEAK void __tsan_check_no_mutexes_held(void) {}

#define ACCESS(name) \
    WEAK void __tsan_##name(void *addr) { (void)addr; } \
    WEAK void __tsan_##name##_pc(void *addr, void *pc) { (void)addr; (void)pc; }
ACCESS(read1) ACCESS(read2) ACCESS(read4) ACCESS(read8) ACCESS(read16)
ACCESS(write1) ACCESS(write2) ACCESS(write4) ACCESS(write8) ACCESS(write16)
#define PLAIN(name) WEAK void __tsan_##name(void *addr) { (void)addr; }
PLAIN(unaligned_read2) PLAIN(unaligned_read4) PLAIN(unaligned_read8) PLAIN(unaligned_read16)
PLAIN(unaligned_write2) PLAIN(unaligned_write4) PLAIN(unaligned_write8) PLAIN(unaligned_write16)
PLAIN(volatile_read1) PLAIN(volatile_read2) PLAIN(volatile_read4) PLAIN(volatile_read8) PLAIN(volatile_read16)
PLAIN(volatile_write1) PLAIN(volatile_write2) PLAIN(volatile_write4) PLAIN(volatile_write8) PLAIN(volatile_write16)
WEAK void __tsan_read_range(void *addr, unsigned long size) { (void)addr; (void)size; }
WEAK void __tsan_write_range(void *addr, unsigned long size) { (void)addr; (void)size; }
WEAK void __tsan_read_range_pc(void *addr, unsigned long size, void *pc) { (void)addr; (void)size; (void)pc; }
WEAK void __tsan_write_range_pc(void *addr, unsigned long size, void *pc) { (void)addr; (void)size; (void)pc; }
WEAK void __tsan_vptr_read(void **vptr) { (void)vptr; }
WEAK void __tsan_vptr_update(void **vptr, void *value) { (void)vptr; (void)value; }
WEAK void __tsan_external_read(void *addr, void *pc, void *tag) { (void)addr; (void)pc; (void)tag; }
WEAK void __tsan_external_write(void *addr, void *pc, void *tag) { (void)addr; (void)pc; (void)tag; }
WEAK void *__tsan_external_register_tag(const char *type) { (void)type; return NULL; }
WEAK void __tsan_external_register_header(void *tag, const char *header) { (void)tag; (void)header; }
WEAK void __tsan_external_assign_tag(void *addr, void *tag) { (void)addr; (void)tag; }
WEAK void __tsan_acquire(void *addr) { (void)addr; }
WEAK void __tsan_release(void *addr) { (void)addr; }

WEAK void *__tsan_memcpy(void *dst, const void *src, unsigned long size) { return memcpy(dst, src, size); }
WEAK void *__tsan_memmove(void *dst, const void *src, unsigned long size) { return memmove(dst, src, size); }
WEAK void *__tsan_memset(void *dst, int c, unsigned long size) { return memset(dst, c, size); }

WEAK void __tsan_mutex_create(void *addr, unsigned flags) { (void)addr; (void)flags; }
WEAK void __tsan_mutex_destroy(void *addr, unsigned flags) { (void)addr; (void)flags; }
WEAK void __tsan_mutex_pre_lock(void *addr, unsigned flags) { (void)addr; (void)flags; }
WEAK void __tsan_mutex_post_lock(void *addr, unsigned flags, int recursion) { (void)addr; (void)flags; (void)recursion; }
WEAK int __tsan_mutex_pre_unlock(void *addr, unsigned flags) { (void)addr; (void)flags; return 0; }
WEAK void __tsan_mutex_post_unlock(void *addr, unsigned flags) { (void)addr; (void)flags; }
WEAK void __tsan_mutex_pre_signal(void *addr, unsigned flags) { (void)addr; (void)flags; }
WEAK void __tsan_mutex_post_signal(void *addr, unsigned flags) { (void)addr; (void)flags; }
WEAK void __tsan_mutex_pre_divert(void *addr, unsigned flags) { (void)addr; (void)flags; }
WEAK void __tsan_mutex_post_divert(void *addr, unsigned flags) { (void)addr; (void)flags; }

WEAK void *__tsan_get_current_fiber(void) { return NULL; }
WEAK void *__tsan_create_fiber(unsigned flags) { (void)flags; return NULL; }
WEAK void __tsan_destroy_fiber(void *fiber) { (void)fiber; }
WEAK void __tsan_switch_to_fiber(void *fiber, unsigned flags) { (void)fiber; (void)flags; }
WEAK void __tsan_set_fiber_name(void *fiber, const char *name) { (void)fiber; (void)name; }

WEAK void __tsan_atomic_thread_fence(int order) { (void)order; __atomic_thread_fence(SEQ); }
WEAK void __tsan_atomic_signal_fence(int order) { (void)order; __atomic_signal_fence(SEQ); }

// Every operation is done sequentially consistent: at least as strong as any order asked for.
#define ATOMICS(bits, T) \
    WEAK T __tsan_atomic##bits##_load(const volatile T *a, int mo) { (void)mo; return __atomic_load_n(a, SEQ); } \
    WEAK void __tsan_atomic##bits##_store(volatile T *a, T v, int mo) { (void)mo; __atomic_store_n(a, v, SEQ); } \
    WEAK T __tsan_atomic##bits##_exchange(volatile T *a, T v, int mo) { (void)mo; return __atomic_exchange_n(a, v, SEQ); } \
    WEAK T __tsan_atomic##bits##_fetch_add(volatile T *a, T v, int mo) { (void)mo; return __atomic_fetch_add(a, v, SEQ); } \
    WEAK T __tsan_atomic##bits##_fetch_sub(volatile T *a, T v, int mo) { (void)mo; return __atomic_fetch_sub(a, v, SEQ); } \
    WEAK T __tsan_atomic##bits##_fetch_and(volatile T *a, T v, int mo) { (void)mo; return __atomic_fetch_and(a, v, SEQ); } \
    WEAK T __tsan_atomic##bits##_fetch_or(volatile T *a, T v, int mo) { (void)mo; return __atomic_fetch_or(a, v, SEQ); } \
    WEAK T __tsan_atomic##bits##_fetch_xor(volatile T *a, T v, int mo) { (void)mo; return __atomic_fetch_xor(a, v, SEQ); } \
    WEAK T __tsan_atomic##bits##_fetch_nand(volatile T *a, T v, int mo) { (void)mo; return __atomic_fetch_nand(a, v, SEQ); } \
    WEAK int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo) { \
        (void)mo; (void)fmo; return __atomic_compare_exchange_n(a, c, v, 0, SEQ, SEQ); } \
    WEAK int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo) { \
        (void)mo; (void)fmo; return __atomic_compare_exchange_n(a, c, v, 1, SEQ, SEQ); } \
    WEAK T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo) { \
        (void)mo; (void)fmo; __atomic_compare_exchange_n(a, &c, v, 0, SEQ, SEQ); return c; }
ATOMICS(8, char)
ATOMICS(16, short)
ATOMICS(32, int)
ATOMICS(64, long long)

// 128-bit operations under one lock: only instrumented code reaches them, and all of it comes
// here, so they stay atomic with respect to each other without needing cmpxchg16b.
typedef __int128 atomic128;
static pthread_mutex_t lock128 = PTHREAD_MUTEX_INITIALIZER;
#define LOCKED(body) do { pthread_mutex_lock(&lock128); body; pthread_mutex_unlock(&lock128); } while (0)
WEAK atomic128 __tsan_atomic128_load(const volatile atomic128 *a, int mo) { (void)mo; atomic128 r; LOCKED(r = *a); return r; }
WEAK void __tsan_atomic128_store(volatile atomic128 *a, atomic128 v, int mo) { (void)mo; LOCKED(*a = v); }
#define RMW128(name, expr) \
    WEAK atomic128 __tsan_atomic128_##name(volatile atomic128 *a, atomic128 v, int mo) { \
        (void)mo; atomic128 old; LOCKED(old = *a; *a = (expr)); return old; }
RMW128(exchange, v)
RMW128(fetch_add, old + v)
RMW128(fetch_sub, old - v)
RMW128(fetch_and, old & v)
RMW128(fetch_or, old | v)
RMW128(fetch_xor, old ^ v)
RMW128(fetch_nand, ~(old & v))
static int cas128(volatile atomic128 *a, atomic128 *c, atomic128 v) {
    int ok;
    LOCKED(ok = (*a == *c); if (ok) *a = v; else *c = *a);
    return ok;
}
WEAK int __tsan_atomic128_compare_exchange_strong(volatile atomic128 *a, atomic128 *c, atomic128 v, int mo, int fmo) { (void)mo; (void)fmo; return cas128(a, c, v); }
WEAK int __tsan_atomic128_compare_exchange_weak(volatile atomic128 *a, atomic128 *c, atomic128 v, int mo, int fmo) { (void)mo; (void)fmo; return cas128(a, c, v); }
WEAK atomic128 __tsan_atomic128_compare_exchange_val(volatile atomic128 *a, atomic128 c, atomic128 v, int mo, int fmo) { (void)mo; (void)fmo; cas128(a, &c, v); return c; }
