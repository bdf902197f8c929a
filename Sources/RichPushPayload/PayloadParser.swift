import Foundation
import RichPushCore

/// Turns any supported input document into normalized notification jobs. Pure; never throws.
///
/// Shape detection (unless `PayloadOptions.forcedShape` is set), in this order (`ShapeRegistry.definitions` after the first):
/// 1. `{"request": {"notifications": [...]}}` → Pushwoosh, one job per notification;
/// 2. a root `aps` → raw APNs payload;
/// 3. a `message` object → FCM HTTP v1 body;
/// 4. a `payload` plus `token`/`device_token`/`tokens`/`id`/`topic`, or a `payload` object holding `aps` → job
///    envelope;
/// 5. a OneSignal create-notification key (`app_id`, `contents`, `headings`, `ios_attachments`,
///    `include_subscription_ids`, ...) → OneSignal;
/// 6. any Pushwoosh key (`content`, `ios_title`, `ios_root_params`, `platforms`, ...) → Pushwoosh notification;
/// 7. any Pushfa key (`title`, `body`, `image_url`, `link_url`, `platform`, ...) → Pushfa request;
/// 8. otherwise the document is rejected with `unknown_shape`: guessing would turn an unknown body into a push
///    that means something else.
///
/// Duplicate keys keep the last value and get a `duplicate_key` warning.
/// A Pushwoosh request with any invalid notification is rejected as a whole (the diagnostics say which one),
/// because a sender retries the request as one unit; so is one with more than `maximumNotificationsPerRequest`
/// notifications (`too_many_notifications`). Findings about the whole request (duplicate keys, a dropped `auth`)
/// go with its first job only, and every list of findings holds at most `maximumDiagnosticsPerCode` of each code.
/// Cost: linear in the document size, plus one pass per configured media key.
package struct PayloadParser: Sendable {
    package let options: PayloadOptions

    package init(options: PayloadOptions = PayloadOptions()) {
        self.options = options
    }

    /// Parses bytes (one JSON document).
    package func parse(_ data: Data) -> ParseOutcome {
        let result: JSONParser.Result
        do {
            result = try JSONParser.parseReportingDuplicates(data, maximumDepth: options.maximumDepth)
        } catch {
            return .rejected([Diagnostic(.error, .invalidJSON, "", error.description)])
        }
        // Only the listed ones are made: a megabyte of duplicates is 170,000 of them.
        let pointers = result.duplicateKeyPointers
        var duplicates = pointers.prefix(options.maximumDiagnosticsPerCode).map {
            Diagnostic(.warning, .duplicateKey, $0, "this key appears more than once in its object; the last value was used, so remove the others")
        }
        if pointers.count > options.maximumDiagnosticsPerCode {
            duplicates.append(.omitted(count: pointers.count - options.maximumDiagnosticsPerCode, of: DiagnosticCode.duplicateKey.rawValue,
                                       shown: options.maximumDiagnosticsPerCode, severity: .warning))
        }
        return capped(parse(result.value, leading: duplicates))
    }

    /// Parses an already-parsed document.
    package func parse(_ value: JSONValue) -> ParseOutcome {
        capped(parse(value, leading: []))
    }

    /// Every list of findings with at most `maximumDiagnosticsPerCode` of each code (`cappedPerCode`).
    private func capped(_ outcome: ParseOutcome) -> ParseOutcome {
        let limit = options.maximumDiagnosticsPerCode
        switch outcome {
        case .rejected(let diagnostics):
            return .rejected(diagnostics.cappedPerCode(limit))
        case .jobs(let jobs):
            // `cappedPerCode` keeps a list no longer than the limit as it is: most documents copy no job here.
            guard jobs.contains(where: { $0.diagnostics.count > limit }) else { return outcome }
            return .jobs(jobs.map { job in
                var job = job
                job.diagnostics = job.diagnostics.cappedPerCode(limit)
                return job
            })
        }
    }

    /// Which shape a document would be read as, without parsing it further; nil when it is not recognized.
    package func detectShape(_ root: JSONObject) -> InputShape? {
        options.forcedShape ?? ShapeRegistry.definitions.first { $0.recognizes(root) }?.shape
    }

    private func parse(_ value: JSONValue, leading: [Diagnostic]) -> ParseOutcome {
        guard case .object(let root) = value else {
            return .rejected(leading + [Diagnostic(.error, .notAnObject, "",
                                                   "the document is \(value.typeDescription); a payload must be a JSON object")])
        }
        if options.forcedShape == nil || options.forcedShape == .pushwoosh,
           case .object(let request)? = root["request"], let notifications = request["notifications"] {
            return parsePushwooshRequest(request, notifications: notifications, document: root, leading: leading)
        }
        var diagnostics = DiagnosticCollector()
        diagnostics.items = leading
        guard let shape = detectShape(root) else {
            diagnostics.reject(.unknownShape, "",
                               "no aps, FCM message, envelope, OneSignal, Pushwoosh or Pushfa keys found, so what this push means is unknown; add \"aps\", or force the shape with --shape")
            return .rejected(diagnostics.items)
        }
        let adapted = ShapeRegistry.definition(of: shape).adapt(root, options, &diagnostics)
        guard var adapted else { return .rejected(diagnostics.items) }
        adapted.androidImages += AndroidImageFields.images(in: root, shape: shape, base: "")
        guard var job = makeJob(adapted, shape: shape, diagnostics: &diagnostics), !diagnostics.rejects else {
            return .rejected(diagnostics.items)
        }
        job.document = value
        return .jobs([job])
    }

    private func parsePushwooshRequest(_ request: JSONObject, notifications: JSONValue, document: JSONObject,
                                       leading: [Diagnostic]) -> ParseOutcome {
        var shared = DiagnosticCollector()
        shared.items = leading
        guard case .array(let entries) = notifications else {
            shared.reject(.wrongType, "/request/notifications", "notifications must be an array of notification objects")
            return .rejected(shared.items)
        }
        guard !entries.isEmpty else {
            shared.reject(.emptyNotificationList, "/request/notifications", "the request has no notifications; add at least one")
            return .rejected(shared.items)
        }
        guard entries.count <= options.maximumNotificationsPerRequest else {
            shared.reject(.tooManyNotifications, "/request/notifications",
                          "the request has \(entries.count) notifications; at most \(options.maximumNotificationsPerRequest) are accepted in one request (--max-notifications), so split it")
            return .rejected(shared.items)
        }
        // Keys beside `request` and the request's own keys (`application`, ...) address every notification.
        var requestExtras = JSONObject()
        for (key, value) in document where key != "request" { requestExtras[key] = value }
        for (key, value) in request where InputKeyMapping.pushwooshRequest[key] == nil { requestExtras[key] = value }
        var jobs: [NotificationJob] = []
        var allDiagnostics = shared
        for (index, entry) in entries.enumerated() {
            let base = "/request/notifications/\(index)"
            var diagnostics = DiagnosticCollector()
            guard case .object(let notification) = entry else {
                allDiagnostics.reject(.wrongType, base, "each notification must be an object, found \(entry.typeDescription)")
                continue
            }
            var adapted = PushwooshAdapter(options: options).adapt(notification, at: base, diagnostics: &diagnostics)
            adapted.androidImages += AndroidImageFields.images(in: notification, shape: .pushwoosh, base: base)
            for (key, value) in requestExtras where adapted.target[key] == nil { adapted.target[key] = value }
            let job = makeJob(adapted, shape: .pushwoosh, diagnostics: &diagnostics)
            allDiagnostics.append(contentsOf: diagnostics)
            if var job, !diagnostics.rejects {
                job.document = .object(document)
                // Findings about the whole document go with the first result only: copied into every result, a
                // request's output grew with notifications times findings.
                if jobs.isEmpty { job.diagnostics = shared.items + job.diagnostics }
                jobs.append(job)
            }
        }
        return allDiagnostics.rejects ? .rejected(allDiagnostics.items) : .jobs(jobs)
    }

    /// Removes root links (`link_url`, `url`, `click_action`, `l`) whose scheme is denied or not allowed, whatever
    /// the shape: the app would open them. A value without a scheme is the app's own business and is left alone.
    private func removeDisallowedLinks(_ payload: inout JSONObject, diagnostics: inout DiagnosticCollector) {
        for key in PayloadOptions.rootLinkKeys {
            guard let link = payload[key]?.stringValue,
                  PayloadOptions.scheme(of: String(link.drop { $0.isWhitespace && !$0.isNewline })) != nil,
                  let problem = options.linkProblem(link) else { continue }
            payload.remove(key)
            diagnostics.add(.error, .linkSchemeNotAllowed, "/" + JSONPointer.escape(key), problem + "; the link was removed")
        }
    }

    /// Checks common to every shape, story validation and media discovery.
    private func makeJob(_ adapted: AdaptedNotification, shape: InputShape,
                         diagnostics: inout DiagnosticCollector) -> NotificationJob? {
        var payload = adapted.payload
        let apsValue = payload["aps"]
        if let apsValue, apsValue.objectValue == nil {
            diagnostics.reject(.wrongType, "/aps", "aps is \(apsValue.typeDescription); it must be an object")
            return nil
        }
        var headers = adapted.headers
        headers.sendTime = SendTime.read(from: adapted.target, base: adapted.inputPointer, diagnostics: &diagnostics)
        if let collapse = adapted.headers.collapseID, collapse.utf8.count > NotificationHeaders.maximumCollapseIDBytes {
            diagnostics.reject(.collapseIDTooLong, "/collapse_id",
                               "collapse id is \(collapse.utf8.count) bytes; APNs allows at most \(NotificationHeaders.maximumCollapseIDBytes)")
        }
        let story = StoryValidator(options: options).validate(&payload, diagnostics: &diagnostics)
        let isStory = story != nil
        removeDisallowedLinks(&payload, diagnostics: &diagnostics)
        let aps = payload["aps"]?.objectValue ?? JSONObject()
        // A badge or a sound is user-visible too: APNs sends them as alert pushes, and a background push would lose
        // them, so only content-available with none of the three is a background push.
        let isUserVisible = ["alert", "badge", "sound"].contains { aps[$0] != nil }
        let contentAvailable = aps["content-available"]?.isTruthy == true
        let isSilent: Bool
        switch adapted.explicitPushType {
        case .background?: isSilent = true
        case .voip?, .alert?: isSilent = adapted.explicitSilent
        case nil: isSilent = adapted.explicitSilent || (contentAvailable && !isUserVisible)
        }
        let pushType: PushType = adapted.explicitPushType == .voip ? .voip : (isSilent ? .background : .alert)
        let discovery = MediaDiscovery(options: options)
        var media: [MediaReference] = []
        if pushType == .alert {
            media = discovery.references(
                in: payload, story: story, attachmentVariant: adapted.variantName ?? VariantName.attachment, diagnostics: &diagnostics)
            for index in media.indices where adapted.sharedMediaPointers.contains(media[index].pointer) {
                media[index].platform = .all
            }
        }
        // Android shows its own fields whatever the APNs push type is.
        media += discovery.references(in: adapted.androidImages, diagnostics: &diagnostics)
        var job = NotificationJob(id: adapted.id, shape: shape, pushType: pushType, isSilent: isSilent,
                                  isStory: isStory && pushType == .alert, media: media, diagnostics: diagnostics.items,
                                  payload: payload, headers: headers, deviceToken: adapted.deviceToken,
                                  target: CredentialKeys.removingCredentials(from: adapted.target), story: story)
        job.requestMap = adapted.requestMap
        return job
    }
}
