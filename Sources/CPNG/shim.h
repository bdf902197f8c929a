#include <png.h>
// zlib comes with libpng-dev (which depends on zlib1g-dev): its crc32 checks PNG chunks without libpng.
#include <zlib.h>
