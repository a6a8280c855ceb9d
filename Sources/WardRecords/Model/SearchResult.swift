/// The answer to `find`: the best matches, best first, and how many matched in all.
///
/// `total` is counted up to a cap (`PatientSearch.countCap`) so that a one-letter search over a
/// million patients stays fast; `totalIsCapped` says the real number is larger.
public struct SearchResult: Sendable, Equatable {
    public var matches: [PatientMatch]
    public var total: Int
    public var totalIsCapped: Bool
    /// Nothing matched as typed; these are one letter away from what was typed.
    public var isClose = false

    public init(matches: [PatientMatch], total: Int, totalIsCapped: Bool) {
        self.matches = matches
        self.total = total
        self.totalIsCapped = totalIsCapped
    }

    public static let none = SearchResult(matches: [], total: 0, totalIsCapped: false)
}
