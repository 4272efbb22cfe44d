/**
 * Every operation of the spec as a library call, on a real store: the domain services over the
 * store under test, one module per area under `domain/`. Together with the storage cases this is
 * the conformance suite.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import * as Canopy from "../Canopy.ts"
import type { Storage } from "../Storage.ts"
import * as Time from "../Time.ts"
import { boundaryHistoryCases } from "./domain/boundaryHistory.ts"
import { credentialsCases } from "./domain/credentials.ts"
import { JAN_1 } from "./domain/helpers.ts"
import { identityCases } from "./domain/identity.ts"
import { outboxCases } from "./domain/outbox.ts"
import { overlapsCases } from "./domain/overlaps.ts"
import { projectsCases } from "./domain/projects.ts"

/** Runs the domain cases against a store layer. */
export const domainSuite = (name: string, storageLayer: Layer.Layer<Storage, unknown>) => {
  // Domain time is a manual clock; the store keeps real time for its own timeouts.
  const clock = Time.manual(JAN_1)
  /** Moves domain time on, so that events written next sort after those written before. */
  const tick = clock.adjust(1000)
  const suiteLayer = Canopy.layer.pipe(Layer.provideMerge(storageLayer), Layer.provideMerge(Layer.succeed(Time.Time, clock.service)))
  layer(suiteLayer, { timeout: "120 seconds", excludeTestServices: true })(`${name}: domain operations`, (it) => {
    const clocked = { clock, tick }
    identityCases(it, clocked)
    projectsCases(it, clocked)
    overlapsCases(it, clocked)
    boundaryHistoryCases(it, clocked)
    credentialsCases(it, clocked)
    outboxCases(it, clocked)
  })
}
