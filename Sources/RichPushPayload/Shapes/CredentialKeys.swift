import RichPushCore

/// The keys that carry a sender's credentials, per provider shape, and the rule that keeps them in the sender's
/// `request` alone: wherever such a key sits in an input (a notification, the request root, an envelope, a nested
/// header object), it never reaches `target`, and so never a report, a preview or a log.
///
/// The tables name what each provider's own API reference calls secret:
/// - Pushwoosh `createMessage`: `auth`, the API access token (docs.pushwoosh.com, "createMessage");
/// - Pushfa: `api_private_key`, the backend key;
/// - OneSignal: the REST API key, a private secret that belongs in the `Authorization` header
///   (documentation.onesignal.com, "Keys & IDs"), and that senders also put in the body as `rest_api_key`,
///   `api_key` or `Authorization` (OneSignal/react-native-onesignal#1245 shows the last);
/// - FCM HTTP v1: the OAuth 2.0 `access_token`, and an `authorization` header (firebase.google.com, "Authorize
///   send requests");
/// - every shape: `auth` and `authorization`, the generic names of a token.
///
/// Why the union is removed from every shape's `target`, not only the shape's own row: one document often carries
/// another provider's key (a Pushfa `api_private_key` inside a Pushwoosh notification, an `auth` beside an
/// envelope), and none of these names is an addressing field of any shape. Keys match case-insensitively, since
/// header names do.
package enum CredentialKeys {
    /// Each shape's row of `ShapeRegistry`.
    package static let byShape: [InputShape: Set<String>] = Dictionary(
        uniqueKeysWithValues: ShapeRegistry.definitions.map { ($0.shape, $0.credentialKeys) })

    /// Every shape's credential keys, lower-cased.
    package static let all: Set<String> = byShape.values.reduce(into: []) { $0.formUnion($1) }

    /// Whether `key` names a credential in any shape.
    package static func isCredential(_ key: String) -> Bool { all.contains(key.lowercased()) }

    /// `object` with every credential key removed at any depth (inside objects and arrays alike).
    package static func removingCredentials(from object: JSONObject) -> JSONObject {
        var result = JSONObject()
        for (key, value) in object where !isCredential(key) { result[key] = removingCredentials(from: value) }
        return result
    }

    private static func removingCredentials(from value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object): return .object(removingCredentials(from: object))
        case .array(let elements): return .array(elements.map(removingCredentials(from:)))
        case .null, .bool, .number, .string: return value
        }
    }
}
