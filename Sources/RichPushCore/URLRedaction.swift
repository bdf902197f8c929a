import Foundation
/// Makes URLs safe to print: query strings and fragments often carry signatures, user-info carries passwords.
package enum URLRedaction {
    /// Drops everything from the first `?` or `#`, and any `user:password@` in the authority. Costs one scan.
    package static func redact(_ url: String) -> String {
        var text = Substring(url)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            text = text[..<cut]
        }
        guard let schemeEnd = text.range(of: "://") else { return String(text) }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
        guard let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") else { return String(text) }
        return String(text[..<authorityStart]) + String(text[text.index(after: at)...])
    }
}
