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
}
