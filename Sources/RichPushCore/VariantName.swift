/// The names of the built-in image variants, which the payload layer assigns (a story page is rendered as `story`,
/// an Android image field as `big_picture` or `large_icon`, every other reference as `attachment` unless its job
/// names another) and the imaging layer defines.
public enum VariantName {
    public static let attachment = "attachment"
    public static let story = "story"
    /// An Android notification's expanded picture (`BigPictureStyle`).
    public static let bigPicture = "big_picture"
    /// An Android notification's large icon, shown collapsed beside the text.
    public static let largeIcon = "large_icon"
}
