import Foundation
import RichPushCore

/// When a provider will really send a scheduled push: expiration and cache retention count from it, not from the
/// moment RichPush processed the job, or a push scheduled weeks ahead would expire (and its images be collected)
/// before it goes out.
///
/// Read from the input's scheduling key, wherever the shape keeps it: Pushwoosh `send_date` ("YYYY-MM-DD HH:mm",
/// in UTC, or in the IANA zone named by `timezone`; "now" means now), Pushfa `sendTime`, an envelope's `send_at`
/// (ISO 8601, or UNIX seconds as a number) and OneSignal `send_after` ("2026-12-24 09:00:00 GMT+0100", or ISO
/// 8601). Cost: one small parse per job that has such a key.
enum SendTime {
    /// The scheduling keys, in the order they are looked for.
    static let keys = ["send_date", "sendTime", "send_at", "send_after"]

    /// The send time in UNIX seconds from `fields` (the job's `target`), or nil for none, "now" or an unreadable
    /// value (a warning then says the expiration counts from now). `base` is the pointer of the object that held
    /// the key in the input.
    static func read(from fields: JSONObject, base: String, diagnostics: inout DiagnosticCollector) -> Int? {
        guard let key = keys.first(where: { fields[$0] != nil }), let value = fields[key] else { return nil }
        if value.stringValue?.lowercased() == "now" { return nil }
        if let seconds = value.integerValue, seconds > 0 { return seconds }
        if let text = value.stringValue, let date = parse(text, timeZone: fields["timezone"]?.stringValue) {
            return Int(date.timeIntervalSince1970)
        }
        diagnostics.add(.warning, .invalidSendTime, base + "/" + JSONPointer.escape(key),
                        "\(key) is not a time RichPush can read (\"YYYY-MM-DD HH:mm\", ISO 8601 or UNIX seconds); expiration and cache retention count from now, so a push sent later may outlive its images")
        return nil
    }

    /// ISO 8601 with a zone (`2026-12-24T09:00:00Z`, `+01:00`), or "YYYY-MM-DD HH:mm[:ss]" in `timeZone` (UTC when
    /// nil or unknown; Pushwoosh), optionally followed by OneSignal's "GMT+hhmm" or "UTC".
    static func parse(_ text: String, timeZone: String?) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = try? Date(trimmed, strategy: .iso8601) { return date }
        // A "T" between date and time is ISO 8601's separator; elsewhere it is text ("GMT").
        var parts = trimmed.split(separator: " ")
        if parts.count == 1, let separator = trimmed.firstIndex(of: "T"),
           trimmed.distance(from: trimmed.startIndex, to: separator) == 10 {
            parts = [trimmed[..<separator], trimmed[trimmed.index(after: separator)...]]
        }
        var offset: Int?
        if parts.count == 3, let zone = parts.last, zone.hasPrefix("GMT") || zone.hasPrefix("UTC") {
            let sign = zone.dropFirst(3)
            if sign.isEmpty {
                offset = 0
            } else {
                guard let first = sign.first, first == "+" || first == "-", sign.count == 5,
                      let hours = Int(sign.dropFirst().prefix(2)), let minutes = Int(sign.suffix(2)) else { return nil }
                offset = (first == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
            }
            parts.removeLast()
        }
        guard parts.count == 2 else { return nil }
        let day = parts[0].split(separator: "-").compactMap { Int($0) }
        let time = parts[1].split(separator: ":").compactMap { Int($0) }
        guard day.count == 3, (2...3).contains(time.count), parts[1].split(separator: ":").count == time.count else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (day[0], day[1], day[2])
        (components.hour, components.minute, components.second) = (time[0], time[1], time.count == 3 ? time[2] : 0)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = offset.flatMap(TimeZone.init(secondsFromGMT:)) ?? timeZone.flatMap(TimeZone.init(identifier:)) ?? .gmt
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }
}
