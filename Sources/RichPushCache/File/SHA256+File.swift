import Foundation
import RichPushCore

extension SHA256 {
    /// Lowercase hexadecimal digest and size of the file at `path`, read in 1 MiB chunks (constant memory).
    package static func hexDigest(ofFileAt path: String) throws(CacheError) -> (hexDigest: String, bytes: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CacheError.io(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var hasher = SHA256()
        var total = 0
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = read(descriptor, chunk.baseAddress, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw CacheError.io(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            hasher.update(buffer: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
            total += count
        }
        return (hexString(hasher.finalize()), total)
    }
}
