import Foundation
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushHTTP
@testable import RichPushPipeline

final class CacheKeyTests: XCTestCase {
    func testNormalizationTable() {
        let table: [(String, String)] = [
            ("HTTPS://Example.COM/Path/Image.JPG", "https://example.com/Path/Image.JPG"),
            ("https://example.com:443/a.jpg", "https://example.com/a.jpg"),
            ("http://example.com:80/a.jpg", "http://example.com/a.jpg"),
            ("https://example.com:8443/a.jpg", "https://example.com:8443/a.jpg"),
            ("http://example.com:443/a.jpg", "http://example.com:443/a.jpg"),
            ("https://example.com/a.jpg#fragment", "https://example.com/a.jpg"),
            ("https://example.com/a.jpg?Sig=AbC&x=1#frag", "https://example.com/a.jpg?Sig=AbC&x=1"),
            ("https://example.com?b=2&a=1", "https://example.com/?b=2&a=1"),
            ("https://EXAMPLE.com", "https://example.com/"),
            ("https://example.com:/a", "https://example.com/a"),
            ("https://User:Pass@Example.com/a", "https://User:Pass@example.com/a"),
            ("http://[2001:DB8::1]:80/a", "http://[2001:db8::1]/a"),
            ("http://[2001:DB8::1]:8080/a", "http://[2001:db8::1]:8080/a"),
            ("  https://example.com/a  ", "https://example.com/a"),
            ("https://example.com/%7Euser/a%20b.jpg", "https://example.com/%7Euser/a%20b.jpg"),
            ("not a url#x", "not a url"),
        ]
        for (input, expected) in table {
            XCTAssertEqual(CacheKey.normalize(input), expected, "normalizing \(input)")
        }
    }

    /// The byte-level ASCII path must agree with the general one, which non-ASCII URLs still take.
    func testASCIIPathAgreesWithTheGeneralOne() {
        let inputs = [
            "HTTPS://Example.COM/Path/Image.JPG", "https://example.com:0443/a", "http://h:00080", "WS://H:80/x",
            "https://a@b@Host:8080/p?q=1#f", "http://[::1]", "http://[::1]:0/x", "https://host?x", "https://host#",
            "\t https://host/a \n", "https://", "://x", "mailto:x", "", "  ", "https://h:/x?y=:80",
            "FTP://Files.Example:21/a", "https://[2001:DB8::1]/a:b",
        ]
        for input in inputs {
            XCTAssertEqual(CacheKey.normalize(input), CacheKey.normalizeUnicode(input), "normalizing \(input.debugDescription)")
        }
        XCTAssertEqual(CacheKey.normalize("HTTPS://Exämple.COM:443/ä#x"), "https://exämple.com/ä")
    }

    func testKeyCombinesNormalizedURLVariantAndRenderer() {
        let base = CacheKey(sourceURL: "https://example.com/a.jpg", variant: "attachment", rendererVersion: "1")
        XCTAssertEqual(base, CacheKey(sourceURL: "HTTPS://EXAMPLE.com:443/a.jpg#x", variant: "attachment", rendererVersion: "1"))
        XCTAssertEqual(
            base.hexDigest, SHA256.hexDigest(of: "https://example.com/a.jpg\nattachment\n1"))
        XCTAssertNotEqual(base, CacheKey(sourceURL: "https://example.com/a.jpg", variant: "story", rendererVersion: "1"))
        XCTAssertNotEqual(base, CacheKey(sourceURL: "https://example.com/a.jpg", variant: "attachment", rendererVersion: "2"))
        XCTAssertNotEqual(base, CacheKey(sourceURL: "https://example.com/a.jpg?v=2", variant: "attachment", rendererVersion: "1"))
        XCTAssertNotEqual(base, CacheKey(sourceURL: "https://example.com/A.jpg", variant: "attachment", rendererVersion: "1"))
        XCTAssertEqual(base.hexDigest.count, 64)
        XCTAssertEqual(base.description, base.hexDigest)
    }

    func testCodableRoundTripAndRejectsNonDigests() throws {
        let original = key("https://example.com/a.jpg")
        let data = try JSONEncoder().encode([original])
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "[\"\(original.hexDigest)\"]")
        XCTAssertEqual(try JSONDecoder().decode([CacheKey].self, from: data), [original])
        XCTAssertThrowsError(try JSONDecoder().decode([CacheKey].self, from: Data("[\"../../etc/passwd\"]".utf8)))
        XCTAssertThrowsError(try JSONDecoder().decode([CacheKey].self, from: Data("[\"\(original.hexDigest.uppercased())\"]".utf8)))
        XCTAssertNil(CacheKey(hexDigest: "abc"))
        XCTAssertEqual(CacheKey(hexDigest: original.hexDigest), original)
    }

    /// Keys hash by their first 16 digits; two that share those but differ later stay two keys.
    func testKeysSharingTheHashedDigitsStayDistinct() throws {
        let prefix = String(repeating: "ab", count: 8)
        let first = try XCTUnwrap(CacheKey(hexDigest: prefix + String(repeating: "0", count: 48)))
        let second = try XCTUnwrap(CacheKey(hexDigest: prefix + String(repeating: "0", count: 47) + "1"))
        XCTAssertEqual(first.hashValue, second.hashValue)
        XCTAssertNotEqual(first, second)
        let table = [first: "first", second: "second"]
        XCTAssertEqual(table.count, 2)
        XCTAssertEqual(table[second], "second")
        XCTAssertEqual(Set([first, second, first]).count, 2)
    }
}

final class CacheJSONTests: XCTestCase {
    func testDatesRoundTripExactlyAtMillisecondPrecision() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let date = Date(timeIntervalSince1970: Double.random(in: 1_700_000_000...1_900_000_000, using: &generator))
                .cacheMillisecondPrecision
            let text = CacheJSON.format(date)
            XCTAssertEqual(text.count, 24, text)
            XCTAssertEqual(CacheJSON.parse(text), date, text)
        }
        XCTAssertEqual(CacheJSON.format(Date(timeIntervalSince1970: 0.5)), "1970-01-01T00:00:00.500Z")
        XCTAssertEqual(CacheJSON.parse("1970-01-01T00:00:01Z"), Date(timeIntervalSince1970: 1))
    }
}
