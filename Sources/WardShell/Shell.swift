import ArgumentParser
import WardCore

/// The records shell: turns a line into a command and runs it.
///
/// Output goes to standard output through stdio, whose buffer the lock zeroes.
public final class Shell: CommandRunner {
    /// Every command, in the order `help` lists them.
    public static let commands: [any ShellCommand.Type] = [
        HelpCommand.self,
        WhoamiCommand.self,
        LockCommand.self,
        LogoutCommand.self,
    ]

    /// Who is signed on; nil while nobody is.
    public private(set) var user: String?
    /// Their role (`clinician`, `clerk`, `auditor`).
    public private(set) var role: String?

    public init() {}

    public func signedOn(user: String, role: String) {
        self.user = user
        self.role = role
    }

    public func wipe() {}

    public var prompt: String { "ward> " }

    public func run(_ line: Line) -> CommandResult {
        let words: [String]
        do {
            words = try ShellWords.split(line.text)
        } catch {
            report("\(error)")
            return .failed
        }
        guard let name = words.first else { return .succeeded }
        guard let type = Self.command(named: name) else {
            report("unknown command '\(name)'. Type 'help' for the list.")
            return .failed
        }
        do {
            guard var command = try type.parse(Array(words.dropFirst())) as? any ShellCommand else {
                return .failed
            }
            return try command.run(in: self)
        } catch let error as ShellError {
            report(error.message)
            return .failed
        } catch {
            let message = type.fullMessage(for: error)
            let isHelp = type.exitCode(for: error) == .success
            if isHelp {
                write(message)
                return .succeeded
            }
            report(message)
            return .failed
        }
    }

    /// The command called `name`, or one of its aliases.
    public static func command(named name: String) -> (any ShellCommand.Type)? {
        commands.first {
            $0.configuration.commandName == name || $0.configuration.aliases.contains(name)
        }
    }

    public func completions(for word: String, before: String) -> [String] {
        let previous = (try? ShellWords.split(before)) ?? []
        let names = Self.commands.compactMap { $0.configuration.commandName }
        let candidates: [String]
        switch previous.first {
        case nil: candidates = names
        case "help": candidates = previous.count == 1 ? names : []
        default: candidates = []
        }
        return candidates.filter { $0.hasPrefix(word) }.sorted()
    }

    /// Prints a line of output.
    public func write(_ text: String) {
        print(text)
    }

    /// Prints a failure, prefixed as every Ward error is.
    public func report(_ message: String) {
        print("ward: \(message)")
    }
}

@available(*, unavailable)
extension Shell: Sendable {}
