import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload
import TestSupport

/// Renders every `Fixtures/payloads/<name>.json` with a fixed fake media map and compares the report with
/// `<name>.golden.json`. Regenerate with `RICHPUSH_UPDATE_GOLDENS=1 swift test --filter GoldenFixtureTests`,
/// then review the diff by eye.
///
/// Fake media: a URL containing "broken" fails (`corrupt`); every other reference renders to
/// https://cdn.example.com/objects/<index>.jpg, 200 000 bytes for attachments and 350 000 for story pages.
final class GoldenFixtureTests: XCTestCase {
    static let options: PayloadOptions = {
        var options = PayloadOptions()
        options.defaultTitle = "Example App"
        return options
    }()

    func testFixturesMatchGoldens() throws {
        let directory = packageRoot.appendingPathComponent("Fixtures/payloads")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") && !$0.hasSuffix(".golden.json") }
            .sorted()
        XCTAssertGreaterThanOrEqual(names.count, 9)
        let update = ProcessInfo.processInfo.environment["RICHPUSH_UPDATE_GOLDENS"] == "1"
        for name in names {
            let input = try Data(contentsOf: directory.appendingPathComponent(name))
            let report = GoldenFixtureTests.report(for: input).serialized(pretty: true) + Data("\n".utf8)
            let goldenURL = directory.appendingPathComponent(name.replacingOccurrences(of: ".json", with: ".golden.json"))
            if update {
                try report.write(to: goldenURL)
                continue
            }
            guard let golden = try? Data(contentsOf: goldenURL) else {
                XCTFail("\(name): no golden file; run with RICHPUSH_UPDATE_GOLDENS=1 and review it")
                continue
            }
            XCTAssertEqual(String(decoding: report, as: UTF8.self), String(decoding: golden, as: UTF8.self), name)
        }
    }

    /// The specific promises each fixture exists for, checked directly rather than only through the goldens.
    func testFixtureSpecifics() throws {
        let directory = packageRoot.appendingPathComponent("Fixtures/payloads")
        func rendered(_ name: String) throws -> [(NotificationJob, RenderOutcome)] {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            guard case .jobs(let jobs) = PayloadParser(options: GoldenFixtureTests.options).parse(data) else {
                XCTFail("\(name) rejected")
                return []
            }
            return jobs.map { ($0, APNsRenderer(options: GoldenFixtureTests.options).render($0, media: GoldenFixtureTests.fakeMedia(for: $0), now: PayloadHelpers.fixedNow)) }
        }
        let over = try rendered("over-4kb.json")
        let overInput = try Data(contentsOf: directory.appendingPathComponent("over-4kb.json"))
        guard case .object(let envelope) = try JSONParser.parse(overInput), case .object(let inner)? = envelope["payload"] else {
            return XCTFail("bad fixture")
        }
        XCTAssertGreaterThan(JSONValue.object(inner).compactByteCount, 4096, "fixture must start just over 4 KB")
        guard case .rendered(let request, let diagnostics)? = over.first?.1 else { return XCTFail("over-4kb not rendered") }
        XCTAssertLessThanOrEqual(request.byteCount, 4096)
        XCTAssertTrue(diagnostics.codes.contains("payload_shortened"))

        let stories = try rendered("pushwoosh-stories.json")
        guard case .rendered(let story, _)? = stories.first?.1 else { return XCTFail("stories not rendered") }
        XCTAssertEqual(story.payload.value(at: "/aps/category"), .string("PW_STORIES"))
        // Pushwoosh `data` reaches the device as `u`, a JSON string, where the SDK reads the story.
        let custom = try XCTUnwrap(story.payload.value(at: "/u")?.stringValue)
        XCTAssertEqual(try JSONParser.parse(Data(custom.utf8)).value(at: "/pw_stories/pages")?.arrayValue?.count, 3)

        let broken = try rendered("envelope-broken-image.json")
        guard case .rendered(let fallback, _)? = broken.first?.1 else { return XCTFail("broken image push held back") }
        XCTAssertNil(fallback.payload.value(at: "/image_url"))
        XCTAssertEqual(fallback.payload.value(at: "/aps/mutable-content"), .number("1"), "messageId keeps the extension running")
        XCTAssertEqual(fallback.payload.value(at: "/aps/alert"), .object(["title": .string("Photo from Sam")]),
                       "an alert with text is sent as written, without fallback text")
    }

    static func fakeMedia(for job: NotificationJob) -> [ExactString: MediaOutcome] {
        var media: [ExactString: MediaOutcome] = [:]
        for (index, reference) in job.media.enumerated() {
            if reference.url.contains("broken") {
                media[reference.pointerKey] = .failed(RememberedFailure(code: "corrupt", message: "not a decodable image"))
            } else {
                let bytes = reference.variantName == "story" ? 350_000 : 200_000
                media[reference.pointerKey] = PayloadHelpers.rendered("https://cdn.example.com/objects/\(index).jpg", bytes: bytes)
            }
        }
        return media
    }

    static func report(for input: Data) -> JSONValue {
        switch PayloadParser(options: options).parse(input) {
        case .rejected(let diagnostics):
            return .object(["rejected": diagnosticsValue(diagnostics)])
        case .jobs(let jobs):
            return .object(["jobs": .array(jobs.map(jobReport))])
        }
    }

    static func jobReport(_ job: NotificationJob) -> JSONValue {
        var report = JSONObject()
        report["id"] = job.id.map(JSONValue.string) ?? .null
        report["shape"] = .string(job.shape.rawValue)
        report["push_type"] = .string(job.pushType.rawValue)
        report["silent"] = .bool(job.isSilent)
        report["story"] = .bool(job.isStory)
        report["media"] = .array(job.media.map { reference in
            let role: String
            switch reference.role {
            case .attachment: role = "attachment"
            case .storyPage(let index): role = "story_page_\(index)"
            case .androidImage: role = "android_image"
            }
            var entry: JSONObject = ["pointer": .string(reference.pointer), "url": .string(reference.url), "role": .string(role),
                                     "variant": .string(reference.variantName)]
            if reference.platform != .ios { entry["platform"] = .string(reference.platform.rawValue) }
            return .object(entry)
        })
        report["parse_diagnostics"] = diagnosticsValue(job.diagnostics)
        switch APNsRenderer(options: options).render(job, media: fakeMedia(for: job), now: PayloadHelpers.fixedNow) {
        case .rendered(let request, let diagnostics):
            var headers = JSONObject()
            for header in request.headers { headers[header.name] = .string(header.value) }
            report["render"] = .object([
                "status": .string("rendered"), "headers": .object(headers), "byte_count": .number(String(request.byteCount)),
                "device_token": request.deviceToken.map(JSONValue.string) ?? .null,
                "target": .object(request.target), "payload": request.payload,
                "diagnostics": diagnosticsValue(diagnostics),
            ])
        case .rejected(let diagnostics):
            report["render"] = .object(["status": .string("rejected"), "diagnostics": diagnosticsValue(diagnostics)])
        }
        return .object(report)
    }

    static func diagnosticsValue(_ diagnostics: [Diagnostic]) -> JSONValue {
        .array(diagnostics.map {
            .object(["severity": .string($0.severity.rawValue), "pointer": .string($0.pointer), "code": .string($0.code),
                     "message": .string($0.message)])
        })
    }
}
