import Foundation
import RichPushCore

/// The secret a client must present as `Authorization: Bearer <token>`.
///
/// Only the token's SHA-256 digest is kept, and a presented token is hashed and compared with it over all 32 bytes
/// whatever the first difference, so neither the comparison's time nor the lengths tell an attacker how close a
/// guess came. Costs one SHA-256 of the header per check.
package struct BearerToken: Sendable {
    private let digest: [UInt8]

    /// `nil` when `token` is not a usable bearer token: empty, or holding anything but visible ASCII (a space or
    /// line break would make the header ambiguous, and usually means a file holding more than the token).
    package init?(_ token: String) {
        guard !token.isEmpty, token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        digest = Self.digest(of: token)
    }

    /// Whether an `Authorization` header value carries this token (`Bearer` in any letter case, as RFC 9110 says
    /// of scheme names).
    package func admits(authorization: String?) -> Bool {
        guard let authorization else { return false }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        let presented = Self.digest(of: parts[1].trimmingCharacters(in: .whitespaces))
        var difference: UInt8 = 0
        for index in digest.indices { difference |= digest[index] ^ presented[index] }
        return difference == 0
    }

    private static func digest(of token: some StringProtocol) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(Array(token.utf8))
        return hasher.finalize()
    }
}
