
extension Array where Element == Diagnostic {
    /// The list with at most `limit` findings of each code, in order; where a code's next finding would be comes one
    /// `diagnostics_omitted` finding that counts the rest of that code and has the most severe of their severities.
    ///
    /// Without it a document of many duplicate keys (or many bad notifications) answers with one finding per
    /// occurrence, a result many times the size of its input. `diagnostics_omitted` findings are never capped, so
    /// capping a capped list changes nothing. Costs two passes over the list.
    package func cappedPerCode(_ limit: Int) -> [Diagnostic] {
        // No code can pass the limit in a list no longer than it (every job's list, but for a flood).
        guard count > limit else { return self }
        let omittedCode = DiagnosticCode.diagnosticsOmitted.rawValue
        var totals: [String: Int] = [:]
        for diagnostic in self where diagnostic.code != omittedCode { totals[diagnostic.code, default: 0] += 1 }
        guard totals.values.contains(where: { $0 > limit }) else { return self }
        // The most severe of each code's omitted findings, so the summary never downgrades an error.
        var seen: [String: Int] = [:]
        var omittedSeverity: [String: Diagnostic.Severity] = [:]
        for diagnostic in self where diagnostic.code != omittedCode {
            seen[diagnostic.code, default: 0] += 1
            guard seen[diagnostic.code, default: 0] > limit else { continue }
            let current = omittedSeverity[diagnostic.code]
            if current.map({ diagnostic.severity.rank > $0.rank }) ?? true { omittedSeverity[diagnostic.code] = diagnostic.severity }
        }
        seen = [:]
        var kept: [Diagnostic] = []
        kept.reserveCapacity(Swift.min(count, totals.count * (limit + 1)))
        for diagnostic in self {
            guard diagnostic.code != omittedCode else { kept.append(diagnostic); continue }
            let index = seen[diagnostic.code, default: 0] + 1
            seen[diagnostic.code] = index
            if index <= limit {
                kept.append(diagnostic)
            } else if index == limit + 1 {
                kept.append(.omitted(count: totals[diagnostic.code, default: 0] - limit, of: diagnostic.code, shown: limit,
                                     severity: omittedSeverity[diagnostic.code] ?? diagnostic.severity))
            }
        }
        return kept
    }
}

extension Diagnostic {
    /// The finding that stands for `count` findings of `code` left out after the first `shown`.
    static func omitted(count: Int, of code: String, shown: Int, severity: Severity) -> Diagnostic {
        Diagnostic(severity, .diagnosticsOmitted, "",
                   "\(count) more \(code) finding\(count == 1 ? " was" : "s were") left out; the first \(shown) are listed")
    }
}

extension Diagnostic.Severity {
    /// error > warning > info.
    var rank: Int {
        switch self {
        case .error: 2
        case .warning: 1
        case .info: 0
        }
    }
}
