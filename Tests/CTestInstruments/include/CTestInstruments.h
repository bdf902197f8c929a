#ifndef C_TEST_INSTRUMENTS_H
#define C_TEST_INSTRUMENTS_H
#include <stddef.h>

/// Bytes glibc's malloc has handed out and not had back, in every arena plus its own mappings (mallinfo2's
/// uordblks + hblkhd): what `RenderMemoryMeter` samples. Cost: a walk of each arena's free lists under its lock.
/// C because Swift's Glibc module does not bring in malloc.h, where mallinfo2 is declared.
size_t richpush_heap_bytes_in_use(void);

#endif
