// free and realloc that zero each block before glibc gets it back.
//
// Why: glibc keeps freed chunks (tcache, fastbins, the top chunk) with their old contents, and
// M_PERTURB leaves the last bytes of small chunks untouched (docs/readline.md §4).
// Defined in the executable, these symbols interpose glibc's for every library in the process:
// libreadline, libhistory, the Swift runtime and Foundation all free through them.
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include "CScrub.h"

extern void __libc_free(void *);
extern void *__libc_malloc(size_t);

int ward_scrub_installed(void) { return 1; }

void free(void *p) {
    if (p) {
        explicit_bzero(p, malloc_usable_size(p));
        __libc_free(p);
    }
}

// glibc's realloc would release the old block without our free: copy and scrub instead.
//
// A block of 4 KiB or more grows by half again at least, as growable arrays do: readline grows
// its line buffer 256 bytes at a time, and copying (and scrubbing) the whole line on each step
// made a 1 MiB line cost quadratic time. The spare room is the block's own (see
// malloc_usable_size), so the next small steps return the same block.
void *realloc(void *p, size_t n) {
    if (!p) return __libc_malloc(n);
    if (!n) { free(p); return NULL; }
    size_t old = malloc_usable_size(p);
    if (n <= old) return p;
    size_t want = n;
    if (old >= 4096 && old <= SIZE_MAX / 2 && n < old + old / 2) want = old + old / 2;
    void *q = __libc_malloc(want);
    if (!q && want != n) q = __libc_malloc(n);
    if (q) { memcpy(q, p, old); free(p); }
    return q;
}

void *reallocarray(void *p, size_t count, size_t size) {
    size_t n;
    if (__builtin_mul_overflow(count, size, &n)) { errno = ENOMEM; return NULL; }
    return realloc(p, n);
}
