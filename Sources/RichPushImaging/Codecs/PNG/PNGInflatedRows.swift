import CDeflate
import Foundation

/// The fast path for the common PNG: non-interlaced 8-bit grey, grey+alpha, RGB or RGBA, or a palette of 1 to 8
/// bits with or without tRNS, with no chunk that could change its pixels. Rows come out as RGB, or RGBA with alpha
/// or tRNS, exactly as libpng's transforms give them (`PNGRowLayout`). libdeflate inflates all of the image data
/// at once into a buffer of exactly the size the rows need, and the rows are unfiltered here as they are read.
///
/// Why: on the 1920 px corpus PNG, libpng's unfiltering and zlib's inflate and checksums were most of the render,
/// and libdeflate inflates faster than zlib (docs/benchmarks.md, "PNG: libdeflate, Huffman-only coding and a fast
/// decode path"). Nothing past the image's own bytes is ever inflated: a stream that holds more (a bomb), less, or
/// a bad checksum is left to libpng, whose answer stands, so the two paths accept and reject the same files
/// (`richpush-fuzz png-paths` checks that). Every other file (Adam7, 16-bit, low-bit grey, tRNS on grey or RGB,
/// iCCP, odd chunks) goes to libpng too.
///
/// A class because its rows are unfiltered in place as they are read, by one decode on one thread.
///
/// Cost: the filtered image in memory, which is why files whose rows exceed `maximumFilteredBytes` take libpng's
/// streaming path instead; and one inflate call that cannot stop early, bounded by `maximumFilteredBytes`.
final class PNGInflatedRows {
    /// 48 MB of rows: a 4000 × 3000 RGBA image. Above it the banded libpng path keeps memory to one band, which
    /// the memory targets (36 MP RGBA under 120 MB) need.
    static let maximumFilteredBytes = 48 << 20

    /// Chunks that may stand beside the image data without changing its pixels or libpng's verdict (libpng only
    /// warns about a bad one, and we set no transform that reads them); a palette image's PLTE and tRNS are
    /// checked by `PNGRowLayout.make`.
    static let harmlessChunks: Set<String> = [
        "IHDR", "IDAT", "IEND", "pHYs", "tIME", "gAMA", "cHRM", "sRGB", "tEXt", "sBIT", "bKGD", "PLTE", "tRNS",
    ]

    let width: Int
    let height: Int
    private let layout: PNGRowLayout
    private var filtered: [UInt8]
    private var nextRow = 0

    /// Channels of the output rows: 3, or 4 with alpha.
    var channels: Int { layout.channels }

    /// The bytes the fast path inflates for a `width`x`height` image of `bitsPerPixel` stored bits a pixel: each
    /// row's filter byte and its packed samples. What `RenderPlan` counts when it chooses this path.
    static func filteredBytes(width: Int, height: Int, bitsPerPixel: Int) -> Int {
        height * ((width * bitsPerPixel + 7) / 8 + 1)
    }

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
        guard fields.methods == [0, 0, 0],
              fields.width >= 1, fields.width <= limits.maximumSide, fields.height >= 1, fields.height <= limits.maximumSide,
              (try? limits.check(width: fields.width, height: fields.height)) != nil,
              let layout = PNGRowLayout.make(colourType: fields.colour, depth: fields.depth, chunks: chunks, in: bytes) else { return nil }
        width = fields.width
        height = fields.height
        self.layout = layout
        let filteredCount = Self.filteredBytes(width: width, height: height, bitsPerPixel: layout.bitsPerPixel)
        guard filteredCount <= Self.maximumFilteredBytes,
              let inflated = Self.inflate(bytes, imageData: imageData, count: filteredCount) else { return nil }
        filtered = inflated
    }

    /// The zlib stream of `imageData`'s chunks inflated into exactly `count` bytes, or nil when it is not exactly
    /// that. Neither buffer is zeroed first: both are written whole before they are read.
    private static func inflate(_ bytes: Data, imageData: [Range<Int>], count: Int) -> [UInt8]? {
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        return bytes.withUnsafeBytes { raw -> [UInt8]? in
            // One IDAT chunk is inflated where it lies; several are joined first (libdeflate has no streaming).
            let joined: [UInt8]? = imageData.count == 1 ? nil : [UInt8](
                unsafeUninitializedCapacity: imageData.reduce(0) { $0 + $1.count }
            ) { joined, written in
                for range in imageData {
                    UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: joined[written..<(written + range.count)]))
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[range]))
                    written += range.count
                }
            }
            var succeeded = false
            let output = [UInt8](unsafeUninitializedCapacity: count) { output, written in
                let destination = output.baseAddress
                func inflate(_ input: UnsafeRawBufferPointer) -> libdeflate_result {
                    // No actual-size pointer: libdeflate then succeeds only when the stream fills the buffer exactly.
                    libdeflate_zlib_decompress(decompressor, input.baseAddress, input.count, destination, count, nil)
                }
                let result = joined.map { $0.withUnsafeBytes(inflate) } ?? inflate(UnsafeRawBufferPointer(rebasing: raw[imageData[0]]))
                succeeded = result == LIBDEFLATE_SUCCESS
                written = succeeded ? count : 0
            }
            return succeeded ? output : nil
        }
    }

    /// Unfilters the next `count` rows into `rows`, one after another (`width × channels` bytes each).
    func read(_ count: Int, into rows: UnsafeMutablePointer<UInt8>) throws(ImageError) {
        let layout = layout, width = width, rowBytes = layout.rowBytes(width: width), step = layout.bytesPerPixel
        let outputRowBytes = width * layout.channels
        let first = nextRow
        guard first + count <= height else { throw .corrupt(reason: "PNG: read past the last row") }
        let failure: ImageError? = filtered.withUnsafeMutableBufferPointer { filtered in
            let base = filtered.baseAddress!
            var row = first
            while row < first + count {
                let start = row * (rowBytes + 1)
                guard let filter = PNGRowFilter(rawValue: filtered[start]) else {
                    return .corrupt(reason: "PNG: bad adaptive filter value \(filtered[start]) in row \(row)")
                }
                let current = base + start + 1
                // The row above, already unfiltered in place.
                let previous = row == 0 ? nil : UnsafePointer(base + start - rowBytes)
                let next = current + rowBytes + 1
                var rowsDone = 1
                if filter == .paeth, step >= 3, let previous, row + 1 < first + count, next[-1] == PNGRowFilter.paeth.rawValue {
                    PNGRowFilter.unfilterPaethRowPair(current, next, above: previous, count: rowBytes, bytesPerPixel: step)
                    rowsDone = 2
                } else {
                    filter.unfilter(UnsafeMutableBufferPointer(start: current, count: rowBytes),
                                    previous: previous.map { UnsafeBufferPointer(start: $0, count: rowBytes) }, bytesPerPixel: step)
                }
                for done in 0..<rowsDone {
                    layout.expand(UnsafeBufferPointer(start: current + done * (rowBytes + 1), count: rowBytes), width: width,
                                  into: UnsafeMutableBufferPointer(start: rows + (row + done - first) * outputRowBytes, count: outputRowBytes))
                }
                row += rowsDone
            }
            return nil
        }
        if let failure { throw failure }
        nextRow += count
    }
}
