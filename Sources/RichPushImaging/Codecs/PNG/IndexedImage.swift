/// An image of at most 256 colours: one palette index per pixel and the palette as straight RGBA, entries with
/// alpha below 255 first (so a PNG's tRNS chunk can omit the opaque tail).
struct IndexedImage: Sendable {
    var width: Int
    var height: Int
    /// 4 bytes (straight R, G, B, A) per entry, 1...256 entries.
    var palette: [UInt8]
    /// width × height indices into `palette`, row by row.
    var indices: [UInt8]

    var paletteCount: Int { palette.count / 4 }

    /// The number of leading entries that are not fully opaque (what tRNS must list).
    var translucentEntryCount: Int {
        var count = paletteCount
        while count > 0, palette[count * 4 - 1] == 255 { count -= 1 }
        return count
    }

    /// Every pixel's palette colour as straight RGBA: what a decoder shows. Cost: width × height × 4 bytes.
    func expanded() -> PixelBuffer {
        var output = PixelBuffer(width: width, height: height, channels: 4)
        palette.withUnsafeBufferPointer { palette in
            indices.withUnsafeBufferPointer { indices in
                output.pixels.withUnsafeMutableBufferPointer { destination in
                    for pixel in 0..<indices.count {
                        let entry = Int(indices[pixel]) * 4
                        destination[pixel * 4] = palette[entry]
                        destination[pixel * 4 + 1] = palette[entry + 1]
                        destination[pixel * 4 + 2] = palette[entry + 2]
                        destination[pixel * 4 + 3] = palette[entry + 3]
                    }
                }
            }
        }
        return output
    }
}
