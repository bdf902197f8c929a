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

    /// "pointer: message", the form the CLI prints.
    public var description: String {
        pointer.isEmpty ? "\(severity.rawValue): \(message)" : "\(severity.rawValue): \(pointer): \(message)"
    }

    /// The document is longer than the input limit (`--max-line-bytes`).
    public static func lineTooLong(limit: Int) -> Diagnostic {
        Diagnostic(.error, .lineTooLong, "",
                   "the document is longer than the \(limit)-byte input limit (--max-line-bytes) and was not read; a push is at most about 5 KB of payload plus its envelope")
    }

    /// The rendered payload is larger than APNs accepts even after every shortening step; the message says by
    /// how much and names the largest keys (`PayloadShortener.largestKeys`), so the sender knows what to move.
    public static func payloadTooLarge(bytes: Int, limit: Int, largestKeys: [(pointer: String, bytes: Int)] = []) -> Diagnostic {
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
    case collapseIDTooLong = "collapse_id_too_long"
    case platformNotIOS = "platform_not_ios"
    case textTooLong = "text_too_long"
    case tooManyActions = "too_many_actions"
    case actionInvalid = "action_invalid"
    case badgeIncrementUnresolved = "badge_increment_unresolved"
    case localizedTextFlattened = "localized_text_flattened"
    case dataJSONString = "data_json_string"
    case credentialDropped = "credential_dropped"
    case emptyNotificationList = "empty_notification_list"
    case mediaURLInvalid = "media_url_invalid"
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
    case storyByteBudgetExceeded = "story_byte_budget_exceeded"
    case storyRemoved = "story_removed"
    case storyCategoryReplaced = "story_category_replaced"
    case fallbackTextUsed = "fallback_text_used"
    case emptyAlertTextRemoved = "empty_alert_text_removed"
    case silentContentRemoved = "silent_content_removed"
    case originalKeyOverwritten = "original_key_overwritten"
    case payloadShortened = "payload_shortened"
    case mediaRestoredToFit = "media_restored_to_fit"
    case payloadTooLarge = "payload_too_large"
}
