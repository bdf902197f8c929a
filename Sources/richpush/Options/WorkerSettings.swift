import Foundation
import RichPush

/// The options shared by every command that fetches and renders media, and the library objects they configure.
///
/// Every value is read from `WorkerOption`, which declares each option's default once; none is restated here.
struct WorkerSettings {
    var concurrency: Int
    /// `--quality-target`: the score every variant is searched for, nil (`off`) for the variants' fixed quality.
    var qualityTarget: Double?
    var deadline: Duration
    var cacheDirectory: String
    var publicBaseURL: String
    /// Whether `--public-base-url` was given (flag, environment or configuration file).
    var publicBaseURLGiven: Bool
    var allowsHTTPCDN: Bool
    var cacheURL: String?
    var storageEndpoint: String?
    var storageRegion: String
    var leaseRedis: RedisEndpoint?
    /// What `--redis-tls-*` set, for every rediss:// URL.
    var redisTLS: RedisTLSSettings
    var localOrigins: [LocalOrigin] = []
    var allowNetworks: [IPNetwork] = []
    var allowHosts: Set<String>?
    var maximumSourceBytes: Int
    var maximumDecodeWork: Int
    var resultParts: ResultParts
    var maximumAudioBytes: Int
    var maximumVideoBytes: Int
    var maximumLineBytes: Int
    var maximumNotifications: Int
    /// The one budget every render of this process reserves its pixel memory in (`--render-memory`).
    var renderMemoryBudget: RenderMemoryBudget
    var negativeTTL: Duration
    var defaultRetention: Duration
    var shape: InputShape?
    var topic: String?
    var strict: Bool
    var sourceKeys: Bool
    var defaultTitle: String?
    var defaultBody: String
    var storyCategory: String
    var language: String
    var linkSchemes: [String]
    var logger: Logger

    init(_ options: ParsedOptions) throws(UsageError) {
        concurrency = try options.value(of: WorkerOption.concurrency)
        deadline = try options.value(of: WorkerOption.deadline)
        let allowsLongDeadline = try options.value(of: WorkerOption.allowLongDeadline)
        if deadline <= .zero || (deadline > EnricherConfiguration.serviceExtensionTime && !allowsLongDeadline) {
            throw .invalidValue(
                option: WorkerOption.deadline.name, value: options.rawValue(of: WorkerOption.deadline) ?? "",
                expected: "a duration above 0 and at most \(WorkerOption.serviceExtensionTime), the time iOS gives the service extension (--allow-long-deadline for more)")
        }
        cacheDirectory = try options.value(of: WorkerOption.cacheDirectory)
        publicBaseURLGiven = options.isGiven(WorkerOption.publicBaseURL)
        publicBaseURL = try options.value(of: WorkerOption.publicBaseURL) ?? WorkerOption.placeholderPublicBaseURL
        allowsHTTPCDN = try options.value(of: WorkerOption.allowHTTPCDN)
        do {
            try CacheLayout.checkPublicBaseURL(publicBaseURL)
        } catch {
            throw .invalidValue(option: WorkerOption.publicBaseURL.name, value: publicBaseURL, expected: "a URL the stores accept (\(error))")
        }
        cacheURL = try options.value(of: WorkerOption.cacheURL)
        storageEndpoint = try options.value(of: WorkerOption.storageEndpoint)
        let environment = ProcessInfo.processInfo.environment
        storageRegion = try options.value(of: WorkerOption.storageRegion) ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"]
            ?? WorkerOption.fallbackStorageRegion
        redisTLS = RedisTLSSettings(
            certificateAuthorityFile: try options.value(of: WorkerOption.redisCertificateAuthorityFile),
            certificateAuthorityDirectory: try options.value(of: WorkerOption.redisCertificateAuthorityDirectory),
            clientCertificateFile: try options.value(of: WorkerOption.redisClientCertificate),
            clientKeyFile: try options.value(of: WorkerOption.redisClientKey),
            verifiesServer: !(try options.value(of: WorkerOption.redisTLSInsecure)))
        do {
            try redisTLS.check()
        } catch {
            throw .missingArgument("--\(WorkerOption.redisClientCertificate.name) FILE (\(error))")
        }
        let tls = redisTLS
        leaseRedis = try options.value(of: WorkerOption.leaseRedis).map { url throws(UsageError) in
            try Self.redisEndpoint(url, option: WorkerOption.leaseRedis.name, tls: tls)
        }
        for mapping in try options.value(of: WorkerOption.localOrigin) {
            do {
                localOrigins.append(try LocalOrigin(parsing: mapping))
            } catch {
                throw .invalidValue(option: WorkerOption.localOrigin.name, value: mapping, expected: "PREFIX=DIR with an existing directory (\(error))")
            }
        }
        for cidr in try options.value(of: WorkerOption.allowNetwork) {
            do {
                allowNetworks.append(try IPNetwork(cidr))
            } catch {
                throw .invalidValue(option: WorkerOption.allowNetwork.name, value: cidr, expected: "a CIDR such as 127.0.0.1/32 or fd00::/8")
            }
        }
        let hosts = try options.value(of: WorkerOption.allowHost)
        for host in hosts where !Self.isHostName(host) {
            throw .invalidValue(
                option: WorkerOption.allowHost.name, value: host,
                expected: "a host name such as media.example.com, .example.com for its subdomains, or an IP address")
        }
        allowHosts = hosts.isEmpty ? nil : Set(hosts.map { $0.lowercased() })
        maximumSourceBytes = try options.value(of: WorkerOption.maximumSourceBytes)
        maximumDecodeWork = try options.value(of: WorkerOption.maximumDecodeWork)
        resultParts = try options.value(of: WorkerOption.result)
        maximumAudioBytes = try options.value(of: WorkerOption.maximumAudioBytes)
        maximumVideoBytes = try options.value(of: WorkerOption.maximumVideoBytes)
        maximumLineBytes = try options.value(of: WorkerOption.maximumLineBytes)
        maximumNotifications = try options.value(of: WorkerOption.maximumNotifications)
        renderMemoryBudget = try options.value(of: WorkerOption.renderMemory).map(RenderMemoryBudget.init(capacity:)) ?? .processWide
        qualityTarget = try options.value(of: WorkerOption.qualityTarget)
        negativeTTL = try options.value(of: WorkerOption.negativeTTL)
        defaultRetention = try options.value(of: WorkerOption.defaultRetention)
        shape = try options.value(of: WorkerOption.shape)
        strict = try options.value(of: WorkerOption.strict)
        sourceKeys = try options.value(of: WorkerOption.sourceKeys)
        topic = try options.value(of: WorkerOption.topic)
        defaultTitle = try options.value(of: WorkerOption.defaultTitle)
        defaultBody = try options.value(of: WorkerOption.defaultBody)
        language = try options.value(of: WorkerOption.language)
        storyCategory = try options.value(of: WorkerOption.storyCategory)
        if storyCategory.isEmpty {
            throw .invalidValue(option: WorkerOption.storyCategory.name, value: "", expected: "a category name such as PW_STORIES")
        }
        linkSchemes = try options.value(of: WorkerOption.linkScheme).map { $0.lowercased().replacingOccurrences(of: ":", with: "") }
        logger = Logger(minimumLevel: try options.value(of: WorkerOption.logLevel))
        if !redisTLS.verifiesServer {
            logger.log(.warning, "redis_tls_insecure", [
                ("message", .string("--\(WorkerOption.redisTLSInsecure.name): rediss:// servers' certificates and host names are not checked; for a test setup only")),
            ])
        }
    }

    /// A `--redis` or `--lease-redis` URL, with the `--redis-tls-*` settings when it is rediss://. A TLS option
    /// beside a plain redis:// URL is a mistake worth saying: the connection it was meant to protect is not TLS.
    static func redisEndpoint(_ url: String, option: String, tls: RedisTLSSettings) throws(UsageError) -> RedisEndpoint {
        var endpoint: RedisEndpoint
        do {
            endpoint = try RedisEndpoint(parsing: url)
        } catch {
            throw .invalidValue(option: option, value: url, expected: "redis[s]://[user:password@]host:port/db (\(error))")
        }
        if endpoint.tls != nil {
            endpoint.tls = tls
        } else if tls != RedisTLSSettings() {
            throw .invalidValue(
                option: option, value: URLRedaction.redact(url),
                expected: "a rediss:// URL, since --redis-tls-* options are given")
        }
        return endpoint
    }

    /// Checks the public base URL of a command that writes URLs for devices: `serve` and `consume` (`requiresExplicit`)
    /// refuse to run on the placeholder (the others call `warnIfPlaceholder` after their start line); an http URL is
    /// refused unless `--allow-http-cdn`.
    func checkPublicBaseURL(requiresExplicit: Bool) throws(UsageError) {
        if requiresExplicit, !publicBaseURLGiven {
            throw .requiredOption(
                option: WorkerOption.publicBaseURL.name,
                reason: "devices fetch the rewritten media from it; set --public-base-url https://…, RICHPUSH_PUBLIC_BASE_URL or \"public-base-url\" in --config")
        }
        if publicBaseURL.lowercased().hasPrefix("http://"), !allowsHTTPCDN {
            throw .invalidValue(
                option: WorkerOption.publicBaseURL.name, value: publicBaseURL,
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
        options.defaultTitle = defaultTitle
        options.defaultBody = defaultBody
        options.storyCategory = storyCategory
        options.language = language
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
        imageLimits.maximumDecodeWork = maximumDecodeWork
        let variants = EnricherConfiguration.defaultVariants.mapValues { variant in
            var variant = variant
            variant.qualityTarget = qualityTarget
            return variant
        }
        var configuration = EnricherConfiguration(
            jobDeadline: deadline, variants: variants, imageLimits: imageLimits, payload: payloadOptions,
            defaultRetention: defaultRetention, maximumDocumentBytes: maximumLineBytes,
            renderMemoryBudget: renderMemoryBudget, log: logger, notificationConcurrency: concurrency)
        configuration.resultParts = resultParts
        return configuration
    }

    /// Opens the cache and the fetcher, and checks that the cache is usable (for object storage: the bucket and
    /// credentials, and the lease's Redis). Failures here are environment problems (exit 1), not usage mistakes.
    /// `queueRedis` is `consume`'s queue, used for leases when `--lease-redis` is absent.
    /// `concealsUnreachableHostCause` is `serve`'s: its callers are on the network.
    func makeEnricher(
        queueRedis: RedisEndpoint? = nil, concealsUnreachableHostCause: Bool = false
    ) async throws -> (Enricher, Fetcher, any MaintainedMediaStore) {
        let fetcher = try Fetcher(configuration: fetchConfiguration)
        do {
            let store = try await makeStore(fetcher: fetcher, queueRedis: queueRedis)
            var configuration = enricherConfiguration
            configuration.concealsUnreachableHostCause = concealsUnreachableHostCause
            return (Enricher(configuration: configuration, store: store, fetcher: fetcher), fetcher, store)
        } catch {
            fetcher.shutdown()
            throw error
        }
    }

    /// The file store under `--cache-dir`, or the object-storage store of `--cache-url`.
    func makeStore(fetcher: Fetcher, queueRedis: RedisEndpoint? = nil) async throws -> any MaintainedMediaStore {
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
            lease = RedisLease(endpoint: leaseRedis)
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
