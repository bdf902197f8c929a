/// The names of the built-in image variants, which the payload layer assigns (a story page is rendered as `story`,
/// an Android image field as `big_picture` or `large_icon`, every other reference as `attachment` unless its job
/// names another) and the imaging layer defines.
package enum VariantName {
    package static let attachment = "attachment"
    package static let story = "story"
    /// An Android notification's expanded picture (`BigPictureStyle`).
    package static let bigPicture = "big_picture"
    /// An Android notification's large icon, shown collapsed beside the text.
    package static let largeIcon = "large_icon"
}
