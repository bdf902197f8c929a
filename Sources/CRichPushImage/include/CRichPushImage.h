#ifndef CRICHPUSH_IMAGE_H
#define CRICHPUSH_IMAGE_H

// jpeglib.h needs stdio.h and stddef.h first.
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <png.h>
#include <jpeglib.h>

// libpng and libjpeg report fatal errors by longjmp, which Swift cannot catch.
// The shims in this target own every setjmp and turn errors into return codes:
// 0 (or a non-negative count) is success, -1 is an error whose text is in the
// state's message, -2 is "stopped" (the stop check below answered non-zero inside a long library call).
// Everything that does not have to live inside a setjmp scope is done in Swift.

/// Asked from inside long library calls (libjpeg's progress monitor, each libpng read of compressed data) whether
/// the render should stop (its deadline passed or its caller was cancelled). Non-zero stops the call with -2.
/// `context` is handed back unchanged; it must stay valid until the decoder is destroyed.
typedef int (*richpush_stop_check)(void *context);

// MARK: JPEG decoding

typedef struct richpush_jpeg_decoder richpush_jpeg_decoder;

typedef struct {
    int width, height, components, color_space, data_precision;
    int progressive, arithmetic, saw_adobe_marker, adobe_transform;
    int max_h_samp_factor, max_v_samp_factor;   // an interleaved MCU is this many blocks wide and high
} richpush_jpeg_header;

/// Creates a decoder over `size` bytes at `data` (not copied; must outlive the decoder).
/// `max_memory` caps libjpeg's working memory, `max_scans` caps progressive scans.
richpush_jpeg_decoder *richpush_jpeg_decoder_create(const uint8_t *data, size_t size, long max_memory, int max_scans);
void richpush_jpeg_decoder_destroy(richpush_jpeg_decoder *decoder);
const char *richpush_jpeg_decoder_message(const richpush_jpeg_decoder *decoder);
/// Warnings libjpeg gave that leave the pixels whole (only an unknown JFIF revision; every other warning means
/// damaged data and is an error); *first points at the first one's text.
int richpush_jpeg_decoder_warnings(const richpush_jpeg_decoder *decoder, const char **first);
/// Reads the header, saving APP1/APP2 markers.
int richpush_jpeg_read_header(richpush_jpeg_decoder *decoder, richpush_jpeg_header *header);
/// Copies the ICC profile (malloc'd, caller frees with free()) or sets *profile to NULL.
int richpush_jpeg_read_icc(richpush_jpeg_decoder *decoder, uint8_t **profile, unsigned int *length);
/// Starts decompression at scale_num/8 into out_color_space. `stop` (may be NULL) is asked from libjpeg's
/// progress monitor, here and in every later read, once per row of blocks.
/// Uses the accurate integer IDCT and fancy upsampling at every scale.
int richpush_jpeg_start(richpush_jpeg_decoder *decoder, int scale_num, int out_color_space,
                        richpush_stop_check stop, void *stop_context,
                        int *out_width, int *out_height, int *out_components);
/// Reads up to `max_rows` scanlines into `rows` (row pointers). Returns rows read.
int richpush_jpeg_read_rows(richpush_jpeg_decoder *decoder, uint8_t **rows, int max_rows);
/// Reads on to the EOI after the last row. Fails when scan data is left over (a sign of damaged entropy-coded data)
/// or when the file ended early with scans missing; a file missing only its EOI, every scan complete, passes.
int richpush_jpeg_finish(richpush_jpeg_decoder *decoder);

// MARK: JPEG encoding

typedef struct richpush_jpeg_encoder richpush_jpeg_encoder;

richpush_jpeg_encoder *richpush_jpeg_encoder_create(void);
void richpush_jpeg_encoder_destroy(richpush_jpeg_encoder *encoder);
const char *richpush_jpeg_encoder_message(const richpush_jpeg_encoder *encoder);
/// RGB input (JCS_EXT_RGB), optimized Huffman tables; chroma at half resolution both ways (4:2:0), or at full
/// resolution (4:4:4) when `full_chroma` is set.
// `tables`: 128 quantisation values at quality 50 (luma, then chroma, natural order), scaled by `quality` as
// libjpeg scales its own; NULL keeps libjpeg's standard (Annex K) tables.
int richpush_jpeg_encoder_start(richpush_jpeg_encoder *encoder, int width, int height, int quality,
                                int progressive, int full_chroma, const unsigned int *tables,
                                const uint8_t *icc, unsigned int icc_length);
/// Coefficient input instead of rows: a YCbCr JPEG (4:2:0, or 4:4:4 with full_chroma) with the tables and scan
/// script as for start; writes the 128 quantisation values libjpeg will put in the DQT (luma then chroma, natural
/// order) to `quantization`, and to `ac_code_lengths` (512 bytes, luma then chroma) the length in bits of each AC
/// symbol's code in libjpeg's standard Huffman tables (0 for a symbol they cannot code), a trellis's rate estimate.
int richpush_jpeg_encoder_begin_coefficients(richpush_jpeg_encoder *encoder, int width, int height, int quality,
                                             int progressive, int full_chroma, const unsigned int *tables,
                                             uint16_t *quantization, uint8_t *ac_code_lengths);
/// After begin_coefficients: `coefficients` holds Y, Cb and Cr, each ceil(size / 8) blocks wide and high (chroma
/// ceil(size / 16) at 4:2:0), row by row, 64 quantised values a block in natural order. Then finish.
int richpush_jpeg_encoder_write_coefficients(richpush_jpeg_encoder *encoder, const int16_t *const *coefficients,
                                             const uint8_t *icc, unsigned int icc_length);
int richpush_jpeg_encoder_write_rows(richpush_jpeg_encoder *encoder, uint8_t **rows, int count);
/// Finishes; *output points into encoder-owned memory valid until destroy.
int richpush_jpeg_encoder_finish(richpush_jpeg_encoder *encoder, const uint8_t **output, size_t *length);

// MARK: JPEG transcoding

/// Writes a JPEG's quantised coefficients again, untouched, with another scan script: the same pixels in fewer
/// bytes (`JPEGScanOptimizer`).
typedef struct richpush_jpeg_transcoder richpush_jpeg_transcoder;

richpush_jpeg_transcoder *richpush_jpeg_transcoder_create(void);
void richpush_jpeg_transcoder_destroy(richpush_jpeg_transcoder *transcoder);
const char *richpush_jpeg_transcoder_message(const richpush_jpeg_transcoder *transcoder);
/// Reads the header and every coefficient of the `size` bytes at `data` (not copied; they must outlive the
/// transcoder), within `max_memory` of libjpeg's working memory (also the writes' cap). Returns the component count.
int richpush_jpeg_transcoder_read(richpush_jpeg_transcoder *transcoder, const uint8_t *data, size_t size,
                                  long max_memory);
/// Writes the coefficients read as a new file: optimised Huffman tables, the `scan_count` scans at `scans` (none:
/// one sequential scan), and the ICC profile when given. *output points into transcoder-owned memory, valid until
/// the next write or destroy.
int richpush_jpeg_transcoder_write(richpush_jpeg_transcoder *transcoder, const jpeg_scan_info *scans, int scan_count,
                                   const uint8_t *icc, unsigned int icc_length,
                                   const uint8_t **output, size_t *length);

// MARK: PNG decoding

typedef struct richpush_png_decoder richpush_png_decoder;

typedef struct {
    int width, height, bit_depth, color_type, interlaced, passes;
    int channels;        // after transforms: 3 or 4
    size_t row_bytes;    // after transforms
    int has_icc;
} richpush_png_header;

/// `stop` (may be NULL) is asked before each read of compressed data (at most 8 KB, a few ms of inflating).
richpush_png_decoder *richpush_png_decoder_create(const uint8_t *data, size_t size, int max_width, int max_height,
                                                  int chunk_cache_max, size_t chunk_malloc_max,
                                                  richpush_stop_check stop, void *stop_context);
void richpush_png_decoder_destroy(richpush_png_decoder *decoder);
const char *richpush_png_decoder_message(const richpush_png_decoder *decoder);
/// Reads IHDR and ancillary chunks up to IDAT and sets up the 8-bit RGB(A) transforms.
/// 16-bit samples are scaled with rounding, or truncated (v >> 8) when `truncate_16` is set.
int richpush_png_read_info(richpush_png_decoder *decoder, richpush_png_header *header, int truncate_16);
/// Copies the iCCP profile out (malloc'd) or NULL.
int richpush_png_read_icc(richpush_png_decoder *decoder, uint8_t **profile, unsigned int *length);
/// Reads `count` rows (of the current pass). After the image's last row it reads nothing more and inflates at most
/// the rest of the compressed data it had already read (one read: 8 KB of input, ~8 MB of output at deflate's
/// maximum ratio, a few ms): libpng would otherwise inflate whatever compressed data follows the image
/// (gigabytes, for a bomb) and read the trailing chunks. The caller checks the chunk list itself (CRCs, IEND).
int richpush_png_read_rows(richpush_png_decoder *decoder, uint8_t **rows, int count);

// MARK: HEIF decoding in a worker process

struct heif_image_handle;

typedef struct {
    int width, height;   // of the decoded image (return 0)
    int error_code;      // libheif's heif_error_code (return -1), or 0 when the failure is not libheif's
    char message[256];   // why it failed (returns -1 and -3)
} richpush_heif_outcome;

/// Every libheif call in this process goes between these two: `richpush_heif_decode_isolated` forks while
/// holding the same lock, so its child never inherits a lock another thread held inside libheif.
void richpush_heif_lock(void);
void richpush_heif_unlock(void);

/// Decodes `handle` (of a context the caller parsed and keeps) to 8-bit interleaved RGB (`channels` 3) or RGBA (4)
/// in a forked child that may use `cpu_seconds` of CPU (RLIMIT_CPU) and `memory_bytes` more address space than it
/// starts with (RLIMIT_AS). The child writes the rows (width x channels bytes each, no padding) into a shared
/// anonymous mapping with room for `capacity` bytes and _exits; this thread waits, asking `stop` (may be NULL)
/// every 5 ms, and on a non-zero answer kills the child (SIGKILL) and reaps it before returning, so no CPU is
/// left in use. Cost: one fork (page tables of the calling process) and the mapping's pages.
/// Returns 0 with *pixels set (release with richpush_heif_release), -1 when libheif or the image failed
/// (outcome), -2 when stopped, -3 when the child died (a limit, a crash; outcome->message says which).
int richpush_heif_decode_isolated(struct heif_image_handle *handle, int channels, size_t capacity, long cpu_seconds,
                                  size_t memory_bytes, richpush_stop_check stop, void *stop_context,
                                  uint8_t **pixels, size_t *mapping_size, richpush_heif_outcome *outcome);
void richpush_heif_release(uint8_t *pixels, size_t mapping_size);
/// For the fuzzer only: decode on the calling thread instead of in a child (no deadline, no limits), so
/// AddressSanitizer and LeakSanitizer see inside libheif and its decoders. Call before any decode.
void richpush_heif_decode_in_process_for_fuzzing(int enabled);

#endif
