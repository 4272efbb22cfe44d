/**
 * The work of a `/v1` request once routed: authenticate → meter (rate limit + usage) → authorise
 * → decode → claim the idempotency key → the domain call.
 */
import { Accounts, type Canopy, Credentials, Errors, Idempotency, Overlap, Principal, type RateLimit } from "@canopy/core"
import { Effect, Scheduler } from "effect"
import type { Route } from "../api/routes.ts"
import { writeRefusal } from "../observability/storage.ts"
import { ClaimedKey, claimKey, type KeyClaim } from "./idempotency.ts"
import { BadRequest, decodeQuery, LARGE_BODY_BYTES, parseBody } from "./input.ts"
import type { ApiRequest } from "./types.ts"

/** What the pipeline learned before it finished or failed: for the log line and the rate-limit headers. */
export interface Seen {
  accountId?: string
  decision?: RateLimit.Decision
  idempotency?: KeyClaim
}

/**
 * Authenticate → meter (rate limit + usage) → authorise → decode → the domain call. Defined once:
 * a generator closure made per request measurably costs more.
 */
export const pipeline: (
  route: Route,
  params: Record<string, string>,
  bearer: string,
  req: ApiRequest,
  seen: Seen,
  onMeteringRefused: ((operation: string, reason: string) => void) | undefined
) => Effect.Effect<unknown, unknown, Canopy.Runtime> = Effect.fnUntraced(function*(
  route: Route,
  params: Record<string, string>,
  bearer: string,
  req: ApiRequest,
  seen: Seen,
  onMeteringRefused: ((operation: string, reason: string) => void) | undefined
) {
  // A write's overlap comparisons stop a fixed time after the request began (its body's
  // validation included), so that it is answered in about 2 s whatever its boundary. (A file
  // route starts it again once its file is read: `writeAfterRead`, api/importFile.ts.)
  const began = Date.now()
  const principal = yield* (yield* Credentials).authenticate(bearer, { ip: req.ip })
  seen.accountId = principal.account_id
  // A database that refuses writes (full disk, read-only) cannot meter: a read goes on unmetered
  // (no rate-limit headers); a write stops here with the StorageError, answered 503.
  const decision = yield* Effect.catchIf((yield* Accounts).meterRequest(principal.account_id), (e) => writeRefusal(e) !== undefined, (e) => {
    onMeteringRefused?.("meter", writeRefusal(e)!)
    return route.method === "GET" ? Effect.succeed(undefined) : Effect.fail(e)
  })
  if (decision) seen.decision = decision
  if (decision && !decision.allowed) {
    return yield* new Errors.RateLimited({ message: `Rate limit exceeded: retry after ${decision.retryAfter} s`, retryAfter: decision.retryAfter })
  }
  // The core's check (one rule, one message), before the query and body are looked at: a
  // credential that may not perform the operation learns nothing about its input.
  yield* Principal.authorize(principal, route.operation)
  const idem = seen.idempotency
  const keyProblem = idem && Idempotency.checkKey(idem.key)
  if (keyProblem) {
    return yield* Effect.fail(new BadRequest(`The Idempotency-Key header ${keyProblem}`, [{ field: "idempotency-key", message: keyProblem }]))
  }
  const query = yield* decodeQuery(route, req.query)
  // (Read before the body is parsed: a geometry worker may take the body's memory.)
  const large = (req.body?.length ?? 0) >= LARGE_BODY_BYTES
  const body = yield* parseBody(route, req)
  // The key is claimed once the request is known to be well formed: from here on, what the request
  // answers (below 500, but 429) is its key's response.
  if (idem) yield* claimKey(principal.account_id, idem)
  const run = route.run({ principal, params, query, body }).pipe(
    Effect.provideService(Overlap.WriteStarted, began),
    Effect.provideService(ClaimedKey, idem?.token ? idem : undefined)
  )
  // A large body's work (a 100,000-position boundary's decode, overlap search, rows and events)
  // gives the loop a turn more often than the default (every 2,048 operations), so that other
  // requests are answered in between.
  return yield* (large ? Effect.provideService(run, Scheduler.MaxOpsBeforeYield, LARGE_BODY_OPS_BEFORE_YIELD) : run)
})

/** Effect operations a large body's request runs between turns of the event loop. */
const LARGE_BODY_OPS_BEFORE_YIELD = 64
