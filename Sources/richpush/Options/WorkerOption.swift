import Foundation
import RichPush

/// The options of every command that fetches and renders media (process, validate, prewarm, consume, serve), declared
/// once. A default that a library configuration type already has is read from that type's default instance.
enum WorkerOption {
    private static let enricher = EnricherConfiguration()
    private static let payload = PayloadOptions()
    private static let fetch = FetchConfiguration()
    private static let cache = CacheConfiguration(root: URL(fileURLWithPath: "/"), publicBaseURL: placeholderPublicBaseURL)

    /// The `--public-base-url` of a command run without one: good for trying RichPush out, never for devices.
    static let placeholderPublicBaseURL = "https://cdn.example.com/richpush"
    /// The signing region when neither `--s3-region` nor `AWS_REGION`/`AWS_DEFAULT_REGION` names one.
    static let fallbackStorageRegion = "us-east-1"

    static let configuration = OptionKey(
        "config", .text("FILE"), help: "JSON file of option values (keys are option names).")
    static let concurrency = OptionKey(
        "concurrency", .integer(in: 1...4096), default: enricher.notificationConcurrency,
        help: "Jobs (or media items) in flight at once, and the notifications of one Pushwoosh request enriched at once.")
    static let deadline = OptionKey(
        "deadline", .duration, default: enricher.jobDeadline,
        help: "Hard per-job deadline, e.g. 25s or 800ms; at most \(serviceExtensionTime) (the service extension's limit).")
    static let allowLongDeadline = OptionKey(
        "allow-long-deadline", .flag, default: false,
        help: "Accept a --deadline over \(serviceExtensionTime) (for prewarm jobs that no device waits for).")
    /// `EnricherConfiguration.serviceExtensionTime` as the help and the errors write it.
    static let serviceExtensionTime = DurationText.render(EnricherConfiguration.serviceExtensionTime)
    static let cacheDirectory = OptionKey(
        "cache-dir", .text("DIR"), default: "richpush-cache", help: "Root of the shared media cache (a relative path is under the working directory).")
    static let publicBaseURL = OptionKey(
        "public-base-url", .text("URL"),
        defaultText: "the placeholder \(placeholderPublicBaseURL), with a warning",
        help: "Base URL the CDN serves the cache root at, https (iOS App Transport Security blocks http). Required by serve and consume.")
    static let allowHTTPCDN = OptionKey(
        "allow-http-cdn", .flag, default: false,
        help: "Accept an http:// --public-base-url (devices with App Transport Security will not load it).")
    static let cacheURL = OptionKey(
        "cache-url", .text("URL"), defaultText: "none",
        help: "s3://bucket/prefix: keep the cache in S3-compatible storage instead of --cache-dir. Credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN).")
    static let storageEndpoint = OptionKey(
        "s3-endpoint", .text("URL"), defaultText: "AWS", help: "S3-compatible endpoint, e.g. http://127.0.0.1:9000.")
    static let storageRegion = OptionKey(
        "s3-region", .text("REGION"), defaultText: "$AWS_REGION, else \(fallbackStorageRegion)", help: "Signing region.")
    static let leaseRedis = OptionKey(
        "lease-redis", .text("URL"), defaultText: "none (consume: its --redis)",
        help: "redis://… or rediss://… (TLS) for cross-host single-flight on object storage.")
    static let redisCertificateAuthorityFile = OptionKey(
        "redis-tls-ca-file", .text("FILE"), defaultText: "the system's CA store",
        help: "PEM file of the CAs that sign a rediss:// server's certificate (--redis, --lease-redis), e.g. a self-hosted Redis's own CA.")
    static let redisCertificateAuthorityDirectory = OptionKey(
        "redis-tls-ca-directory", .text("DIR"), defaultText: "the system's CA store",
        help: "Directory of CA certificates named by subject hash (openssl rehash), instead of --redis-tls-ca-file.")
    static let redisClientCertificate = OptionKey(
        "redis-tls-certificate", .text("FILE"), defaultText: "none",
        help: "Client certificate chain (PEM) for a rediss:// server that requires one (mutual TLS).")
    static let redisClientKey = OptionKey(
        "redis-tls-key", .text("FILE"), defaultText: "the certificate's file",
        help: "Private key (PEM) of --redis-tls-certificate.")
    static let redisTLSInsecure = OptionKey(
        "redis-tls-insecure", .flag, default: false,
        help: "Do not check a rediss:// server's certificate or host name: for a test setup only (logs a warning at start).")
    static let localOrigin = OptionKey(
        "local-origin", .list("PREFIX=DIR"), default: [], defaultText: "none",
        help: "Serve URLs starting with PREFIX from files in DIR.")
    static let allowNetwork = OptionKey(
        "allow-network", .list("CIDR"), default: [], defaultText: "none",
        help: "Open an address range the SSRF guard denies, e.g. 127.0.0.1/32.")
    static let allowHost = OptionKey(
        "allow-host", .list("HOST"), default: [], defaultText: "any public host", help: "Fetch only from these hosts.")
    static let maximumNotifications = OptionKey(
        "max-notifications", .integer(in: 1...10_000), default: payload.maximumNotificationsPerRequest,
        help: "Notifications one Pushwoosh request may hold; a longer request is rejected (too_many_notifications).")
    static let maximumLineBytes = OptionKey(
        "max-line-bytes", .byteCount, default: enricher.maximumDocumentBytes,
        help: "Longest input document (line or stream entry); a longer one is rejected unread as line_too_long.")
    static let maximumSourceBytes = OptionKey(
        "max-source-bytes", .byteCount, default: fetch.maximumBytes,
        help: "Largest image source accepted (GIF included), e.g. 10MB.")
    static let maximumDecodeWork = OptionKey(
        "max-decode-work", .integer("SAMPLES", in: 1_000_000...1_000_000_000_000), default: ImageLimits.defaultMaximumDecodeWork,
        help: "Most samples one decode may produce, counted from the headers (a JPEG's scans times their components' samples); more is refused as decode_work_too_large before decoding.")
    static let renderMemory = OptionKey(
        "render-memory", .byteCount,
        defaultText: "a quarter of the machine's (or the cgroup's) memory, 64MB to 2GB",
        help: "Decoded pixel memory all renders may hold at once, e.g. 512MB; a render waits for it within its deadline.")
    static let qualityTarget = OptionKey(
        "quality-target", .qualityScore, default: ImageVariant.defaultQualityTarget,
        help: "SSIMULACRA2 score each JPEG or WebP is searched to reach with the fewest bytes, and a PNG with alpha as a palette PNG where that holds it (90 is visually lossless; the default is what the fixed quality gives a typical image), or off for a fixed quality of \(ImageVariant.defaultQuality), which renders faster but gives easy images more bytes and hard ones a lower score.")
    static let maximumAudioBytes = OptionKey(
        "max-audio-bytes", .byteCount, default: fetch.maximumAudioBytes,
        help: "Largest audio source (MP3, M4A, AIFF, WAV), passed through.")
    static let maximumVideoBytes = OptionKey(
        "max-video-bytes", .byteCount, default: fetch.maximumVideoBytes,
        help: "Largest video source (MP4, MOV, M4V), passed through.")
    static let defaultRetention = OptionKey(
        "default-retention", .duration, default: enricher.defaultRetention,
        help: "Keep an object this long after a job that has no apns-expiration used it (gc will not evict it before); APNs stores a push at most 30 days.")
    static let negativeTTL = OptionKey(
        "negative-ttl", .duration, default: cache.negativeTTL, help: "How long a failed source is remembered.")
    static let shape = OptionKey(
        "shape", .inputShape, defaultText: "detect",
        help: "Force the input shape: \(InputShape.allCases.map(\.rawValue).joined(separator: ", ")); a detected document of no known shape is rejected (unknown_shape).")
    static let topic = OptionKey(
        "topic", .text("BUNDLE_ID"), defaultText: "none",
        help: "apns-topic for jobs whose input names none (the app's bundle id; VoIP pushes get .voip).")
    static let defaultTitle = OptionKey(
        "default-title", .text("TEXT"), defaultText: "none (iOS shows the app name)",
        help: "Alert title when a push and its story have none.")
    static let defaultBody = OptionKey(
        "default-body", .text("TEXT"), default: payload.defaultBody, help: "Alert body when a push and its story have none.")
    static let language = OptionKey(
        "language", .text("CODE"), default: payload.language,
        help: "Which text of a Pushwoosh or OneSignal language map the device payload shows (validate, the preview); the request keeps the whole map.")
    static let storyCategory = OptionKey(
        "story-category", .text("CATEGORY"), default: payload.storyCategory,
        help: "aps.category given to a story push that has none (the stories content extension's category); a sender's own category is kept.")
    static let linkScheme = OptionKey(
        "link-scheme", .list("SCHEME"), default: [], defaultText: "any scheme, as the device SDKs accept (https:, tel:, mailto:, myapp:...)",
        help: "Allow only these link schemes (besides https), e.g. myapp; javascript:, data:, file:, vbscript:, about: and blob: are always refused.")
    static let sourceKeys = OptionKey(
        "source-keys", .flag, default: false,
        help: "Also write each rewritten media URL's original, redacted (no query or user-info), into the device payload (e.g. image_url_source); the first thing dropped when the payload must shrink.")
    static let strict = OptionKey(
        "strict", .flag, default: false, help: "Treat payload warnings (e.g. Pushfa length limits) as errors.")
    static let result = OptionKey(
        "result", .resultParts, default: enricher.resultParts,
        help: "What each result line carries besides id, line, status, target and timings: all, or any of request, apns, media, diagnostics, comma-separated (e.g. request, for a sender that posts request to its provider).")
    static let logLevel = OptionKey("log-level", .logLevel, default: LogLevel.info, help: "Least severe level logged: debug, info, warning or error.")

    /// Object storage instead of a directory; the settings after `--cache-url` only matter with it.
    static let storage: [any AnyOptionKey] = [cacheURL, storageEndpoint, storageRegion, leaseRedis]
    /// How rediss:// URLs (consume's --redis, --lease-redis) run TLS.
    static let redisTLS: [any AnyOptionKey] = [
        redisCertificateAuthorityFile, redisCertificateAuthorityDirectory, redisClientCertificate, redisClientKey,
        redisTLSInsecure,
    ]

    /// Every worker option, in the order `--help` lists them.
    static let all: [any AnyOptionKey] = [
        configuration, concurrency, deadline, allowLongDeadline, cacheDirectory, publicBaseURL, allowHTTPCDN,
    ] + storage + redisTLS + [
        localOrigin, allowNetwork, allowHost, maximumNotifications, maximumLineBytes, maximumSourceBytes, maximumDecodeWork,
        renderMemory, qualityTarget, maximumAudioBytes, maximumVideoBytes, defaultRetention, negativeTTL, shape, topic,
        defaultTitle, defaultBody, language, storyCategory, linkScheme, sourceKeys, strict, result, logLevel,
    ]
}
