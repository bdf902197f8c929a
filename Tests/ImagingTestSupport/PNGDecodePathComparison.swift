import CDeflate
import Foundation
import RichPushImaging

/// Decodes the same bytes through the libdeflate fast path (where the file qualifies) and through libpng alone,
/// for the differential fuzz target (`richpush-fuzz png-paths`) and its regression tests.
public enum PNGDecodePathComparison {
    /// zlib's messages for the reserved codes of fixed-Huffman blocks (literal/length 286-287, distance 30-31),
    /// which libdeflate 1.14 decodes and zlib refuses. RFC 1951 says they never occur in compressed data, and no
    /// encoder writes them, so a stream with them is one a fuzzer made; the fast path renders it, libpng would
    /// refuse it, and neither answer is unsafe. This is the one disagreement the comparison allows.
    public static let zlibOnlyRejections = ["invalid literal/length code", "invalid distance code"]

    /// The bytes with every whole chunk's CRC rewritten to match its type and data, so that mutated inputs get
    /// past the chunk walk and reach both decoders (without it nearly every mutation stops at a wrong CRC).
    public static func repairingChunkCRCs(_ bytes: Data) -> Data {
        var repaired = Array(bytes)
        repaired.withUnsafeMutableBytes { raw in
            _ = try? PNGDecoder.walkChunks(UnsafeRawBufferPointer(raw)) { _, data in
                let crc = libdeflate_crc32(0, raw.baseAddress! + data.lowerBound - 4, data.count + 4)
                for index in 0..<4 { raw[data.upperBound + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
                return true
            }
        }
        return Data(repaired)
    }

    /// nil when both paths give the same pixels, or both reject the file; otherwise what differs. The fuzz target
    /// passes its own small limits, which keep each run fast.
    public static func difference(in bytes: Data, limits: ImageLimits = ImageLimits()) -> String? {
        let budget = WorkBudget(deadline: .now + .seconds(10))
        func decode(allowingFastPath: Bool) -> Result<PixelBuffer, ImageError> {
            Result { () throws(ImageError) in
                try PNGDecoder.decode(bytes, limits: limits, allowsFastPath: allowingFastPath, budget: budget).pixels
            }
        }
        switch (decode(allowingFastPath: true), decode(allowingFastPath: false)) {
        case (.success(let fast), .success(let libpng)):
            guard fast.width == libpng.width, fast.height == libpng.height, fast.channels == libpng.channels else {
                return "fast path \(fast.width)x\(fast.height)x\(fast.channels), libpng \(libpng.width)x\(libpng.height)x\(libpng.channels)"
            }
            if let index = fast.pixels.indices.first(where: { fast.pixels[$0] != libpng.pixels[$0] }) {
                return "pixels differ from byte \(index)"
            }
            return nil
        case (.failure, .failure):
            return nil
        case (.success, .failure(let error)) where zlibOnlyRejections.contains(where: error.description.contains):
            return nil
        case (.success, .failure(let error)):
            return "the fast path accepted what libpng rejects: \(error.description)"
        case (.failure(let error), .success):
            return "the fast path rejected what libpng accepts: \(error.description)"
        }
    }
}
