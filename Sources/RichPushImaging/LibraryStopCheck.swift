import CRichPushImage

/// Lets a long C library call (libjpeg's progress monitor, libpng's reads of compressed data) ask whether its
/// render should stop, so a decode stops within milliseconds of its deadline or its caller's cancellation even
/// inside one library call. Costs one clock read and one atomic load per question.
final class LibraryStopCheck {
    let budget: WorkBudget

    init(_ budget: WorkBudget) {
        self.budget = budget
    }

    /// The C callback; its context is `context`.
    static let callback: richpush_stop_check = { context in
        guard let context else { return 0 }
        let check = Unmanaged<LibraryStopCheck>.fromOpaque(context).takeUnretainedValue()
        do throws(ImageError) { try check.budget.check() } catch { return 1 }
        return 0
    }

    /// Valid while this object lives: keep it alive (`withExtendedLifetime`) for as long as the decoder.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The error for a library call that returned -2: whichever of cancellation or the deadline stopped it.
    var stopReason: ImageError {
        do throws(ImageError) { try budget.check() } catch { return error }
        return .deadlineExceeded
    }
}
