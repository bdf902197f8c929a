import Foundation
import RichPush

/// The options shared by every command that fetches and renders media, and the library objects they configure.
struct WorkerSettings {
    /// Options that every command shares, the cache maintenance commands included.
    static let configuration = OptionDefinition(
        "config", .value, valueName: "FILE", help: "JSON file of option values (keys are option names).")
    static let cacheDirectory = OptionDefinition(
        "cache-dir", .value, valueName: "DIR", help: "Root of the shared media cache. Default ./richpush-cache.")
    static let publicBaseURL = OptionDefinition(
        "public-base-url", .value, valueName: "URL",
        help: "Base URL the CDN serves the cache root at, https (iOS App Transport Security blocks http). Required by serve and consume; other commands fall back to the placeholder https://cdn.example.com/richpush, with a warning.")
    static let allowHTTPCDN = OptionDefinition(
        "allow-http-cdn", .flag, help: "Accept an http:// --public-base-url (devices with App Transport Security will not load it).")
    /// The `--public-base-url` of a command run without one: good for trying RichPush out, never for devices.
    static let placeholderPublicBaseURL = "https://cdn.example.com/richpush"
    /// Object storage instead of a directory; the settings below only matter with it.
    static let storageOptions: [OptionDefinition] = [
        OptionDefinition(
            "cache-url", .value, valueName: "URL",
            help: "s3://bucket/prefix: keep the cache in S3-compatible storage instead of --cache-dir. Credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN)."),
        OptionDefinition("s3-endpoint", .value, valueName: "URL", help: "S3-compatible endpoint, e.g. http://127.0.0.1:9000. Default: AWS."),
        OptionDefinition("s3-region", .value, valueName: "REGION", help: "Signing region. Default $AWS_REGION, else us-east-1."),
        OptionDefinition(
            "lease-redis", .value, valueName: "URL",
            help: "redis://… for cross-host single-flight on object storage (consume uses --redis when this is absent)."),
    ]
    static let logLevel = OptionDefinition(
        "log-level", .value, valueName: "LEVEL", help: "debug, info, warning or error. Default info.")

    static let options: [OptionDefinition] = [
        configuration,
        OptionDefinition("concurrency", .value, valueName: "N", help: "Jobs (or media items) in flight at once, and the notifications of one Pushwoosh request enriched at once. Default 16."),
        OptionDefinition("deadline", .value, valueName: "DURATION", help: "Hard per-job deadline, e.g. 25s or 800ms; at most 30s (the service extension's limit). Default 25s."),
        OptionDefinition("allow-long-deadline", .flag, help: "Accept a --deadline over 30s (for prewarm jobs that no device waits for)."),
        cacheDirectory,
        publicBaseURL,
        allowHTTPCDN,
    ] + storageOptions + [
        OptionDefinition("local-origin", .repeatedValue, valueName: "PREFIX=DIR", help: "Serve URLs starting with PREFIX from files in DIR."),
        OptionDefinition("allow-network", .repeatedValue, valueName: "CIDR", help: "Open an address range the SSRF guard denies, e.g. 127.0.0.1/32."),
        OptionDefinition("allow-host", .repeatedValue, valueName: "HOST", help: "Fetch only from these hosts (default: any public host)."),
        OptionDefinition("max-notifications", .value, valueName: "N", help: "Notifications one Pushwoosh request may hold; a longer request is rejected (too_many_notifications). Default 100."),
        OptionDefinition("max-line-bytes", .value, valueName: "SIZE", help: "Longest input document (line or stream entry); a longer one is rejected unread as line_too_long. Default 1MB."),
        OptionDefinition("max-source-bytes", .value, valueName: "SIZE", help: "Largest image source accepted (GIF included), e.g. 10MB. Default 10MB."),
        OptionDefinition("render-memory", .value, valueName: "SIZE", help: "Decoded pixel memory all renders may hold at once, e.g. 512MB; a render waits for it within its deadline. Default: a quarter of the machine's (or the cgroup's) memory, 64MB to 2GB."),
        OptionDefinition("quality-target", .value, valueName: "SCORE", help: "SSIMULACRA2 score each JPEG is searched to reach with the fewest bytes (90 is visually lossless, 80 high quality; 80 is the measured choice), or off for a fixed quality of 82. Default off: the search costs about 3x the render time."),
        OptionDefinition("max-audio-bytes", .value, valueName: "SIZE", help: "Largest audio source (MP3, M4A, AIFF, WAV), passed through. Default 5MB."),
        OptionDefinition("max-video-bytes", .value, valueName: "SIZE", help: "Largest video source (MP4, MOV, M4V), passed through. Default 50MB."),
        OptionDefinition("default-retention", .value, valueName: "DURATION", help: "Keep an object this long after a job that has no apns-expiration used it (gc will not evict it before). Default 30d, APNs' longest storage."),
        OptionDefinition("negative-ttl", .value, valueName: "DURATION", help: "How long a failed source is remembered. Default 5m."),
        OptionDefinition("shape", .value, valueName: "SHAPE", help: "Force the input shape: apns, envelope, pushwoosh, pushfa, fcm or onesignal. Default: detect; an unrecognized document is rejected (unknown_shape)."),
        OptionDefinition("topic", .value, valueName: "BUNDLE_ID", help: "apns-topic for jobs whose input names none (the app's bundle id; VoIP pushes get .voip)."),
        OptionDefinition("default-title", .value, valueName: "TEXT", help: "Alert title when a push and its story have none. Default: none (iOS shows the app name)."),
        OptionDefinition("default-body", .value, valueName: "TEXT", help: "Alert body when a push and its story have none. Default \"Open to see more\"."),
        OptionDefinition("language", .value, valueName: "CODE", help: "Which text of a Pushwoosh or OneSignal language map the device payload shows (validate, the preview); the request keeps the whole map. Default en."),
        OptionDefinition("story-category", .value, valueName: "CATEGORY", help: "aps.category given to a story push that has none (the stories content extension's category); a sender's own category is kept. Default PW_STORIES."),
        OptionDefinition("link-scheme", .repeatedValue, valueName: "SCHEME", help: "Allow only these link schemes (besides https), e.g. myapp. Default: any scheme, as the device SDKs accept (https:, tel:, mailto:, myapp:...); javascript:, data:, file:, vbscript:, about: and blob: are always refused."),
        OptionDefinition("source-keys", .flag, help: "Also write each rewritten media URL's original, redacted (no query or user-info), into the device payload (e.g. image_url_source); the first thing dropped when the payload must shrink."),
        OptionDefinition("strict", .flag, help: "Treat payload warnings (e.g. Pushfa length limits) as errors."),
        logLevel,
    ]

    var concurrency = 16
    /// `--quality-target`: nil (the default) encodes every JPEG at the variants' fixed quality. Off by default because
    /// measured on the corpus the search took 2.95x the render time (a full-size SSIMULACRA2 costs about two
    /// fixed-quality renders) and, on the load suite's images, whose quality 82 scores only 73-76, raised the median
    /// attachment from 74 to 109 KB (docs/benchmarks.md, "Quality by target").
    var qualityTarget: Double?
    var deadline: Duration = .seconds(25)
    var cacheDirectory = "richpush-cache"
    var publicBaseURL = placeholderPublicBaseURL
    /// Whether `--public-base-url` was given (flag, environment or configuration file).
    var publicBaseURLGiven = false
    var allowsHTTPCDN = false
    var cacheURL: String?
    var storageEndpoint: String?
    var storageRegion: String
    var leaseRedis: String?
    var localOrigins: [LocalOrigin] = []
    var allowNetworks: [IPNetwork] = []
    var allowHosts: Set<String>?
    var maximumSourceBytes = AttachmentKind.image.appleByteLimit
    var maximumAudioBytes = AttachmentKind.audio.appleByteLimit
    var maximumVideoBytes = AttachmentKind.video.appleByteLimit
    var maximumLineBytes = 1024 * 1024
    var maximumNotifications = PayloadOptions().maximumNotificationsPerRequest
    /// The one budget every render of this process reserves its pixel memory in (`--render-memory`).
    var renderMemoryBudget = RenderMemoryBudget.processWide
    var negativeTTL: Duration = .seconds(300)
    var defaultRetention: Duration = .seconds(30 * 86_400)
    var shape: InputShape?
    var topic: String?
    var strict = false
    var sourceKeys = false
    var defaultTitle: String?
    var defaultBody: String?
    var storyCategory: String?
    var language: String?
    var linkSchemes: [String] = []
    var logger = Logger(minimumLevel: .info)

    init(_ options: ParsedOptions) throws(UsageError) {
        concurrency = try options.integer("concurrency", range: 1...4096) ?? concurrency
        deadline = try options.duration("deadline") ?? deadline
        if deadline <= .zero || (deadline > .seconds(30) && !options.flag("allow-long-deadline")) {
            throw .invalidValue(
                option: "deadline", value: options.string("deadline") ?? "",
                expected: "a duration above 0 and at most 30s, the time iOS gives the service extension (--allow-long-deadline for more)")
        }
        cacheDirectory = options.string("cache-dir") ?? cacheDirectory
        publicBaseURLGiven = options.string("public-base-url") != nil
        publicBaseURL = options.string("public-base-url") ?? publicBaseURL
        allowsHTTPCDN = options.flag("allow-http-cdn")
        do {
            try CacheLayout.checkPublicBaseURL(publicBaseURL)
        } catch {
            throw .invalidValue(option: "public-base-url", value: publicBaseURL, expected: "a URL the stores accept (\(error))")
        }
        cacheURL = options.string("cache-url")
        storageEndpoint = options.string("s3-endpoint")
        let environment = ProcessInfo.processInfo.environment
        storageRegion = options.string("s3-region") ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        leaseRedis = options.string("lease-redis")
        for mapping in options.strings("local-origin") {
            do {
                localOrigins.append(try LocalOrigin(parsing: mapping))
            } catch {
                throw .invalidValue(option: "local-origin", value: mapping, expected: "PREFIX=DIR with an existing directory (\(error))")
            }
        }
        for cidr in options.strings("allow-network") {
            do {
                allowNetworks.append(try IPNetwork(cidr))
            } catch {
                throw .invalidValue(option: "allow-network", value: cidr, expected: "a CIDR such as 127.0.0.1/32 or fd00::/8")
            }
        }
        let hosts = options.strings("allow-host")
        for host in hosts where !Self.isHostName(host) {
            throw .invalidValue(option: "allow-host", value: host, expected: "a host name such as media.example.com, .example.com for its subdomains, or an IP address")
        }
        allowHosts = hosts.isEmpty ? nil : Set(hosts.map { $0.lowercased() })
        maximumSourceBytes = try options.byteCount("max-source-bytes") ?? maximumSourceBytes
        maximumAudioBytes = try options.byteCount("max-audio-bytes") ?? maximumAudioBytes
        maximumVideoBytes = try options.byteCount("max-video-bytes") ?? maximumVideoBytes
        maximumLineBytes = try options.byteCount("max-line-bytes") ?? maximumLineBytes
        maximumNotifications = try options.integer("max-notifications", range: 1...10_000) ?? maximumNotifications
        if let capacity = try options.byteCount("render-memory") { renderMemoryBudget = RenderMemoryBudget(capacity: capacity) }
        if let raw = options.string("quality-target") {
            if raw == "off" {
                qualityTarget = nil
            } else if let score = Double(raw), score > 0, score <= 100 {
                qualityTarget = score
            } else {
                throw .invalidValue(option: "quality-target", value: raw, expected: "a SSIMULACRA2 score above 0 and at most 100, or off")
            }
        }
        negativeTTL = try options.duration("negative-ttl") ?? negativeTTL
        defaultRetention = try options.duration("default-retention") ?? defaultRetention
        if let raw = options.string("shape") {
            guard let shape = InputShape(rawValue: raw) else {
                throw .invalidValue(option: "shape", value: raw, expected: "apns, envelope, pushwoosh, pushfa, fcm or onesignal")
            }
            self.shape = shape
        }
        strict = options.flag("strict")
        sourceKeys = options.flag("source-keys")
        topic = options.string("topic")
        defaultTitle = options.string("default-title")
        defaultBody = options.string("default-body")
        language = options.string("language")
        storyCategory = options.string("story-category")
        if storyCategory?.isEmpty == true {
            throw .invalidValue(option: "story-category", value: "", expected: "a category name such as PW_STORIES")
        }
        linkSchemes = options.strings("link-scheme").map { $0.lowercased().replacingOccurrences(of: ":", with: "") }
        if let raw = options.string("log-level") {
            guard let level = LogLevel(name: raw) else {
                throw .invalidValue(option: "log-level", value: raw, expected: "debug, info, warning or error")
            }
            logger = Logger(minimumLevel: level)
        }
    }

    /// Checks the public base URL of a command that writes URLs for devices: `serve` and `consume` (`requiresExplicit`)
    /// refuse to run on the placeholder (the others call `warnIfPlaceholder` after their start line); an http URL is
    /// refused unless `--allow-http-cdn`.
    func checkPublicBaseURL(requiresExplicit: Bool) throws(UsageError) {
        if requiresExplicit, !publicBaseURLGiven {
            throw .requiredOption(
                option: "public-base-url",
                reason: "devices fetch the rewritten media from it; set --public-base-url https://…, RICHPUSH_PUBLIC_BASE_URL or \"public-base-url\" in --config")
        }
        if publicBaseURL.lowercased().hasPrefix("http://"), !allowsHTTPCDN {
            throw .invalidValue(
                option: "public-base-url", value: publicBaseURL,
                expected: "an https URL: iOS App Transport Security blocks plain http (--allow-http-cdn accepts it anyway)")
        }
    }

    /// One warning line when the results will carry the placeholder public base URL.
    func warnIfPlaceholder() {
        if !publicBaseURLGiven {
            logger.log(.warning, "placeholder_public_base_url", [
                ("public_base_url", .string(publicBaseURL)),
                ("message", .string("no --public-base-url: results point at a placeholder CDN that devices cannot reach")),
            ])
        }
    }

    /// A DNS name (letters, digits, hyphens, dots; a leading dot means its subdomains) or an IP literal.
    static func isHostName(_ host: String) -> Bool {
        if (try? IPNetwork(host.contains(":") ? host + "/128" : host + "/32")) != nil { return true }
        let name = host.hasPrefix(".") ? host.dropFirst() : Substring(host)
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return !name.isEmpty && name.count <= 253 && labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    /// What the start-up log line reports: where the cache is and the limits a job runs under.
    var startupFields: [(String, JSONValue)] {
        [
            ("cache", .string(cacheURL.map(URLRedaction.redact) ?? cacheDirectory)),
            ("public_base_url", .string(publicBaseURL)),
            ("concurrency", .number(String(concurrency))),
            ("deadline_ms", .number(String(Int(deadline / .milliseconds(1))))),
            ("max_source_bytes", .number(String(maximumSourceBytes))),
            ("max_audio_bytes", .number(String(maximumAudioBytes))),
            ("max_video_bytes", .number(String(maximumVideoBytes))),
            ("max_line_bytes", .number(String(maximumLineBytes))),
            ("render_memory_bytes", .number(String(renderMemoryBudget.capacity))),
            ("quality_target", qualityTarget.map { .number(String($0)) } ?? .string("off")),
            ("allowed_networks", .number(String(allowNetworks.count))),
        ]
    }

    var payloadOptions: PayloadOptions {
        var options = PayloadOptions()
        options.strict = strict
        options.forcedShape = shape
        options.topic = topic
        options.includesSourceKeys = sourceKeys
        options.maximumNotificationsPerRequest = maximumNotifications
        // Our own cached objects are never fetched again, so a result fed back in comes out the same.
        options.ownMediaBaseURL = publicBaseURL
        if let defaultTitle { options.defaultTitle = defaultTitle }
        if let defaultBody { options.defaultBody = defaultBody }
        if let storyCategory { options.storyCategory = storyCategory }
        if let language { options.language = language }
        // --link-scheme narrows links to an allow-list; https stays allowed.
        if !linkSchemes.isEmpty { options.allowedLinkSchemes = Set(linkSchemes).union(["https"]) }
        return options
    }

    var fetchConfiguration: FetchConfiguration {
        var configuration = FetchConfiguration()
        configuration.maximumBytes = maximumSourceBytes
        configuration.maximumAudioBytes = maximumAudioBytes
        configuration.maximumVideoBytes = maximumVideoBytes
        configuration.allowNetworks = allowNetworks
        configuration.allowedHosts = allowHosts
        configuration.localOrigins = localOrigins
        return configuration
    }

    var cacheConfiguration: CacheConfiguration {
        var configuration = CacheConfiguration(
            root: URL(fileURLWithPath: cacheDirectory, isDirectory: true), publicBaseURL: publicBaseURL)
        configuration.negativeTTL = negativeTTL
        return configuration
    }

    var enricherConfiguration: EnricherConfiguration {
        var imageLimits = ImageLimits()
        imageLimits.maximumSourceBytes = maximumSourceBytes
        let variants = EnricherConfiguration.defaultVariants.mapValues { variant in
            var variant = variant
            variant.qualityTarget = qualityTarget
            return variant
        }
        return EnricherConfiguration(
            jobDeadline: deadline, variants: variants, imageLimits: imageLimits, payload: payloadOptions,
            defaultRetention: defaultRetention, maximumDocumentBytes: maximumLineBytes,
            renderMemoryBudget: renderMemoryBudget, log: logger, notificationConcurrency: concurrency)
    }

    /// Opens the cache and the fetcher, and checks that the cache is usable (for object storage: the bucket and
    /// credentials, and the lease's Redis). Failures here are environment problems (exit 1), not usage mistakes.
    /// `queueRedis` is `consume`'s queue, used for leases when `--lease-redis` is absent.
    func makeEnricher(queueRedis: RedisEndpoint? = nil) async throws -> (Enricher, Fetcher, any MediaStore) {
        let fetcher = try Fetcher(configuration: fetchConfiguration)
        do {
            let store = try await makeStore(fetcher: fetcher, queueRedis: queueRedis)
            return (Enricher(configuration: enricherConfiguration, store: store, fetcher: fetcher), fetcher, store)
        } catch {
            fetcher.shutdown()
            throw error
        }
    }

    /// The file store under `--cache-dir`, or the object-storage store of `--cache-url`.
    func makeStore(fetcher: Fetcher, queueRedis: RedisEndpoint? = nil) async throws -> any MediaStore {
        guard let cacheURL else { return try FileMediaStore(configuration: cacheConfiguration) }
        let environment = ProcessInfo.processInfo.environment
        let location = try ObjectStorageLocation(
            cacheURL: cacheURL, endpoint: storageEndpoint, region: storageRegion,
            accessKeyID: environment["AWS_ACCESS_KEY_ID"], secretAccessKey: environment["AWS_SECRET_ACCESS_KEY"],
            sessionToken: environment["AWS_SESSION_TOKEN"])
        var configuration = ObjectStorageConfiguration(location: location, publicBaseURL: publicBaseURL)
        configuration.negativeTTL = negativeTTL
        var lease: RedisLease?
        if let leaseRedis {
            do {
                lease = RedisLease(endpoint: try RedisEndpoint(parsing: leaseRedis))
            } catch {
                throw UsageError.invalidValue(option: "lease-redis", value: leaseRedis, expected: "redis://[user:password@]host:port/db (\(error))")
            }
        } else if let queueRedis {
            lease = RedisLease(endpoint: queueRedis)
        }
        try await lease?.checkConnection()
        let store = try ObjectStorageMediaStore(configuration: configuration, transport: fetcher, lease: lease)
        try await store.checkAccess()
        if let lease {
            logger.log(.info, "cache", [("store", .string(location.description)), ("single_flight", .string("cross-host, \(lease.description)"))])
        } else {
            logger.log(.warning, "cache", [
                ("store", .string(location.description)),
                ("single_flight", .string("per process only: no --lease-redis, so hosts may each render a key once")),
            ])
        }
        return store
    }
}
