import Foundation

/// nginx run by a test or benchmark as an ordinary foreground process whose files all live in one temporary
/// prefix: the lines every such configuration needs, written once.
public enum NginxConfiguration {
    /// Writes `prefix`/nginx.conf: not a daemon, its pid, error log and every temporary path inside `prefix`, then
    /// `main` (top-level directives), the `events` block's body and the `http` block's body. Returns its location.
    public static func write(in prefix: URL, main: String = "", events: String = "", http: String) throws -> URL {
        let path = prefix.path
        let text = """
            daemon off;
            \(main)
            pid \(path)/nginx.pid;
            error_log \(path)/error.log warn;
            events { \(events) }
            http {
                client_body_temp_path \(path)/client_body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
            \(http)
            }
            """
        let file = prefix.appendingPathComponent("nginx.conf")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Starts nginx on the configuration `write` made in `prefix`, its error output discarded.
    public static func start(in prefix: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TestTool.nginx.path())
        process.arguments = ["-c", prefix.appendingPathComponent("nginx.conf").path, "-p", prefix.path + "/"]
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        return process
    }
}
