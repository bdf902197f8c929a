import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin POSIX helpers with the durability the store needs (fsync of files and directories), throwing `CacheError`.
enum CacheFileSystem {
    static func errorText(_ number: Int32 = errno) -> String { String(cString: strerror(number)) }

    /// `mkdir -p` with mode 0755 (the CDN origin must be able to read the tree).
    static func makeDirectory(_ path: String) throws(CacheError) {
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        if errno == ENOENT {
            let parent = (path as NSString).deletingLastPathComponent
            if parent != path && !parent.isEmpty {
                try makeDirectory(parent)
                if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
            }
        }
        throw CacheError.io(path: path, reason: errorText())
    }

    /// Creates `path` exclusively (mode 0644), writes all of `data` and fsyncs it before returning.
    static func writeNewFile(_ path: String, data: Data) throws(CacheError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CacheError.io(path: path, reason: errorText()) }
        var failure: CacheError?
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = CacheError.io(path: path, reason: errorText())
                    return
                }
                offset += written
            }
        }
        if failure == nil && fsync(descriptor) != 0 {
            failure = CacheError.io(path: path, reason: "fsync: " + errorText())
        }
        close(descriptor)
        if let failure {
            unlink(path)
            throw failure
        }
    }

    /// fsync on a directory makes renames and unlinks inside it durable.
    static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    static func rename(_ source: String, to destination: String) throws(CacheError) {
        guard Glibc.rename(source, destination) == 0 else {
            throw CacheError.io(path: destination, reason: "rename from \(source): " + errorText())
        }
    }

    /// Writes `data` to a unique file in `temporaryDirectory`, fsyncs it, renames it over `path` and fsyncs the
    /// destination directory: readers see the old file or the new one, never a mix.
    static func replaceAtomically(_ path: String, data: Data, temporaryPath: String) throws(CacheError) {
        try writeNewFile(temporaryPath, data: data)
        do {
            try rename(temporaryPath, to: path)
        } catch {
            unlink(temporaryPath)
            throw error
        }
        syncDirectory((path as NSString).deletingLastPathComponent)
    }

    /// The file's contents, or nil when it does not exist.
    static func readFile(_ path: String) throws(CacheError) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw CacheError.io(path: path, reason: errorText())
        }
        defer { close(descriptor) }
        var result = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CacheError.io(path: path, reason: errorText())
            }
            if count == 0 { break }
            result.append(contentsOf: chunk[0..<count])
        }
        return result
    }

    struct FileStatus: Equatable {
        var size: Int
        var modifiedAt: Date
        var isRegularFile: Bool
        /// Device and inode: an atomic replace (rename) always changes them, even within one clock tick.
        var identity: [UInt64] = []
    }

    static func status(_ path: String) -> FileStatus? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let modified = Date(
            timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
        return FileStatus(
            size: Int(info.st_size), modifiedAt: modified, isRegularFile: (info.st_mode & S_IFMT) == S_IFREG,
            identity: [UInt64(info.st_dev), UInt64(info.st_ino)])
    }

    /// Removes a file; a missing file is not an error. Returns whether something was removed.
    @discardableResult
    static func remove(_ path: String) -> Bool {
        unlink(path) == 0
    }

    /// Names in a directory (no `.`/`..`); empty when the directory does not exist.
    static func list(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// A name that no other process or host will pick: pid, time and 64 random bits.
    static func uniqueSuffix() -> String {
        "\(getpid()).\(UInt64.random(in: 0...UInt64.max))"
    }
}
