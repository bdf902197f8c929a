import RichPush

/// docs/limits.md's table of bounds, generated from the values the code runs with (option defaults, configuration
/// defaults, the variants and the decoders' caps): `richpush help --limits` prints it, a test fails when the
/// document's copy differs, and scripts/update-option-table.sh rewrites it. How each bound is applied is prose below
/// the table, which states no value the table states.
enum LimitsTable {
    static func markdown() -> String {
        let imageLimits = ImageLimits(), fetch = FetchConfiguration(), payload = PayloadOptions()
        var rows: [(limit: String, value: String, setBy: String)] = [
            ("job deadline", defaultText(WorkerOption.deadline) + ", at most " + WorkerOption.serviceExtensionTime
                + " without `--allow-long-deadline`", option(WorkerOption.deadline)),
            ("image source (GIF included)", defaultText(WorkerOption.maximumSourceBytes), option(WorkerOption.maximumSourceBytes)),
            ("audio source", defaultText(WorkerOption.maximumAudioBytes), option(WorkerOption.maximumAudioBytes)),
            ("video source", defaultText(WorkerOption.maximumVideoBytes), option(WorkerOption.maximumVideoBytes)),
            ("image size", "\(imageLimits.maximumPixels / 1_000_000) megapixels, \(imageLimits.maximumSide) px a side",
             "`ImageLimits`"),
            ("decode work", defaultText(WorkerOption.maximumDecodeWork) + " samples", option(WorkerOption.maximumDecodeWork)),
            ("JPEG scans", "\(ImageLimits.maximumJPEGScans)", "`ImageLimits.maximumJPEGScans`"),
            ("GIF frames", "\(ImageLimits.maximumGIFFrames)", "`ImageLimits.maximumGIFFrames`"),
            ("redirects", "\(fetch.maximumRedirects), each hop checked again", "`FetchConfiguration`"),
            ("connections per host", "\(fetch.maximumConnectionsPerHost), at most \(fetch.maximumConnectionsPerHostPerOwner) for one job",
             "`FetchConfiguration`"),
            ("APNs payload", "\(payload.maximumPayloadBytes) bytes, \(payload.maximumVoIPPayloadBytes) for VoIP", "`PayloadOptions`"),
            ("story pages", "\(payload.maximumStoryPages)", "`PayloadOptions`"),
        ]
        for variant in EnricherConfiguration.defaultVariants.values.sorted(by: { $0.name < $1.name }) {
            let box = "\(variant.fit == .cover ? "cover" : "fit within") \(variant.width)x\(variant.height)"
            let budget = variant.maximumBytes.map { ", at most " + decimalBytes($0) } ?? ""
            rows.append(("variant `\(variant.name)`", box + budget, "`EnricherConfiguration.defaultVariants`"))
        }
        let variant = ImageVariant.attachment
        rows += [
            ("JPEG quality", "searched for SSIMULACRA2 \(number(ImageVariant.defaultQualityTarget)); fixed \(variant.quality) "
                + "with `off`, stepping down to \(variant.minimumQuality) for the byte budget", option(WorkerOption.qualityTarget)),
            ("retention", defaultText(WorkerOption.defaultRetention), option(WorkerOption.defaultRetention)),
            ("input document", defaultText(WorkerOption.maximumLineBytes), option(WorkerOption.maximumLineBytes)),
            ("notifications per Pushwoosh request", defaultText(WorkerOption.maximumNotifications),
             option(WorkerOption.maximumNotifications)),
        ]
        return "| limit | value | set by |\n|---|---|---|\n"
            + rows.map { "| \($0.limit) | \($0.value) | \($0.setBy) |\n" }.joined()
    }

    private static func defaultText<Value>(_ key: OptionKey<Value>) -> String {
        key.definition.defaultText ?? "none"
    }

    private static func option<Value>(_ key: OptionKey<Value>) -> String {
        "`--\(key.definition.name)`"
    }

    /// 400000 as `400 KB`: the variants' budgets are decimal, as Apple's and Firebase's limits are.
    private static func decimalBytes(_ bytes: Int) -> String {
        if bytes % 1_000_000 == 0 { return "\(bytes / 1_000_000) MB" }
        if bytes % 1_000 == 0 { return "\(bytes / 1_000) KB" }
        return "\(bytes) bytes"
    }

    /// 75.0 as `75`.
    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
