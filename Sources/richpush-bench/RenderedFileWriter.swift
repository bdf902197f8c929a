import Foundation

/// Writes each rendered output of a benchmark next to the others as `<directory>/<source name>.<jpg|png>` (the
/// `--output` option), for the peer scripts and a person to compare.
struct RenderedFileWriter {
    let directory: String

    /// Writes `bytes`, rendered from the file at `source`; the extension follows the output's signature.
    func write(_ bytes: Data, renderedFrom source: String) throws {
        let name = URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
        let suffix = bytes.first == 0x89 ? "png" : "jpg"
        try bytes.write(to: URL(fileURLWithPath: directory).appendingPathComponent(name + "." + suffix))
    }
}
