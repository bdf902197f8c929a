import CHeif
import CRichPushImage
import Foundation
import RichPushCore

/// libheif decoding of a HEIF file's primary image (HEIC through libde265, AVIF through dav1d) to 8-bit RGB or
/// RGBA, with libheif's transformations (`clap`, `irot`, `imir`) applied and the ICC profile kept.
///
/// The header is walked first (`HEIFHeader`: every size checked against the coded size in the HEVC and AV1
/// headers). libheif then parses the file on the calling thread, and decodes it in a forked worker process
/// (`richpush_heif_decode_isolated`): libheif 1.15 cannot cancel a decode, so when the deadline passes or the
/// caller cancels, the worker is killed and reaped within about 5 ms, and the render thread and the core are
/// free at once. The worker also runs under an RLIMIT_CPU of the time left (in case this process dies first) and
/// an RLIMIT_AS of the estimated decode memory plus `workerMemoryAllowance`.
///
/// Cost: one full-size decode (libheif cannot scale while decoding), an order of magnitude over a same-size JPEG
/// decode, plus the YCbCr planes libheif holds while it converts (1.5 bytes a pixel) beside the RGB output, which
/// the worker copies into a shared mapping and this process copies again into its own buffer. The worker adds a
/// fork, an exit and a reap to each decode, and on a large picture the page faults of its fresh memory and of the
/// mapping; see docs/limits.md, HEIC and AVIF, and docs/benchmarks.md ("Decode work and render lanes").
enum HEIFDecoder {
    /// Registers libheif's built-in decoders once per process (libheif asks callers to do this).
    private static let initialized: Bool = withLibheif { heif_init(nil).code == heif_error_Ok }

    /// Address space the worker may add to what it inherits, beyond the image's planes: the decoders' tables,
    /// buffers and thread stacks (8 MB of address space each; dav1d starts threads of its own). The limit is a
    /// backstop against a runaway allocation, not a tight bound: glibc falls back to the heap space the worker
    /// inherited when a mapping is refused, and a decoder starved of a thread (libde265 then waits for ever, seen
    /// with an 8 MB allowance) is ended by the deadline like any other decode.
    static let workerMemoryAllowance = 1 << 30

    /// Whether this libheif has a decoder for `format` (HEIC: HEVC, AVIF: AV1).
    static func canDecode(_ format: ImageFormat) -> Bool {
        _ = initialized
        return withLibheif {
            switch format {
            case .heic: heif_have_decoder_for_format(heif_compression_HEVC) != 0
            case .avif: heif_have_decoder_for_format(heif_compression_AV1) != 0
            default: false
            }
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
                // plane, the coded sizes), so the decoder is safe on its own; it reads the headers only.
                let probe = try HEIFHeader.probe(ByteReader(bytes: raw), sniffed: format, limits: limits)
                let parsed = try withLibheif { () throws(ImageError) -> ParsedFile in
                    try ParsedFile(base, count: raw.count, limits: limits)
                }
                defer { withLibheif { parsed.release() } }
                return try decode(parsed, probe: probe, limits: limits, budget: budget)
            }
        }
        return try result.get()
    }

    /// libheif's context and primary image handle, and what the handle says, read on the calling thread.
    private struct ParsedFile {
        let context: OpaquePointer
        let handle: OpaquePointer
        let width: Int, height: Int, hasAlpha: Bool
        let iccProfile: [UInt8]?
        let warnings: [String]

        init(_ base: UnsafeRawPointer, count: Int, limits: ImageLimits) throws(ImageError) {
            guard let context = heif_context_alloc() else { throw .corrupt(reason: "libheif context could not be created") }
            var handle: OpaquePointer?
            do throws(ImageError) {
                // libheif's own limit (on every ispe, checked while parsing) backs up the header probe's.
                heif_context_set_maximum_image_size_limit(context, Int32(clamping: limits.maximumSide))
                // One decoding thread: the worker's RLIMIT_CPU then bounds one core's time.
                heif_context_set_max_decoding_threads(context, 0)
                try check(heif_context_read_from_memory_without_copy(context, base, count, nil))
                try check(heif_context_get_primary_image_handle(context, &handle))
                guard let handle else { throw .corrupt(reason: "HEIF has no primary image") }
                (width, height) = (Int(heif_image_handle_get_width(handle)), Int(heif_image_handle_get_height(handle)))
                hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
                var warnings: [String] = []
                iccProfile = HEIFDecoder.iccProfile(handle, warnings: &warnings)
                self.warnings = warnings
                self.context = context
                self.handle = handle
            } catch {
                if let handle { heif_image_handle_release(handle) }
                heif_context_free(context)
                throw error
            }
        }

        func release() {
            heif_image_handle_release(handle)
            heif_context_free(context)
        }
    }

    private static func decode(_ parsed: ParsedFile, probe: ImageProbe, limits: ImageLimits,
                               budget: WorkBudget) throws(ImageError) -> DecodedImage {
        try limits.check(width: parsed.width, height: parsed.height)
        try budget.check()
        let channels = parsed.hasAlpha ? 4 : 3
        // The handle's size is the verified ispe after clap and irot: the decoded image is never larger.
        let capacity = parsed.width * parsed.height * channels
        let memory = RenderPlan.heifDecodeBytes(codedPixels: probe.codedPixels ?? parsed.width * parsed.height,
                                                width: parsed.width, height: parsed.height, channels: channels) + workerMemoryAllowance
        let secondsLeft = (budget.deadline - ContinuousClock.now).components.seconds
        let stopCheck = LibraryStopCheck(budget)
        var pixels: UnsafeMutablePointer<UInt8>?
        var mappingSize = 0
        var outcome = richpush_heif_outcome()
        let status = richpush_heif_decode_isolated(parsed.handle, Int32(channels), capacity, Int(min(secondsLeft + 2, 3600)),
                                                   memory, LibraryStopCheck.callback, stopCheck.context,
                                                   &pixels, &mappingSize, &outcome)
        withExtendedLifetime(stopCheck) {}
        let message = withUnsafeBytes(of: outcome.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch status {
        case 0: break
        case -2: throw stopCheck.stopReason
        case -1 where outcome.error_code != 0: try check(heif_error_code(rawValue: UInt32(outcome.error_code)), message: message)
        default: throw .corrupt(reason: "libheif: \(message)")
        }
        defer { richpush_heif_release(pixels, mappingSize) }
        guard let pixels else { throw .corrupt(reason: "libheif returned no image") }
        let width = Int(outcome.width), height = Int(outcome.height)
        try limits.check(width: width, height: height)
        var buffer = PixelBuffer(width: width, height: height, channels: channels)
        buffer.pixels.withUnsafeMutableBufferPointer { destination in
            destination.baseAddress!.update(from: pixels, count: width * height * channels)
        }
        return DecodedImage(pixels: buffer, iccProfile: parsed.iccProfile, warnings: parsed.warnings)
    }

    /// Runs `body` holding the lock every libheif call takes in this process (see `richpush_heif_lock`).
    private static func withLibheif<Value>(_ body: () throws(ImageError) -> Value) throws(ImageError) -> Value {
        richpush_heif_lock()
        defer { richpush_heif_unlock() }
        return try body()
    }

    private static func withLibheif<Value>(_ body: () -> Value) -> Value {
        richpush_heif_lock()
        defer { richpush_heif_unlock() }
        return body()
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
        try check(error.code, message: error.message.map { String(cString: $0) } ?? "unknown error")
    }

    private static func check(_ code: heif_error_code, message: String) throws(ImageError) {
        guard code != heif_error_Ok else { return }
        if code == heif_error_Unsupported_feature || code == heif_error_Unsupported_filetype {
            throw .unsupportedFormat(detected: "HEIF feature libheif cannot decode (\(message))")
        }
        throw .corrupt(reason: "libheif: \(message)")
    }
}
