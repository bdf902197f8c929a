import CGIF
import Foundation

/// giflib decoding of a GIF's first frame onto its logical screen, for variants that show a still
/// (`ImageVariant.keepsAnimation` false: Android's `BitmapFactory` shows the first frame of an animation anyway).
///
/// The screen starts transparent; the frame is drawn at its place with its own colour table, else the global one,
/// and the transparent index of the graphic control extension before it. Interlaced rows are placed in GIF's four
/// passes. Later frames are not read. Cost: the screen as RGBA and one row of indices; the budget is checked every
/// band of rows.
enum GIFDecoder {
    static func firstFrame(_ bytes: Data, limits: ImageLimits, budget: WorkBudget) throws(ImageError) -> DecodedImage {
        try GIFInput.reading(bytes) { file, _ throws(ImageError) in try firstFrame(file, limits: limits, budget: budget) }
    }

    private static func firstFrame(_ file: UnsafeMutablePointer<GifFileType>, limits: ImageLimits,
                                   budget: WorkBudget) throws(ImageError) -> DecodedImage {
        let screenWidth = Int(file.pointee.SWidth), screenHeight = Int(file.pointee.SHeight)
        try limits.check(width: screenWidth, height: screenHeight)
        var transparentIndex: Int?
        while true {
            try budget.check()
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(file, &type) == GIF_OK else { throw GIFValidator.failure(file) }
            switch type {
            case TERMINATE_RECORD_TYPE:
                throw .corrupt(reason: "GIF has no image")
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(file, &code, &block) == GIF_OK else { throw GIFValidator.failure(file) }
                // Graphic control: size 4, packed flags (bit 0: a transparent index follows), delay, index.
                if code == GRAPHICS_EXT_FUNC_CODE, let data = block, data[0] >= 4 {
                    transparentIndex = data[1] & 1 == 1 ? Int(data[4]) : nil
                }
                while block != nil {
                    guard DGifGetExtensionNext(file, &block) == GIF_OK else { throw GIFValidator.failure(file) }
                }
            case IMAGE_DESC_RECORD_TYPE:
                guard DGifGetImageDesc(file) == GIF_OK else { throw GIFValidator.failure(file) }
                return try drawFrame(file, screenWidth: screenWidth, screenHeight: screenHeight,
                                     transparentIndex: transparentIndex, budget: budget)
            default:
                throw .corrupt(reason: "GIF record type \(type.rawValue) is unknown")
            }
        }
    }

    private static func drawFrame(_ file: UnsafeMutablePointer<GifFileType>, screenWidth: Int, screenHeight: Int,
                                  transparentIndex: Int?, budget: WorkBudget) throws(ImageError) -> DecodedImage {
        let frame = file.pointee.Image
        let (left, top, width, height) = (Int(frame.Left), Int(frame.Top), Int(frame.Width), Int(frame.Height))
        guard width > 0, height > 0, left + width <= screenWidth, top + height <= screenHeight else {
            throw .corrupt(reason: "GIF frame 1 is \(width)x\(height) at (\(left), \(top)), not within its \(screenWidth)x\(screenHeight) screen")
        }
        guard let map = frame.ColorMap ?? file.pointee.SColorMap, let colours = map.pointee.Colors else {
            throw .corrupt(reason: "GIF frame 1 has no colour table")
        }
        let colourCount = Int(map.pointee.ColorCount)
        var canvas = PixelBuffer(width: screenWidth, height: screenHeight, channels: 4)
        var row = [GifPixelType](repeating: 0, count: width)
        // GIF's interlace: every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1.
        let order: [Int] = frame.Interlace
            ? [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in Array(stride(from: start, to: height, by: step)) }
            : Array(0..<height)
        for (decodedRows, line) in order.enumerated() {
            if decodedRows % WorkBudget.bandRows == 0 { try budget.check() }
            guard DGifGetLine(file, &row, Int32(width)) == GIF_OK else { throw GIFValidator.failure(file) }
            let start = ((top + line) * screenWidth + left) * 4
            for x in 0..<width {
                let index = Int(row[x])
                guard index != transparentIndex, index < colourCount else { continue }
                let colour = colours[index]
                canvas.pixels[start + x * 4] = colour.Red
                canvas.pixels[start + x * 4 + 1] = colour.Green
                canvas.pixels[start + x * 4 + 2] = colour.Blue
                canvas.pixels[start + x * 4 + 3] = 255
            }
        }
        return DecodedImage(pixels: canvas, iccProfile: nil)
    }
}
