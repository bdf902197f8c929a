import Foundation

/// How the fast path (`PNGInflatedRows`) reads one unfiltered row of a PNG and writes it as 8-bit RGB or RGBA,
/// giving exactly what libpng's `png_set_expand` and `png_set_gray_to_rgb` give.
enum PNGRowLayout {
    case grey, greyAlpha, rgb, rgba
    /// Indices of `depth` bits (1, 2, 4 or 8) into `colours` (256 RGB entries, those the file leaves out black,
    /// as libpng leaves them), with `alphas` (256 entries, those tRNS leaves out opaque) when tRNS is present.
    case palette(depth: Int, colours: [UInt8], alphas: [UInt8]?)

    /// The layout of a non-interlaced file with `colourType` and `depth`, or nil where the fast path stops and
    /// libpng decides: another depth, a palette image whose PLTE or tRNS libpng would refuse, ignore or take
    /// from the wrong place, and a PLTE or tRNS beside any other colour type.
    static func make(colourType: UInt8, depth: UInt8, chunks: PNGChunkList, in bytes: Data) -> PNGRowLayout? {
        let types = chunks.chunks.map(\.type)
        guard reads(colourType: colourType, depth: depth) else { return nil }
        guard colourType == 3 else {
            guard !types.contains("PLTE"), !types.contains("tRNS") else { return nil }
            return [0: .grey, 2: .rgb, 4: .greyAlpha, 6: .rgba][colourType]
        }
        // One PLTE before the image data, and at most one tRNS between them (libpng 1.6's own order rules).
        guard types.filter({ $0 == "PLTE" }).count == 1, types.filter({ $0 == "tRNS" }).count <= 1,
              let paletteIndex = types.firstIndex(of: "PLTE"), let dataIndex = types.firstIndex(of: "IDAT"),
              paletteIndex < dataIndex else { return nil }
        let paletteRange = chunks.chunks[paletteIndex].data
        // An empty, ragged or over-long PLTE is an error in libpng; entries past 2^depth it drops.
        guard paletteRange.count >= 3, paletteRange.count % 3 == 0, paletteRange.count <= 768 else { return nil }
        let entries = min(paletteRange.count / 3, 1 << Int(depth))
        let colours = bytes.withUnsafeBytes { raw in
            Array(raw[paletteRange.lowerBound..<(paletteRange.lowerBound + entries * 3)]) + [UInt8](repeating: 0, count: 768 - entries * 3)
        }
        guard let transparencyIndex = types.firstIndex(of: "tRNS") else { return .palette(depth: Int(depth), colours: colours, alphas: nil) }
        let transparency = chunks.chunks[transparencyIndex].data
        // libpng ignores a tRNS out of place, empty or longer than the palette (a benign error): libpng's path.
        guard paletteIndex < transparencyIndex, transparencyIndex < dataIndex,
              transparency.count >= 1, transparency.count <= entries else { return nil }
        let alphas = bytes.withUnsafeBytes { raw in
            Array(raw[transparency]) + [UInt8](repeating: 255, count: 256 - transparency.count)
        }
        return .palette(depth: Int(depth), colours: colours, alphas: alphas)
    }

    /// Whether the fast path reads `colourType` at `depth` at all: 8-bit grey, grey+alpha, RGB or RGBA, or a
    /// palette of 1 to 8 bits (the file's chunks may still leave it to libpng, see `make`).
    static func reads(colourType: UInt8, depth: UInt8) -> Bool {
        colourType == 3 ? [1, 2, 4, 8].contains(depth) : depth == 8 && [0, 2, 4, 6].contains(colourType)
    }

    /// Bytes per pixel for the row filters: 1 below 8 bits.
    var bytesPerPixel: Int {
        switch self {
        case .grey, .palette: 1
        case .greyAlpha: 2
        case .rgb: 3
        case .rgba: 4
        }
    }

    /// Channels of the output rows: 3, or 4 with alpha.
    var channels: Int {
        switch self {
        case .grey, .rgb, .palette(_, _, nil): 3
        case .greyAlpha, .rgba, .palette: 4
        }
    }

    /// Bytes of one unfiltered row of `width` pixels.
    func rowBytes(width: Int) -> Int { (width * bitsPerPixel + 7) / 8 }

    /// Bits of one stored pixel: the palette's depth, else 8 per sample.
    var bitsPerPixel: Int {
        if case .palette(let depth, _, _) = self { return depth }
        return 8 * bytesPerPixel
    }

    /// Writes the unfiltered `row` of `width` pixels into `output` as RGB or RGBA.
    func expand(_ row: UnsafeBufferPointer<UInt8>, width: Int, into output: UnsafeMutableBufferPointer<UInt8>) {
        switch self {
        case .grey:
            for (index, grey) in row.prefix(width).enumerated() {
                output[index * 3] = grey
                output[index * 3 + 1] = grey
                output[index * 3 + 2] = grey
            }
        case .greyAlpha:
            for pixel in 0..<width {
                let grey = row[pixel * 2]
                output[pixel * 4] = grey
                output[pixel * 4 + 1] = grey
                output[pixel * 4 + 2] = grey
                output[pixel * 4 + 3] = row[pixel * 2 + 1]
            }
        case .rgb, .rgba:
            UnsafeMutableRawBufferPointer(output).copyMemory(from: UnsafeRawBufferPointer(row))
        case .palette(let depth, let colours, let alphas):
            let perByte = 8 / depth, mask = (1 << depth) - 1, channels = alphas == nil ? 3 : 4
            for pixel in 0..<width {
                // Pixels are packed from the high bits down.
                let shift = 8 - depth * (pixel % perByte + 1)
                let index = Int(row[pixel / perByte] >> shift) & mask
                output[pixel * channels] = colours[index * 3]
                output[pixel * channels + 1] = colours[index * 3 + 1]
                output[pixel * channels + 2] = colours[index * 3 + 2]
                if let alphas { output[pixel * 4 + 3] = alphas[index] }
            }
        }
    }
}
