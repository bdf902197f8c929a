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
        let errorBytes = try errorData.wait(for: "standard error of richpush \(arguments.first ?? "")")
        return Output(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorBytes, as: UTF8.self))
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

/// What a reader thread read to the end of a pipe, handed to the test's thread.
final class LockedData: @unchecked Sendable {
    private let condition = NSCondition()
    private var data = Data()
    private var done = false

    func set(_ value: Data) {
        condition.lock()
        data = value
        done = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `set` has been called and returns its data. The reader reaches the end of its pipe once every
    /// process holding the write end has exited, so after the child's exit this is at once; if something (a
    /// grandchild) still holds the pipe after `timeout`, it fails the test naming `what` instead of hanging it.
    func wait(for what: String, timeout: Duration = .seconds(30), file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        let limit = Date().addingTimeInterval(Double(timeout.components.seconds))
        condition.lock()
        defer { condition.unlock() }
        while !done, condition.wait(until: limit) {}
        guard done else {
            let error = WaitTimedOut(what: "the end of \(what)", timeout: timeout)
            XCTFail(error.description, file: file, line: line)
            throw error
        }
        return data
    }
}
