/// Gathers findings while parsing or rendering and remembers whether any of them rejects the job.
struct DiagnosticCollector {
    var items: [Diagnostic] = []
    private(set) var rejects = false

    mutating func add(_ severity: Diagnostic.Severity, _ code: DiagnosticCode, _ pointer: String, _ message: String) {
        items.append(Diagnostic(severity, code, pointer, message))
    }

    /// An error that makes the document invalid.
    mutating func reject(_ code: DiagnosticCode, _ pointer: String, _ message: String) {
        items.append(Diagnostic(.error, code, pointer, message))
        rejects = true
    }

    /// A length or count limit: a warning, or a rejecting error in strict mode.
    mutating func limit(_ code: DiagnosticCode, _ pointer: String, _ message: String, strict: Bool) {
        if strict { reject(code, pointer, message) } else { add(.warning, code, pointer, message) }
    }

    mutating func append(contentsOf other: DiagnosticCollector) {
        items.append(contentsOf: other.items)
        if other.rejects { rejects = true }
    }
}
