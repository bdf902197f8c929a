/// The SSRF guard: decides whether a resolved peer address may be connected to.
///
/// The deny list covers every range that reaches "this host", the private network, or infrastructure
/// (loopback, RFC 1918, CGNAT, link-local incl. cloud metadata, unique-local, multicast, reserved, broadcast), plus
/// the IPv6 forms that embed such an IPv4 address. `allowNetworks` re-opens exactly the blocks it names.
struct AddressPolicy: Sendable {
    var allowNetworks: [IPNetwork]

    /// Every address allowed: for services the operator configured, never for media URLs.
    static let unrestricted = AddressPolicy(allowNetworks: [Self.network("0.0.0.0/0"), Self.network("::/0")])

    private static let deniedIPv4: [(IPNetwork, String)] = [
        ("0.0.0.0/8", "this network"), ("10.0.0.0/8", "private"), ("100.64.0.0/10", "carrier-grade NAT"),
        ("127.0.0.0/8", "loopback"), ("169.254.0.0/16", "link-local"), ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "IETF protocol assignments"), ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"), ("224.0.0.0/4", "multicast"), ("240.0.0.0/4", "reserved"),
        ("255.255.255.255/32", "broadcast"),
    ].map { (Self.network($0.0), $0.1) }

    private static let deniedIPv6: [(IPNetwork, String)] = [
        ("::/128", "unspecified"), ("::1/128", "loopback"), ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"), ("fc00::/7", "unique-local"), ("ff00::/8", "multicast"),
        ("100::/64", "discard-only"),
    ].map { (Self.network($0.0), $0.1) }

    private static func network(_ text: String) -> IPNetwork {
        let parts = text.split(separator: "/")
        // The literals above are well-formed; the fallback is unreachable but keeps this crash-free.
        let address = IPAddress(String(parts[0])) ?? IPAddress(bytes: [255, 255, 255, 255])!
        return IPNetwork(address: address, prefixLength: Int(parts[1]) ?? 32)
    }

    /// Why `address` is refused, or nil when it may be connected to.
    func denialReason(for address: IPAddress) -> String? {
        if allowNetworks.contains(where: { $0.contains(address) }) { return nil }
        if address.isIPv4 {
            return Self.deniedIPv4.first { $0.0.contains(address) }?.1
        }
        if let embedded = address.embeddedIPv4 {
            if let reason = denialReason(for: embedded) { return "IPv6 form of \(reason)" }
            return nil
        }
        return Self.deniedIPv6.first { $0.0.contains(address) }?.1
    }

    /// Text form for callers that hold a string (the prereq callback gets one from libcurl). Unparseable → denied.
    func denialReason(for text: String) -> String? {
        guard let address = IPAddress(text) else { return "unparseable address" }
        return denialReason(for: address)
    }
}
