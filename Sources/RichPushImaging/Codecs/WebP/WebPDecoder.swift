import CWebP
import Foundation
import RichPushCore

/// libwebp decoding: stills incrementally (so the deadline is checked between input chunks), optionally scaled
/// by libwebp straight to the target size; animations give their first composed frame.
enum WebPDecoder {
    enum Layout { case rgb, rgba }

    /// Input fed to the incremental decoder per step; 64 KB of WebP decodes in a few ms.
    static let chunkBytes = 64 * 1024

    static func decode(_ bytes: Data, layout: Layout, scaledTo size: (width: Int, height: Int)? = nil,
                       budget: WorkBudget) throws(ImageError) -> DecodedImage {
        let result: Result<DecodedImage, ImageError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> DecodedImage in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw .corrupt(reason: "empty WebP") }
                return try decode(base, count: raw.count, layout: layout, scaledTo: size, budget: budget)
            }
        }
        return try result.get()
    }

    private static func decode(_ base: UnsafePointer<UInt8>, count: Int, layout: Layout, scaledTo size: (width: Int, height: Int)?,
                               budget: WorkBudget) throws(ImageError) -> DecodedImage {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .corrupt(reason: "WebP decoder version mismatch") }
        guard WebPGetFeatures(base, count, &config.input) == VP8_STATUS_OK else { throw .corrupt(reason: "WebP header is invalid") }
        if config.input.has_animation != 0 {
            return try decodeFirstFrame(base, count: count, layout: layout, budget: budget)
        }
        var width = Int(config.input.width), height = Int(config.input.height)
        if let size, size.width > 0, size.height > 0, size.width < width || size.height < height {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(size.width)
            config.options.scaled_height = Int32(size.height)
            width = size.width
            height = size.height
        }
        let channels = layout == .rgba ? 4 : 3
        var output = PixelBuffer(width: width, height: height, channels: channels)
        let status: Result<Void, ImageError> = output.pixels.withUnsafeMutableBufferPointer { pixels in
            config.output.colorspace = layout == .rgba ? MODE_RGBA : MODE_RGB
            config.output.is_external_memory = 1
            config.output.width = Int32(width)
            config.output.height = Int32(height)
            config.output.u.RGBA.rgba = pixels.baseAddress
            config.output.u.RGBA.stride = Int32(width * channels)
            config.output.u.RGBA.size = pixels.count
            guard let decoder = WebPIDecode(nil, 0, &config) else { return .failure(.corrupt(reason: "WebP decoder could not be created")) }
            defer { WebPIDelete(decoder) }
            // WebPIUpdate rather than WebPIAppend: libwebp reads the bytes where they lie instead of copying
            // them (and partition 0 again) into buffers of its own, so the decode holds no second copy of the
            // source; `RenderPlan` counts what it does hold.
            var offset = 0
            while true {
                do throws(ImageError) { try budget.check() } catch { return .failure(error) }
                offset += min(chunkBytes, count - offset)
                let code = WebPIUpdate(decoder, base, offset)
                if code == VP8_STATUS_OK { return .success(()) }
                if code != VP8_STATUS_SUSPENDED { return .failure(.corrupt(reason: "WebP bitstream error \(code.rawValue)")) }
                if offset >= count { return .failure(.corrupt(reason: "WebP data is truncated")) }
            }
        }
        try status.get()
        return DecodedImage(pixels: output, iccProfile: iccProfile(base, count: count))
    }

    /// The ICCP chunk of an extended (VP8X) file, if any and if it is an RGB profile.
    static func iccProfile(_ base: UnsafePointer<UInt8>, count: Int) -> [UInt8]? {
        var data = WebPData(bytes: base, size: count)
        guard let demuxer = WebPDemux(&data) else { return nil }
        defer { WebPDemuxDelete(demuxer) }
        guard WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & UInt32(ICCP_FLAG.rawValue) != 0 else { return nil }
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demuxer, "ICCP", 1, &iterator) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        guard let bytes = iterator.chunk.bytes else { return nil }
        return ICCProfile.keepIfRGB(Array(UnsafeBufferPointer(start: bytes, count: iterator.chunk.size)))
    }

    private static func decodeFirstFrame(_ base: UnsafePointer<UInt8>, count: Int, layout: Layout,
                                         budget: WorkBudget) throws(ImageError) -> DecodedImage {
        try budget.check()
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else { throw .corrupt(reason: "WebP animation decoder version mismatch") }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        var data = WebPData(bytes: base, size: count)
        guard let decoder = WebPAnimDecoderNew(&data, &options) else { throw .corrupt(reason: "animated WebP is invalid") }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else { throw .corrupt(reason: "animated WebP is invalid") }
        var frame: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &frame, &timestamp) != 0, let frame else {
            throw .corrupt(reason: "animated WebP first frame could not be decoded")
        }
        let width = Int(info.canvas_width), height = Int(info.canvas_height)
        var pixels = PixelBuffer(width: width, height: height, channels: 4,
                                 pixels: Array(UnsafeBufferPointer(start: frame, count: width * height * 4)))
        if layout == .rgb { pixels = pixels.droppingAlpha() }
        return DecodedImage(pixels: pixels, iccProfile: nil, warnings: ["animated WebP: only the first frame is used"])
    }
}
