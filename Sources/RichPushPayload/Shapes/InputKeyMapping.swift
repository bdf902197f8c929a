/// The input keys RichPush reads and maps somewhere other than the same key of the APNs payload or of the result's
/// `target`, per input shape, with where each one goes.
///
/// This is the one list the adapters consume keys from: any key of an input object that is not listed here ends
/// up verbatim in the APNs payload or in `target`, so no key is ever dropped silently. Keys listed as going to
/// `target` too (the token keys) are also copied there. Costs nothing at run time beyond a set lookup per key.
package enum InputKeyMapping {
    /// Queue envelope root keys.
    package static let envelope: [String: String] = [
        "id": "the result's id",
        "token": "the device token (and target, verbatim)",
        "device_token": "the device token (and target, verbatim)",
        "topic": "apns-topic",
        "push_type": "apns-push-type",
        "priority": "apns-priority",
        "collapse_id": "apns-collapse-id",
        "expiration": "apns-expiration",
        "ttl": "apns-expiration (send time + ttl)",
        "variant": "the image variant of the job's attachments",
        "payload": "the APNs payload",
        "silent": "apns-push-type background",
    ]

    /// Keys of one Pushwoosh notification (`request.notifications[]`, or a bare notification).
    package static let pushwoosh: [String: String] = [
        "content": "aps.alert.body",
        "ios_title": "aps.alert.title (an object of APNs alert keys merges into aps.alert)",
        "ios_subtitle": "aps.alert.subtitle",
        "ios_badges": "aps.badge (a \"+N\"/\"-N\" increment: aps.pw_badge, applied by the SDK)",
        "ios_sound": "aps.sound",
        "ios_category_custom": "aps.category",
        "ios_root_params": "merged into the payload root",
        "data": "u, a string holding the JSON object (where the SDK reads custom data)",
        "ios_ttl": "apns-expiration (send_date + ios_ttl)",
        "link": "the payload's l",
        "ios_attachment": "the payload's attachment",
        "ios_silent": "a background push",
    ]

    /// Keys of a Pushwoosh `request` object besides its notifications' own.
    package static let pushwooshRequest: [String: String] = [
        "notifications": "one job each",
        "auth": "kept only in the result's request: the API token, never in target, logs or reports",
    ]

    /// Pushfa-style send request root keys.
    package static let pushfa: [String: String] = [
        "title": "aps.alert.title",
        "body": "aps.alert.body",
        "image_url": "the payload's image (media; the SDK's name)",
        "image": "the payload's image (media)",
        "link_url": "the payload's url (link checked; the SDK's name)",
        "url": "the payload's url (link checked)",
        "actions": "the payload's actions (each url checked)",
        "collapse_id": "apns-collapse-id",
        "silent": "a background push",
        "ttl": "apns-expiration (send time + ttl)",
        "additional_data": "the payload's additional_data object",
        "api_private_key": "kept only in the result's request: a backend credential",
        "ackUrl": "the payload's ackUrl",
        "clickAckUrl": "the payload's clickAckUrl",
        "messageId": "the payload's messageId",
        "get_delivery_status": "aps.mutable-content = 1, so the extension runs and reports delivery",
        "platform": "checked: \"ios\", \"android\" (image_url is then an Android big picture) or absent (both)",
        "id": "the result's id",
        "token": "the device token (and target, verbatim)",
        "device_token": "the device token (and target, verbatim)",
    ]

    /// The FCM HTTP v1 body's root keys; every other root key goes to target.
    package static let firebase: [String: String] = [
        "message": "the notification",
    ]

    /// Keys of an FCM `message`; every other member (`topic`, `condition`, `android`, `webpush`, ...) goes to
    /// target, and so does `token`.
    package static let firebaseMessage: [String: String] = [
        "token": "the device token (and target, verbatim)",
        "data": "its members join the payload root",
        "notification": "see firebaseNotification",
        "apns": "see firebaseAPNs",
    ]

    /// Keys of an FCM `message.notification`; other members go to target's `notification`.
    package static let firebaseNotification: [String: String] = [
        "title": "aps.alert.title, unless the APNs payload has one",
        "body": "aps.alert.body, unless the APNs payload has one",
        "image": "fcm_options.image (media), unless apns.fcm_options has one",
    ]

    /// Keys of an FCM `message.apns`; other members go to target's `apns`.
    package static let firebaseAPNs: [String: String] = [
        "headers": "see firebaseHeaders",
        "payload": "the APNs payload",
        "fcm_options": "the payload's fcm_options (image is media)",
    ]

    /// The `message.apns.headers` RichPush uses; other headers go to target's `apns.headers`.
    package static let firebaseHeaders: [String: String] = [
        "apns-topic": "apns-topic",
        "apns-push-type": "apns-push-type",
        "apns-priority": "apns-priority",
        "apns-collapse-id": "apns-collapse-id",
        "apns-expiration": "apns-expiration",
    ]

    /// OneSignal create-notification body keys (`OneSignalAdapter`); every other key goes to target.
    package static let oneSignal: [String: String] = [
        "app_id": "kept only in the result's request: the app's OneSignal id",
        "headings": "aps.alert.title (en, else the first language)",
        "subtitle": "aps.alert.subtitle (en, else the first language)",
        "contents": "aps.alert.body (en, else the first language)",
        "ios_attachments": "the payload's att (media)",
        "data": "the payload's custom.a",
        "url": "the payload's custom.u (link checked)",
        "ios_category": "aps.category",
        "ios_sound": "aps.sound",
        "ios_badgeType": "with ios_badgeCount, aps.badge when SetTo",
        "ios_badgeCount": "aps.badge when ios_badgeType is SetTo",
        "thread_id": "aps.thread-id",
        "mutable_content": "aps.mutable-content",
        "content_available": "aps.content-available",
        "collapse_id": "apns-collapse-id",
        "ttl": "apns-expiration (send time + ttl)",
        "priority": "apns-priority (5 or 10)",
        "send_after": "the send time (and target, verbatim)",
    ]
}
