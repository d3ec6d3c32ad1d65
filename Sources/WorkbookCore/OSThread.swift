import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An OS thread as the kernel knows it: its id and its name.
///
/// Read it with `OSThread.current()`, a synchronous function, also from async code: what a task
/// may not do is assume the thread stays the same across an `await`.
public struct OSThread: Sendable, Hashable, CustomStringConvertible {
    public let id: UInt64
    public let name: String

    public init(id: UInt64, name: String) {
        self.id = id
        self.name = name
    }

    /// `4711 legacy.callbac`, or the id alone for a thread without a name.
    public var description: String { name.isEmpty ? "\(id)" : "\(id) \(name)" }

    /// The calling thread. Linux: the kernel's thread id and its name (`/proc/thread-self/comm`,
    /// at most 15 characters); Apple platforms: `pthread_threadid_np` and `pthread_getname_np`.
    public static func current() -> OSThread {
        #if canImport(Glibc)
        let id = UInt64(KernelThread.current()?.tid ?? 0)
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
            .trimmingCharacters(in: .newlines) ?? ""
        return OSThread(id: id, name: name)
        #elseif canImport(Darwin)
        var id: UInt64 = 0
        pthread_threadid_np(nil, &id)
        var buffer = [CChar](repeating: 0, count: 64)
        pthread_getname_np(pthread_self(), &buffer, buffer.count)
        let name = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return OSThread(id: id, name: name)
        #else
        return OSThread(id: UInt64(ThreadIdentity.current), name: "")
        #endif
    }
}
