import RichPush
@testable import RichPushCore
@testable import RichPushHTTP
import XCTest

final class AddressPolicyTests: XCTestCase {
    func testDenyListClassification() throws {
        let policy = AddressPolicy(allowNetworks: [])
        let denied = [
            "127.0.0.1", "127.255.255.254", "0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255", "172.16.0.1",
            "172.31.255.255", "192.168.1.1", "100.64.0.1", "100.127.255.255", "169.254.169.254", "224.0.0.1",
            "239.255.255.250", "240.0.0.1", "255.255.255.255", "198.18.0.1",
            "::", "::1", "fe80::1", "febf::1", "fc00::1", "fd12:3456::1", "ff02::1",
            "::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254", "::ffff:7f00:1",
            "::127.0.0.1", "::10.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::192.168.0.1", "2002:c0a8:0101::1",
        ]
        for address in denied {
            XCTAssertNotNil(policy.denialReason(for: address), "\(address) must be denied")
        }
        let allowed = [
            "8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1",
            "169.253.255.255", "223.255.255.255", "2606:4700:4700::1111", "2a00:1450:4001::200e",
            "::ffff:8.8.8.8", "64:ff9b::808:808",
        ]
        for address in allowed {
            XCTAssertNil(policy.denialReason(for: address), "\(address) must be allowed")
        }
        XCTAssertNotNil(policy.denialReason(for: "not-an-ip"))
    }

    func testAllowNetworksOpenOnlyWhatTheyName() throws {
        let policy = AddressPolicy(allowNetworks: [try IPNetwork("127.0.0.1/32"), try IPNetwork("fd00::/8")])
        XCTAssertNil(policy.denialReason(for: "127.0.0.1"))
        XCTAssertNil(policy.denialReason(for: "::ffff:127.0.0.1"))
        XCTAssertNotNil(policy.denialReason(for: "127.0.0.2"))
        XCTAssertNotNil(policy.denialReason(for: "10.0.0.1"))
        XCTAssertNil(policy.denialReason(for: "fd12::1"))
        XCTAssertNotNil(policy.denialReason(for: "fc00::1"))
    }

    func testNetworkParsingAndMembership() throws {
        let network = try IPNetwork("10.1.0.0/16")
        XCTAssertTrue(network.contains("10.1.255.3"))
        XCTAssertFalse(network.contains("10.2.0.1"))
        XCTAssertTrue(network.contains("::ffff:10.1.0.9"))
        XCTAssertEqual(network.description, "10.1.0.0/16")
        XCTAssertTrue(try IPNetwork("192.168.3.4").contains("192.168.3.4"))
        XCTAssertFalse(try IPNetwork("192.168.3.4").contains("192.168.3.5"))
        XCTAssertTrue(try IPNetwork("0.0.0.0/0").contains("203.0.113.9"))
        XCTAssertTrue(try IPNetwork("2001:db8::/32").contains("2001:db8:ffff::1"))
        XCTAssertFalse(try IPNetwork("2001:db8::/32").contains("2001:db9::1"))
        XCTAssertTrue(try IPNetwork("172.16.0.0/12").contains("172.20.1.1"))
        for bad in ["10.0.0.0/33", "::/129", "hello/8", "10.0.0.0/x", "", "1.2.3.4/8/9"] {
            XCTAssertThrowsError(try IPNetwork(bad), bad)
        }
    }

    func testCacheControlMaxAge() {
        XCTAssertEqual(CacheControl.maxAge("public, max-age=600"), 600)
        XCTAssertEqual(CacheControl.maxAge("no-store"), 0)
        XCTAssertEqual(CacheControl.maxAge("max-age=\"60\", s-maxage=10"), 60)
        XCTAssertNil(CacheControl.maxAge("public"))
        XCTAssertNil(CacheControl.maxAge(nil))
    }
}
