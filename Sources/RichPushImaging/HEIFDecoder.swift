import CHeif
import Foundation
import RichPushCore

/// libheif decoding of a HEIF file's primary image (HEIC through libde265, AVIF through dav1d) to 8-bit RGB or
/// RGBA, with libheif's transformations (`clap`, `irot`, `imir`) applied and the ICC profile kept.
///
/// Cost: one full-size decode (libheif cannot scale while decoding): about 10x a same-size JPEG decode (a 12 MP
/// HEIC takes 380-520 ms here), plus the YCbCr planes libheif holds while it converts (1.5 bytes a pixel) beside
/// the RGB output. The decode is a single
/// libheif call that cannot be interrupted (libheif 1.15's progress callbacks cannot cancel), so the deadline is
/// checked before and after it, and its length is bounded by the pixel limits `HEIFHeader` checks from `ispe`.
enum HEIFDecoder {
    /// Registers libheif's built-in decoders once per process (libheif asks callers to do this).
    private static let initialized: Bool = heif_init(nil).code == heif_error_Ok

    /// Whether this libheif has a decoder for `format` (HEIC: HEVC, AVIF: AV1).
    static func canDecode(_ format: ImageFormat) -> Bool {
        _ = initialized
        switch format {
        case .heic: return heif_have_decoder_for_format(heif_compression_HEVC) != 0
        case .avif: return heif_have_decoder_for_format(heif_compression_AV1) != 0
        default: return false
        }
    }

    static func decode(_ bytes: Data, format: ImageFormat, limits: ImageLimits, budget: WorkBudget) throws(ImageError) -> DecodedImage {
        try budget.check()
        guard canDecode(format) else {
            let codec = format == .avif ? "AV1" : "HEVC"
            throw .unsupportedFormat(detected: "\(format.rawValue.uppercased()) (this libheif \(String(cString: heif_get_version())) has no \(codec) decoder)")
        }
        let result: Result<DecodedImage, ImageError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> DecodedImage in
                guard let base = raw.baseAddress, raw.count > 0 else { throw .corrupt(reason: "empty HEIF") }
                // The header walk checks what libheif's handle does not show (grid canvases and tiles, the alpha
                // plane), so the decoder is safe on its own; it reads the meta box only.
                _ = try HEIFHeader.probe(ByteReader(bytes: raw), sniffed: format, limits: limits)
                guard let context = heif_context_alloc() else { throw .corrupt(reason: "libheif context could not be created") }
                defer { heif_context_free(context) }
                // libheif's own limit (on every ispe, checked while parsing) backs up the header probe's.
                heif_context_set_maximum_image_size_limit(context, Int32(clamping: limits.maximumSide))
                // Tiles are decoded on the render thread itself: render threads already use every core.
                heif_context_set_max_decoding_threads(context, 0)
                try check(heif_context_read_from_memory_without_copy(context, base, raw.count, nil))
                var handle: OpaquePointer?
                try check(heif_context_get_primary_image_handle(context, &handle))
                guard let handle else { throw .corrupt(reason: "HEIF has no primary image") }
                defer { heif_image_handle_release(handle) }
                return try decode(handle, limits: limits, budget: budget)
            }
        }
        return try result.get()
    }

    private static func decode(_ handle: OpaquePointer, limits: ImageLimits, budget: WorkBudget) throws(ImageError) -> DecodedImage {
        try limits.check(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
        let hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        guard let options = heif_decoding_options_alloc() else { throw .corrupt(reason: "libheif options could not be created") }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        options.pointee.ignore_transformations = 0

        try budget.check()
        var image: OpaquePointer?
        try check(heif_decode_image(handle, &image, heif_colorspace_RGB,
                                    hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options))
        guard let image else { throw .corrupt(reason: "libheif returned no image") }
        defer { heif_image_release(image) }
        try budget.check()

        let channels = hasAlpha ? 4 : 3
        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0, heif_image_get_bits_per_pixel(image, heif_channel_interleaved) == Int32(channels * 8),
              let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
              Int(stride) >= width * channels else {
            throw .corrupt(reason: "libheif returned an unexpected image layout")
        }
        try limits.check(width: width, height: height)
        var pixels = PixelBuffer(width: width, height: height, channels: channels)
        let rowBytes = width * channels
        pixels.pixels.withUnsafeMutableBufferPointer { destination in
            for row in 0..<height {
                (destination.baseAddress! + row * rowBytes).update(from: plane + row * Int(stride), count: rowBytes)
            }
        }
        var warnings: [String] = []
        let profile = iccProfile(handle, warnings: &warnings)
        return DecodedImage(pixels: pixels, iccProfile: profile, warnings: warnings)
    }

    /// The primary image's ICC profile (`colr` of type `prof` or `rICC`; iPhones store Display P3 this way), if
    /// it is an RGB one. An `nclx` description with primaries other than BT.709/sRGB is named in a warning: it
    /// is not converted to a profile, so such colours are shown as sRGB.
    private static func iccProfile(_ handle: OpaquePointer, warnings: inout [String]) -> [UInt8]? {
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        if size > 0 {
            var profile = [UInt8](repeating: 0, count: size)
            let error = profile.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
            return error.code == heif_error_Ok ? ICCProfile.keepIfRGB(profile) : nil
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        let error = heif_image_handle_get_nclx_color_profile(handle, &nclx)
        // libheif 1.15 allocates the profile before it validates it, so it must be freed on errors too (a fuzzed
        // AVIF with unknown colour primaries leaked it: Fixtures/fuzz/heif/).
        defer { if let nclx { heif_nclx_color_profile_free(nclx) } }
        if error.code == heif_error_Ok, let nclx {
            let primaries = nclx.pointee.color_primaries.rawValue
            if primaries != 1, primaries != 2 {
                warnings.append("HEIF nclx colour primaries \(primaries) are not carried into the output (shown as sRGB)")
            }
        }
        return nil
    }

    /// Maps a libheif error to ours: a missing codec is an unsupported format, anything else in the input is
    /// corrupt (libheif's own security limits included: the header probe normally refuses those files first).
    private static func check(_ error: heif_error) throws(ImageError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "unknown error"
        if error.code == heif_error_Unsupported_feature || error.code == heif_error_Unsupported_filetype {
            throw .unsupportedFormat(detected: "HEIF feature libheif cannot decode (\(message))")
        }
        throw .corrupt(reason: "libheif: \(message)")
    }
}
