/// What the plugins asked of the session while one event passed the chain, in the order they
/// asked: the one place every `PluginContext` of a chain writes to, and the chain empties.
///
/// Shared rather than one list per context so that an event nobody asks anything of (nearly
/// every key) costs one check at the end of its way, not one call per plugin.
package final class RequestQueue {
    /// Unchecked: written by the contexts and read by the chain, only on the loop's thread,
    /// never while another access is open; the dynamic checks would sit on every key's path.
    @exclusivity(unchecked) private var requests: [ChainRequest] = []

    package init() {}

    package func append(_ request: ChainRequest) { requests.append(request) }

    /// Everything asked since the last call, in order; empty, without allocating, when nothing was.
    package func take() -> [ChainRequest] {
        guard !requests.isEmpty else { return [] }
        defer { requests = [] }
        return requests
    }
}

@available(*, unavailable)
extension RequestQueue: Sendable {}
