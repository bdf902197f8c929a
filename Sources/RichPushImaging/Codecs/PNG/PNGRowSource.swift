
/// Where a non-interlaced PNG's rows come from: libpng reading as it goes, or the libdeflate fast path.
enum PNGRowSource {
    case libpng(OpaquePointer, LibraryStopCheck)
    case inflated(PNGInflatedRows)

    /// Reads the next `count` rows into `rows`, `rowBytes` (the image's width × channels) apart.
    func read(_ count: Int, into rows: UnsafeMutablePointer<UInt8>, rowBytes: Int) throws(ImageError) {
        switch self {
        case .libpng(let decoder, let stopCheck):
            try PNGDecoder.readRows(decoder, into: rows, rowBytes: rowBytes, count: count, stopCheck: stopCheck)
        case .inflated(let inflated):
            try inflated.read(count, into: rows)
        }
    }

    /// Reads the next `count` rows into `buffer`'s rows from `firstRow`.
    func read(into buffer: inout PixelBuffer, at firstRow: Int, count: Int) throws(ImageError) {
        let rowBytes = buffer.rowBytes
        try buffer.pixels.withUnsafeMutableBufferPointer { (pixels) throws(ImageError) in
            try read(count, into: pixels.baseAddress! + firstRow * rowBytes, rowBytes: rowBytes)
        }
    }
}
