import Foundation

/// Unbuffered writes to standard output and error, one `write` per call, so lines from
/// several threads never tear and never wait in a buffer behind a prompt.
public enum Console {
    public static func line(_ text: String) { write(text + "\n", to: .standardOutput) }
    public static func error(_ text: String) { write(text + "\n", to: .standardError) }
    /// Text without a newline (a prompt).
    public static func prompt(_ text: String) { write(text, to: .standardOutput) }

    private static func write(_ text: String, to handle: FileHandle) {
        fflush(nil)  // keep order with anything written through C stdio (e.g. a test library)
        handle.write(Data(text.utf8))
    }
}
