import COpenSSL
import Foundation

/// One OpenSSL client context (`SSL_CTX`) built from ``RedisTLSSettings``: the trusted CAs and the client
/// certificate are loaded once, when it is made, and every connection of a session reuses them.
///
/// `@unchecked Sendable`: the context is not changed after `init`, and OpenSSL allows `SSL_new` on a shared context
/// from any thread.
final class TLSClientContext: @unchecked Sendable {
    let context: OpaquePointer
    let settings: RedisTLSSettings

    /// Throws `.tlsSetup` naming the file that cannot be used and why.
    init(settings: RedisTLSSettings) throws(QueueError) {
        try settings.check()
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw .tlsSetup(reason: "cannot create a TLS context: \(TLSErrorQueue.drain().text)")
        }
        self.context = context
        self.settings = settings
        // TLS 1.2 at least, whatever the system's configuration allows (Redis itself offers 1.2 and 1.3).
        SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)

        if settings.verifiesServer {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            let file = settings.certificateAuthorityFile
            let directory = settings.certificateAuthorityDirectory
            if file != nil || directory != nil {
                try Self.requireReadable(file, "CA file")
                try Self.requireReadable(directory, "CA directory")
                guard SSL_CTX_load_verify_locations(context, file, directory) == 1 else {
                    throw .tlsSetup(reason: "cannot load the CAs from \(file ?? directory ?? ""): \(TLSErrorQueue.drain().text)")
                }
            } else if SSL_CTX_set_default_verify_paths(context) != 1 {
                throw .tlsSetup(reason: "cannot load the system's CA store: \(TLSErrorQueue.drain().text)")
            }
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }

        if let certificate = settings.clientCertificateFile {
            let key = settings.clientKeyFile ?? certificate
            try Self.requireReadable(certificate, "client certificate")
            try Self.requireReadable(key, "client key")
            guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
                throw .tlsSetup(reason: "cannot load the client certificate \(certificate): \(TLSErrorQueue.drain().text)")
            }
            guard SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1,
                  SSL_CTX_check_private_key(context) == 1 else {
                let failure = TLSErrorQueue.drain()
                if failure.reason == X509_R_KEY_VALUES_MISMATCH || failure.reason == SSL_R_NO_PRIVATE_KEY_ASSIGNED {
                    throw .tlsSetup(reason: "the client key \(key) does not belong to the certificate \(certificate)")
                }
                throw .tlsSetup(reason: "cannot load the client key \(key): \(failure.text)")
            }
        } else {
            // Called only when the server asks for a certificate and none is loaded: note it, send none (the
            // server may take that), and let a refusal on the first reply name the missing certificate.
            SSL_CTX_set_client_cert_cb(context) { tls, _, _ in
                SSL_set_ex_data(tls, 0, UnsafeMutableRawPointer(bitPattern: 1))
                return 0
            }
        }
    }

    deinit { SSL_CTX_free(context) }

    private static func requireReadable(_ path: String?, _ what: String) throws(QueueError) {
        guard let path else { return }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw .tlsSetup(reason: "the \(what) \(path) does not exist or cannot be read")
        }
    }
}

/// OpenSSL's per-thread error queue, read and emptied.
enum TLSErrorQueue {
    /// The reason code of the first error (0 when the queue was empty) and every error's text, joined.
    static func drain() -> (reason: Int32, text: String) {
        var first: Int32 = 0
        var texts: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            if first == 0 { first = ERR_GET_REASON(code) }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            texts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return (first, texts.isEmpty ? "no OpenSSL detail" : texts.joined(separator: "; "))
    }
}
