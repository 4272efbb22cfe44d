import { SqlStorage, Storage } from "@canopy/core"
import { migrationSuite, suite } from "@canopy/core/testing"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { layer, Migrations, SqliteClient } from "../src/index.ts"

/** A layer on a fresh database file in a temporary folder, removed when the layer is released. */
const onTemporaryFile = <A, E>(make: (filename: string) => Layer.Layer<A, E>) =>
  Layer.unwrap(
    Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "canopy-sqlite-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    ).pipe(Effect.map((dir) => make(join(dir, "canopy.db"))))
  )

suite("sqlite (temporary file)", onTemporaryFile((filename) => layer({ filename })))

// Core's SqlStorage alone on SQLite, without the adapter's synchronous request path: the shared
// implementation stays right on this dialect too.
suite("sqlite, SqlStorage without the request path",
  onTemporaryFile((filename) =>
    Layer.effect(Storage.Storage, Effect.andThen(Migrations.run, SqlStorage.make)).pipe(Layer.provide(SqliteClient.layer({ filename })))
  ))

// The migrations that fill in the projects stored before them (boundary keys, zoom cells).
migrationSuite("sqlite", onTemporaryFile((filename) => SqliteClient.layer({ filename })))
