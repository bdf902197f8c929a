import XCTest

@testable import RichPushCore
@testable import RichPushHTTP

/// The libcurl spelling of request signing lives in HTTP, beside the transfer that sets it.
final class RequestSigningCurlTests: XCTestCase {
    func testCurlParameterNamesProviderRegionAndService() {
        let signing = RequestSigning(accessKeyID: "AKID", secretAccessKey: "secret", region: "eu-west-1", service: "s3")
        XCTAssertEqual(signing.curlParameter, "aws:amz:eu-west-1:s3")
    }
}
