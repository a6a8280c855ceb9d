import FoundationEssentials
import WardCore

/// A FHIR `date` without a time (`2020-05-13`), as the store keeps it: the first instant of that
/// day in UTC, in the same column as the instants of `dateTime`s.
///
/// Such a value names a day, not an instant: it is that civil day in every zone, where the
/// instant it is kept as falls on the day before west of Greenwich. The store keeps no mark of
/// which values were days, so a value at exactly midnight UTC is read as a day, which is also
/// what an export means by `T00:00:00Z` when it writes days as instants. An instant that truly
/// fell on midnight UTC to the second is then shown as that UTC day, without its time.
public enum RecordDay {
    /// The day (since 1970-01-01) `date` stands for when it is a day rather than an instant.
    public static func day(of date: Date) -> Int? {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds.rounded(.down) == seconds, abs(seconds) < 1e15 else { return nil }
        let whole = Int64(seconds)
        let (days, secondOfDay) = CivilDate.split(seconds: whole)
        return secondOfDay == 0 ? days : nil
    }
}
