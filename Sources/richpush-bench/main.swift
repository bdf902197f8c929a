import Foundation
import RichPush

// Dispatch on the subcommand; each benchmark lives in its own file.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "transform":
    await TransformBenchmark.run(Array(arguments.dropFirst()))
case "fetch":
    exit(await FetchBenchmark.run(Array(arguments.dropFirst())))
case "consume":
    exit(await ConsumeBenchmark.run(Array(arguments.dropFirst())))
default:
    print("richpush-bench \(RichPush.version)")
    print("usage: richpush-bench transform --width W --height H --repeat N [--quality Q] FILE...")
    print("       richpush-bench fetch [--count N] [--concurrency N]")
    print("       richpush-bench consume [--jobs N] [--consumers N] [--concurrency N]")
}
