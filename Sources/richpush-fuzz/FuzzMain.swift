import CRichPushImage
import Foundation

/// `richpush-fuzz`: libFuzzer targets over the public API (see scripts/fuzz.sh), and a replayer for saved inputs.
///
/// Built with `-DFUZZING` and libFuzzer (scripts/fuzz.sh), it hands control to libFuzzer with the target named
/// by `RICHPUSH_FUZZ_TARGET`. Built normally, `richpush-fuzz TARGET FILE...` runs each file through the target
/// once, which is how crash reproducers in Fixtures/fuzz are replayed by the tests.
@main
struct FuzzMain {
    static func main() {
        #if FUZZING
        let name = ProcessInfo.processInfo.environment["RICHPUSH_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(Data("set RICHPUSH_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue))\n".utf8))
            exit(2)
        }
        selectedTarget = target
        // libheif runs on this thread, where the sanitizers see it (in a worker process its crashes and leaks
        // would only be a failed decode).
        richpush_heif_decode_in_process_for_fuzzing(1)
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
        #else
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            print("usage: richpush-fuzz TARGET FILE...   targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
            exit(2)
        }
        for path in arguments.dropFirst() {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                print("cannot read \(path)")
                exit(1)
            }
            target.run(bytes)
            print("ok \(path)")
        }
        #endif
    }
}

#if FUZZING
nonisolated(unsafe) var selectedTarget = FuzzTarget.probe

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = data.map { Data(bytes: $0, count: count) } ?? Data()
    selectedTarget.run(bytes)
    return 0
}
#endif
