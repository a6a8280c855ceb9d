import ArgumentParser
import AuditLog
import FoundationEssentials
import Glibc
import WardCore
import WardRecords

extension Ward {
    /// `ward demo`: a home of synthetic patients and a user demo/demo (clinician), to try Ward
    /// without real data.
    ///
    /// The home is marked as demo data (the shell shows a banner). Running it again on the same
    /// home with the same `--seed` and `--patients` reuses what is there, so `ward demo` is also
    /// how one comes back to the demo; a home with other records is refused, never overwritten.
    /// When the site's records are on PostgreSQL, the same holds of the shared database: the
    /// demo is loaded into it (`DemoGenerator.write(into:staging:)`), the marker is kept there,
    /// and a database holding other records is refused; the demo user is still the home's.
    ///
    /// Audited as an administrative command (`AdministrativeAudit`): a `demo` record, and a
    /// `user-add` record when it adds the demo user, before the shell starts.
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "demo",
            abstract: "Make a home of synthetic patients and a user demo/demo, then start the shell.",
            discussion: """
                The patients go into the home's records, or into the site's shared database when its \
                records are on PostgreSQL ([records] backend = "postgresql"), which must then hold no \
                other records. Run again with the same --seed and --patients, it uses the demo \
                records already there.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("How many synthetic patients to make.", valueName: "n"))
        var patients = DemoGenerator.defaultPatients

        @Option(help: ArgumentHelp("The random seed: the same seed makes the same patients.", valueName: "n"))
        var seed = DemoGenerator.defaultSeed

        @Flag(help: "Make the home and exit instead of starting the shell.")
        var noShell = false

        /// The demo user's name and password, as the man page and the banner tell them.
        static let userName = "demo"

        func validate() throws {
            guard (1...DemoGenerator.maximumPatients).contains(patients) else {
                throw ValidationError("--patients takes a number from 1 to \(DemoGenerator.maximumPatients).")
            }
        }

        /// Whether `run()` should go on into the shell: not with `--no-shell`, nor without a terminal.
        var startsShell: Bool { !noShell && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

        func run() throws {
            let home = try WardHome.open(option: global.home)
            let loader = try recordsBackend(global: global, home: home).demoLoader(staging: home)
            defer { loader.close() }
            let audit = try AdministrativeAudit.open(global: global, home: home)
            var reused = false
            try audit.recording(
                {
                    .demo(
                        patients: patients,
                        seed: seed,
                        reused: $0.map { _ in reused },
                        by: audit.unixUser,
                        status: $0
                    )
                },
                change: { reused = try makeRecords(with: loader) }
            )
            try makeUser(in: home, audit: audit)
            guard startsShell else { return }
            StandardError.write("Sign on as demo, password demo.\n")
            try ShellCommandLine(home: home.path, site: global.site, user: Self.userName).run()
        }

        /// Makes the records, or finds them made already: true then.
        private func makeRecords(with loader: DemoLoader) throws -> Bool {
            if try loader.marker() == DemoMarker(seed: seed, patients: patients) {
                StandardError.write("Using the demo records already \(loader.place).\n")
                return true
            }
            let making = ProgressLine(label: "Making \(patients) synthetic patients")
            var copying: ProgressLine?
            let load = {
                try loader.load(
                    DemoGenerator(seed: seed, patients: patients),
                    { done, total in
                        making.show(done, of: total)
                        // Copying follows on a line of its own.
                        if done == total, loader.server != nil { making.finish() }
                    },
                    { done, total in
                        if copying == nil { copying = ProgressLine(label: "Copying rows to \(loader.server ?? "")") }
                        copying?.show(done, of: total)
                    }
                )
            }
            if let staging = loader.stagingFile {
                try StagingFileRemoval.during(staging, load)
            } else {
                try load()
            }
            if loader.server == nil { making.finish() } else { copying?.finish() }
            return false
        }

        /// Adds the demo user where the site's users are: the home's file, or the site's database
        /// when the records are there (`StoreBackend.userDirectory`).
        private func makeUser(in home: WardHome, audit: AdministrativeAudit) throws {
            let credentials = try recordsBackend(global: global, home: home).userDirectory()
            guard try Ward.User.existing(Self.userName, in: credentials) == nil else { return }
            try audit.recording(.userAdd, target: Self.userName, role: .clinician) {
                try credentials.add(name: Self.userName, role: .clinician, password: Password("demo"))
            }
            StandardError.write("Added user demo (password demo, clinician).\n")
        }
    }
}

/// A progress line on stderr: rewritten in place on a terminal, a line every few seconds
/// otherwise (so a log of `ward demo` in CI shows it is alive without thousands of lines).
final class ProgressLine {
    private let label: String
    private let terminal = isatty(STDERR_FILENO) == 1
    private let start = Date()
    private var lastShown = Date.distantPast

    /// Back to the line's start and erase it: Ward's own control sequence, the only one here.
    private static let clear = "\r\u{1B}[K"

    init(label: String) {
        self.label = label
    }

    func show(_ done: Int, of total: Int, detail: String = "") {
        let now = Date()
        guard now.timeIntervalSince(lastShown) >= (terminal ? 0.2 : 5) || done == total else { return }
        lastShown = now
        let percent = total > 0 ? done * 100 / total : 100
        let line = "\(label): \(done)/\(total) (\(percent)%)\(detail.isEmpty ? "" : ", " + detail)"
        if terminal { StandardError.writeVerbatim(Self.clear) }
        StandardError.write(terminal ? line : line + "\n")
    }

    /// Clears the progress line on a terminal, so a message can be printed on a line of its own.
    func clearLine() {
        if terminal { StandardError.writeVerbatim(Self.clear) }
    }

    func finish() {
        let seconds = PrintfNumber.format("%.1f", Date().timeIntervalSince(start))
        StandardError.write(terminal ? " done in \(seconds) s.\n" : "\(label): done in \(seconds) s.\n")
    }
}
