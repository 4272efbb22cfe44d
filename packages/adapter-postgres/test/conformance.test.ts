import { suite } from "@canopy/core/testing"
import { Effect, Layer } from "effect"
import { inject } from "vitest"
import { layer } from "../src/index.ts"
import { freshDatabase } from "./database.ts"

/** The PostgreSQL store on a database of its own, dropped when the layer is released. */
const onFreshDatabase = Layer.unwrap(Effect.map(freshDatabase(inject("postgresUrl")), (url) => layer({ url })))

suite("postgresql", onFreshDatabase)
