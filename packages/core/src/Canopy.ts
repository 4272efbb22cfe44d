/**
 * Composition: `Canopy.layer` wires every domain service over a `Storage`; `createCanopy` is the
 * Promise facade for applications that do not use Effect. Errors come out as `CanopyError`
 * subclasses whose `code` is the spec's error code.
 */
import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect"
import * as Errors from "./Errors.ts"
import { GeometryCheck, type GeometryCheckShape } from "./GeometryCheck.ts"
import * as MemoryStorage from "./MemoryStorage.ts"
import type * as Plans from "./Plans.ts"
import type { Principal } from "./Principal.ts"
import { Settings, type SettingsShape, defaults as defaultSettings } from "./Settings.ts"
import { type CredentialRow, type Storage, StorageError } from "./Storage.ts"
import { Accounts, type BillingEvent } from "./services/Accounts.ts"
import { Assets } from "./services/Assets.ts"
import { BoundaryHistory } from "./services/BoundaryHistory.ts"
import { Credentials, type RequestOrigin } from "./services/Credentials.ts"
import { Deliveries, Sender } from "./services/Deliveries.ts"
import { IdempotencyKeys } from "./services/IdempotencyKeys.ts"
import { Imports } from "./services/Imports.ts"
import { Members } from "./services/Members.ts"
import { OAuthServer } from "./services/OAuthServer.ts"
import { Sessions } from "./services/Sessions.ts"
import { ProjectOverlaps } from "./services/ProjectOverlaps.ts"
import { Projects } from "./services/Projects.ts"
import { Webhooks } from "./services/Webhooks.ts"
import * as RawJson from "./RawJson.ts"
import * as WebhookSender from "./WebhookSender.ts"

/** Every domain service. */
export type Services = Projects | BoundaryHistory | ProjectOverlaps | Assets | Members | Accounts | Webhooks | Credentials | Deliveries | OAuthServer | Sessions
  | IdempotencyKeys | Imports

/**
 * What `run` provides: the domain services. The storage under them is the core's own business:
 * adapters supply it (`StorageProvider`), and nothing outside the core reads or writes it.
 */
export type Runtime = Services

/** Every domain service, given a Storage and a Sender. */
export const layerWithSender: Layer.Layer<Services, never, Storage | Sender> = Layer.mergeAll(BoundaryHistory.layer.pipe(Layer.provide(Projects.layer)),
  Projects.layer, ProjectOverlaps.layer, Assets.layer, Webhooks.layer, Accounts.layer, Deliveries.layer, OAuthServer.layer, Sessions.layer,
  IdempotencyKeys.layer, Imports.layer.pipe(Layer.provide(Projects.layer))).pipe(Layer.provideMerge(Layer.merge(Credentials.layer, Members.layer)))

/** Every domain service, given a Storage; webhooks are sent by `WebhookSender` (resolved addresses checked). */
export const layer: Layer.Layer<Services, never, Storage> = layerWithSender.pipe(Layer.provide(WebhookSender.layer()))

/** A storage for `createCanopy`: what an adapter factory returns. */
export interface StorageProvider {
  readonly layer: Layer.Layer<Storage, unknown>
}

/** An in-memory store: for trying Canopy and for tests; nothing survives the process. */
export const memoryStorage = (): StorageProvider => ({ layer: MemoryStorage.layer })

/** Options of `createCanopy`. */
export interface CreateCanopyOptions {
  readonly storage: StorageProvider
  readonly settings?: Partial<SettingsShape>
  /**
   * How webhooks are sent; default: `WebhookSender`, which checks the URL and every address its
   * host name resolves to, and connects only to a checked one (the server passes its own, on undici).
   */
  readonly sender?: Sender["Service"]
  /** How the default sender resolves webhook host names; default: the system's (`dns.lookup`). */
  readonly webhookLookup?: WebhookSender.Lookup
  /**
   * How project boundaries are validated and measured; default: inline, on the caller's fiber.
   * The server passes a worker-thread pool with a time budget (`@canopy/server`).
   */
  readonly geometryCheck?: GeometryCheckShape
}

/** The Promise API's errors: classes of `Errors` (one table there), re-exported here. */
export { CanopyError, ConflictError, ForbiddenError, InternalError, NotFoundError, RateLimitedError, toCanopyError, UnauthorizedError,
  ValidationFailedError } from "./Errors.ts"

/** A service method as the facade offers it: a Promise of its answer, boundaries as GeoJSON values (`RawJson.Materialized`). */
type P<S> = S extends (...args: infer A) => Effect.Effect<infer R, infer _E, infer _R> ? (...args: A) => Promise<RawJson.Materialized<R>> : never

/** The Promise facade. */
export interface Canopy {
  readonly projects: { readonly [K in keyof Projects["Service"]]: P<Projects["Service"][K]> }
  readonly assets: { readonly [K in keyof Assets["Service"]]: P<Assets["Service"][K]> }
  readonly members: { readonly [K in keyof Members["Service"]]: P<Members["Service"][K]> }
  /**
   * A project's boundary versions (`GET /v1/projects/{id}/boundary/versions` and below): `list`
   * newest first without their boundaries, `get` one with its boundary, `restore` one as a
   * boundary update that becomes a version of its own; answers the project.
   */
  readonly boundaryHistory: { readonly [K in keyof BoundaryHistory["Service"]]: P<BoundaryHistory["Service"][K]> }
  /** The projects sharing area with a project, in name order (`GET /v1/projects/{id}/overlaps`). */
  readonly overlaps: { readonly list: P<ProjectOverlaps["Service"]["list"]> }
  /**
   * Bulk imports of features already read (the server reads files off its event loop first):
   * `start` checks the plan's limits and answers the job at once, creating the projects in the
   * background; `get` its progress and per-feature results; `cancel` stops it.
   */
  readonly imports: {
    readonly start: P<Imports["Service"]["start"]>
    readonly get: P<Imports["Service"]["get"]>
    readonly cancel: P<Imports["Service"]["cancel"]>
  }
  readonly webhooks: { readonly [K in keyof Webhooks["Service"]]: P<Webhooks["Service"][K]> }
  readonly oauth: {
    readonly register: P<OAuthServer["Service"]["register"]>
    readonly list: P<OAuthServer["Service"]["list"]>
    readonly rotateSecret: P<OAuthServer["Service"]["rotateSecret"]>
    readonly remove: P<OAuthServer["Service"]["remove"]>
    readonly update: P<OAuthServer["Service"]["update"]>
  }
  readonly deliveries: {
    readonly test: P<Deliveries["Service"]["test"]>
    readonly redeliver: P<Deliveries["Service"]["redeliver"]>
    readonly listEvents: P<Deliveries["Service"]["listEvents"]>
  }
  readonly account: {
    readonly get: P<Accounts["Service"]["get"]>
    readonly update: P<Accounts["Service"]["update"]>
    readonly usage: P<Accounts["Service"]["usage"]>
    readonly setPlan: (accountId: string, plan: Plans.Plan) => Promise<import("./Schemas.ts").Account>
    readonly billingEvent: (accountId: string, type: BillingEvent, data: Readonly<Record<string, unknown>>) => Promise<void>
  }
  readonly credentials: {
    readonly create: (principal: Principal, kind: CredentialRow["kind"], input: unknown) => ReturnType<P<Credentials["Service"]["create"]>>
    readonly list: P<Credentials["Service"]["list"]>
    readonly revoke: P<Credentials["Service"]["revoke"]>
  }
  /** Creates an account, its owner and an admin API key (shown once). */
  readonly bootstrap: P<Accounts["Service"]["bootstrap"]>
  /** The principal behind a presented bearer token. */
  readonly authenticate: (token: string, origin?: RequestOrigin) => Promise<Principal>
  /** A principal acting as an active member of an account. */
  readonly asMember: (accountId: string, userId: string) => Promise<Principal>
  /** Runs any Effect against Canopy's services (for Effect users and the server). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, Runtime>) => Promise<A>
  /** Runs an Effect and answers its Exit, failures included, without throwing. */
  readonly runExit: <A, E>(effect: Effect.Effect<A, E, Runtime>) => Promise<Exit.Exit<A, E>>
  /** The settings in force. */
  readonly settings: SettingsShape
  /** Releases the storage (closes the database). */
  readonly close: () => Promise<void>
}

/** Starts Canopy over a storage: `await createCanopy({ storage: sqliteStorage({ filename }) })`. */
export const createCanopy = async (options: CreateCanopyOptions): Promise<Canopy> => {
  const settings: SettingsShape = { ...defaultSettings, ...options.settings }
  const runtime = ManagedRuntime.make(
    // Settings is merged into the runtime: services read it when they run, not when they are built.
    layerWithSender.pipe(
      Layer.provideMerge(options.storage.layer),
      Layer.provideMerge(options.sender ? Layer.succeed(Sender, options.sender)
        : WebhookSender.layer(options.webhookLookup ? { lookup: options.webhookLookup } : {})),
      Layer.provideMerge(Layer.succeed(Settings, settings)),
      // Like Settings, read when a service runs; absent, the reference's inline check applies.
      Layer.provideMerge(options.geometryCheck ? Layer.succeed(GeometryCheck, options.geometryCheck) : Layer.empty)
    )
  )
  const run = async <A, E>(effect: Effect.Effect<A, E, Runtime>): Promise<A> => {
    const exit = await runtime.runPromiseExit(effect)
    if (Exit.isSuccess(exit)) return exit.value
    const found = Cause.findErrorOption(exit.cause)
    if (found._tag === "Some" && Errors.isDomainError(found.value)) throw Errors.toCanopyError(found.value)
    // Not the caller's doing: the database (a `StorageError`: unreachable, locked, full) or a defect.
    // Its cause travels as the error's `cause`, for the host's logs; the message stays generic.
    const cause = Cause.squash(exit.cause)
    const storage = found._tag === "Some" && found.value instanceof StorageError
    throw new Errors.InternalError("INTERNAL_ERROR", storage ? "the database is unavailable; retry later" : "an unexpected error occurred", [], { cause })
  }
  const use = <S, A, E>(tag: Effect.Effect<S, never, Runtime>, f: (service: S) => Effect.Effect<A, E>) => run(Effect.flatMap(tag, f))
  // A project's boundary travels inside the services as its JSON text (RawJson); the Promise API
  // answers plain values.
  const wrap = <S extends object>(tag: Effect.Effect<S, never, Runtime>, methods: ReadonlyArray<keyof S>) =>
    Object.fromEntries(
      methods.map((m) => [m, (...args: Array<unknown>) =>
        use(tag, (s) =>
          (s[m] as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args)).then(RawJson.materialize)]
      )
    ) as never

  // The storage opens (and migrates) now, so that a bad filename fails createCanopy itself.
  await runtime.runPromise(Effect.void.pipe(Effect.andThen(Accounts))).catch((cause: unknown) => {
    throw new Errors.InternalError("INTERNAL_ERROR", `storage could not be opened: ${cause instanceof Error ? cause.message : String(cause)}`, [], { cause })
  })

  return {
    projects: wrap(Projects, ["create", "list", "get", "update", "archive", "restore", "delete", "zoomCells"]),
    assets: wrap(Assets, ["list", "get", "create", "update", "delete"]),
    members: wrap(Members, ["list", "invite", "accept", "update", "remove", "passwordLink", "principalFor"]),
    boundaryHistory: wrap(BoundaryHistory, ["list", "get", "restore"]),
    overlaps: wrap(ProjectOverlaps, ["list"]),
    imports: wrap(Imports, ["start", "get", "cancel"]),
    webhooks: wrap(Webhooks, ["create", "list", "get", "update", "delete", "logs"]),
    deliveries: wrap(Deliveries, ["test", "redeliver", "listEvents"]),
    oauth: wrap(OAuthServer, ["register", "list", "rotateSecret", "remove", "update"]),
    account: wrap(Accounts, ["get", "update", "usage", "setPlan", "billingEvent"]),
    credentials: wrap(Credentials, ["create", "list", "revoke"]),
    bootstrap: (input) => use(Accounts, (a) => a.bootstrap(input)),
    authenticate: (token, origin) => use(Credentials, (c) => c.authenticate(token, origin)),
    asMember: (accountId, userId) => use(Members, (m) => m.principalFor(accountId, userId)),
    run,
    // A storage that failed to open would fail here too; callers treat unknown failures as internal.
    runExit: <A, E>(effect: Effect.Effect<A, E, Runtime>) => runtime.runPromiseExit(effect) as Promise<Exit.Exit<A, E>>,
    settings,
    close: () => runtime.dispose()
  }
}
