import Foundation
import RichPush

/// `validate --html FILE`: the story preview page with its `StoryPreview` document embedded, as one file that
/// needs no server and loads nothing (rendered images are `data:` URLs; with `--no-fetch` they are placeholders).
enum PreviewFile {
    /// Builds the document (reading each rendered object once) and writes the page atomically. Returns false, after
    /// saying why on standard error, when the file cannot be written.
    static func write(
        reports: [JSONValue], valid: Bool, settings: WorkerSettings, store: (any MediaStore)?, to path: String
    ) async -> Bool {
        let preview = await StoryPreview.build(reports: reports, valid: valid, store: store, options: settings.payloadOptions)
        do {
            try Data(PreviewPage.html(embedding: preview.json).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            return true
        } catch {
            Logger.error("preview_file", "cannot write \(path): \(error.localizedDescription)")
            return false
        }
    }
}
