import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on a lock file, held until `release()`.
///
/// flock conflicts between open file descriptions even inside one process, so GC in this process also respects a
/// producer in this process. Lock files may be unlinked by their holder (GC does after evicting), so after locking
/// we check that the path still names the inode we locked, and start over when it does not.
struct CacheFileLock: Sendable {
    let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Takes the lock if it is free right now; nil when someone else holds it.
    static func attempt(_ path: String) throws(CacheError) -> CacheFileLock? {
        while true {
            var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            if descriptor < 0 && errno == EROFS {
                // A read-only filesystem has no writers to exclude: lock the file if it exists, else hold nothing.
                descriptor = open(path, O_RDONLY | O_CLOEXEC)
                if descriptor < 0 && errno == ENOENT { return CacheFileLock(path: path, descriptor: -1) }
            }
            guard descriptor >= 0 else { throw CacheError.io(path: path, reason: CacheFileSystem.errorText()) }
            if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                let number = errno
                close(descriptor)
                if number == EINTR { continue }
                if number == EWOULDBLOCK { return nil }
                throw CacheError.io(path: path, reason: "flock: " + CacheFileSystem.errorText(number))
            }
            if isCurrent(descriptor: descriptor, path: path) {
                return CacheFileLock(path: path, descriptor: descriptor)
            }
            close(descriptor)
        }
    }

    /// Polls with `LOCK_NB` and short, growing sleeps (so no cooperative thread is ever blocked in `flock`) until
    /// the lock is free, `limit` passes (`lockTimeout`) or the caller's `deadline` passes (`deadlineExceeded`).
    /// Between polls it calls `look`; an answer there (what the holder published) ends the wait without the lock.
    static func acquire(
        _ path: String, key: CacheKey, limit: ContinuousClock.Instant, clock: any CacheClock = SystemCacheClock(),
        deadline: ContinuousClock.Instant,
        look: () async throws(CacheError) -> CacheOutcome? = { nil }
    ) async throws(CacheError) -> CacheHoldResult<CacheFileLock> {
        var pause = Duration.milliseconds(1)
        while true {
            if let lock = try attempt(path) { return .held(lock, keepsOthersOut: true) }
            if let answer = try await look() { return .answered(answer) }
            let now = clock.instant
            if now >= deadline { throw CacheError.deadlineExceeded }
            if now >= limit { throw CacheError.lockTimeout(key: key.hexDigest) }
            if Task.isCancelled { throw CacheError.cancelled }
            // The pause is a real one whatever the clock: it spaces the polls, it does not measure the wait.
            do {
                try await Task.sleep(for: min(pause, limit - now, deadline - now))
            } catch {
                throw CacheError.cancelled
            }
            pause = min(pause * 2, .milliseconds(25))
        }
    }

    /// Unlinks the lock file while holding it, for keys that no longer have anything stored.
    func removeFileWhileHeld() {
        unlink(path)
    }

    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    private static func isCurrent(descriptor: Int32, path: String) -> Bool {
        var held = stat()
        var named = stat()
        guard fstat(descriptor, &held) == 0, stat(path, &named) == 0 else { return false }
        return held.st_ino == named.st_ino && held.st_dev == named.st_dev
    }
}
