/// How far enrichment got for one job.
public enum JobStatus: String, Sendable, Codable, Comparable {
    /// Every media reference was rendered and the payload points at the cache.
    case enriched
    /// Some media rendered, some failed or ran out of time; the rest were dropped.
    case partial
    /// The job had media but none rendered; it is sent bare, with fallback text.
    case fallback
    /// The job had nothing to enrich (no media, or a silent push); it is sent as rewritten.
    case passthrough
    /// The payload itself is invalid (for example over 4 KB after shortening); it must not be sent.
    case rejected

    /// Worst first, so the status of a line holding many jobs is the most severe of them.
    private var severity: Int {
        switch self {
        case .rejected: return 4
        case .fallback: return 3
        case .partial: return 2
        case .enriched: return 1
        case .passthrough: return 0
        }
    }

    public static func < (lhs: JobStatus, rhs: JobStatus) -> Bool { lhs.severity < rhs.severity }
}
