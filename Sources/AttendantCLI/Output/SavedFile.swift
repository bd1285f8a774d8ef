import AttendantControl
import Foundation
import Glibc

/// Where a received file goes, under what name: the sender's name is not a path to trust.
enum SavedFile {
    /// The longest name kept, in UTF-8 bytes (file systems take 255).
    static let longestName = 200

    /// `name` as a file name that stays in its folder and shows as given: no folders (`/` or `\`), no
    /// control characters, no leading dots (no `..`, no hidden file), at most ``longestName`` bytes with
    /// its extension kept; "attachment" when nothing is left.
    static func safeName(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var cleaned = String(String.UnicodeScalarView(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        cleaned = cleaned.trimmingCharacters(in: .whitespaces)
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        cleaned = cleaned.trimmingCharacters(in: .whitespaces)
        guard !cleaned.isEmpty else { return "attachment" }
        guard cleaned.utf8.count > Self.longestName else { return cleaned }
        let dot = cleaned.lastIndex(of: ".")
        let ext = dot.map { String(cleaned[$0...]) }.flatMap { $0.utf8.count <= 16 ? $0 : nil } ?? ""
        var stem = ext.isEmpty ? cleaned : String(cleaned[..<dot!])
        while stem.utf8.count + ext.utf8.count > Self.longestName { stem.removeLast() }
        return stem + ext
    }

    /// `name`, or `name (1).ext`, `name (2).ext` … : the first that `exists` says is free.
    static func freeName(_ name: String, exists: (String) -> Bool) -> String {
        guard exists(name) else { return name }
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let ext = dot.map { String(name[$0...]) } ?? ""
        for number in 1... {
            let candidate = "\(stem) (\(number))\(ext)"
            if !exists(candidate) { return candidate }
        }
        return name
    }

    /// Receives a file into a new file for `name` in `folder` (made if missing): `write` fills it through
    /// its descriptor, which is closed afterwards. It is the first free variant of the name (``freeName(_:exists:)``)
    /// and never a file that exists; when `write` fails, nothing half-written is left.
    static func receive<Written>(
        into folder: String,
        name: String,
        _ write: (Int32) async throws(ControlClientError) -> Written
    ) async throws(ControlClientError) -> (path: String, written: Written) {
        let (path, descriptor) = try Self.create(in: folder, name: name)
        do throws(ControlClientError) {
            let written = try await write(descriptor)
            close(descriptor)
            return (path, written)
        } catch {
            close(descriptor)
            unlink(path)
            throw error
        }
    }

    /// A new file `name` (or the first free variant) in `folder`, made if missing; never one that exists.
    static func create(in folder: String, name: String) throws(ControlClientError) -> (String, Int32) {
        try Self.makeFolder(folder)
        for _ in 0..<100 {
            let free = Self.freeName(name) { access(folder + "/" + $0, F_OK) == 0 }
            let path = folder + "/" + free
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor >= 0 { return (path, descriptor) }
            // Taken meanwhile: the next free name.
            guard errno == EEXIST else {
                throw ControlClientError(code: .local, message: "cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
        throw ControlClientError(code: .local, message: "cannot find a free name for \(name) in \(folder)")
    }

    /// Makes `folder` and the folders above it that are missing, as `mkdir -p` does; the error names the
    /// part that could not be made (a file in the way, a folder without write permission).
    static func makeFolder(_ folder: String) throws(ControlClientError) {
        var info = stat()
        if stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return }
        var path = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o755) == 0 || errno == EEXIST && stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR {
                continue
            }
            let reason = errno == EEXIST ? String(cString: strerror(ENOTDIR)) : String(cString: strerror(errno))
            throw ControlClientError(code: .local, message: "cannot make the folder \(folder): \(path): \(reason)")
        }
    }

    /// The file at `path` opened to send, with its name (the path's last part); the caller closes it.
    static func openToSend(_ path: String) throws(ControlClientError) -> (name: String, descriptor: Int32) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ControlClientError(code: .local, message: "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        return (String(path.split(separator: "/").last ?? Substring(path)), descriptor)
    }

    /// The XDG download folder: `XDG_DOWNLOAD_DIR` of `user-dirs.dirs` (xdg-user-dirs), else ~/Downloads.
    static func downloadFolder(environment: [String: String]) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        if let text = try? String(contentsOfFile: config + "/user-dirs.dirs", encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("XDG_DOWNLOAD_DIR=") {
                var value = line.dropFirst("XDG_DOWNLOAD_DIR=".count).trimmingCharacters(in: .whitespaces)
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                value = value.replacingOccurrences(of: "$HOME", with: home)
                // xdg-user-dirs writes "$HOME/" for a folder it disabled: that is no download folder.
                if value.hasPrefix("/"), value != home, value != home + "/" { return value }
            }
        }
        return home + "/Downloads"
    }

    /// A MIME type for a file to send, from its extension; `application/octet-stream` when unknown.
    static func mimeType(forName name: String) -> String {
        let ext = name.split(separator: ".").count > 1 ? name.split(separator: ".").last!.lowercased() : ""
        return Self.types[ext] ?? "application/octet-stream"
    }

    static let types: [String: String] = [
        "pdf": "application/pdf", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "heic": "image/heic", "txt": "text/plain", "csv": "text/csv", "json": "application/json",
        "zip": "application/zip", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "mp4": "video/mp4", "mov": "video/quicktime", "mp3": "audio/mpeg",
    ]
}
