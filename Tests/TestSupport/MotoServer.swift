import Foundation
import Glibc

/// A throwaway S3-compatible server (`moto_server`, from PyPI `moto[server]`) on a free loopback port, with
/// signature checking on: it starts with a budget of unauthenticated calls that the set-up spends on an IAM user,
/// its policy and its access key, so every later request must carry a valid SigV4 signature from that key.
/// A missing moto is a `TestTool.Missing` error that says how to install it; the tests never skip.
///
/// moto's server mode checks signatures against the URL as werkzeug rebuilt it, with `%2F` in the query decoded
/// to `/`, so a correctly signed `prefix=a%2Fb` listing (boto3's own included) fails there. The launcher below
/// hands moto the request target exactly as sent, which is what AWS signs.
public final class MotoServer: @unchecked Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case startFailed(String)

        public var description: String {
            switch self {
            case .startFailed(let detail): "moto_server did not start: \(detail)"
            }
        }
    }

    public let port: UInt16
    public let accessKeyID: String
    public let secretAccessKey: String
    private let process: Process
    private let log: URL

    public var endpoint: String { "http://127.0.0.1:\(port)" }

    public init() throws {
        let python = try TestTool.python3.path()
        _ = try TestTool.motoServer.path()
        port = try LoopbackPort.free()
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", Self.launcher, String(port)]
        var environment = ProcessInfo.processInfo.environment
        environment["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
        process.environment = environment
        log = FileManager.default.temporaryDirectory.appendingPathComponent("moto-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        do {
            do {
                try LoopbackPort.waitUntilListening(on: port, timeout: .seconds(30))
            } catch {
                kill(process.processIdentifier, SIGKILL)
                let detail = String(decoding: ((try? Data(contentsOf: log)) ?? Data()).suffix(2000), as: UTF8.self)
                if detail.contains("No module named") { throw TestTool.Missing(tool: .motoServer) }
                throw Failure.startFailed(detail)
            }

            let credentials = try Self.python(
                """
                import boto3, json, sys
                iam = boto3.client("iam", endpoint_url=sys.argv[1], region_name="us-east-1",
                                   aws_access_key_id="setup", aws_secret_access_key="setup")
                iam.create_user(UserName="richpush")
                iam.put_user_policy(UserName="richpush", PolicyName="all", PolicyDocument=json.dumps(
                    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
                key = iam.create_access_key(UserName="richpush")["AccessKey"]
                print(key["AccessKeyId"], key["SecretAccessKey"])
                """, arguments: ["http://127.0.0.1:\(port)"])
            let parts = credentials.split(separator: " ").map(String.init)
            guard parts.count == 2 else { throw Failure.startFailed("unexpected IAM set-up output: \(credentials)") }
            accessKeyID = parts[0]
            secretAccessKey = parts[1]
        } catch {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw error
        }
    }

    deinit { stop() }

    private static let launcher = """
        import sys
        from werkzeug.wrappers import Request
        rebuilt = Request.url
        def as_sent(request):
            target = request.environ.get("RAW_URI") or request.environ.get("REQUEST_URI")
            return request.host_url.rstrip("/") + target if target else rebuilt.fget(request)
        Request.url = property(as_sent)
        from moto.server import main
        main(["-H", "127.0.0.1", "-p", sys.argv[1]])
        """

    public func stop() {
        // moto turns SIGTERM into an exit that waits for its connection threads; do not wait for long.
        process.terminate(waitingAtMost: .seconds(2))
        try? FileManager.default.removeItem(at: log)
    }

    /// Creates a bucket with the server's own signed client (boto3).
    public func createBucket(_ name: String) throws {
        _ = try s3(
            """
            s3.create_bucket(Bucket=sys.argv[4])
            """, arguments: [name])
    }

    /// Keys and sizes under `prefix`, read with boto3 (independent of the code under test).
    public func listKeys(bucket: String, prefix: String) throws -> [String] {
        let output = try s3(
            """
            for page in s3.get_paginator("list_objects_v2").paginate(Bucket=sys.argv[4], Prefix=sys.argv[5]):
                for item in page.get("Contents", []):
                    print(item["Key"])
            """, arguments: [bucket, prefix])
        return output.split(separator: "\n").map(String.init)
    }

    /// `Content-Type`, `Content-Length` and `Cache-Control` of a stored object, read with boto3.
    public func headObject(bucket: String, key: String) throws -> (contentType: String, contentLength: Int, cacheControl: String) {
        let output = try s3(
            """
            head = s3.head_object(Bucket=sys.argv[4], Key=sys.argv[5])
            print(head["ContentType"]); print(head["ContentLength"]); print(head.get("CacheControl", ""))
            """, arguments: [bucket, key])
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 3 else { throw Failure.startFailed("unexpected head_object output: \(output)") }
        return (lines[0], Int(lines[1]) ?? -1, lines[2])
    }

    /// Writes `body` under `key` with boto3, for tests that tamper with stored objects.
    public func putObject(bucket: String, key: String, body: Data) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("moto-put-\(UUID().uuidString)")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try s3(
            """
            s3.put_object(Bucket=sys.argv[4], Key=sys.argv[5], Body=open(sys.argv[6], "rb").read())
            """, arguments: [bucket, key, file.path])
    }

    /// Deletes `key` with boto3.
    public func deleteObject(bucket: String, key: String) throws {
        _ = try s3(
            """
            s3.delete_object(Bucket=sys.argv[4], Key=sys.argv[5])
            """, arguments: [bucket, key])
    }

    /// Runs a boto3 script with `s3`, a client signed with this server's key, already made; the script's own
    /// arguments start at `sys.argv[4]`.
    private func s3(_ script: String, arguments: [String]) throws -> String {
        let client = """
            import boto3, sys
            s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1",
                              aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3])

            """
        return try Self.python(client + script, arguments: [endpoint, accessKeyID, secretAccessKey] + arguments)
    }

    private static func python(_ script: String, arguments: [String]) throws -> String {
        let python = try TestTool.python3.path()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure.startFailed("python3 failed: \(String(decoding: errorData.suffix(2000), as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
