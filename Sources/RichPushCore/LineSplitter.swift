import Foundation

/// Splits a byte stream into NDJSON lines, the one rule every input path uses (`process`'s reader, `validate`'s
/// files, `serve`'s NDJSON bodies): lines end at `\n`, a `\r` before it is dropped, a last line without a newline is
/// still a line, and a line longer than `maximumLineBytes` is handed on cut to `maximumLineBytes + 1` bytes (so the
/// enricher rejects it as `line_too_long`) while the rest of it is skipped, never buffered.
///
/// Feed chunks of any size; memory is one line of at most `maximumLineBytes + 1` bytes.
package struct LineSplitter: Sendable {
    package let maximumLineBytes: Int
    private var line = Data()
    private var lineIsOpen = false

    package init(maximumLineBytes: Int) {
        self.maximumLineBytes = max(1, maximumLineBytes)
    }

    /// Scans `chunk`, calling `emit` with each line it completes; stops early (returning false) when `emit` does.
    /// Costs a `memchr` per line and a copy of each line's bytes (up to the cap).
    package mutating func feed(_ chunk: Data, emit: (Data) -> Bool) -> Bool {
        chunk.withUnsafeBytes { scan($0, emit: emit) }
    }

    /// `feed(_:emit:)` over a slice of a read buffer, e.g. `buffer[..<count]` after `read(2)`, without copying it.
    package mutating func feed(_ chunk: ArraySlice<UInt8>, emit: (Data) -> Bool) -> Bool {
        chunk.withUnsafeBytes { scan($0, emit: emit) }
    }

    /// Hands on the last line if it had no newline; call once at the end of the input.
    package mutating func finish(emit: (Data) -> Bool) {
        if lineIsOpen { _ = emit(takeLine()) }
    }

    /// Every line of `data`, as `feed` and `finish` give them.
    package static func lines(of data: Data, maximumLineBytes: Int) -> [Data] {
        var splitter = LineSplitter(maximumLineBytes: maximumLineBytes)
        var lines: [Data] = []
        _ = splitter.feed(data) { lines.append($0); return true }
        splitter.finish { lines.append($0); return true }
        return lines
    }

    /// The scan behind both `feed`s: pointers stay inside this type, valid only for the caller's `withUnsafeBytes`.
    private mutating func scan(_ chunk: UnsafeRawBufferPointer, emit: (Data) -> Bool) -> Bool {
        guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        var start = 0
        while start < chunk.count {
            let newline: UnsafeMutableRawPointer? = memchr(base + start, 0x0A, chunk.count - start)
            let end: Int
            if let newline { end = UnsafePointer<UInt8>(newline.assumingMemoryBound(to: UInt8.self)) - base } else { end = chunk.count }
            let room = maximumLineBytes + 1 - line.count
            if room > 0 { line.append(base + start, count: min(end - start, room)) }
            lineIsOpen = true
            guard newline != nil else { break }
            guard emit(takeLine()) else { return false }
            start = end + 1
        }
        return true
    }

    private mutating func takeLine() -> Data {
        defer {
            line = Data()
            lineIsOpen = false
        }
        return line.last == 0x0D ? line.dropLast() : line
    }
}
