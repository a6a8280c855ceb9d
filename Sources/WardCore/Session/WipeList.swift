/// Everything that holds the signed-on user's data, in the order a lock wipes it.
///
/// One list, walked in one place (`SessionDriver` on every lock), so that a new holder of data
/// cannot be forgotten: it registers here, or it is not part of the session. The driver
/// registers the shell first; each front end then registers what it holds (readline, the key
/// decoder, the typeahead, standard output's buffer), in the order readline's own wipe needs
/// (docs/readline.md §3: the line editor is taken away before its memory is wiped).
///
/// - Important: Not `Sendable`. It belongs to the loop's thread, like the driver.
public final class WipeList {
    private var holders: [(name: String, wipe: () -> Void)] = []

    public init() {}

    /// Adds `holder` at the end of the list.
    public func register(_ holder: any Wipeable, as name: String) {
        holders.append((name, { [unowned holder] in holder.wipe() }))
    }

    /// Adds a holder that is a value, not an object (a struct's buffer), by what wipes it.
    public func register(_ name: String, wipe: @escaping () -> Void) {
        holders.append((name, wipe))
    }

    /// The holders' names, in the order they are wiped.
    public var names: [String] { holders.map(\.name) }

    /// Wipes every holder, in the order they registered.
    public func wipeAll() {
        for holder in holders { holder.wipe() }
    }
}

@available(*, unavailable)
extension WipeList: Sendable {}
