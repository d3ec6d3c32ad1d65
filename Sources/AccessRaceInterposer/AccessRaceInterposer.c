// ThreadSanitizer sees a load or store the compiler instrumented. A stored property whose type
// is resilient — `CheckedContinuation`, the very thing chapter 05 stores — is copied and assigned
// through value-witness functions inside the Swift runtime, which is not instrumented: two
// threads writing and reading an unlocked `var continuation: CheckedContinuation<…>?` race
// unseen (measured: an `Int` property raced the same way is reported, the continuation is not).
//
// Every such access of a class property, a global or a captured `var` still passes through
// `swift_beginAccess` (dynamic exclusivity enforcement, on in debug builds). This definition in
// the executable takes those calls, forwards them to the runtime, and tells TSan of a read or a
// write at the property's address, at the caller's pc — only for calls from the learner's code
// and the workbook's answers (the functions of the Exercises, Solutions and CheckerVariants
// modules, found in the executable's symbol table), so the workbook's own synchronisation stays
// out of it. Without TSan's runtime, or off Linux, it only forwards.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE  // dl_iterate_phdr
#endif
#include "AccessRaceInterposer.h"
#include "Interposing.h"
#include <stdint.h>

#if defined(__linux__)
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

extern void __tsan_read1_pc(void *address, void *pc) __attribute__((weak));
extern void __tsan_write1_pc(void *address, void *pc) __attribute__((weak));

/// The code of one module: [start, end) in this process.
typedef struct { uintptr_t start, end; } CodeRange;

static const char *const learnerModules[] = { "$s9Exercises", "$s9Solutions", "$s15CheckerVariants" };
#define MODULE_COUNT (sizeof(learnerModules) / sizeof(learnerModules[0]))
/// Written once, by `workbook_access_race_interposer_start` on the main thread before any other
/// thread exists; read by every access after.
static CodeRange ranges[MODULE_COUNT];

static int firstObjectBase(struct dl_phdr_info *info, size_t size, void *base) {
    (void)size;
    *(uintptr_t *)base = (uintptr_t)info->dlpi_addr;
    return 1;  // the first object is the executable
}

/// Each module's functions lie together (the linker places a module's object files side by
/// side): its range runs from its first function to the end of its last.
NOT_CHECKED_BY_TSAN static void findRanges(void) {
    uintptr_t base = 0;
    dl_iterate_phdr(firstObjectBase, &base);
    int descriptor = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return;
    struct stat status;
    if (fstat(descriptor, &status) != 0) { close(descriptor); return; }
    const uint8_t *file = mmap(NULL, (size_t)status.st_size, PROT_READ, MAP_PRIVATE, descriptor, 0);
    close(descriptor);
    if (file == MAP_FAILED) return;
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)file;
    const Elf64_Shdr *sections = (const Elf64_Shdr *)(file + header->e_shoff);
    for (int index = 0; index < header->e_shnum; index++) {
        if (sections[index].sh_type != SHT_SYMTAB) continue;
        const Elf64_Sym *symbols = (const Elf64_Sym *)(file + sections[index].sh_offset);
        size_t count = sections[index].sh_size / sizeof(Elf64_Sym);
        const char *names = (const char *)(file + sections[sections[index].sh_link].sh_offset);
        for (size_t symbol = 0; symbol < count; symbol++) {
            if (ELF64_ST_TYPE(symbols[symbol].st_info) != STT_FUNC || symbols[symbol].st_value == 0) continue;
            const char *name = names + symbols[symbol].st_name;
            for (size_t module = 0; module < MODULE_COUNT; module++) {
                if (strncmp(name, learnerModules[module], strlen(learnerModules[module])) != 0) continue;
                uintptr_t start = base + symbols[symbol].st_value, end = start + symbols[symbol].st_size;
                if (ranges[module].start == 0 || start < ranges[module].start) ranges[module].start = start;
                if (end > ranges[module].end) ranges[module].end = end;
            }
        }
    }
    munmap((void *)file, (size_t)status.st_size);
}

NOT_CHECKED_BY_TSAN static int inLearnerCode(uintptr_t pc) {
    for (size_t module = 0; module < MODULE_COUNT; module++) {
        if (pc >= ranges[module].start && pc < ranges[module].end) return 1;
    }
    return 0;
}

void swift_beginAccess(void *pointer, void *buffer, uintptr_t flags, void *pc);
INTERCEPTORS(swift_beginAccess)

NOT_CHECKED_BY_TSAN void swift_beginAccess(void *pointer, void *buffer, uintptr_t flags, void *pc) {
    FORWARD(swift_beginAccess)
    real(pointer, buffer, flags, pc);
    if (!__tsan_write1_pc || !__tsan_read1_pc) return;
    void *caller = __builtin_return_address(0);
    if (!inLearnerCode((uintptr_t)caller)) return;
    if (flags & 1) __tsan_write1_pc(pointer, caller);  // ExclusivityFlags.modify
    else __tsan_read1_pc(pointer, caller);
}

void workbook_access_race_interposer_start(void) {
    if (workbook_linux_mechanisms_enabled()) findRanges();
}
#else
void workbook_access_race_interposer_start(void) {}
#endif
