import Foundation
import TestSupport
import Glibc
import XCTest

/// nginx serving HTTPS + HTTP/2 on a loopback port with a throwaway self-signed certificate, for the TLS and
/// multiplexing tests. A missing nginx or openssl fails the test (`TestTool.Missing`); it is never skipped.
final class TLSOrigin {
    let port: UInt16
    let directory: URL
    private let process: Process

    var certificatePath: String { directory.appendingPathComponent("cert.pem").path }

    func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    /// Request lines nginx logged: "<protocol> <connection serial> <uri>".
    func accessLog() -> [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    init(files: [String: Data]) throws {
        let openssl = try TestTool.openssl.path()
        directory = try TemporaryDirectory.make("tls")
        let root = directory.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (name, data) in files { try data.write(to: root.appendingPathComponent(name)) }

        try Self.run(openssl, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                               "-keyout", directory.appendingPathComponent("key.pem").path,
                               "-out", directory.appendingPathComponent("cert.pem").path, "-days", "2",
                               "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        port = try LoopbackPort.free()
        let prefix = directory.path
        _ = try NginxConfiguration.write(in: directory, main: "worker_processes 1; user root;", events: "worker_connections 256;", http: """
            log_format proto '$server_protocol $connection $request_uri';
            access_log \(prefix)/access.log proto;
            server {
                listen 127.0.0.1:\(port) ssl http2;
                ssl_certificate \(prefix)/cert.pem;
                ssl_certificate_key \(prefix)/key.pem;
                root \(root.path);
            }
            """)
        process = try NginxConfiguration.start(in: directory)
        try LoopbackPort.waitUntilListening(on: port)
    }

    /// Stops nginx, then removes its folder.
    func stop() {
        process.terminate(waitingAtMost: .seconds(5))
        TemporaryDirectory.remove(directory)
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
        guard !process.isRunning, process.terminationStatus == 0 else {
            throw TLSOriginError(description: "\(tool) failed (\(process.terminationStatus))")
        }
    }
}

struct TLSOriginError: Error, CustomStringConvertible {
    let description: String
}
