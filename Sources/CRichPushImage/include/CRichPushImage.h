#ifndef CRICHPUSH_IMAGE_H
#define CRICHPUSH_IMAGE_H

// jpeglib.h needs stdio.h and stddef.h first.
#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <png.h>
#include <jpeglib.h>

// libpng and libjpeg report fatal errors by longjmp, which Swift cannot catch.
// The shims in this target own every setjmp and turn errors into return codes.

/// The libjpeg-turbo version this target was compiled against.
int richpush_jpeg_library_version(void);

#endif
