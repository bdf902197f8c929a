import Foundation
import Glibc
import RichPushCore

/// Serves a URL from a `LocalOrigin` directory without ever leaving it.
enum LocalOriginReader {
    /// Maps the rest of the URL after the prefix to a file under the directory. Refuses `..` (also
    /// percent-encoded), backslashes, NUL, and anything whose resolved real path (symlinks followed) lies outside
    /// the directory's real path. The first bytes choose the cap of the file's kind and its format
    /// (`SniffedByteCap`, with `byteLimits` holding the accepted kinds' caps), as they do for a network body.
    /// Costs two `realpath` calls and reads of at most the kind's cap + 1 bytes.
    static func read(
        url: String, origin: LocalOrigin, byteLimits: [AttachmentKind: Int], deadline: ContinuousClock.Instant
    ) throws(FetchError) -> FetchedMedia {
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
        var cap = SniffedByteCap(limits: byteLimits)
        guard let handle = FileHandle(forReadingAtPath: file) else { throw .localFile(url: url, reason: "unreadable") }
        defer { try? handle.close() }
        var body = (try? handle.read(upToCount: ISOMediaBrands.brandInspectionLength)) ?? Data()
        body.withUnsafeBytes { _ = cap.observe($0) }
        let format = cap.finish()
        guard let kind = cap.kind else { throw .internalFailure(url: url, reason: "no kind after sniffing") }
        if cap.isRefused {
            throw .kindNotAccepted(url: url, kind: kind, accepted: cap.limits.keys.sorted { $0.rawValue < $1.rawValue })
        }
        let limit = cap.current
        if Int(info.st_size) > limit { throw .tooLarge(url: url, kind: kind, limit: limit) }
        // The file may have grown since stat; never read more than the cap allows.
        if body.count == ISOMediaBrands.brandInspectionLength {
            body.append((try? handle.read(upToCount: limit + 1 - body.count)) ?? Data())
        }
        if body.count > limit { throw .tooLarge(url: url, kind: kind, limit: limit) }
        let elapsed = ContinuousClock.now - started
        return FetchedMedia(status: 200, finalURL: url, body: body, format: format, contentType: contentType(forPath: file),
                            timings: FetchTimings(firstByte: elapsed, total: elapsed))
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func contentType(forPath path: String) -> String? {
        guard let fileExtension = path.split(separator: ".").last?.lowercased() else { return nil }
        return AttachmentFormat(name: fileExtension)?.mediaType
    }
}
