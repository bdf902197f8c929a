/// What the Android SDKs do with a notification image's URL, from their own source. The Android variants and the
/// tests that check every Android rendition read these; nothing else states them.
///
/// - Firebase (`firebase/firebase-android-sdk`, `firebase-messaging/.../ImageDownload.java`):
///   `MAX_IMAGE_SIZE_BYTES = 1024 * 1024`. A `Content-Length` above it fails at once, and the body is read to one
///   byte past it ("BitmapFactory will happily decode a partial image"), so a larger file is never shown.
///   `DisplayNotification.java`: `IMAGE_DOWNLOAD_TIMEOUT_SECONDS = 5`; then "showing notification without it". The
///   same bitmap becomes the large icon (collapsed) and the big picture (expanded), decoded by
///   `BitmapFactory.decodeByteArray` without sampling.
/// - OneSignal (`OneSignal/OneSignal-Android-SDK`, `NotificationDisplayBuilder.kt`): the big picture (`bicon`) and
///   large icon (`licon`) are fetched only for values starting with `http://` or `https://`, otherwise read as an
///   app resource; no size limit and no timeout; the large icon is scaled down to the system's large-icon size.
/// - Pushwoosh (`Pushwoosh/pushwoosh-android-sdk`, `NotificationUtils.java`): the big picture (`b`) and custom
///   icon (`ci`) are read whole into memory, with no size limit and a 2-second connect timeout.
/// - Every one of them decodes with `BitmapFactory`: JPEG, PNG, GIF (first frame) and WebP from Android 4.0
///   (transparency from 4.2.1), HEIF from 8.0 (developer.android.com, "Supported media formats").
package enum AndroidDeviceLimits {
    /// The largest image Firebase's Android SDK shows, in bytes (1 MiB): every Android rendition stays under it.
    package static let maximumImageBytes = 1024 * 1024
    /// How long Firebase's Android SDK waits for the image before it shows the notification without it.
    package static let imageDownloadTimeout: Duration = .seconds(5)
}
