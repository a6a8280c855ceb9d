/// How many patients a home holds, as the sign-on banner says it: counted, or estimated from
/// the database's statistics where counting would read a whole index at every sign-on.
public enum PatientCount: Equatable, Sendable {
    /// Exactly this many.
    case exactly(Int)
    /// Near this many: PostgreSQL's planner estimate, rounded so that it does not look exact.
    case about(Int)

    /// Rounds `estimate` to two significant digits: 1,234,567 reads as about 1,200,000, which is
    /// as much as a planner's estimate knows.
    public static func rounded(_ estimate: Int) -> PatientCount {
        var unit = 1
        while estimate / unit >= 100 { unit *= 10 }
        return .about((estimate + unit / 2) / unit * unit)
    }
}
