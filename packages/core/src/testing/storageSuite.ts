/**
 * The storage contract's conformance cases: each point of `Storage.ts`'s documentation, checked
 * against a real store, one module per area under `storage/`. Every adapter runs this unchanged
 * (through `suite`).
 */
import { layer } from "@effect/vitest"
import type { Layer } from "effect"
import type { Storage } from "../Storage.ts"
import { boundaryHistoryCases } from "./storage/boundaryHistory.ts"
import { contractCases } from "./storage/contract.ts"
import { credentialsCases } from "./storage/credentials.ts"
import { identityCases } from "./storage/identity.ts"
import { importsCases } from "./storage/imports.ts"
import { meteringCases } from "./storage/metering.ts"
import { outboxCases } from "./storage/outbox.ts"
import { projectsCases } from "./storage/projects.ts"
import { spatialCases } from "./storage/spatial.ts"
import { zoomCellsCases } from "./storage/zoomCells.ts"

/** Registers the storage contract's cases for a store. */
export const storageSuite = (name: string, storageLayer: Layer.Layer<Storage, unknown>) =>
  layer(storageLayer, { timeout: "120 seconds" })(`${name}: storage contract`, (it) => {
    contractCases(it)
    projectsCases(it)
    spatialCases(it)
    zoomCellsCases(it)
    boundaryHistoryCases(it)
    identityCases(it)
    outboxCases(it)
    credentialsCases(it)
    meteringCases(it)
    importsCases(it)
  })
