/// A CIDR block such as `127.0.0.1/32` or `fd00::/8`.
///
/// Used for `FetchConfiguration.allowNetworks`: an address inside an allowed network is reachable even when the
/// SSRF guard would deny it. IPv4 networks also match the IPv4-mapped/compatible/NAT64 IPv6 forms of their
/// addresses.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    let address: IPAddress
    /// Number of leading bits that must match.
    public let prefixLength: Int

    /// Parses `address/prefix` (a bare address means a single host). Costs one `inet_pton`.
    public init(_ cidr: String) throws(FetchError) {
        let parts = cidr.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let address = IPAddress(String(parts[0])) else {
            throw .invalidConfiguration(reason: "'\(cidr)' is not an IP network (expected address/prefix)")
        }
        let maximum = address.bytes.count * 8
        var length = maximum
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...maximum).contains(parsed) else {
                throw .invalidConfiguration(reason: "'\(cidr)' has an invalid prefix length")
            }
            length = parsed
        }
        self.address = address
        self.prefixLength = length
    }

    init(address: IPAddress, prefixLength: Int) {
        self.address = address
        self.prefixLength = prefixLength
    }

    public var description: String { "\(address)/\(prefixLength)" }

    /// True if the textual address `ip` lies inside this network. Unparseable text is never contained.
    public func contains(_ ip: String) -> Bool {
        guard let parsed = IPAddress(ip) else { return false }
        return contains(parsed)
    }

    func contains(_ candidate: IPAddress) -> Bool {
        if candidate.bytes.count != address.bytes.count {
            guard address.isIPv4, let embedded = candidate.embeddedIPv4 else { return false }
            return contains(embedded)
        }
        var remaining = prefixLength
        for index in 0..<address.bytes.count where remaining > 0 {
            let bits = min(8, remaining)
            let mask: UInt8 = bits == 8 ? 0xff : ~(0xff >> UInt8(bits))
            if candidate.bytes[index] & mask != address.bytes[index] & mask { return false }
            remaining -= bits
        }
        return true
    }
}
