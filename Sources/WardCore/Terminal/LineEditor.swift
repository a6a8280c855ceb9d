import CReadline
import Glibc

/// The editor readline's C callbacks reach. Readline is one set of process-wide globals, so there
/// is one bound editor; it lives on the loop's thread like everything that touches readline.
nonisolated(unsafe) private weak var boundEditor: LineEditor?

/// GNU readline in callback mode, fed only from Ward's own queue.
///
/// Readline never reads the terminal itself. The loop reads the bytes, the chain sees each key,
/// and only the keys that passed are queued here; readline pulls them through `rl_getc_function`
/// and asks `rl_input_available_hook` whether more are waiting (docs/readline.md §1: without the
/// hook readline `select()`s the real tty and reads an empty queue). So a lock can land between
/// two keys of a half-typed line, and no key reaches the line without passing the chain.
///
/// When a line is complete the handler is removed before readline would redraw the prompt, so a
/// command's output comes before the next prompt, and the session decides whether there is a next
/// prompt at all (it may lock instead). History lives in memory only; nothing is ever written to a
/// history file.
///
/// - Important: Not `Sendable`. Readline is not thread-safe; every call happens on the loop's
///   thread.
public final class LineEditor {
    /// What readline produced.
    public enum Completion: Equatable, Sendable {
        case line(String)
        /// Ctrl-D on an empty line.
        case endOfInput
    }

    /// Called after readline finished a line. The handler is removed by then: call `install()`
    /// to show the next prompt.
    public var onCompletion: (Completion) -> Void = { _ in }

    /// Candidates for Tab: the word being completed and the text of the line before it.
    public var completer: ((_ word: String, _ before: String) -> [String])?
    /// What a candidate stands for, shown beside it when Tab lists several (the patient an MRN
    /// names); nil shows it alone. Text from records: shown escaped.
    public var completionLabel: ((_ candidate: String) -> String?)?

    /// The prompt shown by the next `install()`.
    public var prompt = "ward> "

    /// Whether readline is between `install()` and a finished line: keys may be fed.
    public private(set) var isInstalled = false

    private var queue: [UInt8] = []
    private var head = 0
    /// The queue holds only plain text (`queueText`): readline may take it with redisplays held.
    private var queueIsText = true
    /// While set, readline's redisplays are noted, not done (`redisplayWanted`).
    private var redisplayHeld = false
    private var redisplayWanted = false
    private var completion: Completion?
    private var matches: [String] = []
    private var matchIndex = 0
    private var longestLine = 0
    /// Standard output's buffer, owned here so the wipe can zero it (readline echoes through it).
    private let stdoutBuffer = StdoutBuffer()

    public init() {
        boundEditor = self
        // Readline installs no signal handlers and leaves LINES/COLUMNS alone: signals belong to
        // the loop (docs/readline.md §2).
        ward_rl_configure(
            { _ in boundEditor?.nextByte() ?? EOF },
            { boundEditor?.hasQueuedInput == true ? 1 : 0 },
            { text, start, _ in
                ward_rl_completion_over()
                guard let editor = boundEditor, let text else { return nil }
                return editor.completions(for: text, start: Int(start))
            }
        )
        ward_rl_set_completion_display { matches, count, longest in
            boundEditor?.display(matches, count: Int(count), longest: longest)
        }
        rl_initialize()  // reads ~/.inputrc (or $INPUTRC) as readline always does
        // Readers that would block inside readline on input the queue does not have yet.
        rl_variable_bind("completion-query-items", "0")
        rl_variable_bind("page-completions", "off")
        using_history()
    }

    // MARK: Input

    /// Shows the prompt and lets readline take keys.
    public func install() {
        guard !isInstalled else { return }
        // The prompt quotes the current MRN, record text: shown, never sent, and without the
        // \001/\002 markers that would make readline miscount its width.
        rl_callback_handler_install(Sanitizer.line(prompt)) { line in boundEditor?.lineFinished(line) }
        isInstalled = true
    }

    /// Takes the prompt away without finishing the line (before a lock, a suspend, an exit).
    public func remove() {
        guard isInstalled else { return }
        rl_callback_handler_remove()
        isInstalled = false
    }

    /// Queues the bytes of one key press that passed the chain, and lets readline consume them.
    /// Text queued before it (`queueText`) is taken first, and shown.
    public func feed(_ bytes: [UInt8]) {
        if hasQueuedInput, queueIsText {
            drainText()
            showHeldRedisplay()
        }
        queue.append(contentsOf: bytes)
        queueIsText = false
        drain()
    }

    /// Queues a key press of plain text (printable, no control or escape byte) without letting
    /// readline take it yet; `drainText()` then takes a whole burst at once.
    ///
    /// Why: readline redraws the whole line after every `rl_callback_read_char`, and a key at a
    /// time made a 300 KB paste (one the terminal did not bracket) cost a redraw per character,
    /// O(n²): ~90 s. Taken together, self-insert reads every queued character in one
    /// call (docs/readline.md §1), and the redraw comes once, at the end of the burst.
    public func queueText(_ bytes: [UInt8]) {
        guard queueIsText || !hasQueuedInput else { return feed(bytes) }
        queue.append(contentsOf: bytes)
        queueIsText = true
    }

    /// Lets readline take the queued text with its redisplays held; `showHeldRedisplay()` (or
    /// the next `feed`) draws the line once. `moreComing`: more input is already waiting, so the
    /// redraw can wait for it too.
    public func drainText(moreComing: Bool = false) {
        guard queueIsText else { return drain() }
        redisplayHeld = true
        ward_rl_set_redisplay { boundEditor?.redisplayRequested() }
        while isInstalled, hasQueuedInput { rl_callback_read_char() }
        ward_rl_set_redisplay(nil)
        redisplayHeld = false
        if !hasQueuedInput { clearQueue() }
        if !moreComing { showHeldRedisplay() }
    }

    /// Lines shorter than this (bytes) are redrawn as soon as readline has taken what came;
    /// longer ones once the input pauses (`redrawPause`), since each redraw costs their length.
    public static let redrawsAtOnce = 16 * 1024
    /// How long input must pause before a long line's held redraw is shown.
    public static let redrawPause: Duration = .milliseconds(30)

    /// A redraw was held back and has not been shown yet.
    public var hasHeldRedisplay: Bool { redisplayWanted }

    /// Draws the line if a redisplay was held back.
    public func showHeldRedisplay() {
        guard redisplayWanted else { return }
        redisplayWanted = false
        if isInstalled { rl_redisplay() }
    }

    private func redisplayRequested() {
        if redisplayHeld {
            redisplayWanted = true
        } else {
            redisplayWanted = false
            rl_redisplay()
        }
    }

    /// The bytes of the line being edited, plus those queued for it: what a line limit counts.
    public var pendingLineLength: Int { (isInstalled ? Int(ward_rl_end()) : 0) + (queue.count - head) }

    /// Refuses the line being edited (too long): it is dropped and zeroed like Ctrl-C, with
    /// `message` on a line of its own and a fresh prompt; keys queued for it go too. Returns the
    /// line's first 64 bytes, as the refusal's record names its command (`refuseLongLine`).
    @discardableResult
    public func refuseLine(_ message: String) -> String {
        var start =
            isInstalled
            ? Array(UnsafeBufferPointer(start: ward_rl_line_buffer(), count: min(Int(ward_rl_end()), 64))) : []
        start += queue[head..<min(queue.count, head + 64 - start.count)].map { CChar(bitPattern: $0) }
        defer { explicit_bzero(&start, start.count) }
        clearQueue()
        redisplayWanted = false
        let text = String(decoding: start.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard isInstalled else {
            Terminal.write(message + "\n")
            return text
        }
        ward_rl_refuse_line(message)
        return text
    }

    /// Whether keys are queued that readline has not taken yet (typed ahead during a command).
    public var hasQueuedInput: Bool { head < queue.count }

    /// Lets readline consume the queue while a prompt is up; reports each finished line.
    public func drain() {
        while isInstalled, hasQueuedInput {
            rl_callback_read_char()
            if let finished = completion {
                completion = nil
                onCompletion(finished)
            }
        }
        if !hasQueuedInput { clearQueue() }
    }

    private func nextByte() -> Int32 {
        guard head < queue.count else { return EOF }
        let byte = queue[head]
        queue[head] = 0
        head += 1
        return Int32(byte)
    }

    private func lineFinished(_ line: UnsafeMutablePointer<CChar>?) {
        if let line {
            let length = strlen(line)
            longestLine = max(longestLine, length)
            if length > 0 { add_history(line) }
            completion = .line(String(cString: line))
            explicit_bzero(line, length)
            free(line)
        } else {
            completion = .endOfInput
        }
        // Removing the handler here keeps readline from printing the next prompt before the
        // command's output (callback.c redisplays only while a handler is installed).
        rl_callback_handler_remove()
        isInstalled = false
    }

    /// Throws away keys typed ahead (before a lock); returns how many lines they held.
    public func discardQueuedInput() -> Int {
        let lines = queue[head...].filter { $0 == 0x0A || $0 == 0x0D }.count
        clearQueue()
        return lines
    }

    private func clearQueue() {
        queue.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
        queue.removeAll(keepingCapacity: false)
        head = 0
        queueIsText = true
    }

    // MARK: Screen

    /// Ctrl-C: abandons the line being typed and shows a fresh prompt, as bash does.
    public func cancelLine() {
        guard isInstalled else { return }
        ward_rl_cancel_line()
    }

    /// Prints a line above the prompt and redraws the prompt and the line being typed below it.
    /// A plugin wrote `text`: its controls are shown, never sent (`Sanitizer`).
    ///
    /// `prefix` and `suffix` are Ward's own sequences (a colour, the bell: `TerminalStyle`),
    /// written as they are around the sanitized text; never pass anything read from data.
    public func printAbove(_ text: String, prefix: String = "", suffix: String = "") {
        let text = prefix + Sanitizer.text(text) + suffix
        if isInstalled {
            rl_clear_visible_line()
            Terminal.write(text + "\r\n")
            rl_forced_update_display()
        } else {
            Terminal.write(text + "\n")
        }
    }

    /// The window changed size: readline re-wraps the line.
    public func resize() {
        if isInstalled { rl_resize_terminal() } else { rl_reset_screen_size() }
    }

    /// Before the process stops (Ctrl-Z): hands the terminal back.
    public func prepareForStop() {
        if isInstalled { rl_deprep_terminal() }
    }

    /// After `fg`: takes the terminal again and redraws the line as it was.
    ///
    /// Deprep first: prep does nothing while readline believes it is still prepped, which it
    /// does after an uncaught SIGSTOP (docs/readline.md §2).
    public func resumeAfterStop() {
        guard isInstalled else { return }
        rl_deprep_terminal()
        rl_prep_terminal(1)
        rl_resize_terminal()
        rl_forced_update_display()
    }

    // MARK: Wipe

    /// Forgets everything typed: the line, its undo list, the kill ring, the history, the saved
    /// line, both search strings, readline's display buffers, Ward's queue and stdout's buffer.
    ///
    /// Readline has no API for several of these; `ward_rl_wipe` follows the order checked in
    /// docs/readline.md §3. What it frees is zeroed by the scrubbing `free` in the executable.
    /// The screen shows a line of junk for a moment; the caller clears the screen next.
    public func wipe() {
        clearQueue()
        let wasInstalled = isInstalled
        if !wasInstalled {
            rl_callback_handler_install("") { line in boundEditor?.lineFinished(line) }
            isInstalled = true
        }
        ward_rl_wipe(longestLine + 64) { bytes in
            guard let bytes else { return }
            boundEditor?.feedDuringWipe(bytes)
        }
        completion = nil
        longestLine = 0
        // The prompt names the current chart's MRN: a core image after the lock showed it here.
        // The front end sets the next prompt before it installs the editor again.
        prompt = ""
        if !wasInstalled { remove() }
        clearQueue()
        stdoutBuffer.wipe()
    }

    private func feedDuringWipe(_ bytes: UnsafePointer<CChar>) {
        queue.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: strlen(bytes)))
        while isInstalled, hasQueuedInput { rl_callback_read_char() }
        clearQueue()
    }

    // MARK: Completion

    private func completions(
        for text: UnsafePointer<CChar>,
        start: Int
    ) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        let word = String(cString: text)
        let before = String(decoding: UnsafeRawBufferPointer(start: ward_rl_line_buffer(), count: start), as: UTF8.self)
        matches = completer?(word, before) ?? []
        matchIndex = 0
        guard !matches.isEmpty else { return nil }
        return rl_completion_matches(text) { _, _ in boundEditor?.nextMatch() }
    }

    /// Tab's list of several candidates: one a line with its label when any has one (an MRN
    /// means nothing to a reader without the patient's name), else readline's own columns.
    private func display(
        _ matches: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        count: Int,
        longest: Int32
    ) {
        guard let matches, count > 0 else { return }
        let candidates = (1...count).compactMap { matches[$0].map { String(cString: $0) } }
        let labels = candidates.map { completionLabel?($0) }
        guard labels.contains(where: { $0 != nil }) else {
            rl_display_match_list(matches, Int32(count), longest)
            rl_forced_update_display()
            return
        }
        let width = candidates.map { DisplayWidth.of(Sanitizer.line($0)) }.max() ?? 0
        var text = "\n"
        for (candidate, label) in zip(candidates, labels) {
            let shown = Sanitizer.line(candidate)
            text += shown
            if let label {
                text += String(repeating: " ", count: width - DisplayWidth.of(shown) + 2) + Sanitizer.line(label)
            }
            text += "\n"
        }
        ward_rl_print(text)
        rl_forced_update_display()
    }

    private func nextMatch() -> UnsafeMutablePointer<CChar>? {
        guard matchIndex < matches.count else {
            matches.removeAll()
            return nil
        }
        defer { matchIndex += 1 }
        return strdup(matches[matchIndex])
    }
}

@available(*, unavailable)
extension LineEditor: Sendable {}
