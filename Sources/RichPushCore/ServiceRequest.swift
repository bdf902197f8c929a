import Foundation

/// A request to a service the operator configured (object storage), as opposed to an untrusted media URL.
///
/// Unlike `FetchRequest` it may carry a method, headers and a body, and libcurl signs it when `signing` is set. It
/// skips the SSRF guard (the endpoint is configuration, often a loopback or private address) and never follows
/// redirects. Any HTTP status is returned to the caller, error bodies included.
public struct ServiceRequest: Sendable {
    package enum Method: String, Sendable {
        case get = "GET", head = "HEAD", put = "PUT", post = "POST", delete = "DELETE"
    }

    package var method: Method
    package var url: String
    /// Sent in order. `Content-Type` should be set for every request with a body.
    package var headers: [(name: String, value: String)]
    package var body: Data
    /// Lowercase hex SHA-256 of `body`, when the caller already has it; a signed request needs it, and it is
    /// computed here otherwise (one pass over the body).
    package var bodySHA256: String?
    package var signing: RequestSigning?
    package var deadline: ContinuousClock.Instant
    /// A response body larger than this fails with `tooLarge` (listings and objects are read whole).
    package var maximumResponseBytes: Int

    package init(
        method: Method, url: String, headers: [(name: String, value: String)] = [], body: Data = Data(),
        bodySHA256: String? = nil, signing: RequestSigning? = nil, deadline: ContinuousClock.Instant,
        maximumResponseBytes: Int = 64 << 20
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.bodySHA256 = bodySHA256
        self.signing = signing
        self.deadline = deadline
        self.maximumResponseBytes = maximumResponseBytes
    }
}

/// AWS Signature Version 4, computed by libcurl itself (`CURLOPT_AWS_SIGV4`) from these credentials.
package struct RequestSigning: Sendable, Hashable {
    package var accessKeyID: String
    package var secretAccessKey: String
    /// Temporary credentials' token, sent as `x-amz-security-token` (and signed with the other headers).
    package var sessionToken: String?
    package var region: String
    /// `s3` for object storage.
    package var service: String

    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, region: String, service: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.region = region
        self.service = service
    }
}

/// The answer to a `ServiceRequest`, whatever its status.
public struct ServiceResponse: Sendable {
    package var status: Int
    /// Lowercased names; repeated headers joined with ", ".
    package var headers: [String: String]
    package var body: Data

    package init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Carries requests to a configured service (object storage), so a store needs no HTTP client of its own: the
/// HTTP layer's `Fetcher` is one.
public protocol ServiceTransport: Sendable {
    /// Sends `request` and returns the answer whatever its status; throws only when no answer came.
    func send(_ request: ServiceRequest) async throws(ServiceTransportError) -> ServiceResponse
}

/// Why a service request got no answer.
public enum ServiceTransportError: Error, CustomStringConvertible, Sendable {
    case deadlineExceeded
    case cancelled
    /// Connection, TLS or configuration trouble, with its reason (no credentials in it).
    case failed(reason: String)

    public var description: String {
        switch self {
        case .deadlineExceeded: "deadline exceeded before the service answered"
        case .cancelled: "request cancelled"
        case .failed(let reason): reason
        }
    }
}
