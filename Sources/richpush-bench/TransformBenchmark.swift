import Foundation
import RichPush

/// `transform`: bytes in memory → render fit-within → bytes out, on one thread; prints
/// `<file>\t<median ms>\t<output bytes>` per file.
enum TransformBenchmark {
    static let usage = "usage: richpush-bench transform [--width W] [--height H] [--repeat N] [--quality Q] FILE..."

    static func run(_ arguments: [String]) async -> Int32 {
        let optionNames: Set<String> = ["--width", "--height", "--repeat", "--quality"]
        let files = arguments.enumerated().filter { index, argument in
            !argument.hasPrefix("-") && (index == 0 || !optionNames.contains(arguments[index - 1]))
        }.map(\.element)
        let options = arguments.enumerated().filter { index, argument in
            argument.hasPrefix("-") || (index > 0 && optionNames.contains(arguments[index - 1]))
        }.map(\.element)
        guard !files.isEmpty, let values = IntegerArguments.parse(options, known: optionNames),
            values.values.allSatisfy({ $0 > 0 })
        else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            return 2
        }
        let width = values["--width"] ?? 1038, height = values["--height"] ?? 1038
        let repeats = values["--repeat"] ?? 5, quality = values["--quality"] ?? 85
        let variant = ImageVariant(name: "bench", width: width, height: height, fit: .contain, quality: quality)
        let pipeline = ImagePipeline()
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: file) else {
                print("\(file)\terror\tcannot read")
                continue
            }
            var times: [Double] = []
            var outputBytes = 0
            _ = try? await pipeline.render(bytes, as: variant, deadline: .now + .seconds(60))   // warm-up, as the peers do
            for _ in 0..<repeats {
                let start = ContinuousClock.now
                do {
                    let rendered = try await pipeline.render(bytes, as: variant, deadline: .now + .seconds(60))
                    outputBytes = rendered.bytes.count
                } catch {
                    print("\(file)\terror\t\(error)")
                    break
                }
                let elapsed = start.duration(to: .now)
                times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            }
            guard !times.isEmpty, times.count == repeats else { continue }
            times.sort()
            let median = times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
            print("\(file)\t\(String(format: "%.1f", median))\t\(outputBytes)")
        }
        return 0
    }
}
