import Foundation
import Glibc
import RichPush
import TestSupport

/// `warm`: how far a warm job is from its floor. The workload is `--jobs` documents over `--urls` distinct images,
/// the six input shapes in turn (an envelope, a raw APNs payload, an FCM message with an Android image, a OneSignal
/// body with a big picture, a Pushwoosh notification, a Pushfa request); the images are `hero.jpg` of
/// `--media DIR` (default `Fixtures/media`, so run it from the repository's root) behind a local origin, one cache
/// key per `?v=N`. One pass fills a temporary cache; then each of `--rounds` rounds enriches every document on
/// one task and builds its result line (`--result PARTS`, default all), and each round of the floor parses every
/// document and writes it back with the project's own JSON code (`JSONParser`, `JSONSerializer`): the least a
/// warm job can cost. A second floor parses each document and writes its answer instead (the result line of the
/// first round, read back into a tree beforehand): the least a job can cost that writes what the warm job writes,
/// whose line is several times the document's bytes. Prints the process CPU per job of the fastest round of each,
/// and the warm job as a multiple of each floor.
enum WarmBenchmark {
    static let usage = "usage: richpush-bench warm [--jobs N] [--urls N] [--rounds N] [--result PARTS] [--media DIR]"

    static func run(_ arguments: [String]) async -> Int32 {
        var arguments = arguments
        var parts = ResultParts.all, media = "Fixtures/media"
        for name in ["--result", "--media"] {
            guard let index = arguments.firstIndex(of: name) else { continue }
            guard index + 1 < arguments.count else { return fail() }
            let value = arguments[index + 1]
            arguments.removeSubrange(index...(index + 1))
            if name == "--media" {
                media = value
                continue
            }
            var chosen = ResultParts()
            for item in value.split(separator: ",") {
                guard let part = ResultParts.named.first(where: { $0.name == item })?.part else { return fail() }
                chosen.insert(part)
            }
            parts = chosen
        }
        guard let jobs = IntegerArguments.take("--jobs", from: &arguments, fallback: 20_000),
              let urls = IntegerArguments.take("--urls", from: &arguments, fallback: 400),
              let rounds = IntegerArguments.take("--rounds", from: &arguments, fallback: 3), arguments.isEmpty
        else { return fail() }
        let documents = (0..<jobs).map { Data(document($0, url: "https://media.example.com/hero.jpg?v=\($0 % urls)").utf8) }
        do {
            let cache = try TemporaryDirectory.make("warm-bench")
            defer { TemporaryDirectory.remove(cache) }
            var fetch = FetchConfiguration()
            fetch.localOrigins = [try LocalOrigin(parsing: "https://media.example.com/=\(media)")]
            let fetcher = try Fetcher(configuration: fetch)
            defer { fetcher.shutdown() }
            let store = try FileMediaStore(configuration: CacheConfiguration(root: cache, publicBaseURL: "https://cdn.example.com/rp"))
            var configuration = EnricherConfiguration()
            configuration.resultParts = parts
            let enricher = Enricher(configuration: configuration, store: store, fetcher: fetcher)
            // The cold pass, one document per distinct image (and shape), fills the cache.
            for document in documents.prefix(max(urls, 6)) { _ = await enricher.enrich(document: document) }

            // The answers, as trees built before any round is timed.
            var answers: [JSONValue] = []
            answers.reserveCapacity(jobs)
            for (index, document) in documents.enumerated() {
                let results = await enricher.enrich(document: document, line: index + 1)
                answers.append(try JSONParser.parse(Data(ResultLine(results: results, line: index + 1, parts: parts).bytes)))
            }

            var floor = Duration.seconds(3600), answerFloor = Duration.seconds(3600), warm = Duration.seconds(3600)
            var bytes = 0
            for _ in 0..<rounds {
                var start = processCPUTime()
                var written = 0
                for document in documents {
                    guard let value = try? JSONParser.parse(document) else { continue }
                    written += value.serialized().count
                }
                floor = min(floor, processCPUTime() - start)
                start = processCPUTime()
                written = 0
                for (document, answer) in zip(documents, answers) {
                    guard (try? JSONParser.parse(document)) != nil else { continue }
                    written += answer.serialized().count
                }
                answerFloor = min(answerFloor, processCPUTime() - start)
                start = processCPUTime()
                written = 0
                for (index, document) in documents.enumerated() {
                    let results = await enricher.enrich(document: document, line: index + 1)
                    written += ResultLine(results: results, line: index + 1, parts: parts).bytes.count
                }
                warm = min(warm, processCPUTime() - start)
                bytes = written
            }
            let perJob = { (duration: Duration) in duration.timeInterval * 1e6 / Double(jobs) }
            print("jobs\t\(jobs)\turls\t\(urls)\tresult\t\(parts.names)")
            print(String(format: "floor (parse + serialize): %.2f µs/job", perJob(floor)))
            print(String(format: "warm job: %.2f µs/job, %.0f result bytes/job", perJob(warm), Double(bytes) / Double(jobs)))
            print(String(format: "warm / floor: %.2f", warm.timeInterval / floor.timeInterval))
            print(String(format: "floor writing the answer (parse + serialize the result line): %.2f µs/job", perJob(answerFloor)))
            print(String(format: "warm / answer floor: %.2f", warm.timeInterval / answerFloor.timeInterval))
            return 0
        } catch {
            FileHandle.standardError.write(Data("warm: \(error)\n".utf8))
            return 1
        }
    }

    /// The document of job `index`: the six shapes in turn, each with one image.
    private static func document(_ index: Int, url: String) -> String {
        switch index % 6 {
        case 0: return #"{"id":"e\#(index)","token":"a1b2","topic":"com.example.app","payload":{"aps":{"alert":{"title":"Sale","body":"Today only"}},"image_url":"\#(url)"}}"#
        case 1: return #"{"aps":{"alert":{"title":"Sale","body":"Today only"},"mutable-content":1},"attachment":"\#(url)","campaign":"c\#(index)"}"#
        case 2: return #"{"message":{"token":"f\#(index)","notification":{"title":"Sale","body":"Today only","image":"\#(url)"},"android":{"notification":{"image":"\#(url)"}}}}"#
        case 3: return #"{"app_id":"a","contents":{"en":"Today only"},"headings":{"en":"Sale"},"ios_attachments":{"p":"\#(url)"},"big_picture":"\#(url)","include_subscription_ids":["s\#(index)"]}"#
        case 4: return #"{"content":"Today only","ios_title":"Sale","ios_attachment":"\#(url)","devices":["d\#(index)"],"data":{"order":\#(index)}}"#
        default: return #"{"title":"Sale","body":"Today only","image_url":"\#(url)","subscriber_ids":["p\#(index)"]}"#
        }
    }

    private static func processCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    private static func fail() -> Int32 {
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        return 2
    }
}
