import Foundation
import Synchronization
import RichPush
#if canImport(Glibc)
import Glibc
#endif

/// `richpush prewarm`: render every media variant of a campaign into the cache ahead of the send.
enum PrewarmCommand: Command {
    static let name = "prewarm"
    static let abstract = "Render every media item of payloads (or of URL lists) into the cache before a send."
    static let usage = "richpush prewarm [options] FILE...   |   richpush prewarm --urls [options] FILE..."
    static let maximumPositionals = Int.max
    static let options = WorkerOption.all + PrewarmOption.all

    struct Item: Hashable {
        var source: String
        var variant: String
    }

    static func run(_ options: ParsedOptions) async throws -> Int32 {
        let settings = try WorkerSettings(options)
        try settings.checkPublicBaseURL(requiresExplicit: false)
        settings.logger.started(name, settings.startupFields)
        settings.warnIfPlaceholder()
        let paths = options.positionals.isEmpty ? ["-"] : options.positionals
        let known = settings.enricherConfiguration.variants.keys.sorted()
        let variants = try options.value(of: PrewarmOption.variant)
        for variant in variants where !known.contains(variant) {
            throw UsageError.invalidValue(option: PrewarmOption.variant.name, value: variant, expected: known.joined(separator: " or "))
        }
        let items = try collectItems(
            paths: paths, urls: try options.value(of: PrewarmOption.urls), variants: variants, settings: settings)
        let (enricher, fetcher, store) = try await settings.makeEnricher()
        defer { fetcher.shutdown() }

        let progress = Progress(total: items.count, logger: settings.logger)
        let started = ContinuousClock.now
        var rendered = 0, fresh = 0, bytes = 0
        var failures = 0
        let deadline = settings.deadline
        await withBoundedConcurrency(over: items, width: settings.concurrency) { item in
            await enricher.prewarm(source: item.source, variant: item.variant, deadline: .now.advanced(by: deadline))
        } onEach: { item, result in
            switch result.status {
            case .rendered, .passedThrough:
                rendered += 1
                bytes += result.published?.bytes ?? 0
            case .cached:
                fresh += 1
                bytes += result.published?.bytes ?? 0
            case .failed, .skipped:
                failures += 1
                settings.logger.log(.warning, "item_failed", [
                    ("source", .string(URLRedaction.redact(item.source))), ("variant", .string(item.variant)),
                    ("code", .string((result.errorCode ?? "failed").rawValue)), ("message", .string(result.errorMessage ?? "")),
                ])
            }
            progress.advance(failed: result.status == .failed || result.status == .skipped)
            return true
        }
        progress.finish()
        try? await store.flushUsage()

        // Prewarm's result is the cache itself, so its report is the log: an item_failed line per failure, then this.
        settings.logger.summary([
            ("items", .number(String(items.count))), ("rendered", .number(String(rendered))),
            ("fresh", .number(String(fresh))), ("failed", .number(String(failures))), ("bytes", .number(String(bytes))),
            ("ms", .number(String(Int((ContinuousClock.now - started) / .milliseconds(1))))),
        ])
        let allowsFailures = try options.value(of: PrewarmOption.allowFailures)
        return failures == 0 || allowsFailures ? 0 : 1
    }

    private static func collectItems(paths: [String], urls: Bool, variants: [String], settings: WorkerSettings) throws -> [Item] {
        var seen = Set<Item>()
        var items: [Item] = []
        func add(_ item: Item) {
            if seen.insert(item).inserted { items.append(item) }
        }
        let parser = PayloadParser(options: settings.payloadOptions)
        for path in paths {
            if urls {
                let data = try FileContents.read(path)
                for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
                    let url = line.trimmingCharacters(in: .whitespaces)
                    if url.isEmpty || url.hasPrefix("#") { continue }
                    for variant in variants.isEmpty ? [VariantName.attachment] : variants {
                        add(Item(source: url, variant: variant))
                    }
                }
                continue
            }
            for document in try InputDocuments.read(path, maximumLineBytes: settings.maximumLineBytes) {
                switch parser.parse(document.data) {
                case .rejected(let diagnostics):
                    let place = document.line.map { "\(path):\($0)" } ?? path
                    let reasons = diagnostics.filter { $0.severity == .error }.map { "\($0.pointer): \($0.message)" }
                    settings.logger.log(.warning, "skipped_document", [
                        ("file", .string(place)), ("reason", .string(reasons.joined(separator: "; "))),
                    ])
                case .jobs(let jobs):
                    for job in jobs {
                        for reference in job.media { add(Item(source: reference.url, variant: reference.variantName)) }
                    }
                }
            }
        }
        return items
    }
}

/// Progress on standard error: a redrawn bar on a terminal (at `--log-level info` or lower), an info log line every
/// few seconds otherwise.
final class Progress: Sendable {
    private struct Counts {
        var lastReport = ContinuousClock.now
        var done = 0
        var failed = 0
    }

    private let total: Int
    private let logger: Logger
    private let interactive: Bool
    private let started = ContinuousClock.now
    /// Items finish on many tasks at once; the lock also keeps two reports from interleaving on standard error.
    private let counts = Mutex(Counts())

    init(total: Int, logger: Logger) {
        self.total = total
        self.logger = logger
        interactive = isatty(STDERR_FILENO) == 1 && logger.minimumLevel <= .info
    }

    func advance(failed itemFailed: Bool) {
        let interval: Duration = interactive ? .milliseconds(100) : .seconds(5)
        counts.withLock { counts in
            counts.done += 1
            if itemFailed { counts.failed += 1 }
            let now = ContinuousClock.now
            if now - counts.lastReport >= interval || counts.done == total {
                counts.lastReport = now
                report(done: counts.done, failed: counts.failed)
            }
        }
    }

    func finish() {
        if interactive { StandardError.write("\n") }
    }

    private func report(done: Int, failed: Int) {
        let elapsed = max(0.001, Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000)
        let rate = Double(done) / elapsed
        let remaining = rate > 0 ? Double(total - done) / rate : 0
        if interactive {
            let width = 30
            let filled = total == 0 ? width : width * done / total
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            StandardError.write("\r[\(bar)] \(done)/\(total)  " + String(format: "%.1f/s  ETA %.0fs", rate, remaining) + "  failed \(failed) ")
        } else {
            let fields: [(String, JSONValue)] = [
                ("done", .number(String(done))),
                ("total", .number(String(total))),
                ("rate", .number(rate.decimalString(fractionDigits: 1))),
                ("eta_s", .number(remaining.decimalString(fractionDigits: 0))),
                ("failed", .number(String(failed))),
            ]
            logger.log(.info, "progress", fields)
        }
    }
}
