import CDeflate
import CPNG

/// The zlib stream for a PNG's filtered rows: the smaller of libdeflate's level 6 and zlib's Huffman-only coding.
///
/// Why two: filtered photographs are close to noise, and LZ matches there cost more than the literals they
/// replace (libpng asks zlib for `Z_FILTERED` for this reason). libdeflate has no such strategy: on the RGBA corpus
/// photo its level 6 came out larger than zlib's `Z_FILTERED`, while Huffman-only coding was both smaller and
/// faster (docs/benchmarks.md, "PNG: libdeflate, Huffman-only coding and a fast decode path"). Graphics (flat
/// areas, repeats) need LZ, where libdeflate is fast and small. Cost: both encodes; neither call can stop early.
enum PNGCompression {
    static let libdeflateLevel: Int32 = 6

    /// The smaller of the two streams; throws only when neither encoder could run.
    static func smallestStream(of bytes: [UInt8]) throws(ImageError) -> [UInt8] {
        let matched = libdeflateStream(of: bytes)
        let literal = huffmanOnlyStream(of: bytes)
        switch (matched, literal) {
        case let (matched?, literal?): return literal.count < matched.count ? literal : matched
        case let (stream?, nil), let (nil, stream?): return stream
        case (nil, nil): throw .encodeFailed(reason: "PNG: neither libdeflate nor zlib could compress \(bytes.count) bytes")
        }
    }

    /// libdeflate's zlib stream at `libdeflateLevel`, or nil when it could not allocate.
    static func libdeflateStream(of bytes: [UInt8]) -> [UInt8]? {
        guard let compressor = libdeflate_alloc_compressor(libdeflateLevel) else { return nil }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, bytes.count)
        var output = [UInt8](repeating: 0, count: bound)
        let written = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { output in
                libdeflate_zlib_compress(compressor, input.baseAddress, input.count, output.baseAddress, output.count)
            }
        }
        guard written > 0 else { return nil }
        output.removeLast(bound - written)
        return output
    }

    /// zlib's stream with `Z_HUFFMAN_ONLY` (no matches at all), or nil when zlib failed.
    static func huffmanOnlyStream(of bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        // deflateInit2 is a macro; this is what it expands to.
        guard deflateInit2_(&stream, 1, Z_DEFLATED, 15, 8, Z_HUFFMAN_ONLY, zlibVersion(),
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(bytes.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let status: Int32 = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { output in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(input.count)
                stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(output.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeLast(bound - Int(stream.total_out))
        return output
    }
}
