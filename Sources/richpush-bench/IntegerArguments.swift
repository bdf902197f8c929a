/// The `--name N` pairs of a benchmark's command line.
enum IntegerArguments {
    /// Each option's value by name, or nil when an argument is not a `--name N` pair with a name in `known` and an
    /// integer value (the caller then prints its usage).
    static func parse(_ arguments: [String], known: Set<String>) -> [String: Int]? {
        var values: [String: Int] = [:]
        var index = 0
        while index < arguments.count {
            guard known.contains(arguments[index]), index + 1 < arguments.count,
                let value = Int(arguments[index + 1])
            else { return nil }
            values[arguments[index]] = value
            index += 2
        }
        return values
    }

    /// Removes `--name N` from `arguments` (the rest are files) and returns N, or `fallback` when it is absent;
    /// nil when its value is missing or not a positive integer (the caller then prints its usage).
    static func take(_ name: String, from arguments: inout [String], fallback: Int) -> Int? {
        guard let index = arguments.firstIndex(of: name) else { return fallback }
        guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value > 0 else { return nil }
        arguments.removeSubrange(index...(index + 1))
        return value
    }
}
