import Foundation
import Glibc

/// Makes a new private folder `/tmp/<prefix>-XXXXXX` (mode 0700) and returns its path.
public func makeTemporaryFolder(_ prefix: String) throws -> String {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    return String(cString: made)
}
