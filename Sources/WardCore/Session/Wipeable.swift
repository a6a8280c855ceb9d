/// Something that holds data loaded for the signed-on user and must forget it on lock.
///
/// Loaded charts, query caches and the store's page cache register with the session; a lock
/// calls `wipe()` on each before the lock screen shows. After `wipe()` the object holds no
/// patient data in memory: overwrite what you own, release the rest (the scrubbing `free` zeroes
/// released heap blocks).
public protocol Wipeable: AnyObject {
    /// Clears and releases everything loaded. Must not fail and must not do I/O that can block.
    func wipe()
}
