import ExerciseKit
import Foundation
import Synchronization

// SharedTokenStore answers with one mistake each, written the way a learner might, plus correct
// answers in other styles.

/// The store of these answers: an actor with the current token.
actor VariantTokenStore {
    private let server: AuthServer
    private var token: Token
    init(server: AuthServer) { (self.server, token) = (server, server.firstToken) }
    func current() -> Token { token }
    func refresh() async {
        let fresh = await server.refreshToken()
        if fresh.version > token.version { token = fresh }
    }
}

/// What these answers' stores offer, whatever isolates them.
protocol TokenStoring: Sendable {
    init(server: AuthServer)
    func current() async -> Token
    func refresh() async
}

extension VariantTokenStore: TokenStoring {}

/// A client that reads the store at each request.
struct StoreClient<Store: TokenStoring>: APIClientProtocol {
    let tab: Int
    let server: AuthServer
    let store: Store
    func send(_ path: String) async -> String { await server.send(path, tab: tab, token: await store.current()) }
    func refreshToken() async { await store.refresh() }
}

/// An app that makes one store, with itself, and hands it to every client.
struct OneStoreApp<Store: TokenStoring>: TokenAppProtocol {
    let server: AuthServer
    let store: Store
    init(server: AuthServer) { (self.server, store) = (server, Store(server: server)) }
    func makeClient(tab: Int) -> any APIClientProtocol { StoreClient(tab: tab, server: server, store: store) }
}

/// The starting code: a store per tab.
struct StorePerTab: TokenAppProtocol {
    let server: AuthServer
    init(server: AuthServer) { self.server = server }
    func makeClient(tab: Int) -> any APIClientProtocol { StoreClient(tab: tab, server: server, store: VariantTokenStore(server: server)) }
}

/// One store kept in a global, made by the first app: the next app's tabs use a token its server
/// never issued.
private let globalStore = Mutex<VariantTokenStore?>(nil)

struct GlobalStore: TokenAppProtocol {
    let server: AuthServer
    init(server: AuthServer) { self.server = server }
    func makeClient(tab: Int) -> any APIClientProtocol {
        let store = globalStore.withLock { stored in
            if let stored { return stored }
            let made = VariantTokenStore(server: server)
            stored = made
            return made
        }
        return StoreClient(tab: tab, server: server, store: store)
    }
}

/// A client's own copy of a token.
final class TokenCache: Sendable {
    let token = Mutex<Token?>(nil)
}

/// Each client keeps the first token it read: another tab's refresh never reaches it.
struct CachesFirstToken: TokenAppProtocol {
    struct Client: APIClientProtocol {
        let tab: Int
        let server: AuthServer
        let store: VariantTokenStore
        let cached = TokenCache()
        func send(_ path: String) async -> String {
            var token = cached.token.withLock { $0 }
            if token == nil {
                let current = await store.current()
                cached.token.withLock { $0 = current }
                token = current
            }
            return await server.send(path, tab: tab, token: token!)
        }
        func refreshToken() async {
            await store.refresh()
            let current = await store.current()
            cached.token.withLock { $0 = current }
        }
    }
    let server: AuthServer
    let store: VariantTokenStore
    init(server: AuthServer) { (self.server, store) = (server, VariantTokenStore(server: server)) }
    func makeClient(tab: Int) -> any APIClientProtocol { Client(tab: tab, server: server, store: store) }
}

/// `refreshToken()` starts the refresh in a `Task {}` and returns at once.
struct RefreshInTask: TokenAppProtocol {
    struct Client: APIClientProtocol {
        let tab: Int
        let server: AuthServer
        let store: VariantTokenStore
        func send(_ path: String) async -> String { await server.send(path, tab: tab, token: await store.current()) }
        func refreshToken() async { Task { await store.refresh() } }
    }
    let server: AuthServer
    let store: VariantTokenStore
    init(server: AuthServer) { (self.server, store) = (server, VariantTokenStore(server: server)) }
    func makeClient(tab: Int) -> any APIClientProtocol { Client(tab: tab, server: server, store: store) }
}

/// A store per tab, and a refresh that tells the other tabs' stores from a `Task.detached`: they
/// hear of it later.
struct TellsOthersLater: TokenAppProtocol {
    actor TabStore {
        var token: Token
        init(_ token: Token) { self.token = token }
        func set(_ newer: Token) { if newer.version > token.version { token = newer } }
    }
    final class Stores: Sendable { let list = Mutex<[TabStore]>([]) }
    let server: AuthServer
    let stores = Stores()
    init(server: AuthServer) { self.server = server }
    func makeClient(tab: Int) -> any APIClientProtocol {
        let store = TabStore(server.firstToken)
        stores.list.withLock { $0.append(store) }
        return ForwardingClient(tab: tab, server: server, mine: store, stores: stores)
    }
    struct ForwardingClient: APIClientProtocol {
        let tab: Int
        let server: AuthServer
        let mine: TabStore
        let stores: Stores
        func send(_ path: String) async -> String { await server.send(path, tab: tab, token: await mine.token) }
        func refreshToken() async {
            let fresh = await server.refreshToken()
            await mine.set(fresh)
            let others = stores.list.withLock { $0 }
            Task.detached { for store in others { await store.set(fresh) } }
        }
    }
}

/// A class store without a lock, promised `@unchecked Sendable`: the refresh writes the token
/// while another tab reads it.
final class UnlockedTokenStore: @unchecked Sendable {
    private let server: AuthServer
    var token: Token
    init(server: AuthServer) { (self.server, token) = (server, server.firstToken) }
    func refresh() async {
        let fresh = await server.refreshToken()
        if fresh.version > token.version { token = fresh }
    }
}

/// The app's one store, which stores whatever token its refresh got back: when two refreshes
/// overlap and the older token comes back last, it replaces the newer one.
actor KeepsLastTokenStore: TokenStoring {
    private let server: AuthServer
    private var token: Token
    init(server: AuthServer) { (self.server, token) = (server, server.firstToken) }
    func current() -> Token { token }
    func refresh() async { token = await server.refreshToken() }
}

/// One store for the app, but the one above.
typealias KeepsLastToken = OneStoreApp<KeepsLastTokenStore>

struct UnlockedStoreApp: TokenAppProtocol {
    struct Client: APIClientProtocol {
        let tab: Int
        let server: AuthServer
        let store: UnlockedTokenStore
        func send(_ path: String) async -> String { await server.send(path, tab: tab, token: store.token) }
        func refreshToken() async { await store.refresh() }
    }
    let server: AuthServer
    let store: UnlockedTokenStore
    init(server: AuthServer) { (self.server, store) = (server, UnlockedTokenStore(server: server)) }
    func makeClient(tab: Int) -> any APIClientProtocol { Client(tab: tab, server: server, store: store) }
}

/// A correct answer: a final class app that owns the one store.
final class OwnsOneStore: TokenAppProtocol {
    let server: AuthServer
    let store: VariantTokenStore
    init(server: AuthServer) { (self.server, store) = (server, VariantTokenStore(server: server)) }
    func makeClient(tab: Int) -> any APIClientProtocol { StoreClient(tab: tab, server: server, store: store) }
}

/// A global actor for everything about tokens (the story's first try, used as meant): the one
/// store of each app is isolated to it.
@globalActor actor TokenActor {
    static let shared = TokenActor()
}

/// A correct answer: the app's one store isolated to a global actor instead of being an actor.
/// The app's one store, isolated to a global actor instead of being an actor.
@TokenActor final class GlobalActorTokenStore: TokenStoring {
    private let server: AuthServer
    private var token: Token
    nonisolated init(server: AuthServer) { (self.server, token) = (server, server.firstToken) }
    func current() -> Token { token }
    func refresh() async {
        let fresh = await server.refreshToken()
        if fresh.version > token.version { token = fresh }
    }
}

/// A correct answer: the app's one store isolated to a global actor.
typealias GlobalActorStore = OneStoreApp<GlobalActorTokenStore>

/// One store per tab, kept in a dictionary so a tab gets its own store back: still one per tab.
final class StorePerTabKept: TokenAppProtocol {
    let server: AuthServer
    let stores = Mutex<[Int: VariantTokenStore]>([:])
    init(server: AuthServer) { self.server = server }
    func makeClient(tab: Int) -> any APIClientProtocol {
        let store = stores.withLock { stores in
            if let kept = stores[tab] { return kept }
            let made = VariantTokenStore(server: server)
            stores[tab] = made
            return made
        }
        return StoreClient(tab: tab, server: server, store: store)
    }
}

/// A refresh makes a new store and puts it in the app: clients made before keep the old one.
final class NewStoreOnRefresh: TokenAppProtocol {
    actor Store {
        let token: Token
        init(_ token: Token) { self.token = token }
    }
    struct Client: APIClientProtocol {
        let tab: Int
        let app: NewStoreOnRefresh
        let store: Store
        func send(_ path: String) async -> String { await app.server.send(path, tab: tab, token: store.token) }
        func refreshToken() async {
            let fresh = await app.server.refreshToken()
            app.current.withLock { $0 = Store(fresh) }
        }
    }
    let server: AuthServer
    let current: Mutex<Store>
    init(server: AuthServer) {
        self.server = server
        current = Mutex(Store(server.firstToken))
    }
    func makeClient(tab: Int) -> any APIClientProtocol { Client(tab: tab, app: self, store: current.withLock { $0 }) }
}

/// A correct answer: the app's one store lets a refresh asked for while another is in flight join
/// it — one trip to the server for both.
actor JoinsRefreshStore: TokenStoring {
    private let server: AuthServer
    private var token: Token
    private var inFlight: Task<Token, Never>?
    init(server: AuthServer) { (self.server, token) = (server, server.firstToken) }
    func current() -> Token { token }
    func refresh() async {
        if let inFlight {
            keep(await inFlight.value)
            return
        }
        let refresh = Task { await server.refreshToken() }
        inFlight = refresh
        keep(await refresh.value)
        inFlight = nil
    }
    /// Every caller stores what it waited for before it returns: the one that started the
    /// refresh may resume after the ones that joined it.
    private func keep(_ fresh: Token) {
        if fresh.version > token.version { token = fresh }
    }
}

typealias JoinsRefreshInFlight = OneStoreApp<JoinsRefreshStore>
