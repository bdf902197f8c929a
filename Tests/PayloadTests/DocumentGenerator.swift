import Foundation
import RichPush
@testable import RichPushCore
@testable import RichPushPayload

/// Seeded documents of every input shape, with one or two extra keys of random names and values in every object.
struct DocumentGenerator {
    enum Shape: CaseIterable {
        case apns, envelope, pushwoosh, pushfa, firebase

        /// The mapped keys per level of the generated document.
        var mappedLevels: [[String]: Set<String>] {
            switch self {
            case .apns: return [:]
            case .envelope: return [[]: Set(InputKeyMapping.envelope.keys)]
            case .pushfa: return [[]: Set(InputKeyMapping.pushfa.keys)]
            case .firebase:
                return [[]: Set(InputKeyMapping.firebase.keys), ["message"]: Set(InputKeyMapping.firebaseMessage.keys),
                        ["message", "notification"]: Set(InputKeyMapping.firebaseNotification.keys),
                        ["message", "apns"]: Set(InputKeyMapping.firebaseAPNs.keys),
                        ["message", "apns", "headers"]: Set(InputKeyMapping.firebaseHeaders.keys)]
            case .pushwoosh:
                return [[]: ["request"], ["request"]: Set(InputKeyMapping.pushwooshRequest.keys),
                        ["request", "notifications", "[]"]: Set(InputKeyMapping.pushwoosh.keys)]
            }
        }
    }

    static let mediaPrefix = "https://m.example/"

    private var state: UInt64
    private var counter = 0

    init(seed: UInt64) { state = seed }

    mutating func document(_ shape: Shape) -> JSONObject {
        switch shape {
        case .apns: return apnsPayload()
        case .envelope:
            var envelope: JSONObject = ["id": .string("e\(next(1000))"), "token": .string("abcd\(next(1000))"),
                                        "topic": .string("com.example.app")]
            if chance() { envelope["tokens"] = .array([.string("t1"), .string("t2")]) }
            envelope["payload"] = .object(apnsPayload())
            return extras(envelope)
        case .pushfa:
            var request: JSONObject = ["title": .string("Sale"), "body": .string("Half price")]
            if chance() { request["image_url"] = .string(Self.mediaPrefix + "i\(next(100)).jpg") }
            if chance() { request["image"] = .string(Self.mediaPrefix + "j\(next(100)).jpg") }
            if chance() { request["link_url"] = .string("https://shop.example/s") }
            if chance() { request["url"] = .string("myapp://open/\(next(9))") }
            if chance() {
                request["actions"] = .array([.object(extras(["title": .string("Buy"), "url": .string("https://shop.example/b")]))])
            }
            if chance() { request["additional_data"] = .object(extras(["order": .number("7")])) }
            request["token"] = .string("5d1f\(next(1000))")
            request["subscriber_ids"] = .array([.string("s1"), .string("s2")])
            if chance() {
                request["label"] = .string("vip")
                request["values"] = .array([.string("gold")])
            }
            if chance() { request["only_last_device"] = .bool(true) }
            if chance() { request["topic"] = .string("news") }
            if chance() { request["get_delivery_status"] = .bool(true) }
            return extras(request)
        case .firebase:
            var message: JSONObject = ["token": .string("fcm\(next(1000))")]
            if chance() { message["topic"] = .string("news") }
            if chance() {
                var notification: JSONObject = ["title": .string("T"), "body": .string("B")]
                if chance() { notification["image"] = .string(Self.mediaPrefix + "n\(next(100)).jpg") }
                message["notification"] = .object(extras(notification))
            }
            if chance() { message["data"] = .object(extras(["order": .string("7")])) }
            var apns: JSONObject = ["headers": .object(extras(["apns-priority": .string("10"), "apns-topic": .string("com.example.app")])),
                                    "payload": .object(apnsPayload())]
            if chance() { apns["fcm_options"] = .object(extras(["image": .string(Self.mediaPrefix + "f\(next(100)).jpg")])) }
            message["apns"] = .object(extras(apns))
            return extras(["message": .object(extras(message))])
        case .pushwoosh:
            var notification: JSONObject = ["content": .string("Body"), "ios_title": .string("Title"),
                                            "send_date": .string("now"), "platforms": .array([.number("1")])]
            if chance() { notification["devices"] = .array([.string("d\(next(1000))")]) }
            if chance() { notification["users"] = .array([.string("u1")]) }
            if chance() { notification["filter"] = .string("F") }
            if chance() { notification["campaign"] = .string("CAMP-1") }
            if chance() { notification["ios_attachment"] = .string(Self.mediaPrefix + "a\(next(100)).jpg") }
            var data: JSONObject = ["k": .number("1")]
            if chance() { data["pw_stories"] = .object(story()) }
            notification["data"] = .object(extras(data))
            if chance() {
                notification["ios_root_params"] = .object(extras(["aps": .object(extras(["thread-id": .string("t")]))]))
            }
            let request = extras(["application": .string("APP-1"), "auth": .string("secret"),
                                  "notifications": .array([.object(extras(notification))])])
            return extras(["request": .object(request)])
        }
    }

    private mutating func apnsPayload() -> JSONObject {
        var aps: JSONObject = ["alert": .object(extras(["title": .string("T"), "body": .string("B")]))]
        if chance() { aps["sound"] = .string("default") }
        if chance() { aps["badge"] = .number("2") }
        var payload: JSONObject = ["aps": .object(extras(aps))]
        if chance() { payload["image_url"] = .string(Self.mediaPrefix + "h\(next(100)).jpg") }
        if chance() { payload["pw_stories"] = .object(story()) }
        if chance() { payload["custom"] = .object(extras(["a": .number("1")])) }
        return extras(payload)
    }

    private mutating func story() -> JSONObject {
        let pages = (0..<(1 + next(3))).map { index -> JSONValue in
            .object(extras(["image": .string(Self.mediaPrefix + "p\(index).jpg"), "title": .string("Page \(index)"),
                            "duration": .number("5")]))
        }
        return extras(["pages": .array(pages)])
    }

    /// Inserts one or two keys of unique random names at random positions.
    private mutating func extras(_ object: JSONObject) -> JSONObject {
        var pairs = object.members.map { ($0.key, $0.value) }
        for _ in 0..<(1 + next(2)) {
            counter += 1
            pairs.insert(("x\(next(1_000_000))_\(counter)", randomValue()), at: next(pairs.count + 1))
        }
        return JSONObject(pairs)
    }

    private mutating func randomValue() -> JSONValue {
        switch next(7) {
        case 0: return .null
        case 1: return .bool(chance())
        case 2: return .number(String(Int(next(100_000)) - 50_000))
        case 3: return .number("\(next(100)).\(next(100))e+\(next(3))")
        case 4: return .string(["plain", "é/😀", "a \"quoted\" word", "https://x.example/p?q=1", ""][next(5)])
        case 5: return .array([.number(String(next(9))), .string("s"), .bool(false)])
        default: return .object(["n": .number(String(next(9))), "s": .string("v")])
        }
    }

    private mutating func chance() -> Bool { next(2) == 0 }

    /// SplitMix64: a fixed seed gives the same documents on every run and every platform.
    private mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        value ^= value >> 31
        return Int(value % UInt64(bound))
    }
}
