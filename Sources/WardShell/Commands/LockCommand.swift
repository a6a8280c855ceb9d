import ArgumentParser
import WardCore

/// `lock`: for stepping away. Everything loaded is wiped and the screen cleared at once, without
/// waiting for the idle timer.
struct LockCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock", abstract: "Lock now: wipe what is loaded and clear the screen.")

    func run(in shell: Shell) throws -> CommandResult { .lock }
}
