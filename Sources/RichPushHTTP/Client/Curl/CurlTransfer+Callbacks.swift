import CCurl
import CRichPushCurl
import Foundation
import Glibc
import RichPushCore

/// What libcurl calls back into while a transfer runs; all of it on the poll thread inside `curl_multi_perform`.
extension CurlTransfer {
    func receiveBody(_ data: UnsafeMutablePointer<CChar>?, count: Int) -> Int {
        lastActivity = .now
        bodyBytesSeen += count
        let isKept = (200..<300).contains(status) || policy.keepsErrorBodies
        if isKept, byteCap != nil {
            guard admitMediaBytes(data, count: count) else { return 0 }
        } else if bodyBytesSeen > policy.maximumBytes {
            recordedFailure = .tooLarge(url: url, limit: policy.maximumBytes)
            return 0
        }
        // Error bodies are only counted against the cap, never kept.
        if isKept, let data, count > 0 {
            body.append(UnsafeRawPointer(data), count: count)
        }
        return count
    }

    /// Applies the cap of the media body's kind (`SniffedByteCap`): refuses a kind the request does not accept,
    /// and a body, or its announced length, over its kind's cap. Preallocates the announced length once the kind
    /// allows it. False when the transfer must stop.
    private func admitMediaBytes(_ data: UnsafeMutablePointer<CChar>?, count: Int) -> Bool {
        guard var cap = byteCap else { return true }
        defer { byteCap = cap }
        if let data, count > 0, cap.observe(UnsafeRawBufferPointer(start: data, count: count)), let kind = cap.kind {
            if cap.isRefused {
                let accepted = cap.limits.keys.sorted { $0.rawValue < $1.rawValue }
                recordedFailure = .kindNotAccepted(url: url, kind: kind, accepted: accepted)
                return false
            }
            if let length = announcedLength {
                if length > cap.current {
                    recordedFailure = .tooLarge(url: url, kind: kind, limit: cap.current)
                    return false
                }
                body.expect(length: length)
            }
        }
        if bodyBytesSeen > cap.current {
            recordedFailure = cap.kind.map { .tooLarge(url: url, kind: $0, limit: cap.current) }
                ?? .tooLarge(url: url, limit: cap.current)
            return false
        }
        return true
    }

    func receiveHeader(_ data: UnsafeMutablePointer<CChar>?, count: Int) -> Int {
        lastActivity = .now
        guard let data, count > 0 else { return count }
        // Byte-level parsing: this runs for every header line of every response, so it avoids Foundation.
        let line = UnsafeRawBufferPointer(start: data, count: count)
        var end = line.count
        while end > 0, line[end - 1] == 0x0d || line[end - 1] == 0x0a || line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
        if end == 0 {
            return headersEnded() ? count : 0
        }
        if end >= 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2f {  // "HTTP/"
            // A new response (redirect hop, 1xx, or the final one): forget the previous one's headers.
            headers = [:]
            body.reset()
            bodyBytesSeen = 0
            byteCap?.reset()
            announcedLength = nil
            status = Self.statusCode(in: UnsafeRawBufferPointer(rebasing: line[0..<end]))
            return count
        }
        guard let colon = line[0..<end].firstIndex(of: 0x3a) else { return count }
        var valueStart = colon + 1
        while valueStart < end, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
        let name = String(decoding: line[0..<colon], as: UTF8.self).lowercased()
        let value = String(decoding: line[valueStart..<end], as: UTF8.self)
        if let existing = headers[name] { headers[name] = existing + ", " + value } else { headers[name] = value }
        return count
    }

    /// The three digits after the first space of a status line ("HTTP/1.1 200 OK", "HTTP/2 304").
    private static func statusCode(in line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: 0x20) else { return 0 }
        var code = 0
        var index = space + 1
        while index < line.count, index < space + 4, (0x30...0x39).contains(line[index]) {
            code = code * 10 + Int(line[index] - 0x30)
            index += 1
        }
        return code
    }

    /// Rejects a redirect to a forbidden URL before libcurl connects anywhere, and an announced body over the
    /// cap before a single body byte is read.
    private func headersEnded() -> Bool {
        if [301, 302, 303, 307, 308].contains(status), let location = headers["location"] {
            let hop = URLValidator.resolve(location, against: currentURL) ?? location
            if let problem = URLValidator.problem(with: hop, allowedHosts: policy.allowedHosts) {
                recordedFailure = problem
                return false
            }
            return true
        }
        guard (200..<300).contains(status) || policy.keepsErrorBodies, policy.expectsBody,
            let length = headers["content-length"].flatMap({ Int($0) })
        else { return true }
        // With decoding on, the announced length is the encoded size; the write callback caps decoded bytes.
        if policy.decodesContent, headers["content-encoding"] != nil { return true }
        let limit = byteCap?.ceiling ?? policy.maximumBytes
        if length > limit {
            recordedFailure = .tooLarge(url: url, limit: limit)
            return false
        }
        // A media body's own cap depends on its first bytes: allocate once they have shown its kind.
        if byteCap != nil { announcedLength = length } else { body.expect(length: length) }
        return true
    }

    func openSocket(purpose: curlsocktype, address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let family = address.pointee.family
        guard let peer = Self.peerAddress(address) else {
            recordedFailure = .blockedAddress(url: currentURL, ip: "family \(family)")
            return CURL_SOCKET_BAD
        }
        if policy.addresses.denialReason(for: peer) != nil {
            // libcurl may try further addresses of the host; keep the first refusal for the error.
            if recordedFailure == nil { recordedFailure = .blockedAddress(url: currentURL, ip: peer.description) }
            return CURL_SOCKET_BAD
        }
        let descriptor = socket(family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
        if descriptor >= 0 {
            if case .blockedAddress = recordedFailure { recordedFailure = nil }
            lastActivity = .now
        }
        return descriptor
    }

    private static func peerAddress(_ address: UnsafeMutablePointer<curl_sockaddr>) -> IPAddress? {
        guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) else { return nil }
        let raw = UnsafeRawPointer(address).advanced(by: offset)
        let length = Int(address.pointee.addrlen)
        switch address.pointee.family {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            var value = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
            return IPAddress(bytes: withUnsafeBytes(of: &value) { Array($0) })
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            var value = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            return IPAddress(bytes: withUnsafeBytes(of: &value) { Array($0) })
        default:
            return nil
        }
    }

    /// Runs before every request, including each redirect hop and on reused connections: re-checks the URL
    /// (scheme, credentials, host allowlist) and the connected address.
    func prepareRequest(primaryIP: String) -> Int32 {
        lastActivity = .now
        let hopURL = currentURL
        // The first URL was validated before submission; only redirect hops need the check again.
        if hopURL != url, let problem = URLValidator.problem(with: hopURL, allowedHosts: policy.allowedHosts) {
            recordedFailure = problem
            return CURL_PREREQFUNC_ABORT
        }
        if policy.addresses.denialReason(for: primaryIP) != nil {
            recordedFailure = .blockedAddress(url: hopURL, ip: primaryIP)
            return CURL_PREREQFUNC_ABORT
        }
        return CURL_PREREQFUNC_OK
    }

    var currentURL: String {
        guard let easy else { return url }
        var pointer: UnsafeMutablePointer<CChar>?
        guard richpush_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &pointer) == CURLE_OK, let pointer else { return url }
        return String(cString: pointer)
    }
}

// libcurl calls these on the poll thread (inside curl_multi_perform) with the transfer as context.

let curlWriteCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    guard let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().receiveBody(data, count: size * count)
}

let curlHeaderCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    guard let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().receiveHeader(data, count: size * count)
}

let curlOpenSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t = {
    context, purpose, address in
    guard let context, let address else { return CURL_SOCKET_BAD }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().openSocket(purpose: purpose, address: address)
}

let curlPrereqCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int32, Int32) -> Int32 = {
    context, primaryIP, _, _, _ in
    guard let context, let primaryIP else { return CURL_PREREQFUNC_ABORT }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().prepareRequest(primaryIP: String(cString: primaryIP))
}
