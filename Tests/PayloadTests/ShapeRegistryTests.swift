import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload

/// The registry is the one table of shapes: every shape has one row, the rows are asked in the documented order,
/// and the credential and Android tables are read from it.
final class ShapeRegistryTests: XCTestCase {
    func testEveryShapeHasOneRowInDetectionOrder() {
        XCTAssertEqual(ShapeRegistry.definitions.map(\.shape), [.apns, .firebase, .envelope, .oneSignal, .pushwoosh, .pushfa])
        XCTAssertEqual(Set(ShapeRegistry.definitions.map(\.shape)), Set(InputShape.allCases))
        for shape in InputShape.allCases { XCTAssertEqual(ShapeRegistry.definition(of: shape).shape, shape) }
    }

    func testEarlierRowsWinForDocumentsSeveralRecognise() {
        let parser = PayloadParser()
        // `title` is a Pushfa key, but a root `aps` makes it a raw APNs payload; `app_id` beside `content` is OneSignal.
        XCTAssertEqual(parser.detectShape(["aps": .object([:]), "title": .string("t")]), .apns)
        XCTAssertEqual(parser.detectShape(["app_id": .string("a"), "content": .string("c")]), .oneSignal)
        XCTAssertEqual(parser.detectShape(["payload": .object(["aps": .object([:])])]), .envelope)
        XCTAssertEqual(parser.detectShape(["payload": .string("x"), "token": .string("t")]), .envelope)
        XCTAssertEqual(parser.detectShape(["content": .string("c"), "title": .string("t")]), .pushwoosh)
        XCTAssertNil(parser.detectShape(["payload": .string("x")]))
    }

    func testCredentialAndAndroidTablesAreTheRegistrysRows() {
        for definition in ShapeRegistry.definitions {
            XCTAssertEqual(CredentialKeys.byShape[definition.shape], definition.credentialKeys)
        }
        XCTAssertEqual(ShapeRegistry.definition(of: .pushwoosh).androidImageFields.map(\.variantName),
                       [VariantName.bigPicture, VariantName.bigPicture, VariantName.largeIcon, VariantName.largeIcon])
        let images = AndroidImageFields.images(in: ["big_picture": .string("https://a.example/p.jpg"), "small_icon": .string("x")],
                                               shape: .oneSignal, base: "")
        XCTAssertEqual(images.map(\.pointer), ["/big_picture"])
    }
}
