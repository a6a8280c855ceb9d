@testable import WardRecords

/// What the tests set a records file up with, on a connection of their own.
extension SQLiteConnection {
    /// `body` in a write transaction, as the store's own `write`.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try transaction(.immediate) { try body(self) }
    }

    func tableExists(_ name: String) throws -> Bool {
        try fetchOne("SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?)", [.text(name)])
            ?? false
    }
}
