/// Runs `operation` on each element with at most `width` running at once, and hands each output to `onEach` on
/// the calling task, in completion order. `onEach` returns false to start no further elements (those running
/// still finish). Costs one child task per element started.
package func withBoundedConcurrency<Element: Sendable, Output: Sendable>(
    over elements: [Element], width: Int,
    _ operation: @escaping @Sendable (Element) async -> Output,
    onEach: (Element, Output) -> Bool = { _, _ in true }
) async {
    await withTaskGroup(of: (Element, Output).self) { group in
        var next = elements.startIndex
        var accepting = true
        func startNext() {
            guard accepting, next < elements.endIndex else { return }
            let element = elements[next]
            next += 1
            group.addTask { (element, await operation(element)) }
        }
        for _ in 0..<max(1, width) { startNext() }
        while let (element, output) = await group.next() {
            if !onEach(element, output) { accepting = false }
            startNext()
        }
    }
}
