import Foundation
import TestSupport
import XCTest

/// The files people look for at the top of a repository: the licence, the changelog of the running version, and
/// how to report a vulnerability with what RichPush defends against.
final class ProjectFilesTests: XCTestCase {
    private func read(_ name: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(name), encoding: .utf8)
    }

    func testLicenseIsTheFullApacheTwoText() throws {
        let license = try read("LICENSE")
        XCTAssertTrue(license.contains("Apache License\n                           Version 2.0, January 2004"))
        for section in ["1. Definitions.", "4. Redistribution.", "9. Accepting Warranty or Additional Liability.",
                        "END OF TERMS AND CONDITIONS"] {
            XCTAssertTrue(license.contains(section), "\(section) missing: not the full text")
        }
    }

    func testChangelogDescribesTheRunningVersion() throws {
        let version = try CommandRunner.run(["--version"]).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "richpush ", with: "")
        let changelog = try read("CHANGELOG.md")
        XCTAssertTrue(changelog.contains("## [\(version)]"), "no section for \(version)")
        for topic in ["Security hardening", "Sender request round-trip", "Provider device payloads", "OneSignal shape",
                      "Production defaults"] {
            XCTAssertTrue(changelog.contains("### \(topic)"), "\(topic) missing")
        }
    }

    func testSecurityPolicySaysHowToReportAndWhatIsDefended() throws {
        let policy = try read("SECURITY.md")
        XCTAssertTrue(policy.contains("## Reporting a vulnerability"))
        XCTAssertTrue(policy.contains("Report a vulnerability"), "names the private channel")
        for defence in ["Server-side request forgery", "limits before decode", "per-job deadlines", "decode isolation",
                        "Unbounded outputs"] {
            XCTAssertTrue(policy.contains(defence), "\(defence) missing")
        }
        let readme = try read("README.md")
        for file in ["LICENSE", "CHANGELOG.md", "SECURITY.md"] { XCTAssertTrue(readme.contains("(\(file))"), "README links \(file)") }
    }
}
