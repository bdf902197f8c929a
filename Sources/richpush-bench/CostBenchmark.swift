import Foundation
import RichPush

/// `cost`: for each file, what the headers say a render costs (`ImageProbe.decodeWork`, `RenderPlan.estimatedCost`,
/// whether the render is expensive) beside what rendering it as an attachment takes here (the fastest of
/// `--repeat` renders, wall time on one thread; a HEIC's decode runs in its worker process meanwhile). Prints
/// `<file>\t<format>\t<scans>\t<decode work, M samples>\t<estimated ms>\t<expensive>\t<measured ms>` per file; the
/// work limit is not applied, so a file over it is measured too. docs/benchmarks.md ("Decode work and render
/// lanes") has the corpus's figures.
enum CostBenchmark {
    static let usage = "usage: richpush-bench cost [--repeat N] FILE..."

    static func run(_ arguments: [String]) -> Int32 {
        var files = arguments
        guard let repeats = IntegerArguments.take("--repeat", from: &files, fallback: 3), !files.isEmpty else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            return 2
        }
        var limits = ImageLimits()
        limits.maximumDecodeWork = .max
        let pipeline = ImagePipeline(limits: limits)
        for path in files {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                return 1
            }
            do {
                let probe = try ImageProbe.probe(bytes, limits: limits)
                let plan = pipeline.renderPlan(for: probe, as: .attachment)
                var fastest = Duration.seconds(3600)
                for _ in 0..<repeats {
                    let started = ContinuousClock.now
                    _ = try pipeline.renderBlocking(bytes, as: .attachment, deadline: .now + .seconds(120))
                    fastest = min(fastest, ContinuousClock.now - started)
                }
                let fields = [
                    path, probe.format.rawValue, String(probe.scanCount), String(format: "%.1f", Double(probe.decodeWork) / 1e6),
                    String(plan.estimatedCost / .milliseconds(1)),
                    plan.isExpensive(memoryCapacity: RenderMemoryBudget.processWide.capacity) ? "expensive" : "cheap",
                    String(format: "%.1f", Double(fastest / .microseconds(1)) / 1000),
                ]
                print(fields.joined(separator: "\t"))
            } catch {
                print("\(path)\terror: \(error)")
            }
        }
        return 0
    }
}
