import CDeflate
import Foundation

/// PNG encoding of RGB/RGBA pixels, or of a palette image (`IndexedImage`, colour type 3): libpng's adaptive row
/// filters, the whole image compressed at once (`PNGCompression`), and the chunks (IHDR, iCCP when a profile is
/// carried, PLTE and tRNS for a palette, IDAT, IEND) written here.
///
/// Why not libpng: its time went into zlib's matching, which buys nothing on filtered photographs. Cost: the
/// filtered image (height × (1 + row bytes)) and the compressed output in memory; the compression cannot stop
/// early, so the budget is checked before it.
enum PNGEncoder {
    static func encode(_ image: PixelBuffer, iccProfile: [UInt8]?, budget: WorkBudget) throws(ImageError) -> Data {
        let filtered = try filterRows(of: image, budget: budget)
        try budget.check()
        // 8-bit RGB(A), deflate, adaptive filters, no interlace.
        return try file(width: image.width, height: image.height, depth: 8, colourType: image.channels == 4 ? 6 : 2,
                        paletteChunks: [], iccProfile: iccProfile, rows: filtered)
    }

    /// Colour type 3: the palette (PLTE), the alpha of its leading translucent entries (tRNS, omitted when there
    /// are none), and the indices packed at 1, 2 or 4 bits when the palette is that small, else 8.
    ///
    /// Rows are written unfiltered (filter None), as libpng does for palettes: indices are labels, not samples, so
    /// differences between neighbours predict nothing. Cost: the packed image (height × (1 + packed row bytes))
    /// and its compression.
    static func encode(_ image: IndexedImage, iccProfile: [UInt8]?, budget: WorkBudget) throws(ImageError) -> Data {
        let count = image.paletteCount
        guard (1...256).contains(count), image.indices.count == image.width * image.height else {
            throw .encodeFailed(reason: "PNG palette of \(count) entries for \(image.indices.count) indices")
        }
        let depth = count <= 2 ? 1 : count <= 4 ? 2 : count <= 16 ? 4 : 8
        let perByte = 8 / depth, rowBytes = (image.width + perByte - 1) / perByte
        var rows = [UInt8](repeating: 0, count: image.height * (rowBytes + 1))
        try budget.check()
        image.indices.withUnsafeBufferPointer { indices in
            rows.withUnsafeMutableBufferPointer { rows in
                for y in 0..<image.height {
                    let start = y * (rowBytes + 1) + 1   // after the row's filter byte, 0 (None)
                    for x in 0..<image.width {
                        let shift = 8 - depth * (x % perByte + 1)
                        rows[start + x / perByte] |= indices[y * image.width + x] << shift
                    }
                }
            }
        }
        try budget.check()
        var chunks: [(String, [UInt8])] = [("PLTE", (0..<count).flatMap { image.palette[($0 * 4)..<($0 * 4 + 3)] })]
        let translucent = image.translucentEntryCount
        if translucent > 0 { chunks.append(("tRNS", (0..<translucent).map { image.palette[$0 * 4 + 3] })) }
        return try file(width: image.width, height: image.height, depth: UInt8(depth), colourType: 3, paletteChunks: chunks,
                        iccProfile: iccProfile, rows: rows)
    }

    /// The whole file around filtered `rows`: signature, IHDR, iCCP when a profile is carried, the palette chunks,
    /// IDAT and IEND.
    private static func file(width: Int, height: Int, depth: UInt8, colourType: UInt8, paletteChunks: [(String, [UInt8])],
                             iccProfile: [UInt8]?, rows: [UInt8]) throws(ImageError) -> Data {
        let compressedImage = try PNGCompression.smallestStream(of: rows)
        var output = Data(capacity: compressedImage.count + 2048)
        output.append(contentsOf: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = [UInt8]()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [depth, colourType, 0, 0, 0]   // deflate, adaptive filters, no interlace
        appendChunk("IHDR", header, to: &output)
        if let iccProfile, !iccProfile.isEmpty {
            // Profile name "icc", a NUL, compression method 0, then the zlib-compressed profile.
            appendChunk("iCCP", Array("icc".utf8) + [0, 0] + (try PNGCompression.smallestStream(of: iccProfile)), to: &output)
        }
        for (type, data) in paletteChunks { appendChunk(type, data, to: &output) }
        appendChunk("IDAT", compressedImage, to: &output)
        appendChunk("IEND", [], to: &output)
        return output
    }

    /// Every row with its filter type byte in front, filtered in bands between budget checks.
    private static func filterRows(of image: PixelBuffer, budget: WorkBudget) throws(ImageError) -> [UInt8] {
        let rowBytes = image.rowBytes
        var filtered = [UInt8](repeating: 0, count: image.height * (rowBytes + 1))
        var scratch = [UInt8](repeating: 0, count: rowBytes * PNGRowFilter.allCases.count)
        var row = 0
        while row < image.height {
            try budget.check()
            let end = min(image.height, row + WorkBudget.bandRows)
            image.pixels.withUnsafeBufferPointer { pixels in
                scratch.withUnsafeMutableBufferPointer { scratch in
                    filtered.withUnsafeMutableBufferPointer { filtered in
                        for index in row..<end {
                            let current = UnsafeBufferPointer(rebasing: pixels[(index * rowBytes)..<((index + 1) * rowBytes)])
                            let previous = index == 0 ? nil
                                : UnsafeBufferPointer(rebasing: pixels[((index - 1) * rowBytes)..<(index * rowBytes)])
                            let output = UnsafeMutableBufferPointer(
                                rebasing: filtered[(index * (rowBytes + 1))..<((index + 1) * (rowBytes + 1))])
                            PNGRowFilter.filterBest(current, previous: previous, bytesPerPixel: image.channels,
                                                    scratch: scratch, into: output)
                        }
                    }
                }
            }
            row = end
        }
        return filtered
    }

    /// Length, type, data and the CRC-32 of type and data.
    private static func appendChunk(_ type: String, _ data: [UInt8], to output: inout Data) {
        var chunk = [UInt8]()
        chunk.reserveCapacity(data.count + 12)
        chunk.appendBigEndian(UInt32(data.count))
        chunk += Array(type.utf8)
        chunk += data
        let crc = chunk.withUnsafeBytes { raw in
            libdeflate_crc32(0, raw.baseAddress! + 4, raw.count - 4)
        }
        chunk.appendBigEndian(crc)
        output.append(contentsOf: chunk)
    }
}

private extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }
}
