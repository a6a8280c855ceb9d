/// Reading a log for `ward audit show`: its records, and how many lines were not records.
public enum AuditLogFile {
    /// The records of the file at `path`, in file order, with the raw line of each.
    public static func read(
        path: String
    ) throws(AuditError) -> (
        records: [(record: AuditRecord, line: ArraySlice<UInt8>)], unreadable: Int
    ) {
        let bytes = try AuditVerifier.readFile(path)
        var records: [(record: AuditRecord, line: ArraySlice<UInt8>)] = []
        var unreadable = 0
        for item in AuditVerifier.split(bytes) {
            if let r = item.record { records.append((r, item.bytes)) } else { unreadable += 1 }
        }
        return (records, unreadable)
    }
}
