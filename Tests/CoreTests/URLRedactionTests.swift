import XCTest
import RichPushCore

/// What a log line keeps of a media URL: scheme, host, port and path, without credentials, query or fragment.
final class URLRedactionTests: XCTestCase {
    func testURLRedaction() {
        XCTAssertEqual(URLRedaction.redact("https://a.example/x.jpg?sig=1#f"), "https://a.example/x.jpg")
        XCTAssertEqual(URLRedaction.redact("http://u:p@a.example:8080/x?y"), "http://a.example:8080/x")
        XCTAssertEqual(URLRedaction.redact("https://a.example/p@q"), "https://a.example/p@q")
    }
}
