// Where BoringSSL (swift-crypto's) takes its memory: the three hooks its crypto/mem.cc declares
// weak, OPENSSL_memory_alloc, _free and _get_size, defined here for the whole process.
//
// Why: every sign-on and unlock runs one scrypt (N = 2^14, r = 8), whose working buffer is a
// single 16 MiB allocation that BoringSSL zeroes, fills and reads back in random order. From
// malloc that is a fresh mapping of 4,096 small pages: 4,096 page faults, about 8 ms of the
// ~50 ms a sign-on costs, and a TLB miss on nearly every random read. Mapped here on 2 MiB
// boundaries with MADV_HUGEPAGE, it takes 8 faults where the kernel has transparent huge pages
// (Debian's default, "madvise", honours the hint; where they are off it is ignored). A block
// under 2 MiB is what BoringSSL's own allocator gives: malloc with the size in front.
//
// What BoringSSL asks of these hooks, and what they keep: no locks, no call back into BoringSSL
// (only malloc, free, mmap, munmap, madvise); memory zeroed before it goes back (BoringSSL does
// not cleanse when the hooks are set), so a freed hash buffer or key is not left in the heap
// nor in a core image. The huge mapping goes back to the kernel at once when freed, as the
// process's large blocks do (ward_set_mmap_threshold).
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// Each block starts with its size and how it was made; the caller's bytes follow, 16-aligned
// as malloc's are.
typedef struct {
    size_t size;
    size_t mapped;
} block_header;

_Static_assert(sizeof(block_header) == 16, "the header keeps malloc's alignment");

static const size_t huge_page = (size_t)2 << 20;

// `length` bytes (a multiple of the page size) starting on a huge-page boundary, or NULL: mapped
// with a huge page to spare, then the unaligned ends given back. Only the whole huge pages are
// advised: the last part stays in small pages, so the block costs no more memory than from
// malloc (scrypt's is 16 MiB and 2 KiB, which whole huge pages would make 18 MiB).
static void *map_aligned(size_t length) {
    uint8_t *raw = mmap(NULL, length + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    uint8_t *start = (uint8_t *)(((uintptr_t)raw + huge_page - 1) & ~(uintptr_t)(huge_page - 1));
    if (start > raw) munmap(raw, (size_t)(start - raw));
    size_t after = (size_t)(raw + huge_page - start);
    if (after > 0) munmap(start + length, after);
    madvise(start, length & ~(huge_page - 1), MADV_HUGEPAGE);  // a hint; refused where THP is off
    return start;
}

static size_t mapped_length(size_t size) {
    size_t page = (size_t)getpagesize();
    return (size + sizeof(block_header) + page - 1) & ~(page - 1);
}

void *OPENSSL_memory_alloc(size_t size) {
    if (size > SIZE_MAX - 2 * huge_page) return NULL;
    block_header *header;
    if (size >= huge_page) {
        header = map_aligned(mapped_length(size));
        if (header == NULL) return NULL;
        header->mapped = 1;
    } else {
        header = malloc(sizeof(block_header) + size);
        if (header == NULL) return NULL;
        header->mapped = 0;
    }
    header->size = size;
    return header + 1;
}

void OPENSSL_memory_free(void *pointer) {
    block_header *header = (block_header *)pointer - 1;
    size_t size = header->size;
    explicit_bzero(pointer, size);
    if (header->mapped) {
        munmap(header, mapped_length(size));
    } else {
        explicit_bzero(header, sizeof(block_header));
        free(header);
    }
}

size_t OPENSSL_memory_get_size(void *pointer) { return ((block_header *)pointer - 1)->size; }
