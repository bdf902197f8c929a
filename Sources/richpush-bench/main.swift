import Foundation
import RichPush

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "fetch":
    exit(await FetchBenchmark.run(Array(arguments.dropFirst())))
default:
    print("richpush-bench \(RichPush.version)")
    print("usage: richpush-bench fetch [--count N] [--concurrency N]")
}
