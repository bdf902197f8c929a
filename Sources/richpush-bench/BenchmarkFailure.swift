import Foundation
import Glibc

/// Why a benchmark could not run or measure.
enum BenchmarkFailure: Error, CustomStringConvertible {
    case missing(String)
    case failed(String)

    var description: String {
        switch self {
        case .missing(let what): "not found: \(what)"
        case .failed(let what): what
        }
    }

    /// The `richpush` binary built beside this one (the benchmarks measure it as a child process).
    static func siblingRichpush() throws -> String {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("richpush").path
        guard access(binary, X_OK) == 0 else { throw missing("\(binary); run swift build -c release first") }
        return binary
    }
}
