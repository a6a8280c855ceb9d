/// A path and one more component, as `NSString.appendingPathComponent` joins them: one `/`
/// between, none added after a trailing `/`, and an empty side leaves the other as it is.
/// Only the full Foundation has `NSString`, and linking that pulls ICU's data into the binary.
public enum PathJoin {
    public static func appending(_ component: String, to path: String) -> String {
        if component.isEmpty { return path }
        if path.isEmpty { return component }
        return path.hasSuffix("/") ? path + component : path + "/" + component
    }
}
