import Foundation
import XCTest
import TestSupport

/// Runs the built `richpush` binary as a child process, the way users and queue consumers do.
struct CommandRunner {
    struct Output {
        var status: Int32
        var standardOutput: String
        var standardError: String

        var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }
    }

    /// The products directory holds both the test bundle and the executables `swift build --build-tests` made.
    static let executable: URL = {
        let bundle = Bundle.main.bundleURL
        let candidates = [
            bundle.deletingLastPathComponent().appendingPathComponent("richpush"),
            bundle.appendingPathComponent("richpush"),
            packageRoot.appendingPathComponent(".build/debug/richpush"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[2]
    }()

    static func run(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
        workingDirectory: URL? = nil
    ) throws -> Output {
        let process = makeProcess(arguments, environment: environment, workingDirectory: workingDirectory)
        let standardInput = Pipe()
        let standardOutput = Pipe()
        let standardError = Pipe()
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        process.standardError = standardError
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(Data(input.utf8)) }
        try standardInput.fileHandleForWriting.close()
        // Read both pipes concurrently so a chatty child never blocks on a full pipe.
        let errorData = LockedData()
        let errorReader = Thread { errorData.set(standardError.fileHandleForReading.readDataToEndOfFile()) }
        errorReader.start()
        let outputData = standardOutput.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { usleep(1000) }
        return Output(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.value, as: UTF8.self))
    }

    static func makeProcess(_ arguments: [String], environment: [String: String], workingDirectory: URL?) -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RICHPUSH_") }
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        process.currentDirectoryURL = workingDirectory ?? packageRoot
        return process
    }
}

final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var done = false

    func set(_ value: Data) {
        lock.lock()
        data = value
        done = true
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return done
    }

    var value: Data {
        lock.lock()
        defer { lock.unlock() }
        return data
    }
}
