#include "CRichPushImage.h"
#include <stdlib.h>
#include <string.h>
#include <jerror.h>   // the JWRN_ message codes
#include "jpeg_errors.h"

static void richpush_jpeg_error_exit(j_common_ptr cinfo) {
    struct richpush_error_manager *manager = (struct richpush_error_manager *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, manager->message);
    longjmp(manager->jump, 1);
}

void richpush_jpeg_emit_message(j_common_ptr cinfo, int level) {
    (void)cinfo; (void)level;
}

struct jpeg_error_mgr *richpush_jpeg_errors(struct richpush_error_manager *manager,
                                            void (*emit_message)(j_common_ptr, int)) {
    jpeg_std_error(&manager->base);
    manager->base.error_exit = richpush_jpeg_error_exit;
    manager->base.emit_message = emit_message;
    return &manager->base;
}

// Every libjpeg warning while decoding means damaged data (bytes where none belong, a bad Huffman code, a scan
// cut short, a missing restart marker, a bad ICC marker...): libjpeg carries on and invents pixels (grey fill, or
// garbage after a bit flip), which a phone would show as they are. The one exception is the end of the file: a file
// missing only its EOI loses no pixel, so that warning is judged at the end (richpush_jpeg_finish), by whether
// every scan was complete.
static int richpush_jpeg_warning_is_harmless(int code) {
    return code == JWRN_JFIF_MAJOR;   // an unknown JFIF revision number: a version note, not damage
}

struct richpush_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct richpush_error_manager error;
    int warnings;                               // warnings kept (the pixels are whole)
    char first_warning[JMSG_LENGTH_MAX];
    int reached_end;                            // libjpeg ran out of bytes (JWRN_JPEG_EOF) and faked an EOI
    char end_message[JMSG_LENGTH_MAX];
    unsigned int scanned_components;            // bit i: component i appeared in a scan
    struct jpeg_progress_mgr progress;
    int max_scans;
    richpush_stop_check stop;
    void *stop_context;
    int stopped;
    int started;
};

// Notes which components the current scan covers (a sequential file has each in exactly one scan).
static void richpush_jpeg_note_scan(richpush_jpeg_decoder *decoder) {
    for (int index = 0; index < decoder->cinfo.comps_in_scan; index++) {
        const jpeg_component_info *component = decoder->cinfo.cur_comp_info[index];
        if (component != NULL && component->component_index < 32)
            decoder->scanned_components |= 1u << component->component_index;
    }
}

// Called by libjpeg during long operations (progressive input absorbs all scans
// inside jpeg_start_decompress; output passes call it per scanline): caps scan floods and asks the stop check.
static void richpush_jpeg_progress(j_common_ptr cinfo) {
    richpush_jpeg_decoder *decoder = (richpush_jpeg_decoder *)((char *)cinfo - offsetof(richpush_jpeg_decoder, cinfo));
    richpush_jpeg_note_scan(decoder);
    if (decoder->cinfo.input_scan_number > decoder->max_scans) {
        snprintf(decoder->error.message, sizeof decoder->error.message,
                 "more than %d progressive scans", decoder->max_scans);
        longjmp(decoder->error.jump, 1);
    }
    if (decoder->stop != NULL && decoder->stop(decoder->stop_context)) {
        decoder->stopped = 1;
        snprintf(decoder->error.message, sizeof decoder->error.message, "stopped");
        longjmp(decoder->error.jump, 1);
    }
}

// Decoding: a warning is an error (see richpush_jpeg_warning_is_harmless), reported as the end of the file when
// the bytes ran out first (the damage then follows from the truncation); the end of the file itself is only noted.
static void richpush_jpeg_decoder_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;   // traces
    richpush_jpeg_decoder *decoder = (richpush_jpeg_decoder *)((char *)cinfo - offsetof(richpush_jpeg_decoder, cinfo));
    int code = cinfo->err->msg_code;
    if (code == JWRN_JPEG_EOF) {
        if (!decoder->reached_end) (*cinfo->err->format_message)(cinfo, decoder->end_message);
        decoder->reached_end = 1;
        return;
    }
    if (richpush_jpeg_warning_is_harmless(code)) {
        if (decoder->warnings++ == 0) (*cinfo->err->format_message)(cinfo, decoder->first_warning);
        return;
    }
    if (decoder->reached_end) snprintf(decoder->error.message, sizeof decoder->error.message, "%s", decoder->end_message);
    else (*cinfo->err->format_message)(cinfo, decoder->error.message);
    longjmp(decoder->error.jump, 1);
}

// Whether every coefficient of every component reached its final precision: a progressive file's scans all came.
// Sequential files: whether every component appeared in a scan.
static int richpush_jpeg_scans_complete(richpush_jpeg_decoder *decoder) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (cinfo->progressive_mode) {
        if (cinfo->coef_bits == NULL) return 0;
        for (int component = 0; component < cinfo->num_components; component++)
            for (int coefficient = 0; coefficient < DCTSIZE2; coefficient++)
                if (cinfo->coef_bits[component][coefficient] != 0) return 0;
        return 1;
    }
    unsigned int all = cinfo->num_components >= 32 ? ~0u : (1u << cinfo->num_components) - 1;
    return (decoder->scanned_components & all) == all;
}

richpush_jpeg_decoder *richpush_jpeg_decoder_create(const uint8_t *data, size_t size, long max_memory, int max_scans) {
    richpush_jpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->cinfo.err = richpush_jpeg_errors(&decoder->error, richpush_jpeg_decoder_emit_message);
    decoder->max_scans = max_scans;
    if (setjmp(decoder->error.jump)) {
        jpeg_destroy_decompress(&decoder->cinfo);
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->cinfo.mem->max_memory_to_use = max_memory;
    decoder->progress.progress_monitor = richpush_jpeg_progress;
    decoder->cinfo.progress = &decoder->progress;
    jpeg_mem_src(&decoder->cinfo, (const unsigned char *)data, (unsigned long)size);
    return decoder;
}

void richpush_jpeg_decoder_destroy(richpush_jpeg_decoder *decoder) {
    if (decoder == NULL) return;
    jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}

const char *richpush_jpeg_decoder_message(const richpush_jpeg_decoder *decoder) {
    return decoder->error.message;
}

int richpush_jpeg_decoder_warnings(const richpush_jpeg_decoder *decoder, const char **first) {
    *first = decoder->first_warning;
    return decoder->warnings;
}

int richpush_jpeg_read_header(richpush_jpeg_decoder *decoder, richpush_jpeg_header *header) {
    if (setjmp(decoder->error.jump)) return -1;
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 2, 0xFFFF);
    if (jpeg_read_header(&decoder->cinfo, TRUE) != JPEG_HEADER_OK) {
        snprintf(decoder->error.message, sizeof decoder->error.message, "no image in the JPEG stream");
        return -1;
    }
    header->width = (int)decoder->cinfo.image_width;
    header->height = (int)decoder->cinfo.image_height;
    header->components = decoder->cinfo.num_components;
    header->color_space = (int)decoder->cinfo.jpeg_color_space;
    header->data_precision = decoder->cinfo.data_precision;
    header->progressive = decoder->cinfo.progressive_mode;
    header->arithmetic = decoder->cinfo.arith_code;
    header->saw_adobe_marker = decoder->cinfo.saw_Adobe_marker;
    header->adobe_transform = decoder->cinfo.Adobe_transform;
    header->max_h_samp_factor = decoder->cinfo.max_h_samp_factor;
    header->max_v_samp_factor = decoder->cinfo.max_v_samp_factor;
    return 0;
}

int richpush_jpeg_read_icc(richpush_jpeg_decoder *decoder, uint8_t **profile, unsigned int *length) {
    *profile = NULL;
    *length = 0;
    if (setjmp(decoder->error.jump)) return -1;
    JOCTET *icc = NULL;
    unsigned int icc_length = 0;
    if (jpeg_read_icc_profile(&decoder->cinfo, &icc, &icc_length)) {
        *profile = icc;
        *length = icc_length;
    }
    return 0;
}

int richpush_jpeg_start(richpush_jpeg_decoder *decoder, int scale_num, int out_color_space,
                        richpush_stop_check stop, void *stop_context,
                        int *out_width, int *out_height, int *out_components) {
    if (setjmp(decoder->error.jump)) return decoder->stopped ? -2 : -1;
    decoder->stop = stop;
    decoder->stop_context = stop_context;
    decoder->cinfo.scale_num = (unsigned int)scale_num;
    decoder->cinfo.scale_denom = 8;
    decoder->cinfo.out_color_space = (J_COLOR_SPACE)out_color_space;
    // libjpeg's defaults (accurate integer IDCT, fancy upsampling) at every scale. At reduced scales the fast IDCT
    // saved no measurable time but lost PSNR against a float reference, and libjpeg-turbo sizes the chroma
    // IDCT so that no upsampling is left to do (docs/benchmarks.md, "JPEG: DCT scale, IDCT and band-wise resize").
    jpeg_start_decompress(&decoder->cinfo);
    decoder->started = 1;
    *out_width = (int)decoder->cinfo.output_width;
    *out_height = (int)decoder->cinfo.output_height;
    *out_components = decoder->cinfo.output_components;
    return 0;
}

int richpush_jpeg_read_rows(richpush_jpeg_decoder *decoder, uint8_t **rows, int max_rows) {
    if (setjmp(decoder->error.jump)) return decoder->stopped ? -2 : -1;
    int total = 0;
    while (total < max_rows && decoder->cinfo.output_scanline < decoder->cinfo.output_height) {
        total += (int)jpeg_read_scanlines(&decoder->cinfo, rows + total, (JDIMENSION)(max_rows - total));
    }
    return total;
}

int richpush_jpeg_finish(richpush_jpeg_decoder *decoder) {
    if (setjmp(decoder->error.jump)) return -1;
    richpush_jpeg_note_scan(decoder);
    // Reads on to the EOI: scan data left over after the last row (a bit flip made the Huffman decoding end early)
    // warns of extraneous bytes, which is an error; bytes after the EOI are never read.
    jpeg_finish_decompress(&decoder->cinfo);
    if (decoder->reached_end && !richpush_jpeg_scans_complete(decoder)) {
        snprintf(decoder->error.message, sizeof decoder->error.message, "%s (scans are missing)", decoder->end_message);
        return -1;
    }
    return 0;
}

// MARK: encoding

struct richpush_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    struct richpush_error_manager error;
    unsigned char *buffer;
    unsigned long length;
    jvirt_barray_ptr coefficients[3];           // libjpeg keeps the pointer to this array until finish
};

richpush_jpeg_encoder *richpush_jpeg_encoder_create(void) {
    richpush_jpeg_encoder *encoder = calloc(1, sizeof *encoder);
    if (encoder == NULL) return NULL;
    encoder->cinfo.err = richpush_jpeg_errors(&encoder->error, richpush_jpeg_emit_message);
    if (setjmp(encoder->error.jump)) {
        free(encoder);
        return NULL;
    }
    jpeg_create_compress(&encoder->cinfo);
    return encoder;
}

void richpush_jpeg_encoder_destroy(richpush_jpeg_encoder *encoder) {
    if (encoder == NULL) return;
    jpeg_destroy_compress(&encoder->cinfo);
    free(encoder->buffer);
    free(encoder);
}

const char *richpush_jpeg_encoder_message(const richpush_jpeg_encoder *encoder) {
    return encoder->error.message;
}

// The settings both ways of encoding share: size, tables, Huffman optimisation, sampling and scan script. Called
// after setjmp.
static void richpush_jpeg_encoder_configure(richpush_jpeg_encoder *encoder, int width, int height, int quality,
                                            int progressive, int full_chroma, const unsigned int *tables,
                                            J_COLOR_SPACE input_space) {
    jpeg_mem_dest(&encoder->cinfo, &encoder->buffer, &encoder->length);
    encoder->cinfo.image_width = (JDIMENSION)width;
    encoder->cinfo.image_height = (JDIMENSION)height;
    encoder->cinfo.input_components = 3;
    encoder->cinfo.in_color_space = input_space;
    jpeg_set_defaults(&encoder->cinfo);
    jpeg_set_quality(&encoder->cinfo, quality, TRUE);
    if (tables != NULL) {
        int scale = jpeg_quality_scaling(quality);
        jpeg_add_quant_table(&encoder->cinfo, 0, tables, scale, TRUE);
        jpeg_add_quant_table(&encoder->cinfo, 1, tables + DCTSIZE2, scale, TRUE);
    }
    encoder->cinfo.optimize_coding = TRUE;
    // jpeg_set_defaults already selects 2x2 luma sampling (4:2:0); stated for clarity. 1x1 is 4:4:4.
    encoder->cinfo.comp_info[0].h_samp_factor = full_chroma ? 1 : 2;
    encoder->cinfo.comp_info[0].v_samp_factor = full_chroma ? 1 : 2;
    if (progressive) jpeg_simple_progression(&encoder->cinfo);
}

int richpush_jpeg_encoder_start(richpush_jpeg_encoder *encoder, int width, int height, int quality,
                                int progressive, int full_chroma, const unsigned int *tables,
                                const uint8_t *icc, unsigned int icc_length) {
    if (setjmp(encoder->error.jump)) return -1;
    richpush_jpeg_encoder_configure(encoder, width, height, quality, progressive, full_chroma, tables, JCS_EXT_RGB);
    jpeg_start_compress(&encoder->cinfo, TRUE);
    if (icc != NULL && icc_length > 0) jpeg_write_icc_profile(&encoder->cinfo, icc, icc_length);
    return 0;
}

int richpush_jpeg_encoder_begin_coefficients(richpush_jpeg_encoder *encoder, int width, int height, int quality,
                                             int progressive, int full_chroma, const unsigned int *tables,
                                             uint16_t *quantization, uint8_t *ac_code_lengths) {
    if (setjmp(encoder->error.jump)) return -1;
    richpush_jpeg_encoder_configure(encoder, width, height, quality, progressive, full_chroma, tables, JCS_YCbCr);
    for (int table = 0; table < 2; table++) {
        for (int k = 0; k < DCTSIZE2; k++) {
            quantization[table * DCTSIZE2 + k] = encoder->cinfo.quant_tbl_ptrs[table]->quantval[k];
        }
        // jpeg_set_defaults installed the standard tables: bits[l] codes of length l, for huffval's symbols in order.
        const JHUFF_TBL *huffman = encoder->cinfo.ac_huff_tbl_ptrs[table];
        uint8_t *lengths = ac_code_lengths + table * 256;
        memset(lengths, 0, 256);
        int symbol = 0;
        for (int length = 1; length <= 16; length++) {
            for (int count = 0; count < huffman->bits[length] && symbol < 256; count++) {
                lengths[huffman->huffval[symbol++]] = (uint8_t)length;
            }
        }
    }
    return 0;
}

int richpush_jpeg_encoder_write_coefficients(richpush_jpeg_encoder *encoder, const int16_t *const *coefficients,
                                             const uint8_t *icc, unsigned int icc_length) {
    if (setjmp(encoder->error.jump)) return -1;
    struct jpeg_compress_struct *cinfo = &encoder->cinfo;
    jvirt_barray_ptr *arrays = encoder->coefficients;
    JDIMENSION blocks_wide[3], blocks_high[3];
    for (int ci = 0; ci < 3; ci++) {
        // A component has ceil(size * sampling / (8 * largest sampling)) real blocks each way (luma 2x2 and chroma
        // 1x1 at 4:2:0, all 1x1 at 4:4:4); its array is rounded up to whole MCUs, whose padding blocks libjpeg fills
        // itself (zero AC, the previous block's DC).
        JDIMENSION sampling = (JDIMENSION)cinfo->comp_info[ci].h_samp_factor;
        JDIMENSION unit = 8 * (JDIMENSION)cinfo->comp_info[0].h_samp_factor;
        blocks_wide[ci] = (cinfo->image_width * sampling + unit - 1) / unit;
        blocks_high[ci] = (cinfo->image_height * sampling + unit - 1) / unit;
        JDIMENSION wide = (blocks_wide[ci] + sampling - 1) / sampling * sampling;
        JDIMENSION high = (blocks_high[ci] + sampling - 1) / sampling * sampling;
        arrays[ci] = (*cinfo->mem->request_virt_barray)((j_common_ptr)cinfo, JPOOL_IMAGE, TRUE, wide, high, high);
    }
    (*cinfo->mem->realize_virt_arrays)((j_common_ptr)cinfo);
    for (int ci = 0; ci < 3; ci++) {
        JBLOCKARRAY rows = (*cinfo->mem->access_virt_barray)((j_common_ptr)cinfo, arrays[ci], 0, blocks_high[ci], TRUE);
        for (JDIMENSION row = 0; row < blocks_high[ci]; row++) {
            memcpy(rows[row], coefficients[ci] + (size_t)row * blocks_wide[ci] * DCTSIZE2,
                   (size_t)blocks_wide[ci] * sizeof(JBLOCK));
        }
    }
    jpeg_write_coefficients(cinfo, arrays);
    if (icc != NULL && icc_length > 0) jpeg_write_icc_profile(cinfo, icc, icc_length);
    return 0;
}

int richpush_jpeg_encoder_write_rows(richpush_jpeg_encoder *encoder, uint8_t **rows, int count) {
    if (setjmp(encoder->error.jump)) return -1;
    int total = 0;
    while (total < count) {
        JDIMENSION written = jpeg_write_scanlines(&encoder->cinfo, rows + total, (JDIMENSION)(count - total));
        if (written == 0) break;
        total += (int)written;
    }
    return total;
}

int richpush_jpeg_encoder_finish(richpush_jpeg_encoder *encoder, const uint8_t **output, size_t *length) {
    if (setjmp(encoder->error.jump)) return -1;
    jpeg_finish_compress(&encoder->cinfo);
    *output = encoder->buffer;
    *length = (size_t)encoder->length;
    return 0;
}
