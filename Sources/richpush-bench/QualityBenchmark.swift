import Foundation
import RichPush

/// `quality`: each file rendered twice into the same box, at the fixed quality (`--quality-target off`, today's
/// default before the search) and searched for `--quality-target` (default 80); one row per file with both outputs'
/// bytes and median render times, the searched quality and score, and the ratios; then the geometric means.
/// `--output DIR` writes the searched renditions, for `scripts/quality_peers.py` to compare with Pillow and libvips.
/// `--variant attachment|story` renders as the service's variant (its box, fit and byte budget) instead of a
/// fit within `--width` x `--height`; the medians of both outputs' bytes are printed too. `--format` sets the
/// output format (`webp`, or `webp_when_smaller`, the Android variants' choice of the smaller at the target).
enum QualityBenchmark {
    static let usage = "usage: richpush-bench quality [--width W] [--height H] [--repeat N] [--quality-target SCORE] "
        + "[--variant attachment|story] [--output DIR] FILE..."

    static func run(_ arguments: [String]) async -> Int32 {
        var arguments = arguments
        var named: [String: String] = [:]
        for name in ["--output", "--variant", "--format"] {
            guard let index = arguments.firstIndex(of: name) else { continue }
            guard index + 1 < arguments.count else { return fail() }
            named[name] = arguments[index + 1]
            arguments.removeSubrange(index...(index + 1))
        }
        let outputDirectory = named["--output"]
        let optionNames: Set<String> = ["--width", "--height", "--repeat", "--quality-target"]
        var options: [String] = [], files: [String] = []
        var index = 0
        while index < arguments.count {
            if optionNames.contains(arguments[index]), index + 1 < arguments.count {
                options += [arguments[index], arguments[index + 1]]
                index += 2
            } else {
                files.append(arguments[index])
                index += 1
            }
        }
        guard !files.isEmpty, !files.contains(where: { $0.hasPrefix("-") }),
              let values = IntegerArguments.parse(options, known: optionNames), values.values.allSatisfy({ $0 > 0 })
        else { return fail() }
        let width = values["--width"] ?? 1038, height = values["--height"] ?? 1038, repeats = values["--repeat"] ?? 5
        let target = Double(values["--quality-target"] ?? 80)
        var fixed: ImageVariant
        switch named["--variant"] {
        case nil: fixed = ImageVariant(name: "bench", width: width, height: height, fit: .contain)
        case let name?:
            guard let variant = EnricherConfiguration.defaultVariants[name] else { return fail() }
            fixed = variant
        }
        if let name = named["--format"] {
            guard let format = ImageVariant.OutputFormat(rawValue: name) else { return fail() }
            fixed.format = format
        }
        var searched = fixed
        searched.qualityTarget = target
        let pipeline = ImagePipeline()
        print("file\tfixed_bytes\tfixed_ms\tsearched_bytes\tsearched_ms\tquality\tscore\tbytes_ratio\ttime_ratio\tfixed_score")
        var byteLogs: [Double] = [], timeLogs: [Double] = [], fixedSizes: [Int] = [], searchedSizes: [Int] = []
        var fixedScores: [Double] = []
        // The render's own pixels before encoding, which the search scores against: the same render, lossless.
        var lossless = fixed
        lossless.format = .png
        lossless.maximumBytes = nil
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: file) else {
                print("\(file)\terror\tcannot read")
                continue
            }
            do {
                let (plain, plainMilliseconds) = try await measure(pipeline, bytes, fixed, repeats: repeats)
                let (result, searchedMilliseconds) = try await measure(pipeline, bytes, searched, repeats: repeats)
                if let outputDirectory { try RenderedFileWriter(directory: outputDirectory).write(result.bytes, renderedFrom: file) }
                let byteRatio = Double(result.bytes.count) / Double(plain.bytes.count)
                let timeRatio = searchedMilliseconds / plainMilliseconds
                byteLogs.append(log(byteRatio))
                fixedSizes.append(plain.bytes.count)
                searchedSizes.append(result.bytes.count)
                timeLogs.append(log(timeRatio))
                let score = result.score.map { String(format: "%.2f", $0) } ?? "-"
                var fixedScore = "-"
                if plain.format == .jpeg {
                    let reference = try await pipeline.render(bytes, as: lossless, deadline: .now + .seconds(60))
                    let value = try PerceptualScore.ssimulacra2(reference: reference.bytes, candidate: plain.bytes)
                    fixedScores.append(value)
                    fixedScore = String(format: "%.2f", value)
                }
                print("\(file)\t\(plain.bytes.count)\t\(String(format: "%.1f", plainMilliseconds))\t\(result.bytes.count)\t"
                      + "\(String(format: "%.1f", searchedMilliseconds))\t\(result.quality.map(String.init) ?? "-")\t\(score)\t"
                      + "\(String(format: "%.3f", byteRatio))\t\(String(format: "%.2f", timeRatio))\t\(fixedScore)")
            } catch {
                print("\(file)\terror\t\(error)")
            }
        }
        if !byteLogs.isEmpty {
            let mean = { (logs: [Double]) in exp(logs.reduce(0, +) / Double(logs.count)) }
            print(String(format: "geometric mean: bytes %.3f, render time %.2f (searched over fixed, %d files)",
                         mean(byteLogs), mean(timeLogs), byteLogs.count))
            let median = { (sizes: [Int]) in sizes.sorted()[sizes.count / 2] }
            print("median bytes: fixed \(median(fixedSizes)), searched \(median(searchedSizes))")
            if !fixedScores.isEmpty {
                print(String(format: "median SSIMULACRA2 of the fixed quality: %.2f (%d JPEG outputs)",
                             fixedScores.sorted()[fixedScores.count / 2], fixedScores.count))
            }
        }
        return 0
    }

    /// The last rendition and the median milliseconds of `repeats` renders after one warm-up.
    private static func measure(_ pipeline: ImagePipeline, _ bytes: Data, _ variant: ImageVariant,
                                repeats: Int) async throws -> (RenderedImage, Double) {
        var rendered = try await pipeline.render(bytes, as: variant, deadline: .now + .seconds(60))
        var times: [Double] = []
        for _ in 0..<repeats {
            let start = ContinuousClock.now
            rendered = try await pipeline.render(bytes, as: variant, deadline: .now + .seconds(60))
            times.append(start.duration(to: .now).timeInterval * 1000)
        }
        times.sort()
        return (rendered, times[times.count / 2])
    }

    private static func fail() -> Int32 {
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        return 2
    }
}
