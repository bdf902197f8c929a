import Foundation
import Glibc

/// Serves a URL from a `LocalOrigin` directory without ever leaving it.
enum LocalOriginReader {
    /// Maps the rest of the URL after the prefix to a file under the directory. Refuses `..` (also
    /// percent-encoded), backslashes, NUL, and anything whose resolved real path (symlinks followed) lies outside
    /// the directory's real path. Costs two `realpath` calls and one read of at most `maximumBytes + 1` bytes.
    static func read(url: String, origin: LocalOrigin, maximumBytes: Int, deadline: ContinuousClock.Instant) throws(FetchError) -> FetchedMedia {
        let started = ContinuousClock.now
        guard started < deadline else { throw .deadlineExceeded(url: url) }
        var rest = Substring(url.dropFirst(origin.prefix.count))
        if let cut = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<cut] }
        guard let decoded = String(rest).removingPercentEncoding else {
            throw .localFile(url: url, reason: "invalid percent-encoding")
        }
        if decoded.contains("\0") || decoded.contains("\\") {
            throw .localFile(url: url, reason: "path contains forbidden characters")
        }
        let components = decoded.split(separator: "/", omittingEmptySubsequences: true)
        if components.contains("..") { throw .localFile(url: url, reason: "path traversal ('..') refused") }
        let relative = components.filter { $0 != "." }.joined(separator: "/")
        guard !relative.isEmpty else { throw .localFile(url: url, reason: "no file named") }

        guard let root = realPath(origin.directory) else {
            throw .localFile(url: url, reason: "origin directory does not exist")
        }
        guard let file = realPath(root + "/" + relative) else { throw .localFile(url: url, reason: "file not found") }
        guard file.hasPrefix(root == "/" ? "/" : root + "/") else {
            throw .localFile(url: url, reason: "path escapes the origin directory")
        }
        var info = stat()
        guard stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw .localFile(url: url, reason: "not a regular file")
        }
        if Int(info.st_size) > maximumBytes { throw .tooLarge(url: url, limit: maximumBytes) }
        guard let handle = FileHandle(forReadingAtPath: file) else { throw .localFile(url: url, reason: "unreadable") }
        defer { try? handle.close() }
        // The file may have grown since stat; never read more than the cap allows.
        let body = (try? handle.read(upToCount: maximumBytes + 1)) ?? Data()
        if body.count > maximumBytes { throw .tooLarge(url: url, limit: maximumBytes) }
        let elapsed = ContinuousClock.now - started
        return FetchedMedia(status: 200, finalURL: url, body: body, contentType: contentType(forPath: file),
                            timings: FetchTimings(firstByte: elapsed, total: elapsed))
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func contentType(forPath path: String) -> String? {
        switch path.split(separator: ".").last?.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "webp": "image/webp"
        case "gif": "image/gif"
        default: nil
        }
    }
}
