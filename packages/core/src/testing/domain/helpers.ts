/** Helpers the domain cases share. */
import type { Vitest } from "@effect/vitest"
import { Effect, Exit } from "effect"
import type * as Canopy from "../../Canopy.ts"
import type { Principal } from "../../Principal.ts"
import { Storage } from "../../Storage.ts"
import type * as Time from "../../Time.ts"

/** The test methods of the domain suite: every service, the store under test and the clock. */
export type DomainIt = Vitest.MethodsNonLive<Canopy.Services | Storage>

/** The suite's manual domain clock, and a step of it. */
export interface SuiteClock {
  readonly clock: ReturnType<typeof Time.manual>
  /** Moves domain time on, so that events written next sort after those written before. */
  readonly tick: Effect.Effect<void>
}

export const JAN_1 = Date.UTC(2026, 0, 1)

/** The tag of an expected failure (and the error, for further checks). */
export const failure = <A, E>(effect: Effect.Effect<A, E, never>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) return { tag: "(success)", error: undefined as unknown as E }
    const reason = exit.cause.reasons[0]
    return reason?._tag === "Fail"
      ? { tag: (reason.error as { _tag: string })._tag, error: reason.error }
      : { tag: `(${reason?._tag})`, error: undefined as unknown as E }
  })

/** Types of the events the account's outbox holds, oldest first. */
export const eventTypes = (accountId: string) =>
  Effect.gen(function*() {
    const s = yield* Storage
    const page = yield* s.outbox.listEvents(accountId, { limit: 100, offset: 0 })
    return page.rows.map((e) => e.type).reverse()
  })

export const eventsOf = (accountId: string, type: string) =>
  Effect.gen(function*() {
    const s = yield* Storage
    const page = yield* s.outbox.listEvents(accountId, { type, limit: 100, offset: 0 })
    return page.rows.map((e) => JSON.parse(e.payload) as { id: string; type: string; data: Record<string, unknown>; account: { id: string; name: string } })
  })

export const withPermissions = (p: Principal, permissions: Principal["permissions"]): Principal => ({ ...p, permissions })
