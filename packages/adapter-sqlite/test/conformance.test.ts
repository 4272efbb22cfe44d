import { suite } from "@canopy/core/testing"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { layer } from "../src/index.ts"

/** A fresh database file in a temporary folder, removed when the layer is released. */
const onTemporaryFile = Layer.unwrap(
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "canopy-sqlite-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => layer({ filename: join(dir, "canopy.db") })))
)

suite("sqlite (temporary file)", onTemporaryFile)
