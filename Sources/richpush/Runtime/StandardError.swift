import Foundation

/// Writes to standard error: logs, progress and summaries never mix with results on standard output.
enum StandardError {
    private static let lock = NSLock()

    static func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// Writes result lines to standard output, one complete line per call, in one `writev(2)` of the line and its
/// newline (the line is not copied to append it). A write that standard output refuses for good (its reader has
/// gone, with SIGPIPE ignored) ends the process with status 74 (`EX_IOERR`) and a message: no later line could be
/// delivered either.
enum StandardOutput {
    private static let lock = NSLock()

    static func writeLine(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        var newline: UInt8 = 0x0A
        let written = data.withUnsafeBytes { line in
            withUnsafeMutableBytes(of: &newline) { newlineBytes in
                withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { vectors in
                    vectors[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: line.baseAddress), iov_len: line.count)
                    vectors[1] = iovec(iov_base: newlineBytes.baseAddress, iov_len: 1)
                    let written = writev(STDOUT_FILENO, vectors.baseAddress, 2)
                    return writeFully(line, newline: newlineBytes, firstAttempt: written)
                }
            }
        }
        if !written {
            StandardError.write("richpush: standard output refused a result line (\(String(cString: strerror(errno)))); stopping\n")
            exit(74)
        }
    }

    /// Finishes a line after `firstAttempt` (the bytes `writev` wrote, or -1): the rest is written with `write(2)`,
    /// again after an interruption or a full non-blocking pipe. False when standard output fails.
    private static func writeFully(_ line: UnsafeRawBufferPointer, newline: UnsafeMutableRawBufferPointer,
                                   firstAttempt: Int) -> Bool {
        var done = 0
        var result = firstAttempt
        while true {
            if result < 0 {
                guard errno == EINTR || errno == EAGAIN else { return false }
                if errno == EAGAIN {
                    var descriptor = pollfd(fd: STDOUT_FILENO, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&descriptor, 1, -1)
                }
            } else {
                done += result
            }
            if done >= line.count + 1 { return true }
            result = done < line.count
                ? Glibc.write(STDOUT_FILENO, line.baseAddress.map { $0 + done }, line.count - done)
                : Glibc.write(STDOUT_FILENO, newline.baseAddress, 1)
        }
    }

    static func write(_ text: String) {
        writeLine(Data(text.utf8))
    }
}
