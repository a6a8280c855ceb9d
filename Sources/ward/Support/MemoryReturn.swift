import CWardSystem

/// Large blocks go back to the kernel when they are freed, for the whole process.
///
/// glibc serves a block of 128 KiB or more with its own mapping and unmaps it when freed, but
/// after the first such free it raises that threshold to the freed block's size (up to 32 MiB),
/// so the next block of that size comes from the heap and stays there: freed chart memory, a
/// large result's rows, would stay in the heap rather than leave the process. Setting the
/// threshold pins it (no raising) at glibc's own default, and with it the heap's trim
/// threshold: what a lock frees in large blocks leaves the address space at once, so neither a
/// core image nor the resident set carries it. (scrypt's 16 MiB buffer, at every sign-on and
/// unlock, has a mapping of its own: `crypto_memory.c` in CWardSystem.) Done once, first thing,
/// with `hardenProcess()`.
func returnLargeBlocksToTheKernel() {
    _ = ward_set_mmap_threshold(128 * 1024)
}
