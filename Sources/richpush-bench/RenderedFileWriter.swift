import Foundation
import RichPush

/// Writes each rendered output of a benchmark next to the others as `<directory>/<source name>.<jpg|png|webp>` (the
/// `--output` option), for the peer scripts and a person to compare.
struct RenderedFileWriter {
    let directory: String

    /// Writes `bytes`, rendered from the file at `source`; the extension follows the output's signature.
    func write(_ bytes: Data, renderedFrom source: String) throws {
        let name = URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
        let suffix = (try? ImageFormat(sniffing: bytes))?.attachmentFormat.fileExtension ?? "jpg"
        try bytes.write(to: URL(fileURLWithPath: directory).appendingPathComponent(name + "." + suffix))
    }
}
