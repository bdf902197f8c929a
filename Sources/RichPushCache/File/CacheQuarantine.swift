import Foundation

/// Moves damaged files out of the served tree into `quarantine/<time>-<pid>/`, keeping them for inspection.
struct CacheQuarantine {
    let layout: CacheLayout
    let directory: String

    init(layout: CacheLayout) {
        self.layout = layout
        let stamp = Date().formatted(Date.ISO8601FormatStyle().year().month().day().time(includingFractionalSeconds: false))
            .replacingOccurrences(of: ":", with: "")
        directory = layout.quarantineDirectory + "/\(stamp)-\(getpid())"
    }

    func move(_ relativePath: String, report: inout VerificationReport) throws(CacheError) {
        try CacheFileSystem.makeDirectory(directory)
        let flattened = relativePath.replacingOccurrences(of: "/", with: "_")
        try CacheFileSystem.rename(layout.absolutePath(relativePath), to: directory + "/" + flattened)
        CacheFileSystem.syncDirectory((layout.absolutePath(relativePath) as NSString).deletingLastPathComponent)
        report.quarantined += 1
    }
}
