/**
 * `@canopy/core/testing`: the conformance suite every storage adapter runs unchanged, and the
 * fixtures it uses.
 *
 * ```ts
 * import { suite } from "@canopy/core/testing"
 * suite("sqlite (temporary file)", sqliteLayer)
 * ```
 */
import type { Layer } from "effect"
import type { Storage } from "../Storage.ts"
import { domainSuite } from "./domainSuite.ts"
import { storageSuite } from "./storageSuite.ts"

export * as Fixtures from "./fixtures.ts"
export { migrationSuite, storageUpTo } from "./migrationSuite.ts"
export { expectedCells, storedCells, undoZoomCellsMigration } from "./storage/zoomCells.ts"
export { domainSuite, storageSuite }

/**
 * Registers the whole conformance suite (storage contract + every domain operation) for a store.
 * The layer is built once per half of the suite; each case works in accounts of its own.
 */
export const suite = (name: string, storageLayer: Layer.Layer<Storage, unknown>): void => {
  storageSuite(name, storageLayer)
  domainSuite(name, storageLayer)
}
