import RichPushCore

/// Where a non-interlaced PNG's rows come from: libpng reading as it goes, or the libdeflate fast path.
enum PNGRowSource {
    case libpng(OpaquePointer, LibraryStopCheck)
    case inflated(PNGInflatedRows)

    /// Reads the next `count` rows into `buffer`'s rows from `firstRow`.
    func read(into buffer: inout PixelBuffer, at firstRow: Int, count: Int) throws(ImageError) {
        switch self {
        case .libpng(let decoder, let stopCheck):
            try PNGDecoder.readRows(decoder, into: &buffer, at: firstRow, count: count, stopCheck: stopCheck)
        case .inflated(let rows):
            try rows.read(into: &buffer, at: firstRow, count: count)
        }
    }
}
