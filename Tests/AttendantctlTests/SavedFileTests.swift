import AttendantControl
import Foundation
import TestSupport
import Testing

@testable import AttendantCLI

/// `chat save`'s file names and folder, and `chat send --file`'s types: what a sender's name may not do.
@Suite struct SavedFileTests {
    @Test func aSendersNameStaysInItsFolderAndShowsAsGiven() {
        #expect(SavedFile.safeName("invoice.pdf") == "invoice.pdf")
        #expect(SavedFile.safeName("../../.ssh/authorized_keys") == "authorized_keys")
        #expect(SavedFile.safeName("..\\..\\Windows\\evil.exe") == "evil.exe")
        #expect(SavedFile.safeName(".bashrc") == "bashrc", "no hidden file")
        #expect(SavedFile.safeName("..") == "attachment")
        #expect(SavedFile.safeName("a/") == "a")
        #expect(SavedFile.safeName("") == "attachment")
        #expect(SavedFile.safeName("re\u{1B}[31mport\n.txt") == "re[31mport.txt", "no control characters reach the terminal or the name")
        #expect(SavedFile.safeName("  Quarterly report  .pdf ") == "Quarterly report  .pdf")
        let long = String(repeating: "é", count: 150) + ".pdf"
        let cut = SavedFile.safeName(long)
        #expect(cut.utf8.count <= SavedFile.longestName && cut.hasSuffix(".pdf") && cut.hasPrefix("éé"))
    }

    @Test func aTakenNameGetsTheFirstFreeNumber() {
        let taken: Set = ["photo.jpg", "photo (1).jpg", "notes"]
        #expect(SavedFile.freeName("photo.jpg") { taken.contains($0) } == "photo (2).jpg")
        #expect(SavedFile.freeName("notes") { taken.contains($0) } == "notes (1)")
        #expect(SavedFile.freeName("new.txt") { taken.contains($0) } == "new.txt")
    }

    @Test func theDownloadFolderIsXDGsThenDownloads() throws {
        let home = try makeTemporaryFolder("attendant-home")
        #expect(SavedFile.downloadFolder(environment: ["HOME": home]) == home + "/Downloads")
        try FileManager.default.createDirectory(atPath: home + "/.config", withIntermediateDirectories: true)
        try "# written by xdg-user-dirs-update\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_DOWNLOAD_DIR=\"$HOME/Téléchargements\"\n"
            .write(toFile: home + "/.config/user-dirs.dirs", atomically: true, encoding: .utf8)
        #expect(SavedFile.downloadFolder(environment: ["HOME": home]) == home + "/Téléchargements")
        // A folder xdg-user-dirs disabled points at $HOME itself: not a download folder.
        try "XDG_DOWNLOAD_DIR=\"$HOME/\"\n".write(toFile: home + "/.config/user-dirs.dirs", atomically: true, encoding: .utf8)
        #expect(SavedFile.downloadFolder(environment: ["HOME": home]) == home + "/Downloads")
    }

    @Test func aFolderIsMadeWithItsParentsAndAFileInTheWayIsNamed() throws {
        let root = try makeTemporaryFolder("attendant-save")
        let (path, descriptor) = try SavedFile.create(in: root + "/inbox/2026/november", name: "invoice.pdf")
        close(descriptor)
        #expect(path == root + "/inbox/2026/november/invoice.pdf")
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.createFile(atPath: root + "/plain", contents: Data("x".utf8)))
        do {
            _ = try SavedFile.create(in: root + "/plain/below", name: "a.txt")
            Issue.record("a file where a folder should be was not reported")
        } catch {
            #expect(error.message.contains(root + "/plain"), "the error names the part in the way: \(error.message)")
            #expect(error.message.contains("Not a directory"), "\(error.message)")
        }
    }

    @Test func aFilesTypeComesFromItsExtension() {
        #expect(SavedFile.mimeType(forName: "scan.PDF") == "application/pdf")
        #expect(SavedFile.mimeType(forName: "photo.jpeg") == "image/jpeg")
        #expect(SavedFile.mimeType(forName: "README") == "application/octet-stream")
        #expect(SavedFile.mimeType(forName: "archive.tar.unknown") == "application/octet-stream")
    }
}
