import Foundation
import RichPush

/// `transform`: bytes in memory → render fit-within → bytes out, on one thread; prints
/// `<file>\t<median ms>\t<output bytes>` per file. `--output DIR` also writes each rendition there (named after
/// its source), and `--format png` renders losslessly, so a quality script can compare the resized pixels
/// themselves against a reference (`scripts/resize_quality.py`). `--quality-target SCORE` searches each JPEG's
/// quality for that SSIMULACRA2 score (`QualitySearch`) and adds the chosen quality and score as two more columns.
enum TransformBenchmark {
    static let usage = "usage: richpush-bench transform [--width W] [--height H] [--repeat N] [--quality Q] [--quality-target SCORE] "
        + "[--format automatic|jpeg|png] [--output DIR] FILE..."

    static func run(_ arguments: [String]) async -> Int32 {
        var arguments = arguments
        var format = ImageVariant.OutputFormat.automatic
        var outputDirectory: String?
        for name in ["--format", "--output"] {
            guard let index = arguments.firstIndex(of: name) else { continue }
            guard index + 1 < arguments.count else {
                FileHandle.standardError.write(Data((usage + "\n").utf8))
                return 2
            }
            let value = arguments[index + 1]
            arguments.removeSubrange(index...(index + 1))
            if name == "--output" {
                outputDirectory = value
            } else if let parsed = ImageVariant.OutputFormat(rawValue: value) {
                format = parsed
            } else {
                FileHandle.standardError.write(Data((usage + "\n").utf8))
                return 2
            }
        }
        let optionNames: Set<String> = ["--width", "--height", "--repeat", "--quality", "--quality-target"]
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
        let target = values["--quality-target"].map(Double.init)
        let variant = ImageVariant(name: "bench", width: width, height: height, fit: .contain, format: format, quality: quality,
                                   qualityTarget: target)
        let pipeline = ImagePipeline()
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: file) else {
                print("\(file)\terror\tcannot read")
                continue
            }
            var times: [Double] = []
            var outputBytes = 0
            var output = Data()
            var searched = ""
            _ = try? await pipeline.render(bytes, as: variant, deadline: .now + .seconds(60))   // warm-up, as the peers do
            for _ in 0..<repeats {
                let start = ContinuousClock.now
                do {
                    let rendered = try await pipeline.render(bytes, as: variant, deadline: .now + .seconds(60))
                    outputBytes = rendered.bytes.count
                    output = rendered.bytes
                    if let score = rendered.score, let chosen = rendered.quality {
                        searched = "\t\(chosen)\t" + String(format: "%.2f", score)
                    }
                } catch {
                    print("\(file)\terror\t\(error)")
                    break
                }
                let elapsed = start.duration(to: .now)
                times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            }
            guard !times.isEmpty, times.count == repeats else { continue }
            if let outputDirectory {
                do {
                    try RenderedFileWriter(directory: outputDirectory).write(output, renderedFrom: file)
                } catch {
                    FileHandle.standardError.write(Data("cannot write the output of \(file): \(error)\n".utf8))
                    return 1
                }
            }
            times.sort()
            let median = times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
            print("\(file)\t\(String(format: "%.1f", median))\t\(outputBytes)\(searched)")
        }
        return 0
    }
}
