import AttendantCookies
import Testing

@testable import AttendantCore

/// The RFC 6265 subset the host keeps for each channel, without a network: the time is a parameter.
@Suite struct CookieJarTests {
    let site = CookieJar.Target(url: "https://chat.example.com/app/login?next=1")!

    func header(_ jar: CookieJar, _ url: String, now: Double = 1000) -> String? {
        jar.header(for: CookieJar.Target(url: url)!, now: now)
    }

    @Test func targets() throws {
        #expect(self.site.host == "chat.example.com" && self.site.path == "/app/login" && self.site.secure)
        let bare = try #require(CookieJar.Target(url: "ws://User@[::1]:8080"))
        #expect(bare.host == "::1" && bare.path == "/" && !bare.secure)
        #expect(CookieJar.Target(url: "ftp://example.com/") == nil)
        #expect(CookieJar.Target(url: "example.com/x") == nil)
    }

    @Test func hostOnlyAndDomainCookies() {
        var jar = CookieJar()
        jar.store("a=1", from: self.site, now: 1000)
        jar.store("b=2; Domain=.Example.com; Path=/", from: self.site, now: 1000)
        // Not a domain the host is in, and a bare public suffix: refused.
        jar.store("c=3; Domain=other.com", from: self.site, now: 1000)
        jar.store("d=4; Domain=com", from: self.site, now: 1000)
        #expect(self.header(jar, "https://chat.example.com/app/x") == "a=1; b=2")
        #expect(self.header(jar, "https://www.example.com/app/x") == "b=2")
        #expect(self.header(jar, "https://example.com/") == "b=2")
        #expect(self.header(jar, "https://example.org/") == nil)
        #expect(jar.cookies.count == 2)
    }

    /// The default path is the request's directory; a path matches at "/" boundaries only.
    @Test func paths() {
        var jar = CookieJar()
        jar.store("a=1", from: self.site, now: 1000)
        jar.store("b=2; Path=/app/login", from: self.site, now: 1000)
        #expect(self.header(jar, "https://chat.example.com/app") == "a=1")
        #expect(self.header(jar, "https://chat.example.com/app/login/step") == "b=2; a=1")
        #expect(self.header(jar, "https://chat.example.com/apple") == nil)
        #expect(CookieJar.defaultPath("/") == "/" && CookieJar.defaultPath("/x") == "/" && CookieJar.defaultPath("/a/b/c") == "/a/b")
    }

    @Test func expiryAndReplacement() {
        var jar = CookieJar()
        jar.store("a=1; Max-Age=60", from: self.site, now: 1000)
        jar.store("b=1; Expires=Thu, 01 Jan 1970 00:20:00 GMT", from: self.site, now: 1000)
        // Max-Age wins over Expires.
        jar.store("c=1; Expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=600", from: self.site, now: 1000)
        #expect(self.header(jar, "https://chat.example.com/app/", now: 1059) == "a=1; b=1; c=1")
        #expect(self.header(jar, "https://chat.example.com/app/", now: 1060) == "b=1; c=1")
        #expect(self.header(jar, "https://chat.example.com/app/", now: 1200) == "c=1")
        jar.store("c=2", from: self.site, now: 1000)
        #expect(self.header(jar, "https://chat.example.com/app/", now: 5000) == "c=2")
        jar.store("c=3; Max-Age=0", from: self.site, now: 1000)
        #expect(self.header(jar, "https://chat.example.com/app/", now: 1000) == "a=1; b=1")
    }

    @Test func secureCookiesStayOffPlainConnections() {
        var jar = CookieJar()
        jar.store("s=1; Secure", from: self.site, now: 0)
        #expect(self.header(jar, "https://chat.example.com/app/") == "s=1")
        #expect(self.header(jar, "wss://chat.example.com/app/") == "s=1")
        #expect(self.header(jar, "http://chat.example.com/app/") == nil)
    }

    @Test func datesAndNonsense() {
        #expect(CookieJar.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(CookieJar.httpDate("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(CookieJar.httpDate("Wed, 29 Feb 2040 00:00:00 GMT") == 2_214_086_400)
        #expect(CookieJar.httpDate("soon") == nil)
        var jar = CookieJar()
        for header in ["", "=x", "novalue", ";;", "a=1; Max-Age=ten", "b=2; Expires=later"] {
            jar.store(header, from: self.site, now: 0)
        }
        // The last two keep their cookie; the bad attribute is ignored (a session cookie).
        #expect(self.header(jar, "https://chat.example.com/app/") == "a=1; b=2")
    }
}
