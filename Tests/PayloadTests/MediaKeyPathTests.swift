import XCTest
@testable import RichPushPayload

final class MediaKeyPathTests: XCTestCase {
    func testSplitsIntoMembersAndArrays() {
        XCTAssertEqual(MediaKeyPath("pw_stories.pages[].image").segments,
                       [.member("pw_stories"), .everyElement(of: "pages"), .member("image")])
        XCTAssertEqual(MediaKeyPath("attachment").segments, [.member("attachment")])
        XCTAssertEqual(MediaKeyPath("").segments, [])
    }

    func testEndsOnlyAtTheWholePathWithAnIndexForEachArray() {
        let path = MediaKeyPath("data.pics[].src")
        XCTAssertTrue(path.ends(at: ["data", "pics", "0", "src"]))
        XCTAssertTrue(path.ends(at: ["data", "pics", "12", "src"]))
        XCTAssertFalse(path.ends(at: ["data", "pics", "x", "src"]), "an array segment needs an element index")
        XCTAssertFalse(path.ends(at: ["data", "pics", "0"]), "short of the end")
        XCTAssertFalse(path.ends(at: ["data", "pics", "0", "src", "more"]), "past the end")
        XCTAssertFalse(path.ends(at: ["data", "other", "0", "src"]))
    }

    func testOptionsKeepTheSplitPathsInStepWithTheKeys() {
        var options = PayloadOptions()
        XCTAssertEqual(options.mediaKeyPaths.map(\.text), PayloadOptions.defaultMediaKeys)
        options.mediaKeys = ["a.b[].c"]
        XCTAssertEqual(options.mediaKeyPaths, [MediaKeyPath("a.b[].c")])
    }
}
