// Debian's hiredis 0.14 (libhiredis-dev). pkg-config adds -I/usr/include/hiredis,
// but the qualified path also works without it.
#include <hiredis/hiredis.h>
