import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload

enum PayloadHelpers {
    static let fixedNow = Date(timeIntervalSince1970: 1_800_000_000)

    static func jobs(_ text: String, options: PayloadOptions = PayloadOptions(),
                     file: StaticString = #filePath, line: UInt = #line) -> [NotificationJob] {
        switch PayloadParser(options: options).parse(Data(text.utf8)) {
        case .jobs(let jobs): return jobs
        case .rejected(let diagnostics):
            XCTFail("rejected: \(diagnostics)", file: file, line: line)
            return []
        }
    }

    static func job(_ text: String, options: PayloadOptions = PayloadOptions(),
                    file: StaticString = #filePath, line: UInt = #line) -> NotificationJob? {
        let all = jobs(text, options: options, file: file, line: line)
        XCTAssertEqual(all.count, 1, file: file, line: line)
        return all.first
    }

    static func rejection(_ text: String, options: PayloadOptions = PayloadOptions()) -> [Diagnostic]? {
        if case .rejected(let diagnostics) = PayloadParser(options: options).parse(Data(text.utf8)) { return diagnostics }
        return nil
    }

    /// A rendered JPEG published at `url`.
    static func rendered(_ url: String, width: Int = 1038, height: Int = 1038, bytes: Int) -> MediaOutcome {
        .published(
            PublishedMedia(publicURL: url, format: .jpeg, bytes: bytes, size: PixelSize(width: width, height: height)),
            .rendered)
    }

    /// A deterministic fake media map: every reference renders to https://cdn.example.com/m/<n>.jpg.
    static func renderedMedia(for job: NotificationJob, bytes: Int = 100_000) -> [ExactString: MediaOutcome] {
        var media: [ExactString: MediaOutcome] = [:]
        for (index, reference) in job.media.enumerated() {
            media[reference.pointerKey] = rendered("https://cdn.example.com/m/\(index).jpg", bytes: bytes)
        }
        return media
    }

    static func render(_ job: NotificationJob, media: [ExactString: MediaOutcome], options: PayloadOptions = PayloadOptions(),
                       file: StaticString = #filePath, line: UInt = #line) -> (APNsRequest, [Diagnostic])? {
        switch APNsRenderer(options: options).render(job, media: media, now: fixedNow) {
        case .rendered(let request, let diagnostics): return (request, diagnostics)
        case .rejected(let diagnostics):
            XCTFail("render rejected: \(diagnostics)", file: file, line: line)
            return nil
        }
    }

    static func text(_ value: JSONValue) -> String { String(decoding: value.serialized(), as: UTF8.self) }

    static func parse(_ text: String) -> JSONValue {
        (try? JSONParser.parse(Data(text.utf8))) ?? .null
    }
}

extension Array where Element == Diagnostic {
    var codes: [String] { map(\.code) }
}
