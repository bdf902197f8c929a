import Foundation

/// A check of an ISO base media file's top-level boxes before it is published unchanged: a file a device cannot
/// open should fail here, with a reason, rather than on the phone.
package enum ISOMediaStructure {
    /// Why `bytes` are not a whole ISO media file, or nil when they are: every top-level box (32-bit size, 64-bit
    /// `largesize` when the size is 1, to the end of the file when it is 0) is at least its header and ends within
    /// the file, the boxes end exactly at the end of the file, and one of them is `moov` (the movie header every
    /// player needs). Costs one step per top-level box (a handful); nothing is decoded.
    package static func problem(with bytes: Data) -> String? {
        let reader = [UInt8](bytes)
        var offset = 0
        var hasMovie = false
        while offset < reader.count {
            guard reader.count - offset >= 8 else {
                return "\(reader.count - offset) stray bytes after the last box at offset \(offset)"
            }
            let size32 = reader[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: reader[offset + 4..<offset + 8], as: UTF8.self)
            var size = size32
            var header = 8
            if size32 == 1 {
                guard reader.count - offset >= 16 else { return "box \(type) at offset \(offset) is truncated" }
                let large = reader[offset + 8..<offset + 16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard large <= UInt64(Int.max) else { return "box \(type) at offset \(offset) claims \(large) bytes" }
                size = Int(large)
                header = 16
            } else if size32 == 0 {
                size = reader.count - offset
            }
            guard size >= header else { return "box \(type) at offset \(offset) is \(size) bytes, under its header" }
            guard size <= reader.count - offset else {
                return "box \(type) at offset \(offset) claims \(size) bytes, but \(reader.count - offset) remain (truncated)"
            }
            if type == "moov" { hasMovie = true }
            offset += size
        }
        return hasMovie ? nil : "no moov box (movie header)"
    }
}
