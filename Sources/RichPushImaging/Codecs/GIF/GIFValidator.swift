import CGIF
import Foundation
import RichPushCore

/// Validates a GIF with giflib before it is published unchanged (GIFs pass through, never re-encoded): every
/// frame lies within the logical screen, the frame count and the pixels of all frames together are capped, and
/// the first frame decodes completely. The screen descriptor alone says nothing about the frames a device will
/// decode: a 35-byte file with a 1x1 screen can declare a 65535x65535 frame.
///
/// Cost: one pass over the file. The first frame's LZW data is decoded a row at a time into one row of memory;
/// later frames' data is only walked (sub-block lengths), not decoded. The budget is checked before every record
/// and every band of rows.
enum GIFValidator {
    /// The pixels of all frames together may be this many times `ImageLimits.maximumPixels` (400 MP by default):
    /// what a device decodes to play the animation once.
    static let totalPixelsPerPixelLimit = 10

    /// Returns the number of frames.
    static func validate(_ bytes: Data, limits: ImageLimits, budget: WorkBudget) throws(ImageError) -> Int {
        try GIFInput.reading(bytes) { file, input throws(ImageError) in try validate(file, input: input, limits: limits, budget: budget) }
    }

    private static func validate(_ file: UnsafeMutablePointer<GifFileType>, input: GIFInput, limits: ImageLimits,
                                 budget: WorkBudget) throws(ImageError) -> Int {
        let screenWidth = Int(file.pointee.SWidth), screenHeight = Int(file.pointee.SHeight)
        try limits.check(width: screenWidth, height: screenHeight)
        let (product, overflow) = limits.maximumPixels.multipliedReportingOverflow(by: totalPixelsPerPixelLimit)
        let maximumTotalPixels = overflow ? Int.max : product
        var frames = 0
        var totalPixels = 0
        var row = [GifPixelType](repeating: 0, count: screenWidth)
        while true {
            try budget.check()
            // A missing trailer after whole frames is common and harmless; devices show such files.
            if input.isExhausted && frames > 0 { return frames }
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(file, &type) == GIF_OK else { throw failure(file) }
            if type == TERMINATE_RECORD_TYPE { break }
            if type == EXTENSION_RECORD_TYPE {
                try skipExtension(file)
                continue
            }
            guard DGifGetImageDesc(file) == GIF_OK else { throw failure(file) }
            frames += 1
            let frame = file.pointee.Image
            let (left, top, width, height) = (Int(frame.Left), Int(frame.Top), Int(frame.Width), Int(frame.Height))
            guard width > 0, height > 0, left + width <= screenWidth, top + height <= screenHeight else {
                throw .corrupt(reason: "GIF frame \(frames) is \(width)x\(height) at (\(left), \(top)), "
                    + "not within its \(screenWidth)x\(screenHeight) screen")
            }
            if frames > ImageLimits.maximumGIFFrames { throw .animationTooLarge(reason: "more than \(ImageLimits.maximumGIFFrames) frames") }
            totalPixels += width * height
            if totalPixels > maximumTotalPixels {
                throw .animationTooLarge(reason: "its first \(frames) frames hold \(totalPixels) pixels, more than \(maximumTotalPixels)")
            }
            if frames == 1 {
                for line in 0..<height {
                    if line % WorkBudget.bandRows == 0 { try budget.check() }
                    guard DGifGetLine(file, &row, Int32(width)) == GIF_OK else { throw failure(file) }
                }
            } else {
                try skipImageData(file)
            }
        }
        guard frames > 0 else { throw .corrupt(reason: "GIF has no image") }
        return frames
    }

    private static func skipImageData(_ file: UnsafeMutablePointer<GifFileType>) throws(ImageError) {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetCode(file, &codeSize, &block) == GIF_OK else { throw failure(file) }
        while block != nil {
            guard DGifGetCodeNext(file, &block) == GIF_OK else { throw failure(file) }
        }
    }

    private static func skipExtension(_ file: UnsafeMutablePointer<GifFileType>) throws(ImageError) {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(file, &code, &block) == GIF_OK else { throw failure(file) }
        while block != nil {
            guard DGifGetExtensionNext(file, &block) == GIF_OK else { throw failure(file) }
        }
    }

    static func failure(_ file: UnsafeMutablePointer<GifFileType>) -> ImageError {
        .corrupt(reason: "GIF: \(message(file.pointee.Error))")
    }

    static func message(_ code: Int32) -> String {
        GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
    }
}

/// giflib's input: the bytes in memory, read through a callback (DGifOpen), not a file.
final class GIFInput {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var isExhausted: Bool { offset >= bytes.count }

    /// `body` on giflib's reader of `bytes`, closed when it returns.
    static func reading<Result>(
        _ bytes: Data, _ body: (UnsafeMutablePointer<GifFileType>, GIFInput) throws(ImageError) -> Result
    ) throws(ImageError) -> Result {
        let result: Swift.Result<Result, ImageError> = bytes.withUnsafeBytes { raw in
            Swift.Result { () throws(ImageError) -> Result in
                let input = GIFInput(raw)
                defer { withExtendedLifetime(input) {} }   // giflib reads through it until DGifCloseFile (below)
                var status: Int32 = 0
                guard let file = DGifOpen(input.context, GIFInput.read, &status) else {
                    throw .corrupt(reason: "GIF: \(GIFValidator.message(status))")
                }
                defer { DGifCloseFile(file, nil) }
                return try body(file, input)
            }
        }
        return try result.get()
    }

    /// Valid while this object lives.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static let read: InputFunc = { file, buffer, length in
        guard let user = file?.pointee.UserData, let buffer else { return 0 }
        let input = Unmanaged<GIFInput>.fromOpaque(user).takeUnretainedValue()
        let count = min(Int(length), input.bytes.count - input.offset)
        guard count > 0, let base = input.bytes.baseAddress else { return 0 }
        buffer.update(from: (base + input.offset).assumingMemoryBound(to: GifByteType.self), count: count)
        input.offset += count
        return Int32(count)
    }
}
