import CDeflate
import Foundation
import RichPushCore

/// The fast path for the common PNG: non-interlaced 8-bit grey, grey+alpha, RGB or RGBA with no chunk that could
/// change its pixels. Grey comes out as RGB and grey+alpha as RGBA, as libpng's transforms give them.
/// libdeflate inflates all of the image data at once into a buffer of exactly the size the rows need, and the rows
/// are unfiltered here as they are read.
///
/// Why: on the 1920 px corpus PNG, libpng's unfiltering and zlib's inflate and checksums were 70% of the render;
/// libdeflate inflates about twice as fast as zlib. Nothing past the image's own bytes is ever inflated: a stream
/// that holds more (a bomb), less, or a bad checksum is left to libpng, whose answer stands, so the two paths
/// accept and reject the same files (`richpush-fuzz png-paths` checks that). Every other file (Adam7, 16-bit,
/// low bit depths, palette, tRNS, iCCP, odd chunks) goes to libpng too.
///
/// A class because its rows are unfiltered in place as they are read, by one decode on one thread.
///
/// Cost: the filtered image in memory, which is why files whose rows exceed `maximumFilteredBytes` take libpng's
/// streaming path instead; and one inflate call that cannot stop early (about 30 ms for the largest allowed).
final class PNGInflatedRows {
    /// 48 MB of rows: a 4000 × 3000 RGBA image. Above it the banded libpng path keeps memory to one band, which
    /// the memory targets (36 MP RGBA under 120 MB) need.
    static let maximumFilteredBytes = 48 << 20

    /// Chunks that may stand beside the image data without changing its pixels or libpng's verdict.
    static let harmlessChunks: Set<String> = ["IHDR", "IDAT", "IEND", "pHYs", "tIME", "gAMA", "cHRM", "sRGB", "tEXt"]

    let width: Int
    let height: Int
    /// Channels of the output rows: 3, or 4 with alpha.
    let channels: Int
    /// Bytes per pixel in the file: 1 (grey), 2 (grey+alpha), 3 or 4.
    private let fileChannels: Int
    private var filtered: [UInt8]
    private var nextRow = 0

    private var rowBytes: Int { width * fileChannels }

    /// Inflates the image data, or returns nil when the file is not the common case or its stream is not exactly
    /// the image's rows (libpng then decides).
    init?(_ bytes: Data, chunks: PNGChunkList, limits: ImageLimits) {
        guard chunks.chunks.first?.type == "IHDR", chunks.chunks.dropFirst().allSatisfy({ $0.type != "IHDR" }),
              chunks.chunks.allSatisfy({ Self.harmlessChunks.contains($0.type) }),
              let header = chunks.chunks.first?.data, header.count == 13, let imageData = chunks.imageData else { return nil }
        let fields: (width: Int, height: Int, depth: UInt8, colour: UInt8, methods: [UInt8]) = bytes.withUnsafeBytes { raw in
            let reader = ByteReader(bytes: raw)
            return (reader.uint32BigEndian(header.lowerBound) ?? 0, reader.uint32BigEndian(header.lowerBound + 4) ?? 0,
                    raw[header.lowerBound + 8], raw[header.lowerBound + 9], Array(raw[(header.lowerBound + 10)..<header.upperBound]))
        }
        guard fields.depth == 8, [0, 2, 4, 6].contains(fields.colour), fields.methods == [0, 0, 0],
              fields.width >= 1, fields.width <= limits.maximumSide, fields.height >= 1, fields.height <= limits.maximumSide,
              (try? limits.check(width: fields.width, height: fields.height)) != nil else { return nil }
        width = fields.width
        height = fields.height
        fileChannels = [0: 1, 2: 3, 4: 2, 6: 4][fields.colour] ?? 3
        channels = fields.colour & 4 == 0 ? 3 : 4
        let filteredCount = height * (width * fileChannels + 1)
        guard filteredCount <= Self.maximumFilteredBytes,
              let inflated = Self.inflate(bytes, imageData: imageData, count: filteredCount) else { return nil }
        filtered = inflated
    }

    private static func inflate(_ bytes: Data, imageData: [Range<Int>], count: Int) -> [UInt8]? {
        var compressed = [UInt8]()
        compressed.reserveCapacity(imageData.reduce(0) { $0 + $1.count })
        bytes.withUnsafeBytes { raw in
            for range in imageData { compressed.append(contentsOf: raw[range]) }
        }
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        var output = [UInt8](repeating: 0, count: count)
        // No actual-size pointer: libdeflate then succeeds only when the stream fills the buffer exactly.
        let result = compressed.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { output in
                libdeflate_zlib_decompress(decompressor, input.baseAddress, input.count, output.baseAddress, output.count, nil)
            }
        }
        return result == LIBDEFLATE_SUCCESS ? output : nil
    }

    /// Unfilters the next `count` rows into `buffer`'s rows from `firstRow`.
    func read(into buffer: inout PixelBuffer, at firstRow: Int, count: Int) throws(ImageError) {
        let rowBytes = self.rowBytes, fileChannels = self.fileChannels, outputRowBytes = width * channels
        let first = nextRow
        guard first + count <= height else { throw .corrupt(reason: "PNG: read past the last row") }
        let failure: ImageError? = filtered.withUnsafeMutableBufferPointer { filtered in
            buffer.pixels.withUnsafeMutableBufferPointer { pixels in
                for row in first..<(first + count) {
                    let start = row * (rowBytes + 1)
                    let current = UnsafeMutableBufferPointer(rebasing: filtered[(start + 1)..<(start + 1 + rowBytes)])
                    // The row above, already unfiltered in place.
                    let previous = row == 0 ? nil : UnsafeBufferPointer(rebasing: filtered[(start - rowBytes)..<start])
                    guard let filter = PNGRowFilter(rawValue: filtered[start]) else {
                        return .corrupt(reason: "PNG: bad adaptive filter value \(filtered[start]) in row \(row)")
                    }
                    filter.unfilter(current, previous: previous, bytesPerPixel: fileChannels)
                    let destination = UnsafeMutableBufferPointer(
                        rebasing: pixels[((firstRow + row - first) * outputRowBytes)..<((firstRow + row - first + 1) * outputRowBytes)])
                    Self.expand(UnsafeBufferPointer(current), fileChannels: fileChannels, into: destination)
                }
                return nil
            }
        }
        if let failure { throw failure }
        nextRow += count
    }

    /// Copies an unfiltered row out: RGB and RGBA as they are, grey as RGB and grey+alpha as RGBA.
    private static func expand(_ row: UnsafeBufferPointer<UInt8>, fileChannels: Int,
                               into output: UnsafeMutableBufferPointer<UInt8>) {
        switch fileChannels {
        case 1:
            for (index, grey) in row.enumerated() {
                output[index * 3] = grey
                output[index * 3 + 1] = grey
                output[index * 3 + 2] = grey
            }
        case 2:
            for pixel in 0..<(row.count / 2) {
                let grey = row[pixel * 2]
                output[pixel * 4] = grey
                output[pixel * 4 + 1] = grey
                output[pixel * 4 + 2] = grey
                output[pixel * 4 + 3] = row[pixel * 2 + 1]
            }
        default:
            UnsafeMutableRawBufferPointer(output).copyMemory(from: UnsafeRawBufferPointer(row))
        }
    }
}
