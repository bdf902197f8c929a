import Foundation
import RichPushCore
import RichPushPayload
import RichPushImaging

/// Everything the enricher needs to know besides its collaborators.
public struct EnricherConfiguration: Sendable {
    /// The hard per-job budget: the service extension's ~30 s, less a margin.
    public var jobDeadline: Duration
    /// The time iOS gives a notification service extension to modify a push (Apple's
    /// `UNNotificationServiceExtension` documentation: "about 30 seconds"): the longest useful `jobDeadline` for a
    /// push that a device waits for.
    public static let serviceExtensionTime: Duration = .seconds(30)
    /// Named image variants; a job may name one, story pages use `story`, everything else `attachment`.
    public var variants: [String: ImageVariant]
    public var imageLimits: ImageLimits
    /// The decoded pixel memory renders may hold at once; one budget per process (`--render-memory`).
    public var renderMemoryBudget: RenderMemoryBudget
    public var payload: PayloadOptions
    /// Where the enricher reports faults of its own (`local_fault`, error level): a configuration or library
    /// failure that no origin caused. Results carry every other outcome.
    public var log: any LogSink
    /// The largest input document accepted (a `process` line, a stream entry's `job`); a longer one is rejected
    /// with `line_too_long` before it is parsed. A push is at most about 5 KB of payload plus its envelope.
    public var maximumDocumentBytes: Int
    /// Notifications of one Pushwoosh request enriched at once (`--concurrency`); the rest wait for a free place.
    /// Each costs its media's fetches (bodies up to the byte cap) and renders, so this, not the request, bounds them.
    public var notificationConcurrency: Int
    /// How long an object stays retained for a job that carries no `apns-expiration`: APNs keeps pushes up to 30 days.
    public var defaultRetention: Duration
    /// Report a host whose name does not resolve and one that resolves to a denied address alike
    /// (`UnreachableHostError`), so that results do not tell which internal names exist. `serve` sets it: its
    /// callers are on the network. Off by default, where results go to the operator.
    public var concealsUnreachableHostCause = false
    /// What each result line carries besides its id, line, status, target and timings (`--result`).
    public var resultParts = ResultParts.all

    /// The variants a configuration has unless given others: `attachment` and `story` for iOS, `big_picture` and
    /// `large_icon` for Android, at a fixed quality (the command-line tools search them for `--quality-target`,
    /// `ImageVariant.defaultQualityTarget` unless told `off`).
    public static let defaultVariants: [String: ImageVariant] = Dictionary(
        uniqueKeysWithValues: [ImageVariant.attachment, .story, .bigPicture, .largeIcon].map { ($0.name, $0) })

    public init(
        jobDeadline: Duration = .seconds(25),
        variants: [String: ImageVariant] = defaultVariants,
        imageLimits: ImageLimits = ImageLimits(),
        payload: PayloadOptions = PayloadOptions(),
        defaultRetention: Duration = .seconds(30 * 86_400),
        maximumDocumentBytes: Int = 1 << 20,
        renderMemoryBudget: RenderMemoryBudget = .processWide,
        log: any LogSink = DiscardingLogSink(),
        notificationConcurrency: Int = 16
    ) {
        self.notificationConcurrency = max(1, notificationConcurrency)
        self.renderMemoryBudget = renderMemoryBudget
        self.log = log
        self.maximumDocumentBytes = maximumDocumentBytes
        self.jobDeadline = jobDeadline
        self.variants = variants
        self.imageLimits = imageLimits
        self.payload = payload
        self.defaultRetention = defaultRetention
    }

    /// The variant for `name`, falling back to `attachment` when the name is unknown.
    func variant(named name: String) -> ImageVariant {
        variants[name] ?? variants[VariantName.attachment] ?? .attachment
    }
}
