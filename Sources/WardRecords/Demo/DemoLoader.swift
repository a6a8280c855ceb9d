/// `ward demo`'s load into one backend (`StoreBackend.demoLoader`): what the command needs to
/// say where the demo goes, find a demo already there, and write one, without naming the
/// backend.
public struct DemoLoader {
    /// Where the records are, as a message ends: `in /home/ward`, `on db.example.org:5432`.
    public let place: String
    /// The server rows are copied to after the patients are made; nil when they are written
    /// in place (the home's file), with no second step.
    public let server: String?
    /// The staging file the load writes and removes; nil when it writes none. A signal that
    /// ends the process mid-load leaves it unless the caller removes it.
    public let stagingFile: String?
    /// The marker of the demo the records hold; nil when they hold none (or nothing).
    public let marker: () throws -> DemoMarker?
    /// Writes `generator`'s demo; `making(done, total)` counts patients made, `copying(done,
    /// total)` rows sent to `server`.
    public let load: (DemoGenerator, _ making: (Int, Int) -> Void, _ copying: (Int, Int) -> Void) throws -> Void
    /// Closes the connection the loader holds, if any.
    public let close: () -> Void
}
