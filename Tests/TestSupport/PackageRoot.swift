import Foundation

/// The package's root folder (the one holding Package.swift), found once by walking up from this source file.
///
/// Tests and the benchmark read fixtures, docs and deploy files through it, so they run from any working directory.
public let packageRoot: URL = {
    var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while url.path != "/" {
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        url.deleteLastPathComponent()
    }
    return url
}()

/// A file or folder under the package's `Fixtures` folder.
public func fixture(_ relativePath: String) -> URL {
    packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
}
