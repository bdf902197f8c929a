import Foundation
import XCTest

@testable import RichPushCore

final class SHA256Tests: XCTestCase {
    func testFIPSVectors() {
        XCTAssertEqual(
            SHA256.hexDigest(of: "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            SHA256.hexDigest(of: ""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(
            SHA256.hexDigest(of: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            SHA256.hexDigest(
                of: "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        XCTAssertEqual(
            SHA256.hexDigest(of: Data(repeating: UInt8(ascii: "a"), count: 1_000_000)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testPaddingBoundaries() {
        // Lengths around the 55/56/64-byte padding edges, checked against values from sha256sum.
        XCTAssertEqual(
            SHA256.hexDigest(of: String(repeating: "a", count: 55)),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        XCTAssertEqual(
            SHA256.hexDigest(of: String(repeating: "a", count: 56)),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        XCTAssertEqual(
            SHA256.hexDigest(of: String(repeating: "a", count: 64)),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }

    func testACopyHashesOnIndependently() {
        var first = SHA256()
        first.update(Array("abc".utf8))
        var second = first
        second.update(Array("def".utf8))
        XCTAssertEqual(SHA256.hexString(first.finalize()), SHA256.hexDigest(of: "abc"))
        XCTAssertEqual(SHA256.hexString(second.finalize()), SHA256.hexDigest(of: "abcdef"))
    }

    func testStreamingInOddChunksMatchesOneShot() {
        var bytes = [UInt8]()
        var state: UInt32 = 12345
        for _ in 0..<10_000 {
            state = state &* 1_103_515_245 &+ 12345
            bytes.append(UInt8(truncatingIfNeeded: state >> 16))
        }
        let whole = SHA256.hexDigest(of: Data(bytes))
        for chunkSize in [1, 3, 63, 64, 65, 1000] {
            var hasher = SHA256()
            var index = 0
            while index < bytes.count {
                let end = min(index + chunkSize, bytes.count)
                hasher.update(Array(bytes[index..<end]))
                index = end
            }
            XCTAssertEqual(SHA256.hexString(hasher.finalize()), whole, "chunk size \(chunkSize)")
        }
    }
}
