import Foundation

/// JPEGs whose cost is in their scans: the shape of the files that buy seconds of decoding with a few kilobytes.
public enum JPEGScanFlood {
    /// A progressive greyscale JPEG's structure: a frame of `width`x`height`, then `scans` scans of its one
    /// component, each with a few bytes of entropy-coded data (a stuffed 0xFF and a restart marker among them).
    /// Not decodable: it stands for the many-scan files that are, which the probe must refuse just the same,
    /// from their headers.
    public static func jpeg(width: Int, height: Int, scans: Int) -> Data {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xC2, 0x00, 0x0B, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
                  0x01, 0x01, 0x11, 0x00]
        for _ in 0..<scans {
            bytes += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x01, 0x3F, 0x00]
            bytes += [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56]
        }
        bytes += [0xFF, 0xD9]
        return Data(bytes)
    }
}
