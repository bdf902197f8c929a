import Foundation

/// The JSON documents in a file: `.ndjson` and `.jsonl` files (and standard input) hold one per line, any
/// other file holds exactly one.
struct InputDocuments {
    struct Document {
        var file: String
        /// 1-based line number for line-delimited files.
        var line: Int?
        var data: Data
    }

    static func read(_ path: String) throws -> [Document] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        let lineDelimited = path == "-" || path.hasSuffix(".ndjson") || path.hasSuffix(".jsonl")
        guard lineDelimited else { return [Document(file: path, line: nil, data: data)] }
        var documents: [Document] = []
        var lineNumber = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Data(line)
            if line.last == 0x0D { line.removeLast() }
            documents.append(Document(file: path, line: lineNumber, data: line))
        }
        // A final newline does not start another document.
        if let last = documents.last, last.data.isEmpty, data.last == 0x0A { documents.removeLast() }
        return documents
    }
}
