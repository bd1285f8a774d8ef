import Glibc
import Synchronization

/// The controlling terminal for the conversation view: raw mode (termios) on the alternate screen, and
/// back to how it was on every way out. Plain ECMA-48/xterm sequences only (alternate screen 1049, cursor
/// 25, CUP, EL, SGR), which xterm, tmux, screen and the Linux console all know: no terminfo.
enum RawTerminal {
    /// The settings before raw mode; nil while the terminal is not raw.
    private static let saved = Mutex<termios?>(nil)

    /// Whether standard input and output are both a terminal.
    static var isTerminal: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Raw mode on standard input (no echo, no line editing, no signals from keys: Ctrl-C and Ctrl-Z come
    /// as bytes), the alternate screen, and a restore at exit as a last resort. False when the terminal
    /// refused.
    static func enter() -> Bool {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return false }
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        // Output processing stays on: "\n" still starts a line at its first column.
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        let first = self.saved.withLock { saved -> Bool in
            defer { saved = original }
            return saved == nil
        }
        if first { atexit { RawTerminal.restore() } }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else {
            self.restore()
            return false
        }
        _ = self.write("\u{1B}[?1049h\u{1B}[H\u{1B}[2J")
        return true
    }

    /// Leaves the alternate screen, shows the cursor, resets the styles and puts the terminal's settings
    /// back. Safe to call more than once and from any exit path; does nothing when the terminal is not raw.
    static func restore() {
        guard
            var original = self.saved.withLock({ saved -> termios? in
                defer { saved = nil }
                return saved
            })
        else { return }
        _ = self.write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &original)
    }

    /// The terminal's size (TIOCGWINSZ); 24×80 when it does not say.
    static func size() -> TalkView.Size {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 else {
            return TalkView.Size(rows: 24, columns: 80)
        }
        return TalkView.Size(rows: Int(window.ws_row), columns: Int(window.ws_col))
    }

    /// Draws `frame` in one write: each row from its first column with the rest of the line erased, then
    /// the cursor where the input is. False when the terminal is gone (the SSH session dropped).
    static func draw(_ frame: TalkView.Frame) -> Bool {
        var output = "\u{1B}[?25l"
        for (index, row) in frame.rows.enumerated() {
            output += "\u{1B}[\(index + 1);1H\u{1B}[0m\(row)\u{1B}[0m\u{1B}[K"
        }
        output += "\u{1B}[\(frame.cursorRow + 1);\(frame.cursorColumn + 1)H\u{1B}[?25h"
        return self.write(output)
    }

    /// Writes all of `text` to standard output; false when it cannot.
    static func write(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}

/// Reads standard input on a thread of its own (a blocking read must not hold one of Swift's cooperative
/// threads), handing each chunk to `chunks`; the stream ends at end of file, on an error (the terminal
/// hung up) or after ``stop()``.
final class TerminalInput: Sendable {
    let chunks: AsyncStream<[UInt8]>
    private let stopped = Atomic<Bool>(false)
    private let continuation: AsyncStream<[UInt8]>.Continuation

    init() {
        (self.chunks, self.continuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    /// Starts the reading thread.
    func start() {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(
            &thread,
            nil,
            { context in
                let input = Unmanaged<TerminalInput>.fromOpaque(context!).takeRetainedValue()
                input.read()
                return nil
            },
            context
        )
        if created == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<TerminalInput>.fromOpaque(context).release()
            self.continuation.finish()
        }
    }

    /// Ends the reading within a tenth of a second.
    func stop() { self.stopped.store(true, ordering: .relaxed) }

    private func read() {
        defer { self.continuation.finish() }
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !self.stopped.load(ordering: .relaxed) {
            var watched = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watched, 1, 100)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            guard ready > 0 else { continue }
            let count = Glibc.read(STDIN_FILENO, &buffer, buffer.count)
            if count > 0 {
                self.continuation.yield(Array(buffer[0..<count]))
            } else if count < 0, errno == EINTR || errno == EAGAIN {
                continue
            } else {
                return  // end of file, or the terminal is gone
            }
        }
    }
}
