import Foundation
import TestSupport
import Glibc

/// `richpush-bench memory`: the peak resident memory of `richpush process` on large images, against issue 16's
/// targets. Each scenario runs one child process on a fresh cache; its peak RSS is the kernel's `ru_maxrss` for
/// that child (from `wait4`), so nothing of this process is counted.
///
/// The inputs are made here, by python3 with Pillow (a 12 MP JPEG, a 36 MP RGBA PNG plain and interlaced, and
/// `--distinct` 36 MP 16-bit PNGs that share their pixels but differ in a tEXt chunk, so each is a distinct source
/// and render), and served through `--local-origin`, which reads a file as the fetcher would receive it. The
/// deadline is raised to 300 s: on a small machine 40 such renders can take longer than 25 s, and this measures
/// memory, not latency. `--render-memory-mb` passes a `--render-memory` to the children. Needs the release
/// `richpush` binary next to this one.
enum MemoryBenchmark {
    struct Scenario {
        var name: String
        var files: [String]
        var targetMegabytes: Int?
    }

    struct Measurement {
        var peakKilobytes: Int
        var enriched: Int
        var jobs: Int
        var seconds: Double
        var cpuSeconds: Double
    }

    static let usage = "usage: richpush-bench memory [--distinct N] [--concurrency N] [--rounds N] [--render-memory-mb N]\n"

    static func run(_ arguments: [String]) async -> Int32 {
        let known: Set<String> = ["--distinct", "--concurrency", "--rounds", "--render-memory-mb"]
        guard let values = IntegerArguments.parse(arguments, known: known) else {
            FileHandle.standardError.write(Data(usage.utf8))
            return 2
        }
        let distinct = max(1, values["--distinct"] ?? 40)
        let concurrency = max(1, values["--concurrency"] ?? 64)
        let rounds = max(1, values["--rounds"] ?? 1)
        let renderMemory = values["--render-memory-mb"].map { ["--render-memory", "\(max(1, $0))MB"] } ?? []
        do {
            try measure(distinct: distinct, concurrency: concurrency, rounds: rounds, extraOptions: renderMemory)
            return 0
        } catch {
            print("richpush-bench memory: \(error)")
            return 1
        }
    }

    private static func measure(distinct: Int, concurrency: Int, rounds: Int, extraOptions: [String]) throws {
        let binary = try BenchmarkFailure.siblingRichpush()
        let work = try TemporaryDirectory.make("memory-bench")
        defer { TemporaryDirectory.remove(work) }
        let media = work.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)

        let generator = work.appendingPathComponent("generate.py")
        try Data(generatorScript.utf8).write(to: generator)
        let status = try spawnAndWait("/usr/bin/env", ["python3", generator.path, media.path, String(distinct)],
                                      output: work.appendingPathComponent("generate.log")).status
        guard status == 0 else {
            let log = (try? String(contentsOf: work.appendingPathComponent("generate.log"), encoding: .utf8)) ?? ""
            throw BenchmarkFailure.failed("python3 could not make the inputs (Pillow installed?): \(log)")
        }

        let scenarios = [
            Scenario(name: "no image (the process alone)", files: [], targetMegabytes: nil),
            Scenario(name: "one 12 MP JPEG job", files: ["photo12.jpg"], targetMegabytes: 60),
            Scenario(name: "one 36 MP RGBA PNG job", files: ["rgba36.png"], targetMegabytes: 120),
            Scenario(name: "one 36 MP interlaced RGBA PNG job", files: ["adam36.png"], targetMegabytes: 120),
            Scenario(name: "\(distinct) distinct 36 MP 16-bit PNGs, --concurrency \(concurrency)",
                     files: (0..<distinct).map { String(format: "deep%02d.png", $0) }, targetMegabytes: 300),
        ]
        print("richpush-bench memory: peak RSS of one `richpush process` per scenario (ru_maxrss), \(rounds) round(s)")
        for file in ["photo12.jpg", "rgba36.png", "adam36.png", "deep00.png"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: media.appendingPathComponent(file).path)[.size] as? Int) ?? 0
            print("  input \(file): \(size / 1024) KB")
        }
        var missed = false
        for scenario in scenarios {
            var peaks: [Int] = []
            var last: Measurement?
            for round in 0..<rounds {
                let measurement = try runScenario(scenario, binary: binary, work: work, media: media, round: round,
                                                  concurrency: concurrency, extraOptions: extraOptions)
                guard measurement.enriched == measurement.jobs else {
                    throw BenchmarkFailure.failed("\(scenario.name): only \(measurement.enriched) of \(measurement.jobs) jobs enriched")
                }
                peaks.append(measurement.peakKilobytes)
                last = measurement
            }
            let worst = peaks.max() ?? 0
            var line = "  \(scenario.name): peak \(worst / 1024) MB"
            if peaks.count > 1 { line += " (rounds: \(peaks.map { String($0 / 1024) }.joined(separator: ", ")) MB)" }
            if let target = scenario.targetMegabytes {
                let met = worst < target * 1024
                missed = missed || !met
                line += ", target < \(target) MB: \(met ? "met" : "MISSED")"
            }
            if let last {
                line += String(format: "; %d/%d enriched in %.1f s, %.1f CPU s", last.enriched, last.jobs, last.seconds, last.cpuSeconds)
            }
            print(line)
        }
        if missed { print("  at least one target was missed") }
    }

    private static func runScenario(_ scenario: Scenario, binary: String, work: URL, media: URL, round: Int,
                                    concurrency: Int, extraOptions: [String]) throws -> Measurement {
        let tag = "\(scenario.files.count)-\(round)"
        let jobsFile = work.appendingPathComponent("jobs-\(tag).ndjson")
        let jobs = scenario.files.isEmpty
            ? [#"{"id":"text","aps":{"alert":{"title":"T","body":"B"}}}"#]
            : scenario.files.enumerated().map { index, file in
                #"{"id":"m\#(index)","payload":{"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://media.example.com/\#(file)"}}"#
            }
        try Data((jobs.joined(separator: "\n") + "\n").utf8).write(to: jobsFile)
        let results = work.appendingPathComponent("results-\(tag).ndjson")
        let started = ContinuousClock.now
        let child = try spawnAndWait(binary, [
            "process", "--cache-dir", work.appendingPathComponent("cache-\(tag)").path,
            "--local-origin", "https://media.example.com/=\(media.path)", "--concurrency", String(concurrency),
            "--deadline", "300s", "--allow-long-deadline", "--log-level", "warning",
        ] + extraOptions + [jobsFile.path], output: results)
        let elapsed = ContinuousClock.now - started
        guard child.status == 0 || child.status == 1 else { throw BenchmarkFailure.failed("richpush process exited with \(child.status)") }
        let lines = ((try? String(contentsOf: results, encoding: .utf8)) ?? "").split(separator: "\n")
        let wanted = scenario.files.isEmpty ? "passthrough" : "enriched"
        let enriched = lines.filter { $0.contains(#""status":"\#(wanted)""#) }.count
        return Measurement(peakKilobytes: child.peakKilobytes, enriched: enriched, jobs: jobs.count,
                           seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                           cpuSeconds: child.cpuSeconds)
    }

    /// Runs a child with stdout into `output` (stderr too) and waits for it with `wait4`, whose `ru_maxrss` is that
    /// child's own peak resident set in kilobytes (and its user and system time, its CPU seconds).
    private static func spawnAndWait(_ executable: String, _ arguments: [String], output: URL) throws
        -> (status: Int32, peakKilobytes: Int, cpuSeconds: Double) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchmarkFailure.failed("could not start \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchmarkFailure.failed("wait4 failed: \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import as functions.
        let exitCode = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return (exitCode, usage.ru_maxrss, cpu)
    }

    /// Writes the inputs into argv[1]: photo12.jpg (4000x3000, quality 90), rgba36.png (6000x6000 RGBA, 8-bit), the
    /// same pixels Adam7-interlaced as adam36.png, and
    /// argv[2] files deepNN.png (6000x6000 RGB, 16-bit). The PNGs are flat-graphic-like ramps that deflate to a few
    /// MB, under the 10 MB source cap.
    static let generatorScript = #"""
    import os, struct, sys, zlib
    from PIL import Image, ImageChops

    out, distinct = sys.argv[1], int(sys.argv[2])

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    def png(width, height, colour_type, depth, rows, tags, interlaced=0):
        # One compressed IDAT under each tEXt tag: the same pixels, distinct bytes.
        ihdr = struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, interlaced)
        header = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
        body = chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b"")
        return [header + chunk(b"tEXt", b"Comment\x00" + tag) + body for tag in tags]

    def ramp_rows(width, height, channels, sample_bytes):
        # 64 distinct rows of ramps (alpha varies too), each used for 8 image rows.
        distinct_rows = []
        for k in range(64):
            cycle = bytearray()
            for x in range(256):
                pixel = [(x + 3 * k) & 255, (2 * x + k) & 255, 255 - x,
                         255 if (x // 32 + k // 8) % 2 else (x + 64) & 255][:channels]
                for value in pixel:
                    cycle += bytes([value]) * sample_bytes
            body = (cycle * (width // 256 + 1))[: width * channels * sample_bytes]
            distinct_rows.append(b"\x00" + bytes(body))
        return [distinct_rows[(y // 8) % 64] for y in range(height)]

    rgba = ramp_rows(6000, 6000, 4, 1)
    def adam7(rows, width, pixel_bytes):
        # The seven passes' sub-images, each row with filter byte 0; rows repeat, so each is cut once per pass.
        cut = {}
        result = []
        for column, row, column_step, row_step in [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
                                                   (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]:
            for y in range(row, len(rows), row_step):
                key = (id(rows[y]), column, column_step)
                if key not in cut:
                    source = rows[y]
                    cut[key] = b"\x00" + b"".join(source[1 + x * pixel_bytes: 1 + (x + 1) * pixel_bytes]
                                                   for x in range(column, width, column_step))
                result.append(cut[key])
        return result

    with open(os.path.join(out, "rgba36.png"), "wb") as f:
        f.write(png(6000, 6000, 6, 8, rgba, [b"rgba36"])[0])
    with open(os.path.join(out, "adam36.png"), "wb") as f:
        f.write(png(6000, 6000, 6, 8, adam7(rgba, 6000, 4), [b"adam36"], interlaced=1)[0])
    tags = [b"distinct-%03d" % index for index in range(distinct)]
    for index, data in enumerate(png(6000, 6000, 2, 16, ramp_rows(6000, 6000, 3, 2), tags)):
        with open(os.path.join(out, "deep%02d.png" % index), "wb") as f:
            f.write(data)
    size = (4000, 3000)
    noise = Image.effect_noise(size, 24)
    photo = Image.merge("RGB", [
        Image.effect_mandelbrot(size, (-2.2, -1.2, 1.0, 1.2), 64),
        ImageChops.add(Image.linear_gradient("L").resize(size), noise, 1.0, -128),
        Image.radial_gradient("L").resize(size),
    ])
    photo.save(os.path.join(out, "photo12.jpg"), quality=90)
    """#
}
