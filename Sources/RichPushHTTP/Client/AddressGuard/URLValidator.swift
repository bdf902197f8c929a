import CCurl

/// Checks a URL before it is requested, and again for every redirect hop (from the prereq callback).
///
/// Parsing uses libcurl's own URL parser so the check sees exactly what the transfer will use.
enum URLValidator {
    /// Returns the reason `url` must not be fetched, or nil. Costs one libcurl URL parse.
    static func problem(with url: String, allowedHosts: Set<String>?) -> FetchError? {
        // libcurl takes a C string: a NUL would cut the URL it fetches short of the one the caller named.
        if url.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return .invalidURL(url: url) }
        guard let handle = curl_url() else { return .invalidURL(url: url) }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK else {
            return .invalidURL(url: url)
        }
        guard let scheme = part(handle, CURLUPART_SCHEME)?.lowercased() else { return .invalidURL(url: url) }
        guard scheme == "http" || scheme == "https" else { return .unsupportedScheme(url: url) }
        if part(handle, CURLUPART_USER) != nil || part(handle, CURLUPART_PASSWORD) != nil {
            return .credentialsInURL(url: url)
        }
        guard let host = part(handle, CURLUPART_HOST), !host.isEmpty else { return .invalidURL(url: url) }
        if let allowedHosts, !permits(host: host, allowedHosts: allowedHosts) {
            return .blockedHost(url: url)
        }
        return nil
    }

    /// Resolves a `Location` header value against the URL that produced it, as libcurl will when following.
    static func resolve(_ location: String, against base: String) -> String? {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        let flags = UInt32(CURLU_NON_SUPPORT_SCHEME)
        guard curl_url_set(handle, CURLUPART_URL, base, flags) == CURLUE_OK,
              curl_url_set(handle, CURLUPART_URL, location, flags) == CURLUE_OK
        else { return nil }
        return part(handle, CURLUPART_URL)
    }

    /// Exact host match, or subdomain match for entries written with a leading dot (`.example.com`).
    static func permits(host: String, allowedHosts: Set<String>) -> Bool {
        var normalized = host.lowercased()
        if normalized.hasSuffix(".") { normalized.removeLast() }
        if normalized.hasPrefix("["), normalized.hasSuffix("]") { normalized = String(normalized.dropFirst().dropLast()) }
        for entry in allowedHosts {
            let allowed = entry.lowercased()
            if allowed == normalized { return true }
            if allowed.hasPrefix("."), normalized == allowed.dropFirst() || normalized.hasSuffix(allowed) { return true }
        }
        return false
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
