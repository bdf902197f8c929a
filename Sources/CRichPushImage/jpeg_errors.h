#ifndef RICHPUSH_JPEG_ERRORS_H
#define RICHPUSH_JPEG_ERRORS_H

#include "CRichPushImage.h"

// The error manager every libjpeg object of the shims uses: a fatal error formats its message and longjmps to the
// setjmp of the shim function that called into libjpeg.
struct richpush_error_manager {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX + 32];
};

// Drops every message: for objects whose warnings are only traces (the encoders, and the transcoder, which reads
// back files the encoder has just written).
void richpush_jpeg_emit_message(j_common_ptr cinfo, int level);
// Sets `manager` up with libjpeg's defaults, our error exit and `emit_message`; returns it for a `cinfo->err`.
struct jpeg_error_mgr *richpush_jpeg_errors(struct richpush_error_manager *manager,
                                            void (*emit_message)(j_common_ptr, int));

#endif
