import Foundation
import XCTest
@testable import RichPushCache
@testable import RichPushPipeline

final class CacheKeyMemoTests: XCTestCase {
    private func computed(_ source: String, _ variant: String) -> CacheKey {
        CacheKey(sourceURL: source, variant: variant, rendererVersion: "test")
    }

    func testAnswersTheComputedKeyAndComputesEachOnce() {
        let memo = CacheKeyMemo()
        var computations = 0
        for _ in 0..<3 {
            for source in ["https://a.example/1.jpg", "https://a.example/2.jpg"] {
                for variant in ["attachment", "story"] {
                    let key = memo.key(source: source, variantName: variant) {
                        computations += 1
                        return computed(source, variant)
                    }
                    XCTAssertEqual(key, computed(source, variant))
                }
            }
        }
        XCTAssertEqual(computations, 4, "one computation per source and variant")
        XCTAssertNotEqual(memo.key(source: "https://a.example/1.jpg", variantName: "story") { computed("x", "y") },
                          memo.key(source: "https://a.example/1.jpg", variantName: "attachment") { computed("x", "y") })
    }

    func testStartsOverAtItsBounds() {
        let byCount = CacheKeyMemo(capacity: 10)
        for index in 0..<25 { _ = byCount.key(source: "https://a.example/\(index)", variantName: "a") { computed("\(index)", "a") } }
        XCTAssertLessThanOrEqual(byCount.count, 10)
        XCTAssertGreaterThan(byCount.count, 0)
        let byBytes = CacheKeyMemo(capacity: 1_000, sourceByteCapacity: 1_000)
        let long = String(repeating: "x", count: 300)
        for index in 0..<10 { _ = byBytes.key(source: "https://a.example/\(long)\(index)", variantName: "a") { computed("\(index)", "a") } }
        XCTAssertLessThanOrEqual(byBytes.count, 3, "at most 1,000 bytes of URLs are held")
    }
}
