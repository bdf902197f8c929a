import CPNG   // libpng's header brings zlib's deflate and adler32
import Foundation

/// PNG decompression bombs built at test time, so no multi-megabyte fixture is committed.
public enum PNGBomb {
    /// A valid `width`×`height` RGB PNG (a gradient; black when `interlaced`, Adam7) whose one zlib stream goes
    /// on after the last row with `trailingZeroBytes` of zeros, then ends with a correct checksum. The file is
    /// about a thousandth of `trailingZeroBytes`: the zeros are one full-flushed deflate run repeated, so building
    /// it costs milliseconds.
    public static func trailingZeros(width: Int, height: Int, trailingZeroBytes: Int, interlaced: Bool = false) -> Data {
        var rows = [UInt8]()
        if interlaced {
            // Each Adam7 pass is a sub-image of its own rows (filter byte, then zero pixels).
            let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            for (x, y, xStep, yStep) in passes where width > x && height > y {
                let passWidth = (width - x + xStep - 1) / xStep, passHeight = (height - y + yStep - 1) / yStep
                rows += [UInt8](repeating: 0, count: passHeight * (1 + passWidth * 3))
            }
        } else {
            rows.reserveCapacity(height * (1 + width * 3))
            for y in 0..<height {
                rows.append(0)   // filter: none
                for x in 0..<width { rows += [UInt8(truncatingIfNeeded: x), UInt8(truncatingIfNeeded: y), 128] }
            }
        }
        var stream = z_stream()
        precondition(deflateInit_(&stream, Z_BEST_COMPRESSION, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var compressed = deflate(&stream, rows, flush: Z_FULL_FLUSH)
        // After a full flush the compressor keeps no history, so equal input gives equal output: compress one
        // run of zeros, check that a second run compresses the same, and repeat those bytes.
        let run = [UInt8](repeating: 0, count: 16 << 20)
        let first = deflate(&stream, run, flush: Z_FULL_FLUSH)
        precondition(deflate(&stream, run, flush: Z_FULL_FLUSH) == first)
        let runs = max(2, trailingZeroBytes / run.count)
        for _ in 0..<runs { compressed += first }
        compressed += deflate(&stream, [], flush: Z_FINISH)
        // zlib's trailer covers what it was fed (two runs); rewrite it for the rows and every run.
        var checksum = UInt32(adler32(1, rows, UInt32(rows.count)))
        let zerosAdler = adler32(1, run, UInt32(run.count))
        for _ in 0..<runs { checksum = UInt32(adler32_combine(uLong(checksum), zerosAdler, off_t(run.count))) }
        compressed.replaceSubrange((compressed.count - 4)..., with: bigEndian32(checksum))

        let imageData = stride(from: 0, to: compressed.count, by: 1 << 20).map { offset in
            (type: "IDAT", body: Array(compressed[offset..<min(compressed.count, offset + (1 << 20))]))
        }
        return PNGFile.file(header: PNGFile.header(width: width, height: height, colourType: 2, interlaced: interlaced), chunks: imageData)
    }

    private static func deflate(_ stream: inout z_stream, _ input: [UInt8], flush: Int32) -> [UInt8] {
        var output = [UInt8]()
        var input = input
        input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(source.count)
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            repeat {
                buffer.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = UInt32(target.count)
                    let status = CPNG.deflate(&stream, flush)
                    precondition(status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR)
                    output += target[0..<(target.count - Int(stream.avail_out))]
                }
            } while stream.avail_out == 0
        }
        return output
    }
}
