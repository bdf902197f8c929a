import RichPushCore

/// The image fields of each provider's request that only Android phones read, and the variant each is rendered as,
/// cited from the provider's own API reference; each shape's list is its row of `ShapeRegistry`. The request gets each one back rendered (`SenderRequest`); a value
/// that is not an http(s) URL (an app resource name such as OneSignal's `ic_stat_logo`) is never touched.
///
/// - FCM HTTP v1 `message.android.notification.image` (firebase.google.com, REST `projects.messages`,
///   AndroidNotification: "If present, it will override google.firebase.fcm.v1.Notification.image"). The shared
///   `message.notification.image` is not here: iOS or the web may read it too, so `FirebaseAdapter` renders it as
///   the attachment (`MediaPlatform.all`).
/// - OneSignal `big_picture`, `huawei_big_picture`, `adm_big_picture` ("Picture to display in the expanded view.
///   Can be a drawable resource name or a URL") and `large_icon`, `huawei_large_icon`, `adm_large_icon` ("Can be a
///   drawable resource name or a URL"), OneSignal's create-notification reference. `small_icon` is a resource name
///   only, so it is not an image field.
/// - Pushwoosh `android_banner` and `android_custom_icon` ("Full path URL to the image file"), and Amazon's
///   `adm_banner` and `adm_custom_icon`, in a notification of `createMessage` (Pushwoosh's API reference and its
///   own client, `pushwoosh-python-lib`).
/// - Pushfa's `image_url` is both platforms' field: `PushfaAdapter` decides by `platform`.
package enum AndroidImageFields {
    /// One field: its key path inside the notification object, and the variant it is rendered as.
    package struct Field: Sendable {
        package var keyPath: [String]
        package var variantName: String
    }

    /// Big-picture fields, then large-icon fields, each a key of the notification object.
    static func fields(bigPicture: [String], largeIcon: [String]) -> [Field] {
        bigPicture.map { Field(keyPath: [$0], variantName: VariantName.bigPicture) }
            + largeIcon.map { Field(keyPath: [$0], variantName: VariantName.largeIcon) }
    }

    /// The fields of `shape` present in `object` (the notification object at `base` in the document), as images
    /// to find media in.
    package static func images(in object: JSONObject, shape: InputShape, base: String) -> [AndroidImage] {
        ShapeRegistry.definition(of: shape).androidImageFields.compactMap { field in
            guard let value = JSONValue.object(object).value(at: field.keyPath[...]) else { return nil }
            return AndroidImage(pointer: base + JSONPointer.make(field.keyPath), value: value, variantName: field.variantName)
        }
    }
}

/// A value of an Android image field, as found in the sender's document.
package struct AndroidImage: Sendable, Hashable {
    /// Where it is in the document.
    package var pointer: String
    package var value: JSONValue
    package var variantName: String
    /// Which phones read it: `android`, or `all` for a field iOS reads too but not as an APNs attachment.
    package var platform: MediaPlatform = .android
}
