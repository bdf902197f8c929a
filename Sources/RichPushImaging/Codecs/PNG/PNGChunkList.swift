/// What `PNGDecoder.checkChunks` saw: every chunk's type and where its data lies in the file, in order.
struct PNGChunkList {
    struct Chunk {
        var type: String
        var data: Range<Int>
    }

    private(set) var chunks: [Chunk] = []

    mutating func append(type: String, data: Range<Int>) {
        chunks.append(Chunk(type: type, data: data))
    }

    /// The IDAT chunks' data ranges, when they are the only run of IDAT chunks (as the format requires); nil
    /// when IDAT chunks are missing or split by other chunks.
    var imageData: [Range<Int>]? {
        guard let first = chunks.firstIndex(where: { $0.type == "IDAT" }) else { return nil }
        let run = chunks[first...].prefix { $0.type == "IDAT" }
        guard !chunks[(first + run.count)...].contains(where: { $0.type == "IDAT" }) else { return nil }
        return run.map(\.data)
    }
}
