import Foundation
import RichPush

/// The JSON documents in a file: `.ndjson` and `.jsonl` files (and standard input) hold one per line, any
/// other file holds exactly one.
struct InputDocuments {
    struct Document {
        var file: String
        /// 1-based line number for line-delimited files.
        var line: Int?
        var data: Data
    }

    static func read(_ path: String, maximumLineBytes: Int) throws(FileContents.ReadError) -> [Document] {
        let data = try FileContents.read(path)
        let lineDelimited = path == "-" || path.hasSuffix(".ndjson") || path.hasSuffix(".jsonl")
        guard lineDelimited else { return [Document(file: path, line: nil, data: data)] }
        return LineSplitter.lines(of: data, maximumLineBytes: maximumLineBytes).enumerated().map { index, line in
            Document(file: path, line: index + 1, data: line)
        }
    }
}
