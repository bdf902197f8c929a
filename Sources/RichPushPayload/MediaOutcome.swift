import RichPushCore
/// The result of one media reference, supplied by the pipeline.
public enum MediaOutcome: Sendable, Hashable {
    case rendered(publicURL: String, width: Int, height: Int, bytes: Int, format: String)
    case failed(code: String, message: String)
    /// Deadline hit before it finished, budget, ...
    case skipped(reason: String)
}
