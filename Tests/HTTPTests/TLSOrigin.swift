import Foundation
import TestSupport
import Glibc
import XCTest

/// nginx serving HTTPS + HTTP/2 on a loopback port with a certificate for 127.0.0.1 from a throwaway CA, for the
/// TLS and multiplexing tests. A missing nginx or openssl fails the test (`TestTool.Missing`); it is never skipped.
final class TLSOrigin {
    let port: UInt16
    let directory: URL
    private let process: Process
    private let authority: TestCertificateAuthority

    /// The CA a client trusts to reach this origin.
    var certificatePath: String { authority.certificatePath }

    func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    /// Request lines nginx logged: "<protocol> <connection serial> <uri>".
    func accessLog() -> [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    init(files: [String: Data]) throws {
        authority = try TestCertificateAuthority()
        let certificate = try authority.issue(commonName: "127.0.0.1", alternativeNames: ["IP:127.0.0.1"])
        directory = try TemporaryDirectory.make("tls")
        let root = directory.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (name, data) in files { try data.write(to: root.appendingPathComponent(name)) }

        port = try LoopbackPort.free()
        let prefix = directory.path
        _ = try NginxConfiguration.write(in: directory, main: "worker_processes 1; user root;", events: "worker_connections 256;", http: """
            log_format proto '$server_protocol $connection $request_uri';
            access_log \(prefix)/access.log proto;
            server {
                listen 127.0.0.1:\(port) ssl http2;
                ssl_certificate \(certificate.certificatePath);
                ssl_certificate_key \(certificate.keyPath);
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
}
