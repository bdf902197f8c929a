import Glibc

/// How this process asks glibc for large buffers (decoded pixels, fetched bodies, encoded outputs).
enum LargeAllocations {
    /// Buffers of at least this size get a mapping of their own, returned to the system when freed. Smaller
    /// ones (a 1 MP image's pixels, most fetched bodies) keep reusing arena memory, which costs no page faults.
    static let ownMappingThreshold: Int32 = 4 << 20
    /// `M_MMAP_THRESHOLD` from glibc's malloc.h, which Swift's Glibc module does not bring in.
    private static let mmapThresholdParameter: Int32 = -3

    /// Fixes glibc's mmap threshold at `ownMappingThreshold`.
    ///
    /// By default glibc raises the threshold to the size of each large buffer freed (up to 32 MB), so from the
    /// second render on a large pixel buffer comes from the render thread's arena and stays resident there after
    /// it is freed, in every thread's arena, so large renders one after another peak well above one alone; with
    /// the threshold fixed they stay near one render's peak. Cost: a fresh mapping, and its page faults, per large
    /// buffer: a little more CPU time on those renders (docs/benchmarks.md, "Memory of large images").
    /// Does nothing where the C library has no `mallopt` (it is looked up, not linked, for that reason).
    static func returnToTheSystemWhenFreed() {
        guard let program = dlopen(nil, RTLD_NOW), let symbol = dlsym(program, "mallopt") else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThresholdParameter, ownMappingThreshold)
    }
}
