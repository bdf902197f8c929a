import Foundation

/// Runs a tool to its end with its standard output and error merged, from `directory` (the package root unless
/// given): what the deployment and install tests check of `systemd-analyze`, `nginx -t`, `readelf`, `dpkg` or a
/// build. Throws only when the tool cannot be started.
public func runTool(_ executable: String, _ arguments: [String], in directory: URL = packageRoot) throws
    -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
