import RichPushCore

/// The fetcher carries the object store's requests on its own multi handle and connection pool.
extension Fetcher: ServiceTransport {
    public func send(_ request: ServiceRequest) async throws(ServiceTransportError) -> ServiceResponse {
        do {
            return try await exchange(request)
        } catch .deadlineExceeded {
            throw .deadlineExceeded
        } catch .cancelled {
            throw .cancelled
        } catch {
            throw .failed(reason: error.description)
        }
    }
}
