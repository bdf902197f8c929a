import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload

/// Issue 17 item 3: a valid push never comes out worse (no device-useless keys, idempotent, no unfetchable URLs).
final class SafeRewriteTests: XCTestCase {
    private static let base = "https://cdn.example.com/richpush"

    private func options(sourceKeys: Bool = false) -> PayloadOptions {
        var options = PayloadOptions()
        options.ownMediaBaseURL = Self.base
        options.includesSourceKeys = sourceKeys
        return options
    }

    /// Every reference renders to a cached URL under the base, as the pipeline would.
    private func cachedMedia(for job: NotificationJob) -> [ExactString: MediaOutcome] {
        var media: [ExactString: MediaOutcome] = [:]
        for (index, reference) in job.media.enumerated() {
            media[reference.pointerKey] = PayloadHelpers.rendered("\(Self.base)/objects/ab/cd/\(index).jpg", bytes: 1000)
        }
        return media
    }

    func testResultPayloadFedBackComesOutTheSame() throws {
        let inputs = [
            #"{"aps":{},"image_url":"https://m.example/a.jpg?token=secret","pw_stories":{"pages":[{"image":"https://m.example/1.jpg","title":"One","duration":0},{"image":"https://m.example/2.jpg","subtitle":"Two"}]}}"#,
            // An original URL longer than the cached one: the body is cut, the cached URL stays.
            #"{"aps":{"alert":{"body":"\#(String(repeating: "long body ", count: 420))"}},"att":{"a":"https://m.example/\#(String(repeating: "p", count: 60)).jpg","t":"jpg"}}"#,
            #"{"title":"t","body":"b","image_url":"https://m.example/i.jpg","actions":[{"title":"Go","url":"myapp://go"}]}"#,
        ]
        for sourceKeys in [false, true] {
            let options = options(sourceKeys: sourceKeys)
            for input in inputs {
                let first = try XCTUnwrap(PayloadHelpers.job(input, options: options))
                let (once, _) = try XCTUnwrap(PayloadHelpers.render(first, media: cachedMedia(for: first), options: options))
                let again = try XCTUnwrap(PayloadHelpers.job(PayloadHelpers.text(once.payload), options: options))
                XCTAssertEqual(again.media.count, 0, "our own cached objects are not fetched again: \(input)")
                XCTAssertEqual(again.diagnostics.filter { $0.severity != .info }, [], "no warning about our own keys: \(input)")
                let (twice, _) = try XCTUnwrap(PayloadHelpers.render(again, media: [:], options: options))
                XCTAssertEqual(PayloadHelpers.text(twice.payload), PayloadHelpers.text(once.payload), input)
            }
        }
    }

    func testUnfetchableMediaURLsNeverReachThePhone() throws {
        let cases = [
            "ftp://m.example/a.jpg", "file:///etc/passwd", "data:image/png;base64,iVBORw0KGgo=", "gopher://m.example/a",
            "https://m.example/a\\u0001.jpg", "https://m.example/a b.jpg",
        ]
        for url in cases {
            let text = #"{"aps":{"alert":"x"},"image_url":"\#(url)","keep":1}"#
            let job = try XCTUnwrap(PayloadHelpers.job(text), url)
            XCTAssertEqual(job.diagnostics.codes, ["media_url_invalid"], url)
            XCTAssertNotNil(job.media.first?.invalidReason, url)
            // Whatever the media map says, an invalid reference is removed.
            let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: PayloadHelpers.renderedMedia(for: job)), url)
            XCTAssertEqual(PayloadHelpers.text(request.payload), #"{"aps":{"alert":"x"},"keep":1}"#, url)
        }
        let container = try XCTUnwrap(PayloadHelpers.job(#"{"aps":{"alert":"x"},"att":{"a":"data:image/gif;base64,R0lG","type":"jpg","b":"https://m.example/b.jpg"}}"#))
        XCTAssertEqual(container.media.map(\.pointer), ["/att/a", "/att/b"])
        let (request, _) = try XCTUnwrap(PayloadHelpers.render(container, media: ["/att/b": PayloadHelpers.rendered("https://cdn.example/b.jpg", width: 1, height: 1, bytes: 1)]))
        XCTAssertEqual(request.payload.value(at: "/att"), PayloadHelpers.parse(#"{"type":"jpg","b":"https://cdn.example/b.jpg"}"#))
    }

    /// Issue 26: a value without a scheme (an asset name, a relative path) is not a URL: nothing is fetched and it
    /// reaches the device as written, for the app to resolve.
    func testNonURLValuesUnderMediaKeysAreKept() throws {
        for value in ["/images/a.jpg", "a.jpg", "hero_banner"] {
            let text = #"{"aps":{"alert":"x"},"image_url":"\#(value)","keep":1}"#
            let job = try XCTUnwrap(PayloadHelpers.job(text), value)
            XCTAssertEqual(job.media, [], value)
            XCTAssertEqual(job.diagnostics.codes, ["media_value_not_url"], value)
            let (request, _) = try XCTUnwrap(PayloadHelpers.render(job, media: [:]), value)
            XCTAssertEqual(PayloadHelpers.text(request.payload), text, value)
        }
    }
}
