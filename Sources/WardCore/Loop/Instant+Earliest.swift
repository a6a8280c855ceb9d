import WardPluginAPI

extension Optional where Wrapped == Instant {
    /// The earlier of two deadlines, either of which may be absent.
    ///
    /// The loop asks for its next deadline before every wait, so at least once a key: writing
    /// this as `[a, b, c].compactMap { $0 }.min()` allocated three arrays per key (the driver's,
    /// the front end's and the session machine's).
    func earliest(_ other: Instant?) -> Instant? {
        guard let self else { return other }
        guard let other else { return self }
        return Swift.min(self, other)
    }
}
