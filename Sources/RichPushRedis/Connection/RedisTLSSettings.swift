/// How a `rediss://` connection checks the server, and how it proves who this worker is when the server asks
/// (mutual TLS).
///
/// By default the server's certificate must chain to a CA of the system's store (Debian's `ca-certificates`, which
/// covers the managed services' public CAs) and name the URL's host; the host is also sent as SNI.
public struct RedisTLSSettings: Sendable, Hashable {
    /// A PEM file of the CAs to trust instead of the system's store (a private CA, a self-hosted Redis).
    public var certificateAuthorityFile: String?
    /// A directory of CA certificates named by their subject hash (`openssl rehash`), instead of the system's store.
    public var certificateAuthorityDirectory: String?
    /// This worker's certificate chain (PEM), for a server that requires client certificates.
    public var clientCertificateFile: String?
    /// The private key of ``clientCertificateFile`` (PEM); nil reads it from the certificate's own file.
    public var clientKeyFile: String?
    /// False only for a test setup: the server's certificate and host name are then not checked at all.
    public var verifiesServer: Bool

    public init(
        certificateAuthorityFile: String? = nil, certificateAuthorityDirectory: String? = nil,
        clientCertificateFile: String? = nil, clientKeyFile: String? = nil, verifiesServer: Bool = true
    ) {
        self.certificateAuthorityFile = certificateAuthorityFile
        self.certificateAuthorityDirectory = certificateAuthorityDirectory
        self.clientCertificateFile = clientCertificateFile
        self.clientKeyFile = clientKeyFile
        self.verifiesServer = verifiesServer
    }

    /// Throws `.tlsSetup` when the settings contradict themselves, before any file is read: a client key without
    /// the certificate it belongs to.
    public func check() throws(QueueError) {
        if let key = clientKeyFile, clientCertificateFile == nil {
            throw .tlsSetup(reason: "a client key (\(key)) needs its client certificate")
        }
    }
}
