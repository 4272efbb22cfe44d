import { migrationSuite, suite } from "@canopy/core/testing"
import { Effect, Layer } from "effect"
import { inject } from "vitest"
import { clientLayer, layer } from "../src/index.ts"
import { freshDatabase } from "./database.ts"

/** The PostgreSQL store on a database of its own, dropped when the layer is released. */
const onFreshDatabase = <A, E>(make: (url: string) => Layer.Layer<A, E>) => Layer.unwrap(Effect.map(freshDatabase(inject("postgresUrl")), make))

suite("postgresql", onFreshDatabase((url) => layer({ url })))

// The migrations that fill in the projects stored before them (boundary keys, zoom cells).
migrationSuite("postgresql", onFreshDatabase((url) => clientLayer({ url })))
