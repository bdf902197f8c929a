import Foundation

/// JSONTestSuite's parsing documents (nst/JSONTestSuite, copied into Fixtures/conformance/json/test_parsing), whose
/// file names are the answers: `y_` a parser must accept, `n_` it must reject, `i_` is the parser's choice.
public enum JSONTestSuite {
    public struct Document: Sendable {
        public let name: String
        public let bytes: Data
    }

    /// The documents whose file names start with `prefix` (`y_`, `n_`, `i_number_`; "" for all), in name order.
    public static func documents(_ prefix: String) throws -> [Document] {
        let directory = fixture("conformance/json/test_parsing")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
            .map { Document(name: $0, bytes: try Data(contentsOf: directory.appendingPathComponent($0))) }
    }
}
