/// Where each part of a job's device payload came from in the sender's own document, so the sender gets its request
/// back in its own shape with only the media URLs and the fields the shape needs changed (`SenderRequest`).
///
/// An entry maps a device-payload prefix (`attachment`, `u`, `aps.category`) onto a location in the document
/// (`request.notifications.0.ios_attachment`, `....data`, `....ios_category_custom`), each given as the tokens of
/// its pointer; a device pointer takes the longest prefix that matches it, the later entry on a tie (Pushwoosh's
/// `ios_root_params` is merged last, so it wins). A raw APNs payload or an envelope maps its whole payload at once
/// (`payloadTokens`). Cost: a linear scan of a handful of entries per synced pointer; nothing is parsed.
package struct SenderRequestMap: Sendable, Hashable {
    /// How a device-payload value is written in the sender's field.
    enum Encoding: Sendable, Hashable {
        /// As it is.
        case same
        /// Objects and arrays as JSON text: the sender's API takes only strings there (FCM `message.data`).
        case jsonText
        /// As a boolean (OneSignal `mutable_content: true` for `mutable-content: 1`).
        case boolean
    }

    struct Entry: Sendable, Hashable {
        var device: [String]
        /// Nil: the sender's field stays as written whatever the device payload shows (a language map).
        var source: [String]?
        var encoding: Encoding
    }

    /// The tokens of the document pointer of the whole device payload (none for a raw APNs payload, `payload` for
    /// an envelope), or nil for a provider shape, whose payload is assembled from many fields.
    var payloadTokens: [String]?
    private(set) var entries: [Entry] = []

    init(payloadTokens: [String]? = nil) {
        self.payloadTokens = payloadTokens
    }

    /// Says that the device payload at `device` came from the document at `source` (the tokens of each pointer, as
    /// the keys are written: nothing is escaped).
    mutating func map(_ device: [String], to source: [String], encoding: Encoding = .same) {
        entries.append(Entry(device: device, source: source, encoding: encoding))
    }

    /// Says that the device payload at `device` is never written back: the sender's own form of it stays (a
    /// language map of which the device shows one language).
    mutating func keepSenders(_ device: [String]) {
        entries.append(Entry(device: device, source: nil, encoding: .same))
    }

    /// Where the device payload's `tokens` live in the document, or nil when nothing there corresponds.
    func source(ofDevice tokens: [String]) -> (tokens: [String], encoding: Encoding)? {
        if let payloadTokens { return (payloadTokens + tokens, .same) }
        var best: Entry?
        for entry in entries where entry.device.count <= tokens.count && tokens.starts(with: entry.device) {
            if entry.device.count >= (best?.device.count ?? 0) { best = entry }
        }
        guard let best, let source = best.source else { return nil }
        return (source + tokens.dropFirst(best.device.count), best.encoding)
    }
}
