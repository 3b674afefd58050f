// Counts heap allocations per thread, for OSCSenderTests' zero-allocation check: preloaded
// (LD_PRELOAD=malloc_count.so) by Tests/Outputs/osc-tests.sh, it wraps glibc's allocator
// entry points and exports eyedropper_thread_allocations(), which the test finds with dlsym.
// Per thread, so swift-testing's other threads (and other tests running meanwhile) do not
// count. Build: cc -O2 -shared -fPIC -o malloc_count.so malloc_count.c
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static __thread uint64_t allocations __attribute__((tls_model("initial-exec")));

uint64_t eyedropper_thread_allocations(void) { return allocations; }

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    allocations++;
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *result = pointer;
    return 0;
}
