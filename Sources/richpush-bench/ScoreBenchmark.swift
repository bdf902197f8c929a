import Foundation
import RichPush

/// `score`: SSIMULACRA2 of each candidate against the reference, one prepared reference for all; prints
/// `<candidate>\t<score>` per file and, on standard error, the mean milliseconds per comparison over `--repeat`
/// rounds (decoding not counted). `scripts/ssimulacra2_check.py` compares these scores with the PyPI package's.
enum ScoreBenchmark {
    static let usage = "usage: richpush-bench score [--repeat N] REFERENCE CANDIDATE..."

    static func run(_ arguments: [String]) -> Int32 {
        var arguments = arguments
        guard let repeats = IntegerArguments.take("--repeat", from: &arguments, fallback: 1), arguments.count >= 2,
              let reference = FileManager.default.contents(atPath: arguments[0]) else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            return 2
        }
        var candidates: [Data] = []
        for path in arguments.dropFirst() {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                return 1
            }
            candidates.append(bytes)
        }
        do {
            let result = try PerceptualScore.timedSSIMULACRA2(reference: reference, candidates: candidates, repeats: repeats)
            for (path, score) in zip(arguments.dropFirst(), result.scores) { print("\(path)\t\(String(format: "%.4f", score))") }
            FileHandle.standardError.write(Data(String(format: "%.2f ms per comparison\n", result.secondsPerScore * 1000).utf8))
            return 0
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }
}
