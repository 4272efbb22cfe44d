/**
 * `GET /ready`: whether the database answers.
 */
import { Accounts, type CanopyClient } from "@canopy/core"
import { Effect, Exit } from "effect"
import { unavailable } from "./responses.ts"
import type { ApiRequest, ApiResponse } from "./types.ts"

/** How long the readiness probe waits for the database. */
export const READY_TIMEOUT_MS = 2_000

/**
 * `GET /ready`: 200 `{"status":"ready"}` when the database answers a trivial query within
 * `READY_TIMEOUT_MS` (migrations ran when the store opened, before the server listened); else the
 * 503 of an unavailable database. No authentication. `/health` stays liveness only.
 */
export const readinessRoute = (canopy: CanopyClient) => async (_req: ApiRequest, requestId: string): Promise<ApiResponse> => {
  // A plain race, so the answer never waits for the driver to cancel a statement a frozen server
  // will not answer (that ends within the store's own timeout).
  let timer: ReturnType<typeof setTimeout> | undefined
  const ok = await Promise.race([
    canopy.runExit(Effect.flatMap(Accounts, (a) => a.ping)).then(Exit.isSuccess),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS)
    })
  ]).finally(() => clearTimeout(timer))
  if (ok) return { status: 200, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" }, body: "{\"status\":\"ready\"}" }
  return unavailable(requestId, { "cache-control": "no-store" })
}
