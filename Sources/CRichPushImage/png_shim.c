#include "CRichPushImage.h"
#include <stdlib.h>
#include <string.h>

struct richpush_png_decoder {
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size;
    size_t offset;
    richpush_stop_check stop;
    void *stop_context;
    int stopped;          // the stop check answered non-zero
    int image_complete;   // every row has been read; libpng asked for data past them
    char message[256];
};

static void richpush_png_error(png_structp png, png_const_charp text) {
    char *message = (char *)png_get_error_ptr(png);
    snprintf(message, 256, "%s", text);
    png_longjmp(png, 1);
}

static void richpush_png_warning(png_structp png, png_const_charp text) {
    (void)png; (void)text;
}

// True once libpng has handed out the last row: it then finishes the zlib stream (png_read_finish_IDAT, called
// from the last png_read_row) by inflating everything left in it, 1 KB at a time, and reads the CRC and the
// chunks after it. Nothing the image needs comes after this point.
static int richpush_png_rows_done(png_structp png, png_infop info) {
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) return png_get_current_pass_number(png) >= 7;
    return png_get_current_row_number(png) >= png_get_image_height(png, info);
}

static void richpush_png_read_data(png_structp png, png_bytep out, size_t length) {
    richpush_png_decoder *decoder = (richpush_png_decoder *)png_get_io_ptr(png);
    // Row and pass are 0 until the first row is read (and the height is 0 until IHDR is).
    int reading_rows = png_get_current_row_number(png) > 0 || png_get_current_pass_number(png) > 0;
    if (reading_rows && richpush_png_rows_done(png, decoder->info)) {
        decoder->image_complete = 1;
        png_error(png, "image complete");
    }
    if (decoder->stop != NULL && decoder->stop(decoder->stop_context)) {
        decoder->stopped = 1;
        png_error(png, "stopped");
    }
    if (length > decoder->size - decoder->offset) png_error(png, "truncated PNG data");
    memcpy(out, decoder->data + decoder->offset, length);
    decoder->offset += length;
}

richpush_png_decoder *richpush_png_decoder_create(const uint8_t *data, size_t size, int max_width, int max_height,
                                                  int chunk_cache_max, size_t chunk_malloc_max,
                                                  richpush_stop_check stop, void *stop_context) {
    richpush_png_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->stop = stop;
    decoder->stop_context = stop_context;
    decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, decoder->message, richpush_png_error, richpush_png_warning);
    if (decoder->png == NULL) { free(decoder); return NULL; }
    decoder->info = png_create_info_struct(decoder->png);
    if (decoder->info == NULL || setjmp(png_jmpbuf(decoder->png))) {
        png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
        free(decoder);
        return NULL;
    }
    png_set_read_fn(decoder->png, decoder, richpush_png_read_data);
    png_set_user_limits(decoder->png, (png_uint_32)max_width, (png_uint_32)max_height);
    png_set_chunk_cache_max(decoder->png, (png_uint_32)chunk_cache_max);
    png_set_chunk_malloc_max(decoder->png, chunk_malloc_max);
    // A bad CRC anywhere means the file is damaged: fail rather than guess.
    png_set_crc_action(decoder->png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
    return decoder;
}

void richpush_png_decoder_destroy(richpush_png_decoder *decoder) {
    if (decoder == NULL) return;
    png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
    free(decoder);
}

const char *richpush_png_decoder_message(const richpush_png_decoder *decoder) {
    return decoder->message;
}

int richpush_png_read_info(richpush_png_decoder *decoder, richpush_png_header *header, int truncate_16) {
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    if (setjmp(png_jmpbuf(png))) return decoder->stopped ? -2 : -1;
    png_read_info(png, info);
    header->width = (int)png_get_image_width(png, info);
    header->height = (int)png_get_image_height(png, info);
    header->bit_depth = png_get_bit_depth(png, info);
    header->color_type = png_get_color_type(png, info);
    header->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    header->has_icc = png_get_valid(png, info, PNG_INFO_iCCP) != 0;

    png_set_expand(png);          // palette -> RGB, low-bit grey -> 8 bit, tRNS -> alpha
    if (truncate_16) png_set_strip_16(png); else png_set_scale_16(png);   // 16 -> 8 bit
    png_set_gray_to_rgb(png);
    header->passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    header->channels = png_get_channels(png, info);
    header->row_bytes = png_get_rowbytes(png, info);
    return 0;
}

int richpush_png_read_icc(richpush_png_decoder *decoder, uint8_t **profile, unsigned int *length) {
    *profile = NULL;
    *length = 0;
    if (setjmp(png_jmpbuf(decoder->png))) return -1;
    png_charp name = NULL;
    int compression = 0;
    png_bytep data = NULL;
    png_uint_32 data_length = 0;
    if (png_get_iCCP(decoder->png, decoder->info, &name, &compression, &data, &data_length) && data_length > 0) {
        uint8_t *copy = malloc(data_length);
        if (copy == NULL) return -1;
        memcpy(copy, data, data_length);
        *profile = copy;
        *length = data_length;
    }
    return 0;
}

int richpush_png_read_rows(richpush_png_decoder *decoder, uint8_t **rows, int count) {
    // The last row is already in `rows` when libpng asks for more data (see richpush_png_rows_done); after that
    // longjmp the decoder can only be destroyed, which is all that is left to do with it.
    if (setjmp(png_jmpbuf(decoder->png))) return decoder->image_complete ? count : decoder->stopped ? -2 : -1;
    png_read_rows(decoder->png, rows, NULL, (png_uint_32)count);
    return count;
}
