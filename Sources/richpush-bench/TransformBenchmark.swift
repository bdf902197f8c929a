import Foundation
import RichPush

/// `transform`: bytes in memory → render fit-within → bytes out, on one thread; prints
/// `<file>\t<median ms>\t<output bytes>` per file.
enum TransformBenchmark {
    static func run(_ arguments: [String]) async {
        var width = 1038, height = 1038, repeats = 5, quality = 85
        var files: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            func value() -> Int? {
                index += 1
                return index < arguments.count ? Int(arguments[index]) : nil
            }
            switch argument {
            case "--width": width = value() ?? width
            case "--height": height = value() ?? height
            case "--repeat": repeats = max(1, value() ?? repeats)
            case "--quality": quality = value() ?? quality
            default: files.append(argument)
            }
            index += 1
        }
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
    }
}
