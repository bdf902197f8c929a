import Foundation
import RichPush

/// The bounds of one `POST /v1/preview` answer. Every rendered image is inlined as base64, so without them a body
/// of many lines answered about 160 KB per line and enriched its lines one after another for minutes.
struct PreviewLimits: Sendable {
    /// Documents (`application/x-ndjson` lines) or URLs (`text/uri-list` lines) one request may hold; more get 413
    /// `too_many_lines` before anything is fetched.
    var maximumLines = Self.maximumLinesOption.defaultValue
    /// Rendered image bytes inlined in one answer (base64 adds a third); images past it are left out and counted in
    /// `images_omitted`. Like every size option it is above zero. A body of more than one line inlines none,
    /// whatever this says.
    var maximumImageBytes = Self.inlineImagesOption.defaultValue

    static let maximumLinesOption = OptionKey(
        "preview-max-lines", .integer(in: 1...10_000), default: 10,
        help: "Lines (NDJSON documents or URLs) one /v1/preview request may hold; more get 413.")
    static let inlineImagesOption = OptionKey(
        "preview-inline-images", .byteCount, default: 8 << 20,
        help: "Rendered image bytes inlined in one /v1/preview answer; a multi-line body inlines none.")
    static let options: [any AnyOptionKey] = [maximumLinesOption, inlineImagesOption]

    init() {}

    init(_ options: ParsedOptions) throws(UsageError) {
        maximumLines = try options.value(of: Self.maximumLinesOption)
        maximumImageBytes = try options.value(of: Self.inlineImagesOption)
    }

    /// The image bytes an answer to `lines` documents may inline: none for a multi-line body.
    func imageBytes(forLines lines: Int) -> Int {
        lines > 1 ? 0 : maximumImageBytes
    }

    /// The 413 for a body over `maximumLines`, or nil when it fits.
    func refusal(lines: Int) -> HTTPResponse? {
        guard lines > maximumLines else { return nil }
        return .error(413, code: .tooManyLines,
                      message: "the body has \(lines) lines; a preview takes at most \(maximumLines) (--preview-max-lines), so send fewer")
    }
}
