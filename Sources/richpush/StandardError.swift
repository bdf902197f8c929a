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

/// Writes result lines to standard output, one complete line per call.
enum StandardOutput {
    private static let lock = NSLock()

    static func writeLine(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        var line = data
        line.append(0x0A)
        FileHandle.standardOutput.write(line)
    }

    static func write(_ text: String) {
        writeLine(Data(text.utf8))
    }
}
