import Foundation

/// A throwaway certificate authority made with the `openssl` command in a temporary directory, for the TLS tests:
/// it issues server and client certificates, current or already expired, for any names. A missing openssl fails
/// the test (`TestTool.Missing`); it is never skipped.
public final class TestCertificateAuthority {
    /// The CA's own certificate (PEM): what a client trusts with `--redis-tls-ca-file`.
    public let certificatePath: String
    public let directory: URL
    private let openssl: String
    private var issued = 0

    /// A certificate file and its key file.
    public struct Issued: Sendable {
        public let certificatePath: String
        public let keyPath: String
    }

    public init(name: String = "RichPush Test CA") throws {
        openssl = try TestTool.openssl.path()
        directory = try TemporaryDirectory.make("ca")
        certificatePath = directory.appendingPathComponent("ca.pem").path
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("issued"), withIntermediateDirectories: true)
        try Data().write(to: directory.appendingPathComponent("index.txt"))
        try Data("1000\n".utf8).write(to: directory.appendingPathComponent("serial"))
        // `openssl ca` is what can set any validity window (an expired certificate); copy_extensions keeps each
        // request's subjectAltName.
        try Data("""
            [ca]
            default_ca = test
            [test]
            database = \(directory.path)/index.txt
            new_certs_dir = \(directory.path)/issued
            serial = \(directory.path)/serial
            default_md = sha256
            policy = any
            copy_extensions = copy
            unique_subject = no
            [any]
            commonName = supplied
            """.utf8).write(to: directory.appendingPathComponent("ca.cnf"))
        try run(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                 "-subj", "/CN=\(name)", "-keyout", directory.appendingPathComponent("ca.key").path, "-out", certificatePath])
    }

    deinit { TemporaryDirectory.remove(directory) }

    /// Issues a certificate for `commonName` with the given subject alternative names (`DNS:localhost`,
    /// `IP:127.0.0.1`), valid now for two days, or, when `expired`, only during one day in 2020.
    public func issue(commonName: String, alternativeNames: [String], expired: Bool = false) throws -> Issued {
        issued += 1
        let base = directory.appendingPathComponent("cert\(issued)").path
        try run(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=\(commonName)",
                 "-addext", "subjectAltName=\(alternativeNames.joined(separator: ","))",
                 "-keyout", base + ".key", "-out", base + ".csr"])
        let validity = expired ? ["-startdate", "20200101000000Z", "-enddate", "20200102000000Z"] : ["-days", "2"]
        try run(["ca", "-batch", "-notext", "-config", directory.appendingPathComponent("ca.cnf").path,
                 "-cert", certificatePath, "-keyfile", directory.appendingPathComponent("ca.key").path,
                 "-in", base + ".csr", "-out", base + ".pem"] + validity)
        return Issued(certificatePath: base + ".pem", keyPath: base + ".key")
    }

    /// redis-server's TLS arguments for a `--tls-port` serving `certificate`, trusting this CA for the clients'
    /// certificates, which it requires when `requiringClientCertificates`. The caller adds `--port` (0 for TLS only).
    public func redisServerArguments(
        tlsPort: Int, certificate: Issued, requiringClientCertificates: Bool = false
    ) -> [String] {
        ["--tls-port", String(tlsPort), "--tls-cert-file", certificate.certificatePath, "--tls-key-file", certificate.keyPath,
         "--tls-ca-cert-file", certificatePath, "--tls-auth-clients", requiringClientCertificates ? "yes" : "no"]
    }

    private func run(_ arguments: [String]) throws {
        let result = try runTool(openssl, arguments, in: directory)
        guard result.status == 0 else {
            throw TestCertificateAuthorityError(message: "openssl \(arguments.first ?? "") failed: \(result.output)")
        }
    }
}

public struct TestCertificateAuthorityError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
