/// One finding about a notification: where it is (an RFC 6901 pointer into the input after adaptation,
/// or into the output payload for render findings), a stable code and a plain sentence with the fix.
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Severity: String, Sendable, Codable { case error, warning, info }

    public var severity: Severity
    /// RFC 6901 JSON pointer; "" means the whole document.
    public var pointer: String
    /// A stable snake_case identifier, one of `DiagnosticCode`'s raw values.
    public var code: String
    public var message: String

    public init(severity: Severity, pointer: String, code: String, message: String) {
        self.severity = severity
        self.pointer = pointer
        self.code = code
        self.message = message
    }

    init(_ severity: Severity, _ code: DiagnosticCode, _ pointer: String, _ message: String) {
        self.init(severity: severity, pointer: pointer, code: code.rawValue, message: message)
    }

    /// What to do about it (`DiagnosticCode.fix`), or nil for a code this version does not know.
    public var fix: String? { DiagnosticCode(rawValue: code)?.fix }

    /// "pointer: message", the form the CLI prints.
    public var description: String {
        pointer.isEmpty ? "\(severity.rawValue): \(message)" : "\(severity.rawValue): \(pointer): \(message)"
    }

    /// The document is longer than the input limit (`--max-line-bytes`).
    package static func lineTooLong(limit: Int) -> Diagnostic {
        Diagnostic(.error, .lineTooLong, "",
                   "the document is longer than the \(limit)-byte input limit (--max-line-bytes) and was not read; a push is at most about 5 KB of payload plus its envelope")
    }

    /// The rendered payload is larger than APNs accepts even after every shortening step; the message says by
    /// how much and names the largest keys (`PayloadShortener.largestKeys`), so the sender knows what to move.
    package static func payloadTooLarge(bytes: Int, limit: Int, largestKeys: [(pointer: String, bytes: Int)] = []) -> Diagnostic {
        let largest = largestKeys.map { "\($0.pointer) (\($0.bytes) bytes)" }.joined(separator: ", ")
        return Diagnostic(.error, .payloadTooLarge, "",
                          "the payload is \(bytes) bytes, \(bytes - limit) over the APNs limit of \(limit), after cutting the alert body and subtitle"
                            + (largest.isEmpty ? "" : "; its largest keys are \(largest)")
                            + "; move data out of the push (fetch it in the app) or send fewer story pages")
    }
}

/// Every diagnostic code this layer emits. docs/diagnostic-codes.md explains each one.
public enum DiagnosticCode: String, Sendable, CaseIterable, Codable {
    // Input
    case invalidJSON = "invalid_json"
    case lineTooLong = "line_too_long"
    case notAnObject = "not_an_object"
    case duplicateKey = "duplicate_key"
    case unknownShape = "unknown_shape"
    case wrongType = "wrong_type"
    case invalidPushType = "invalid_push_type"
    case invalidPriority = "invalid_priority"
    case invalidExpiration = "invalid_expiration"
    case invalidSendTime = "invalid_send_time"
    case collapseIDTooLong = "collapse_id_too_long"
    case platformUnknown = "platform_unknown"
    case textTooLong = "text_too_long"
    case tooManyActions = "too_many_actions"
    case actionInvalid = "action_invalid"
    case localizedTextFlattened = "localized_text_flattened"
    case emptyNotificationList = "empty_notification_list"
    case tooManyNotifications = "too_many_notifications"
    case diagnosticsOmitted = "diagnostics_omitted"
    case mediaURLInvalid = "media_url_invalid"
    case mediaValueNotURL = "media_value_not_url"
    case linkSchemeNotAllowed = "link_scheme_not_allowed"
    // Stories
    case storyMalformed = "story_malformed"
    case storyJSONString = "story_json_string"
    case storyTooManyPages = "story_too_many_pages"
    case storyPageNotObject = "story_page_not_object"
    case storyPageImageInvalid = "story_page_image_invalid"
    case storyDurationString = "story_duration_string"
    case storyDurationInvalid = "story_duration_invalid"
    case storyDurationOutOfRange = "story_duration_out_of_range"
    case storyLinkSchemeNotAllowed = "story_link_scheme_not_allowed"
    case storyPageUnknownKey = "story_page_unknown_key"
    case storyButtonTitleRemoved = "story_button_title_removed"
    // Rendering
    case mediaFailed = "media_failed"
    case mediaSkipped = "media_skipped"
    case mediaMissing = "media_missing"
    case storyPageDropped = "story_page_dropped"
    case storyRemoved = "story_removed"
    case fallbackTextUsed = "fallback_text_used"
    case mediaWithoutAlert = "media_without_alert"
    case emptyAlertTextRemoved = "empty_alert_text_removed"
    case silentContentRemoved = "silent_content_removed"
    case originalKeyOverwritten = "original_key_overwritten"
    case payloadShortened = "payload_shortened"
    case mediaRestoredToFit = "media_restored_to_fit"
    case payloadSentAsIs = "payload_sent_as_is"
    case payloadTooLarge = "payload_too_large"
    // Author warnings about the source image
    case storyCropHeavy = "story_crop_heavy"
    case imageUpscaled = "image_upscaled"
}

extension DiagnosticCode {
    /// Findings after which the push would not be shown as its author wrote it (a story or page removed, text cut,
    /// media or a link removed), though the job is still sent. `richpush validate` fails on them as on errors.
    public static let changesWhatIsShown: Set<DiagnosticCode> = [
        .storyMalformed, .storyRemoved, .storyTooManyPages, .storyPageNotObject, .storyPageImageInvalid,
        .storyPageDropped, .storyLinkSchemeNotAllowed, .storyButtonTitleRemoved,
        .linkSchemeNotAllowed, .actionInvalid, .tooManyActions, .mediaURLInvalid, .mediaFailed, .mediaSkipped,
        .mediaMissing, .mediaRestoredToFit, .payloadSentAsIs, .payloadShortened, .silentContentRemoved,
    ]

    /// What the author should do about it, in one sentence; the JSON reports carry it as `fix`. The table in
    /// docs/diagnostic-codes.md shows the same text (a test keeps the two equal).
    public var fix: String {
        switch self {
        case .invalidJSON: return "Fix the JSON at the given position."
        case .lineTooLong: return "A push is at most about 5 KB of payload plus its envelope: send one push per line."
        case .notAnObject: return "Send one JSON object per document."
        case .duplicateKey: return "Remove the duplicates."
        case .unknownShape: return "Add aps, or force the shape with --shape."
        case .wrongType: return "Use the type named in the message."
        case .invalidPushType: return "Use alert, background or voip."
        case .invalidPriority: return "Use 10 (alert) or 5."
        case .invalidExpiration: return "Write whole seconds as an integer."
        case .invalidSendTime: return "Write the send time as \"YYYY-MM-DD HH:mm\", ISO 8601 or UNIX seconds."
        case .collapseIDTooLong: return "Shorten the collapse id to the length the message names."
        case .platformUnknown: return "Write \"ios\" or \"android\", or leave it out to send to both."
        case .textTooLong: return "Shorten the text."
        case .tooManyActions: return "Send no more actions than the message names."
        case .actionInvalid: return "Give each action an https or app-scheme url."
        case .localizedTextFlattened: return "None needed; pass --language to check another language."
        case .emptyNotificationList: return "Add at least one notification."
        case .tooManyNotifications: return "Split the request, or raise --max-notifications."
        case .diagnosticsOmitted: return "Fix the findings listed; the rest are of the same kind."
        case .mediaURLInvalid: return "Write an absolute https:// URL."
        case .mediaValueNotURL: return "None needed if the app resolves it; write an https:// URL to have it fetched."
        case .linkSchemeNotAllowed: return "Use https:// or an app link such as myapp://."
        case .storyMalformed: return "Fix pw_stories."
        case .storyJSONString: return "Send pw_stories as a JSON object, not a string."
        case .storyTooManyPages: return "Send no more pages than the message names."
        case .storyPageNotObject: return "Make every page an object."
        case .storyPageImageInvalid: return "Give every page an https image URL."
        case .storyDurationString: return "Write the number without quotes."
        case .storyDurationInvalid: return "Write seconds as a number, e.g. 5."
        case .storyDurationOutOfRange: return "Use a duration within the range the message names."
        case .storyLinkSchemeNotAllowed: return "Use a URL with a scheme (https:, tel:, myapp:...) other than javascript:, data:, file:, vbscript:, about: or blob:."
        case .storyPageUnknownKey: return "Check the spelling."
        case .storyButtonTitleRemoved: return "Fix the link."
        case .mediaFailed: return "See the media error code."
        case .mediaSkipped: return "Prewarm the cache or raise the deadline."
        case .mediaMissing: return "Pipeline bug or early stop."
        case .storyPageDropped: return "See the media error."
        case .storyRemoved: return "Fix the images."
        case .fallbackTextUsed: return "Write the alert title and body yourself."
        case .mediaWithoutAlert: return "Add an alert (a title or body) to show the media, or drop the media."
        case .emptyAlertTextRemoved: return "Leave empty texts out."
        case .silentContentRemoved: return "Leave alert, sound and badge out of silent pushes."
        case .originalKeyOverwritten: return "Rename the sender's key."
        case .payloadShortened: return "Send a shorter alert body or subtitle."
        case .mediaRestoredToFit: return "Use shorter texts, or a shorter --public-base-url."
        case .payloadSentAsIs: return "Leave about 40 bytes free for mutable-content and the cached URLs."
        case .payloadTooLarge: return "Move data out of the push."
        case .storyCropHeavy: return "Use a portrait image of about 2:3, or keep the subject in the middle."
        case .imageUpscaled: return "Use an image at least as large as the size the message names."
        }
    }
}
