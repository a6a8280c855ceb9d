import WardCore

/// A runner that records what it ran: `fail…` fails, `lock` and `logout` ask for those.
package final class ScriptedRunner: CommandRunner {
    package private(set) var ran: [Line] = []
    package private(set) var answers: [String?] = []
    package var onRun: ((Line) -> Void)?
    package private(set) var wipes = 0
    package private(set) var signOns: [String] = []
    package var prompt: String { "ward> " }

    package init() {}

    package func run(_ line: Line) -> CommandResult {
        ran.append(line)
        onRun?(line)
        switch line.text {
        case let text where text.hasPrefix("fail"): return .failed
        case "lock": return .lock
        case "ask": return .ask("Why?")
        case "logout": return .signOff
        default: return .succeeded
        }
    }

    package func answer(_ text: String?) -> CommandResult {
        answers.append(text)
        return .failed
    }

    package func completions(for word: String, before: String) -> [String] { [] }
    package func signedOn(user: String, role: Role) { signOns.append(user) }
    package func wipe() { wipes += 1 }
}
