/// Something that holds data loaded for the signed-on user, or typed by them, and must forget
/// it on lock.
///
/// Holders register with the session's `WipeList` when the session is put together: the shell
/// (loaded charts, caches, the store's page cache), readline, the key decoder, the typeahead,
/// standard output's buffer. A lock walks the list, in order, before the lock screen shows.
/// After `wipe()` the object holds no patient data in memory: overwrite what you own, release
/// the rest (the scrubbing `free` zeroes released heap blocks).
public protocol Wipeable: AnyObject {
    /// Clears and releases everything loaded. Must not fail and must not do I/O that can block.
    func wipe()
}
