import Foundation

/// Decodes the same bytes through the libdeflate fast path (where the file qualifies) and through libpng alone,
/// for the differential fuzz target (`richpush-fuzz png-paths`) and its regression tests.
package enum PNGDecodePathComparison {
    /// nil when both paths give the same pixels, or both reject the file; otherwise what differs. Small limits keep
    /// each run fast, as in the other fuzz targets.
    package static func difference(in bytes: Data) -> String? {
        let limits = ImageLimits(maximumPixels: 4_000_000, maximumSide: 4096, maximumSourceBytes: 1 << 20)
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
        case (.success, .failure(let error)):
            return "the fast path accepted what libpng rejects: \(error.description)"
        case (.failure(let error), .success):
            return "the fast path rejected what libpng accepts: \(error.description)"
        }
    }
}
