import Foundation
import RichPushCore

/// The few S3 operations the object-storage store needs, as signed requests on the fetch layer's multi handle.
/// Each call is one HTTP request (a listing one per 1,000 keys); bodies are held in memory.
struct ObjectStorageClient: Sendable {
    /// One listed object.
    struct ListedObject: Sendable, Hashable {
        /// Relative to the store's prefix, e.g. `objects/ab/cd/<key>.jpg`.
        var relativePath: String
        var size: Int
        var lastModified: Date?
    }

    let location: ObjectStorageLocation
    let transport: any ServiceTransport

    /// The object's bytes, or nil when it does not exist.
    func get(_ relativePath: String, deadline: ContinuousClock.Instant) async throws(CacheError) -> Data? {
        let response = try await send(.get, relativePath, deadline: deadline, operation: "GET")
        switch response.status {
        case 200: return response.body
        case 404: return nil
        default: throw failure("GET", relativePath, response)
        }
    }

    /// Stores `body` under the final key in one PUT, which S3 applies all or nothing: a reader sees the old object
    /// or the whole new one, never a part. `bodySHA256` spares hashing the body again for the signature.
    func put(
        _ relativePath: String, body: Data, bodySHA256: String? = nil, contentType: String, cacheControl: String,
        metadata: [(name: String, value: String)] = [], deadline: ContinuousClock.Instant
    ) async throws(CacheError) {
        var headers: [(name: String, value: String)] = [("Content-Type", contentType), ("Cache-Control", cacheControl)]
        headers += metadata.map { ("x-amz-meta-\($0.name)", $0.value) }
        let response = try await send(
            .put, relativePath, headers: headers, body: body, bodySHA256: bodySHA256, deadline: deadline, operation: "PUT")
        guard response.status == 200 else { throw failure("PUT", relativePath, response) }
    }

    /// Deletes the object; deleting a missing one succeeds.
    func delete(_ relativePath: String, deadline: ContinuousClock.Instant) async throws(CacheError) {
        let response = try await send(.delete, relativePath, deadline: deadline, operation: "DELETE")
        guard [200, 204, 404].contains(response.status) else { throw failure("DELETE", relativePath, response) }
    }

    /// Every object under `relativePrefix` (ListObjectsV2, following continuation tokens).
    func list(_ relativePrefix: String, deadline: ContinuousClock.Instant) async throws(CacheError) -> [ListedObject] {
        var result: [ListedObject] = []
        var token: String?
        repeat {
            // Parameters in code-point order and fully percent-encoded ("/" as %2F), the form SigV4's canonical
            // query string has: libcurl signs the query as given.
            var query = ""
            if let token { query += "continuation-token=\(ObjectStorageLocation.encode(token))&" }
            query += "list-type=2&prefix=\(ObjectStorageLocation.encode(location.objectKey(relativePrefix)))"
            let request = ServiceRequest(
                method: .get, url: location.url(objectKey: "", query: query), signing: location.signing,
                deadline: deadline)
            let response = try await exchange(request, operation: "LIST", key: relativePrefix)
            guard response.status == 200 else { throw failure("LIST", relativePrefix, response) }
            let page = ListBucketPage(xml: response.body)
            for entry in page.objects {
                guard let relative = location.relativePath(ofObjectKey: entry.key) else { continue }
                result.append(ListedObject(relativePath: relative, size: entry.size, lastModified: entry.lastModified))
            }
            token = page.isTruncated ? page.nextContinuationToken : nil
        } while token != nil
        return result
    }

    /// Checks at start-up that the bucket exists and the credentials may use it: one clear error instead of one per
    /// job. A HEAD on the bucket says 404 for a missing bucket and 403 for refused credentials.
    func checkAccess(deadline: ContinuousClock.Instant) async throws(CacheError) {
        let request = ServiceRequest(
            method: .head, url: location.url(objectKey: ""), signing: location.signing, deadline: deadline)
        let response = try await exchange(request, operation: "HEAD", key: location.bucket)
        switch response.status {
        case 200: return
        case 404:
            throw .objectStorage(operation: "HEAD", key: location.description, reason: "bucket \(location.bucket) does not exist")
        case 301, 400:
            throw .objectStorage(
                operation: "HEAD", key: location.description,
                reason: "HTTP \(response.status): the bucket is in another region than \(location.signing.region)")
        case 401, 403:
            // HEAD has no body; a listing says whether the key, the signature or the permission is wrong.
            let probe = ServiceRequest(
                method: .get, url: location.url(objectKey: "", query: "list-type=2&max-keys=1"),
                signing: location.signing, deadline: deadline)
            let detail = (try? await exchange(probe, operation: "LIST", key: location.bucket))
                .map { Self.errorReason($0) } ?? "HTTP \(response.status)"
            throw .objectStorage(
                operation: "HEAD", key: location.description,
                reason: "credentials refused (\(detail)); check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        default:
            throw failure("HEAD", location.bucket, response)
        }
    }

    private func send(
        _ method: ServiceRequest.Method, _ relativePath: String, headers: [(name: String, value: String)] = [],
        body: Data = Data(), bodySHA256: String? = nil, deadline: ContinuousClock.Instant, operation: String
    ) async throws(CacheError) -> ServiceResponse {
        let request = ServiceRequest(
            method: method, url: location.url(objectKey: location.objectKey(relativePath)), headers: headers,
            body: body, bodySHA256: bodySHA256, signing: location.signing, deadline: deadline)
        return try await exchange(request, operation: operation, key: relativePath)
    }

    private func exchange(
        _ request: ServiceRequest, operation: String, key: String
    ) async throws(CacheError) -> ServiceResponse {
        do {
            return try await transport.send(request)
        } catch .deadlineExceeded {
            throw .deadlineExceeded
        } catch .cancelled {
            throw .cancelled
        } catch {
            throw .objectStorage(operation: operation, key: key, reason: error.description)
        }
    }

    private func failure(_ operation: String, _ key: String, _ response: ServiceResponse) -> CacheError {
        .objectStorage(operation: operation, key: key, reason: Self.errorReason(response))
    }

    /// `HTTP 403 SignatureDoesNotMatch: <message>` from an S3 error document, or the bare status.
    static func errorReason(_ response: ServiceResponse) -> String {
        let document = String(decoding: response.body.prefix(4096), as: UTF8.self)
        let code = ListBucketPage.firstValue(of: "Code", in: document[...])
        let message = ListBucketPage.firstValue(of: "Message", in: document[...])
        var reason = "HTTP \(response.status)"
        if let code { reason += " \(code)" }
        if let message { reason += ": \(message)" }
        return reason
    }
}
