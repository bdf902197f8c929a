import RichPushCore
/// Everything the payload layer lets an operator tune. Defaults follow the issue and the device SDKs.
public struct PayloadOptions: Sendable {
    /// The media keys the SDKs read, as dotted key paths from the payload root; `[]` walks every array element.
    /// A key's value may be a URL string, an object whose http(s) string members are all URLs (OneSignal `att`:
    /// id → URL, or `{"url": ...}`), or an array of URL strings. `pw_stories.pages[].image` enables story media.
    public static let defaultMediaKeys = [
        "attachment", "att", "fcm_options.image", "image_url", "image", "media-url", "pw_stories.pages[].image",
    ]

    /// Turns length limits (Pushfa title/body, story texts, actions) into errors that reject the job.
    public var strict: Bool
    /// Skips shape detection.
    public var forcedShape: InputShape?
    /// The app's bundle id: `apns-topic` for jobs whose input names no topic (`--topic`). VoIP pushes get
    /// `<topic>.voip`, as APNs requires.
    public var topic: String?
    public var mediaKeys: [String] {
        didSet { mediaKeyPaths = mediaKeys.map(MediaKeyPath.init) }
    }
    /// `mediaKeys`, each split into its segments once.
    package private(set) var mediaKeyPaths: [MediaKeyPath]
    /// The category given to story pushes (the content extension's category).
    public var storyCategory: String
    /// The root key holding the story.
    public var storyKey: String
    public var maximumStoryPages: Int
    /// Fallback `aps.alert.title` when neither the sender nor a story page gives one; nil leaves it out
    /// (iOS then shows the app name).
    public var defaultTitle: String?
    /// Fallback `aps.alert.body`, always applied to alert pushes that have no body.
    public var defaultBody: String
    /// Schemes a link (story page `link`, `link_url`, `url`, `click_action`, `l`, Pushfa action `url`) may use,
    /// lowercased, without ":". Nil (the default) allows every scheme, as the Pushwoosh SDK does (its
    /// `StoryPayloadParser` takes any URL with a scheme: `tel:`, `mailto:`, `sms:`, `myapp:open/offers`); a set
    /// narrows links to exactly those schemes (`--link-scheme`). `deniedLinkSchemes` are refused either way.
    public var allowedLinkSchemes: Set<String>?
    /// Writes each rewritten media reference's original URL, redacted (no query, fragment or user-info), into the
    /// device payload at a sibling key (`--source-keys`; see docs/diagnostic-codes.md). Off by default: devices
    /// never read these keys, and the result's `media[]` already holds every original. They are the first thing
    /// dropped when the payload must shrink.
    public var includesSourceKeys: Bool
    /// Suffix of the sibling key that keeps an original URL after a rewrite (see docs/diagnostic-codes.md).
    public var originalURLKeySuffix: String
    /// Where the cache's objects are served (the cache's `publicBaseURL`). A media URL under it is one of our own
    /// cached objects, left as it is and never fetched again, so feeding a result back in gives the same payload.
    public var ownMediaBaseURL: String?
    public var maximumStoryTitleLength: Int
    public var maximumStorySubtitleLength: Int
    public var maximumButtonTitleLength: Int
    public var storyDurationRange: ClosedRange<Int>
    /// Seconds the Pushwoosh SDK shows a story page that has no `duration`.
    public static let deviceDefaultStoryDuration = 5
    public var maximumPushfaTitleLength: Int
    public var maximumPushfaBodyLength: Int
    public var maximumActions: Int
    public var maximumPayloadBytes: Int
    public var maximumVoIPPayloadBytes: Int
    /// Root keys whose presence keeps `mutable-content` on, so the extension runs and reports delivery.
    public var deliveryTrackingKeys: [String]
    public var maximumDepth: Int
    /// The language a provider's language map (Pushwoosh `content`, OneSignal `contents`) shows in the device payload
    /// that `validate` and the preview read (`--language`); the sender's request keeps the whole map, since the
    /// provider gives each device its own language.
    public var language = "en"
    /// Notifications one Pushwoosh request may hold (`--max-notifications`); a longer request is rejected with
    /// `too_many_notifications`. Each notification is a job with its own result and media, so this bounds the work
    /// and the output of one document.
    public var maximumNotificationsPerRequest: Int
    /// Findings of one code listed per result; the rest are counted in one `diagnostics_omitted` finding
    /// (`Array.cappedPerCode`), so a result stays proportional to what is wrong, not to how often.
    public var maximumDiagnosticsPerCode: Int

    public init(strict: Bool = false, forcedShape: InputShape? = nil, topic: String? = nil,
                mediaKeys: [String] = PayloadOptions.defaultMediaKeys, storyCategory: String = "PW_STORIES",
                storyKey: String = "pw_stories", maximumStoryPages: Int = 10, defaultTitle: String? = nil,
                defaultBody: String = "Open to see more", allowedLinkSchemes: Set<String>? = nil,
                includesSourceKeys: Bool = false,
                originalURLKeySuffix: String = "_source", ownMediaBaseURL: String? = nil,
                maximumStoryTitleLength: Int = 60, maximumStorySubtitleLength: Int = 120,
                maximumButtonTitleLength: Int = 30, storyDurationRange: ClosedRange<Int> = 1...30,
                maximumPushfaTitleLength: Int = 35, maximumPushfaBodyLength: Int = 150, maximumActions: Int = 2,
                maximumPayloadBytes: Int = 4096, maximumVoIPPayloadBytes: Int = 5120,
                deliveryTrackingKeys: [String] = ["messageId", "ackUrl"], maximumDepth: Int = 64,
                maximumNotificationsPerRequest: Int = 100, maximumDiagnosticsPerCode: Int = 10) {
        self.strict = strict
        self.forcedShape = forcedShape
        self.topic = topic
        self.mediaKeys = mediaKeys
        self.mediaKeyPaths = mediaKeys.map(MediaKeyPath.init)
        self.storyCategory = storyCategory
        self.storyKey = storyKey
        self.maximumStoryPages = maximumStoryPages
        self.defaultTitle = defaultTitle
        self.defaultBody = defaultBody
        self.allowedLinkSchemes = allowedLinkSchemes
        self.includesSourceKeys = includesSourceKeys
        self.originalURLKeySuffix = originalURLKeySuffix
        self.ownMediaBaseURL = ownMediaBaseURL
        self.maximumStoryTitleLength = maximumStoryTitleLength
        self.maximumStorySubtitleLength = maximumStorySubtitleLength
        self.maximumButtonTitleLength = maximumButtonTitleLength
        self.storyDurationRange = storyDurationRange
        self.maximumPushfaTitleLength = maximumPushfaTitleLength
        self.maximumPushfaBodyLength = maximumPushfaBodyLength
        self.maximumActions = maximumActions
        self.maximumPayloadBytes = maximumPayloadBytes
        self.maximumVoIPPayloadBytes = maximumVoIPPayloadBytes
        self.deliveryTrackingKeys = deliveryTrackingKeys
        self.maximumDepth = maximumDepth
        self.maximumNotificationsPerRequest = maximumNotificationsPerRequest
        self.maximumDiagnosticsPerCode = maximumDiagnosticsPerCode
    }

    /// Whether `url` is an absolute http or https URL with a host, and without blanks or control characters (a NUL
    /// would cut the URL libcurl sees short of the one the cache key is made from).
    static func isHTTPURL(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { bytes in
            // The scheme in any case, then a host: something other than a third slash.
            func hasPrefix(_ prefix: StaticString) -> Bool {
                guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
                for index in 0..<prefix.utf8CodeUnitCount {
                    let byte = bytes[index]
                    if ((0x41...0x5A).contains(byte) ? byte | 0x20 : byte) != prefix.utf8Start[index] { return false }
                }
                return true
            }
            let schemeLength = hasPrefix("https://") ? 8 : hasPrefix("http://") ? 7 : 0
            guard schemeLength > 0, bytes.count > schemeLength, bytes[schemeLength] != 0x2F else { return false }
            return !bytes.contains { $0 <= 0x20 || $0 == 0x7F }
        }
    }

    /// The payload size APNs accepts for a push of this type (VoIP has its own, larger limit).
    package func maximumPayloadBytes(for pushType: PushType) -> Int {
        pushType == .voip ? maximumVoIPPayloadBytes : maximumPayloadBytes
    }

    /// The key of `languages` the device payload shows: `language`, else "en", else the first with text.
    func chosenLanguage(in languages: JSONObject) -> String? {
        for key in [language, "en"] where languages[key]?.stringValue != nil { return key }
        return languages.members.first { $0.value.stringValue != nil }?.key
    }

    /// Whether `url` is one of our own cached objects (under `ownMediaBaseURL`).
    func isOwnMedia(_ url: String) -> Bool {
        guard let base = ownMediaBaseURL, !base.isEmpty else { return false }
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return url.hasPrefix(prefix)
    }

    /// The scheme of a link, lowercased, or nil when it has none.
    static func scheme(of link: String) -> String? {
        guard let colon = link.firstIndex(of: ":") else { return nil }
        let scheme = link[..<colon]
        guard let first = scheme.first, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return scheme.lowercased()
    }

    /// Schemes never allowed in a link, whatever `allowedLinkSchemes` says: they run code or read local data.
    public static let deniedLinkSchemes: Set<String> = ["javascript", "data", "file", "vbscript", "about", "blob"]

    /// Root payload keys that hold a link the app opens.
    static let rootLinkKeys = ["link_url", "url", "click_action", "l"]

    /// Nil when the link is allowed, otherwise the reason it is not (naming the CLI flag, since authors read it).
    func linkProblem(_ link: String) -> String? {
        // Only leading blanks can hide the scheme; newlines are not blanks (as in Foundation's `.whitespaces`).
        let trimmed = link.drop { $0.isWhitespace && !$0.isNewline }
        guard let scheme = PayloadOptions.scheme(of: String(trimmed)) else {
            return "link \"\(URLRedaction.redact(link))\" has no scheme; write an absolute https:// URL or an app link such as myapp://"
        }
        if PayloadOptions.deniedLinkSchemes.contains(scheme) {
            return "link scheme \"\(scheme):\" is never allowed; use https:// or one of the app's schemes"
        }
        if let allowed = allowedLinkSchemes {
            guard allowed.contains(scheme) else {
                let list = allowed.sorted().map { $0 + "://" }.joined(separator: ", ")
                return "link scheme \"\(scheme):\" is not allowed; use one of \(list) (allow more with --link-scheme)"
            }
            return nil
        }
        return nil
    }
}
