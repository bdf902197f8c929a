import CWebP
import Foundation

/// libwebp lossy encoding of RGB or RGBA pixels (straight alpha, which libwebp keeps in a losslessly compressed
/// plane), with the colour profile in an ICCP chunk when one is carried, so that a phone shows the colours the
/// source had. The deadline and cancellation are checked from libwebp's progress hook, which it calls between
/// macroblock rows: a 1440-pixel-wide encode stops within a few milliseconds.
enum WebPEncoder {
    /// What the progress hook reads through `WebPPicture.user_data`.
    private final class Progress {
        let budget: WorkBudget
        var stop: ImageError?
        init(budget: WorkBudget) { self.budget = budget }
    }

    /// What an encode holds besides the pixels: libwebp's picture (Y, U, V and alpha planes, 2.5 bytes a pixel) and
    /// its token buffer and per-macroblock state, bounded here by as much again.
    static func workingBytes(width: Int, height: Int) -> Int { width * height * 5 }

    static func encode(_ image: PixelBuffer, quality: Int, iccProfile: [UInt8]?, budget: WorkBudget) throws(ImageError) -> Data {
        guard image.channels == 3 || image.channels == 4 else {
            throw .encodeFailed(reason: "WebP needs RGB or RGBA pixels, got \(image.channels) channels")
        }
        try budget.check()
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw .encodeFailed(reason: "libwebp version mismatch") }
        config.quality = Float(min(100, max(0, quality)))
        guard WebPValidateConfig(&config) != 0 else { throw .encodeFailed(reason: "WebP configuration rejected") }
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw .encodeFailed(reason: "libwebp version mismatch") }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        let stride = Int32(image.rowBytes)
        let imported = image.pixels.withUnsafeBufferPointer { pixels in
            image.channels == 4
                ? WebPPictureImportRGBA(&picture, pixels.baseAddress, stride)
                : WebPPictureImportRGB(&picture, pixels.baseAddress, stride)
        }
        guard imported != 0 else { throw .outOfMemory(bytes: image.width * image.height * 4) }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let progress = Progress(budget: budget)
        let encoded = withUnsafeMutablePointer(to: &writer) { writer in
            withExtendedLifetime(progress) {
                picture.writer = WebPMemoryWrite
                picture.custom_ptr = UnsafeMutableRawPointer(writer)
                picture.user_data = Unmanaged.passUnretained(progress).toOpaque()
                picture.progress_hook = { _, picture in
                    guard let picture, let state = picture.pointee.user_data else { return 1 }
                    let progress = Unmanaged<Progress>.fromOpaque(state).takeUnretainedValue()
                    do throws(ImageError) { try progress.budget.check() } catch {
                        progress.stop = error
                        return 0
                    }
                    return 1
                }
                return WebPEncode(&config, &picture)
            }
        }
        if let stop = progress.stop { throw stop }
        guard encoded != 0, let bytes = writer.mem else {
            throw .encodeFailed(reason: "libwebp error \(picture.error_code.rawValue)")
        }
        let file = Data(bytes: bytes, count: writer.size)
        guard let iccProfile, !iccProfile.isEmpty else { return file }
        return try withProfile(file, iccProfile)
    }

    /// `file` rewritten as an extended (VP8X) file carrying `profile` in its ICCP chunk.
    private static func withProfile(_ file: Data, _ profile: [UInt8]) throws(ImageError) -> Data {
        guard let mux = WebPMuxNew() else { throw .outOfMemory(bytes: file.count) }
        defer { WebPMuxDelete(mux) }
        let assembled: Data? = file.withUnsafeBytes { raw in
            profile.withUnsafeBufferPointer { profile in
                var image = WebPData(bytes: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), size: raw.count)
                var chunk = WebPData(bytes: profile.baseAddress, size: profile.count)
                guard WebPMuxSetImage(mux, &image, 0) == WEBP_MUX_OK, WebPMuxSetChunk(mux, "ICCP", &chunk, 0) == WEBP_MUX_OK
                else { return nil }
                var output = WebPData()
                guard WebPMuxAssemble(mux, &output) == WEBP_MUX_OK, let bytes = output.bytes else { return nil }
                defer { WebPDataClear(&output) }
                return Data(bytes: bytes, count: output.size)
            }
        }
        guard let assembled else { throw .encodeFailed(reason: "the ICC profile could not be added to the WebP file") }
        return assembled
    }
}
