import RichPushCore
/// What an input adapter produces: an APNs payload tree plus everything around it.
struct AdaptedNotification {
    var payload: JSONObject
    var headers = NotificationHeaders()
    var id: String?
    var deviceToken: String?
    var target = JSONObject()
    var explicitSilent = false
    var explicitPushType: PushType?
    var variantName: String?
    /// Pointer of the notification object in the input document ("" for the root; a Pushwoosh request's
    /// `/request/notifications/N`), for findings about its own keys.
    var inputPointer = ""
    /// Where the payload's parts came from in the document, to hand the sender its own request back.
    var requestMap = SenderRequestMap()
    /// The request's image fields that Android reads besides the APNs payload (`AndroidImageFields`).
    var androidImages: [AndroidImage] = []
    /// Device-payload pointers of media whose field in the request Android reads too (FCM's
    /// `notification.image`, a Pushfa `image_url` for both platforms): their references are `MediaPlatform.all`.
    var sharedMediaPointers: Set<String> = []
}
