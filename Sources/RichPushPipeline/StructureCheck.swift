import Foundation
import RichPushCore
import RichPushPayload
import RichPushImaging
import RichPushHTTP
import RichPushCache

/// Validates documents without any I/O: parses, applies the payload rules and renders the APNs request as it
/// would be sent if every media item rendered (each pointing at its own source URL).
///
/// This is `richpush validate --no-fetch`: it catches structural mistakes in microseconds per document.
public struct StructureCheck: Sendable {
    private let parser: PayloadParser
    private let renderer: APNsRenderer

    public init(options: PayloadOptions = PayloadOptions()) {
        parser = PayloadParser(options: options)
        renderer = APNsRenderer(options: options)
    }

    public func check(document: Data, line: Int? = nil) -> [JobResult] {
        switch parser.parse(document) {
        case .rejected(let diagnostics):
            return [JobResult(rejectedDocument: diagnostics, line: line)]
        case .jobs(let jobs):
            return jobs.map { job in
                var outcomes: [String: MediaOutcome] = [:]
                for reference in job.media { outcomes[reference.pointer] = .notFetched }
                let media = job.media.map { reference in
                    if let reason = reference.invalidReason { return MediaResult(invalid: reference, reason: reason) }
                    return MediaResult(pointer: reference.pointer, source: reference.url, variant: reference.variantName,
                                       outcome: .notFetched, milliseconds: 0)
                }
                // Nothing was enriched: the status says so even when every reference looks fine.
                var result = JobResult(
                    job: job, media: media, rendering: renderer.render(job, media: outcomes), status: .passthrough)
                result.line = line
                return result
            }
        }
    }
}
