import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole file, or standard input for `-`, as a stream with `read(2)`: FIFOs and `<(…)` work as well as
/// regular files (Foundation's `Data(contentsOf:)` refuses what it cannot stat and seek), and a failure is one
/// plain sentence from `strerror`. Costs one 64 KB buffer beside the returned bytes.
enum FileContents {
    struct ReadError: Error, CustomStringConvertible {
        let path: String
        let reason: String

        var description: String { "cannot read \(path): \(reason)" }
    }

    static func read(_ path: String) throws(ReadError) -> Data {
        let descriptor = path == "-" ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ReadError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var data = Data()
        let chunkSize = 64 * 1024
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = Glibc.read(descriptor, chunk, chunkSize)
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw ReadError(path: path, reason: String(cString: strerror(errno))) }
            if count == 0 { return data }
            data.append(chunk.assumingMemoryBound(to: UInt8.self), count: count)
        }
    }
}
