#include "CRichPushImage.h"
#include <stdlib.h>
#include "jpeg_errors.h"

struct richpush_jpeg_transcoder {
    struct jpeg_decompress_struct source;
    struct jpeg_compress_struct destination;
    struct richpush_error_manager error;
    jvirt_barray_ptr *coefficients;
    unsigned char *buffer;
    unsigned long length;
};

richpush_jpeg_transcoder *richpush_jpeg_transcoder_create(void) {
    richpush_jpeg_transcoder *transcoder = calloc(1, sizeof *transcoder);
    if (transcoder == NULL) return NULL;
    transcoder->source.err = richpush_jpeg_errors(&transcoder->error, richpush_jpeg_emit_message);
    transcoder->destination.err = &transcoder->error.base;
    if (setjmp(transcoder->error.jump)) {
        free(transcoder);
        return NULL;
    }
    // Both objects exist from here on, so destroy can always destroy both.
    jpeg_create_decompress(&transcoder->source);
    jpeg_create_compress(&transcoder->destination);
    return transcoder;
}

void richpush_jpeg_transcoder_destroy(richpush_jpeg_transcoder *transcoder) {
    if (transcoder == NULL) return;
    jpeg_destroy_compress(&transcoder->destination);
    jpeg_destroy_decompress(&transcoder->source);
    free(transcoder->buffer);
    free(transcoder);
}

const char *richpush_jpeg_transcoder_message(const richpush_jpeg_transcoder *transcoder) {
    return transcoder->error.message;
}

int richpush_jpeg_transcoder_read(richpush_jpeg_transcoder *transcoder, const uint8_t *data, size_t size,
                                  long max_memory) {
    if (setjmp(transcoder->error.jump)) return -1;
    transcoder->source.mem->max_memory_to_use = max_memory;
    transcoder->destination.mem->max_memory_to_use = max_memory;
    jpeg_mem_src(&transcoder->source, (const unsigned char *)data, (unsigned long)size);
    jpeg_read_header(&transcoder->source, TRUE);
    transcoder->coefficients = jpeg_read_coefficients(&transcoder->source);
    return transcoder->source.num_components;
}

int richpush_jpeg_transcoder_write(richpush_jpeg_transcoder *transcoder, const jpeg_scan_info *scans, int scan_count,
                                   const uint8_t *icc, unsigned int icc_length,
                                   const uint8_t **output, size_t *length) {
    // libjpeg's memory destination frees a buffer it outgrows but leaves *outbuffer pointing at it until the end,
    // so only a finished buffer is ours to free; after a failure it is dropped instead.
    free(transcoder->buffer);
    transcoder->buffer = NULL;
    transcoder->length = 0;
    if (setjmp(transcoder->error.jump)) {
        transcoder->buffer = NULL;
        return -1;
    }
    struct jpeg_compress_struct *cinfo = &transcoder->destination;
    jpeg_mem_dest(cinfo, &transcoder->buffer, &transcoder->length);
    jpeg_copy_critical_parameters(&transcoder->source, cinfo);
    cinfo->optimize_coding = TRUE;
    cinfo->scan_info = scan_count > 0 ? scans : NULL;
    cinfo->num_scans = scan_count;
    jpeg_write_coefficients(cinfo, transcoder->coefficients);
    if (icc != NULL && icc_length > 0) jpeg_write_icc_profile(cinfo, icc, icc_length);
    jpeg_finish_compress(cinfo);
    *output = transcoder->buffer;
    *length = (size_t)transcoder->length;
    return 0;
}
