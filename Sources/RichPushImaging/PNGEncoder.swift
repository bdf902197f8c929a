import CDeflate
import Foundation

/// PNG encoding of RGB/RGBA pixels: libpng's adaptive row filters, the whole image compressed at once
/// (`PNGCompression`), and the chunks (IHDR, iCCP when a profile is carried, IDAT, IEND) written here.
///
/// Why not libpng: its time went into zlib's matching, which buys nothing on filtered photographs. Cost: the
/// filtered image (height × (1 + row bytes)) and the compressed output in memory; the compression cannot stop
/// early (about 150 ms for a 1038 × 1038 RGBA photo), so the budget is checked before it.
enum PNGEncoder {
    static func encode(_ image: PixelBuffer, iccProfile: [UInt8]?, budget: WorkBudget) throws(ImageError) -> Data {
        let filtered = try filterRows(of: image, budget: budget)
        try budget.check()
        let compressedImage = try PNGCompression.smallestStream(of: filtered)
        var output = Data(capacity: compressedImage.count + 1024)
        output.append(contentsOf: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = [UInt8]()
        header.appendBigEndian(UInt32(image.width))
        header.appendBigEndian(UInt32(image.height))
        header += [8, image.channels == 4 ? 6 : 2, 0, 0, 0]   // 8-bit RGB(A), deflate, adaptive filters, no interlace
        appendChunk("IHDR", header, to: &output)
        if let iccProfile, !iccProfile.isEmpty {
            // Profile name "icc", a NUL, compression method 0, then the zlib-compressed profile.
            appendChunk("iCCP", Array("icc".utf8) + [0, 0] + (try PNGCompression.smallestStream(of: iccProfile)), to: &output)
        }
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
