import RichPushCore

/// One media URL found in a notification.
package struct MediaReference: Sendable, Hashable {
    package enum Role: Sendable, Hashable {
        case attachment
        case storyPage(index: Int)
        /// An image field only Android phones read (`AndroidImageFields`): `pointer` is into the sender's request,
        /// not the APNs payload, and the request gets the rendered URL there.
        case androidImage
    }

    /// RFC 6901 pointer to the URL: into the *output APNs payload* (before rendering drops anything) for an
    /// attachment or a story page, into the sender's request for an `androidImage`. A story page is numbered as the
    /// sender numbered it (`role` holds its index after invalid pages were dropped).
    package let pointer: String
    /// `pointer` as a table key (of `APNsRenderer.render`'s media map, for one): two references whose pointers
    /// differ only in Unicode normalization (keys of different bytes that Swift's `String ==` calls equal) are two.
    package var pointerKey: ExactString { ExactString(pointer) }
    /// The pointer's tokens, split once: the renderer and the sender request walk to the URL by them.
    package let tokens: [String]
    package var url: String
    package var role: Role
    /// "attachment", "story", "big_picture", "large_icon", or the variant the job named in its envelope (`variant`).
    package var variantName: String
    /// Which phones read the field.
    package var platform: MediaPlatform
    /// Why the URL cannot be fetched (`ftp:`, `data:`, relative, control characters, ...), or nil. Such a reference
    /// is never fetched: it fails with `media_url_invalid` and is removed from the device payload.
    package var invalidReason: String?

    /// A reference at `pointer`, which must be a valid pointer (one that starts with "/"; "" is the whole document).
    package init(pointer: String, url: String, role: Role, variantName: String, platform: MediaPlatform = .ios,
                invalidReason: String? = nil) {
        self.init(pointer: pointer, tokens: JSONPointer.tokens(pointer) ?? [], url: url, role: role,
                  variantName: variantName, platform: platform, invalidReason: invalidReason)
    }

    /// A reference at the pointer of `tokens`.
    package init(tokens: [String], url: String, role: Role, variantName: String, platform: MediaPlatform = .ios,
                invalidReason: String? = nil) {
        self.init(pointer: JSONPointer.make(tokens), tokens: tokens, url: url, role: role, variantName: variantName,
                  platform: platform, invalidReason: invalidReason)
    }

    private init(pointer: String, tokens: [String], url: String, role: Role, variantName: String,
                 platform: MediaPlatform, invalidReason: String?) {
        self.pointer = pointer
        self.tokens = tokens
        self.url = url
        self.role = role
        self.variantName = variantName
        self.platform = platform
        self.invalidReason = invalidReason
    }
}

/// The phones that read a media field of the sender's request.
package enum MediaPlatform: String, Sendable, Hashable, Codable {
    /// Only iPhones: the APNs payload's attachments and story pages.
    case ios
    /// Only Android phones (`message.android.notification.image`, OneSignal's `big_picture`, Pushwoosh's
    /// `android_banner`, ...): rendered as `big_picture` or `large_icon`.
    case android
    /// Every platform the request reaches (FCM's `message.notification.image`, a Pushfa `image_url` sent to iOS and
    /// Android): rendered as the attachment, which every one of them decodes.
    case all
}
