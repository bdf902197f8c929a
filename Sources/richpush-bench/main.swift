import Foundation
import RichPush

// Dispatch on the subcommand; each benchmark lives in its own file. Usage mistakes exit 2, as in `richpush`.
let usage = """
    richpush-bench \(RichPushInfo.version): benchmarks of RichPush's own paths
    usage: richpush-bench transform [--width W] [--height H] [--repeat N] [--quality Q] [--format F] [--output DIR] FILE...
           richpush-bench fetch [--count N] [--concurrency N] [--file-bytes N] [--rounds N]
           richpush-bench consume [--jobs N] [--consumers N] [--concurrency N]
           richpush-bench memory [--distinct N] [--concurrency N] [--rounds N] [--render-memory-mb N]
           richpush-bench score [--repeat N] REFERENCE CANDIDATE...
           richpush-bench quality [--width W] [--height H] [--repeat N] [--quality-target SCORE] [--variant NAME] [--format F] [--output DIR] FILE...
           richpush-bench cost [--repeat N] FILE...
           richpush-bench warm [--jobs N] [--urls N] [--rounds N] [--result PARTS] [--media DIR]

    """
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage, terminator: "")
    exit(0)
}
switch arguments.first {
case "transform":
    exit(await TransformBenchmark.run(Array(arguments.dropFirst())))
case "fetch":
    exit(await FetchBenchmark.run(Array(arguments.dropFirst())))
case "consume":
    exit(await ConsumeBenchmark.run(Array(arguments.dropFirst())))
case "memory":
    exit(await MemoryBenchmark.run(Array(arguments.dropFirst())))
case "quality":
    exit(await QualityBenchmark.run(Array(arguments.dropFirst())))
case "cost":
    exit(CostBenchmark.run(Array(arguments.dropFirst())))
case "warm":
    exit(await WarmBenchmark.run(Array(arguments.dropFirst())))
case "score":
    exit(ScoreBenchmark.run(Array(arguments.dropFirst())))
default:
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
