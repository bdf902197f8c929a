#include "CRichPushImage.h"

int richpush_jpeg_library_version(void) {
    return JPEG_LIB_VERSION;
}
