#include "CTestInstruments.h"
#include <malloc.h>

// Swift's Glibc module does not bring in malloc.h, where mallinfo2 is declared.
size_t richpush_heap_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
