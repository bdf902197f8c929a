import Foundation
import XCTest
import TestSupport
import RichPush
@testable import richpush

/// Every option is declared once: the default its help (and README) names is the value used when it is not given,
/// reads are typed, and docs/cli.md's option tables are the generated ones.
final class OptionSchemaTests: XCTestCase {
    private func parse(_ arguments: [String], _ command: any Command.Type = ProcessCommand.self) throws -> ParsedOptions {
        try ParsedOptions.parse(arguments, command: command.name, definitions: command.definitions, environment: [:])
    }

    func testEveryRenderedDefaultParsesBackToTheDefaultValue() throws {
        var checked = 0
        for command in CommandList.all {
            for option in command.options {
                XCTAssertTrue(try option.defaultTextParsesBack(), "\(command.name) --\(option.definition.name): help says \(option.definition.help)")
                if option.definition.defaultIsValue { checked += 1 }
            }
        }
        XCTAssertGreaterThan(checked, 30, "the value defaults are rendered, not described")
    }

    /// The defaults the help names are the ones the settings and library configurations run with.
    func testSettingsWithNoOptionsRunWithTheDefaultsTheHelpNames() throws {
        let settings = try WorkerSettings(try parse([]))
        func helpDefault(_ key: OptionKey<some Any>) -> String { key.definition.defaultText ?? "(none)" }
        func duration(_ key: OptionKey<Duration>) -> Duration? { DurationText.parse(helpDefault(key)) }
        func bytes(_ key: OptionKey<Int>) -> Int? { ByteCountText.parse(helpDefault(key)) }
        XCTAssertEqual(settings.enricherConfiguration.jobDeadline, duration(WorkerOption.deadline))
        XCTAssertEqual(settings.enricherConfiguration.defaultRetention, duration(WorkerOption.defaultRetention))
        XCTAssertEqual(settings.cacheConfiguration.negativeTTL, duration(WorkerOption.negativeTTL))
        XCTAssertEqual(settings.enricherConfiguration.maximumDocumentBytes, bytes(WorkerOption.maximumLineBytes))
        XCTAssertEqual(settings.fetchConfiguration.maximumBytes, bytes(WorkerOption.maximumSourceBytes))
        XCTAssertEqual(settings.fetchConfiguration.maximumAudioBytes, bytes(WorkerOption.maximumAudioBytes))
        XCTAssertEqual(settings.fetchConfiguration.maximumVideoBytes, bytes(WorkerOption.maximumVideoBytes))
        XCTAssertEqual(settings.enricherConfiguration.notificationConcurrency, Int(helpDefault(WorkerOption.concurrency)))
        XCTAssertEqual(settings.payloadOptions.maximumNotificationsPerRequest, Int(helpDefault(WorkerOption.maximumNotifications)))
        XCTAssertEqual(settings.payloadOptions.defaultBody, helpDefault(WorkerOption.defaultBody))
        XCTAssertEqual(settings.payloadOptions.language, helpDefault(WorkerOption.language))
        XCTAssertEqual(settings.payloadOptions.storyCategory, helpDefault(WorkerOption.storyCategory))
        XCTAssertEqual(settings.cacheDirectory, helpDefault(WorkerOption.cacheDirectory))
        XCTAssertEqual(settings.qualityTarget.map { String($0) }, helpDefault(WorkerOption.qualityTarget))
        XCTAssertEqual(settings.qualityTarget, ImageVariant.defaultQualityTarget)
        XCTAssertEqual(try WorkerSettings(try parse(["--quality-target", "off"], ProcessCommand.self)).qualityTarget, nil)
        XCTAssertEqual(settings.logger.minimumLevel.name, helpDefault(WorkerOption.logLevel))

        let preview = try PreviewLimits(try parse([], ServeCommand.self))
        XCTAssertEqual(preview.maximumLines, Int(helpDefault(PreviewLimits.maximumLinesOption)))
        XCTAssertEqual(preview.maximumImageBytes, ByteCountText.parse(helpDefault(PreviewLimits.inlineImagesOption)))
    }

    /// The help line of an option ends with its rendered default, in units the parser reads.
    func testHelpEndsWithTheRenderedDefault() {
        XCTAssertTrue(WorkerOption.negativeTTL.definition.help.hasSuffix(" Default 5m."), WorkerOption.negativeTTL.definition.help)
        XCTAssertTrue(WorkerOption.maximumSourceBytes.definition.help.hasSuffix(" Default 10MB."))
        XCTAssertTrue(WorkerOption.defaultBody.definition.help.hasSuffix(#" Default "Open to see more"."#))
        XCTAssertTrue(ConsumeOption.claimIdle.definition.help.hasSuffix(" Default 1m."))
        XCTAssertEqual(WorkerOption.strict.definition.help, WorkerOption.strict.definition.summary, "a flag names no default")
    }

    /// Reads return the option's own type (this file would not compile otherwise) and the given value.
    func testReadsAreTyped() throws {
        let options = try parse([
            "--deadline", "800ms", "--max-source-bytes", "2MB", "--strict", "--allow-host", "a.example.com",
            "--allow-host", "b.example.com", "--shape", "fcm", "--quality-target", "80", "--metrics-file", "m.prom",
        ])
        let deadline: Duration = try options.value(of: WorkerOption.deadline)
        let sourceBytes: Int = try options.value(of: WorkerOption.maximumSourceBytes)
        let strict: Bool = try options.value(of: WorkerOption.strict)
        let hosts: [String] = try options.value(of: WorkerOption.allowHost)
        let shape: InputShape? = try options.value(of: WorkerOption.shape)
        let quality: Double? = try options.value(of: WorkerOption.qualityTarget)
        let metricsFile: String? = try options.value(of: SharedOption.metricsFile)
        XCTAssertEqual(deadline, .milliseconds(800))
        XCTAssertEqual(sourceBytes, 2 << 20)
        XCTAssertTrue(strict)
        XCTAssertEqual(hosts, ["a.example.com", "b.example.com"])
        XCTAssertEqual(shape, .firebase)
        XCTAssertEqual(quality, 80)
        XCTAssertEqual(metricsFile, "m.prom")
        XCTAssertEqual(try parse([]).value(of: WorkerOption.deadline), WorkerOption.deadline.defaultValue)
        XCTAssertFalse(try parse([]).value(of: WorkerOption.strict))
    }

    func testDefaultsRenderInTheLargestExactUnit() {
        XCTAssertEqual(DurationText.render(.seconds(300)), "5m")
        XCTAssertEqual(DurationText.render(.seconds(30 * 86_400)), "30d")
        XCTAssertEqual(DurationText.render(.milliseconds(1500)), "1500ms")
        XCTAssertEqual(DurationText.render(.zero), "0s")
        XCTAssertEqual(ByteCountText.render(10 << 20), "10MB")
        XCTAssertEqual(ByteCountText.render(1536), "1536")
        XCTAssertEqual(ByteCountText.render(3 << 30), "3GB")
        for duration: Duration in [.seconds(300), .milliseconds(1500), .seconds(7_200), .seconds(61)] {
            XCTAssertEqual(DurationText.parse(DurationText.render(duration)), duration)
        }
    }

    func testSharedOptionsAreDeclaredOnce() {
        for command in CommandList.all {
            let names = command.definitions.map(\.name)
            XCTAssertEqual(names.count, Set(names).count, "\(command.name) lists an option twice: \(names)")
        }
        XCTAssertTrue(ProcessCommand.definitions.contains { $0.name == SharedOption.metricsFile.name })
        XCTAssertTrue(ConsumeCommand.definitions.contains { $0.name == SharedOption.metricsFile.name })
    }

    /// `--format` is one declaration, so `cache` refuses an unknown format as `validate` does instead of printing text.
    func testTheSharedFormatIsCheckedByEveryCommandThatTakesIt() throws {
        let directory = try makeTemporaryDirectory("format")
        for arguments in [["validate", "--no-fetch", "--format", "xml", "missing.json"], ["cache", "stats", "--format", "xml", "--cache-dir", directory.path]] {
            let output = try CommandRunner.run(arguments)
            XCTAssertEqual(output.status, 2, output.standardError)
            XCTAssertTrue(output.standardError.contains("option '--format' got 'xml'; expected text or json"), output.standardError)
        }
    }

    func testTheOptionReferenceTablesAreTheGeneratedOnes() throws {
        let printed = try generatedSection(of: "docs/cli.md", marker: "options", printedBy: ["help", "--markdown"])
        XCTAssertEqual(printed, OptionTable.markdown(commands: CommandList.all))
    }

    /// Issue 37: docs/limits.md's table is generated from the values the code runs with, a row per bound.
    func testTheLimitsTableIsTheGeneratedOne() throws {
        let printed = try generatedSection(of: "docs/limits.md", marker: "limits", printedBy: ["help", "--limits"])
        XCTAssertEqual(printed, LimitsTable.markdown())
        let rows = printed.split(separator: "\n").dropFirst(2)
        XCTAssertTrue(rows.allSatisfy { $0.hasPrefix("| ") && $0.split(separator: "|").count == 3 }, printed)
        for variant in EnricherConfiguration.defaultVariants.values {
            XCTAssertTrue(rows.contains { $0.hasPrefix("| variant `\(variant.name)` | ") && $0.contains("\(variant.width)x\(variant.height)") },
                          "\(variant.name): \(printed)")
        }
        XCTAssertTrue(rows.contains { $0.hasPrefix("| JPEG scans | \(ImageLimits.maximumJPEGScans) |") }, printed)
        XCTAssertTrue(rows.contains { $0.hasPrefix("| job deadline | \(WorkerOption.deadline.definition.defaultText ?? ""),") }, printed)
    }

    /// What `richpush ARGUMENTS` prints, after checking that it exits 0 and that `path` holds exactly that between
    /// its `<!-- MARKER:begin -->` and `<!-- MARKER:end -->` lines (scripts/update-option-table.sh writes it there).
    private func generatedSection(of path: String, marker: String, printedBy arguments: [String],
                                  file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let document = try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
        let begin = try XCTUnwrap(document.range(of: "<!-- \(marker):begin -->\n"), "\(path) has no <!-- \(marker):begin --> marker",
                                  file: file, line: line)
        let end = try XCTUnwrap(document.range(of: "<!-- \(marker):end -->", range: begin.upperBound..<document.endIndex),
                                file: file, line: line)
        let printed = try CommandRunner.run(arguments)
        XCTAssertEqual(printed.status, 0, printed.standardError, file: file, line: line)
        XCTAssertEqual(String(document[begin.upperBound..<end.lowerBound]), printed.standardOutput,
                       "\(path) is out of date: run scripts/update-option-table.sh", file: file, line: line)
        return printed.standardOutput
    }
}
