import Glibc

/// Writes whole lines straight to the file descriptors, unbuffered, so `monitor` output reaches a pipe
/// at once and stdout and stderr interleave in order.
public enum Terminal {
    public static func out(_ line: String) { self.write(line + "\n", to: STDOUT_FILENO) }

    public static func out(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        self.write(lines.joined(separator: "\n") + "\n", to: STDOUT_FILENO)
    }

    public static func error(_ line: String) { self.write(line + "\n", to: STDERR_FILENO) }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
