/**
 * The statements a write sends to PostgreSQL, counted: each is a round trip (a transaction's
 * statements are never pipelined), and on a busy server each round trip is one more chance to
 * wait. The account's lock reads the account, its running totals and its webhooks in the same
 * round trip (`lock_account`), and an event goes in one statement with its deliveries; a
 * transaction holds its events and boundary versions and sends them in one statement before
 * whatever it does next, or before its commit (`sql/common.ts` `holdOrRun`). Counted by
 * a tracer that keeps every statement's span (`db.query.text`), on a real PostgreSQL.
 */
import { Assets, BoundaryHistory, Canopy, Projects, RawJson, Webhooks } from "@canopy/core"
import { Fixtures } from "@canopy/core/testing"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Tracer } from "effect"
import { inject } from "vitest"
import { layer as postgresLayer } from "../src/index.ts"
import { freshDatabase } from "./database.ts"

/** Runs `effect` with a tracer that keeps the text of every statement it sends. */
const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const spans: Array<Tracer.Span> = []
    const recording = Tracer.make({
      span(options) {
        const span = Tracer.nativeTracer.span(options)
        spans.push(span)
        return span
      }
    })
    const value = yield* Effect.provideService(effect, Tracer.Tracer, recording)
    const statements = spans.flatMap((s) => {
      const text = s.attributes.get("db.query.text")
      return typeof text === "string" ? [text.replace(/\s+/g, " ")] : []
    })
    return { value, statements }
  })

/** The statements, each cut to its start, one per line: what a failed count shows. */
const listed = (statements: ReadonlyArray<string>) => statements.map((s) => s.slice(0, 80)).join("\n")

const storage = Layer.unwrap(Effect.map(freshDatabase(inject("postgresUrl")), (url) => postgresLayer({ url })))

layer(Canopy.layer.pipe(Layer.provideMerge(storage)), { timeout: "60 seconds", excludeTestServices: true })("postgresql: round trips of a write", (it) => {
  it.effect("a create, an archive and an asset's create: the lock reads the account, its totals and webhooks; each event is one statement", () =>
    Effect.gen(function*() {
      const { admin } = yield* Fixtures.newAccount("enterprise")
      const projects = yield* Projects
      yield* (yield* Webhooks).create(admin, { url: "https://hooks.example.com/canopy", events: ["project.created", "project.archived", "asset.created"] })
      const first = yield* projects.create(admin, { name: "Stand 1", geometry: Fixtures.squareHa(50) })

      const created = yield* statementsOf(projects.create(admin, { name: "Stand 2", geometry: Fixtures.squareHa(50, 11) }))
      const inTransaction = created.statements.slice(created.statements.findIndex((s) => s.startsWith("select lock_account")))
      // the lock; the neighbours read again under it; the row; then its first boundary version, the event and its
      // delivery, held and sent together before the commit (the creator the event names is read before the lock)
      assert.lengthOf(inTransaction, 4, listed(inTransaction))
      assert.notInclude(inTransaction.join("\n"), "from members")
      assert.notInclude(created.statements.join("\n"), "from account_totals")
      assert.notInclude(created.statements.join("\n"), "from webhooks")
      assert.strictEqual(created.statements.filter((s) => s.includes("into \"deliveries\"")).length, 1)
      assert.match(inTransaction.at(-1)!,
        /^with held0 as \(insert into "?boundary_versions"? .*\), held1 as \(insert into "events" .*\) insert into "deliveries"/)

      const archived = yield* statementsOf(projects.archive(admin, first.id))
      // the lock, the project, its update, the event with its delivery
      assert.lengthOf(archived.statements, 4, listed(archived.statements))

      const asset = yield* statementsOf((yield* Assets).create(admin, created.value.id, { name: "Sensor", type: "monitoring_station" }))
      assert.lengthOf(asset.statements, 4, listed(asset.statements))
    }))

  it.effect("a boundary replacement: the newest version found and given its copy in one statement", () =>
    Effect.gen(function*() {
      const { admin } = yield* Fixtures.newAccount("enterprise")
      const projects = yield* Projects
      const project = yield* projects.create(admin, { name: "Stand", geometry: Fixtures.squareHa(50) })
      const replaced = yield* statementsOf(projects.update(admin, project.id, { geometry: Fixtures.squareHa(60) }))
      const history = replaced.statements.filter((s) => s.includes("boundary_versions"))
      // the newest version's copy (found by the same statement), then the new version, sent with the event
      assert.lengthOf(history, 2, listed(replaced.statements))
      assert.match(history[0]!, /^update boundary_versions .* returning version$/)
      assert.match(history[1]!, /^with held0 as \(insert into "?boundary_versions"? .*\) insert into "events"/)
      const inTransaction = replaced.statements.slice(replaced.statements.findIndex((s) => s.startsWith("select lock_account")))
      // the lock, the project, the neighbours under the lock, its update, the version's copy, the new version with the event
      assert.lengthOf(inTransaction, 6, listed(inTransaction))
      // and the history reads both boundaries back: the first from its copy, the second from the project
      const history_ = yield* BoundaryHistory
      const [v1, v2] = yield* Effect.all([history_.get(admin, project.id, "1"), history_.get(admin, project.id, "2")])
      assert.deepStrictEqual(RawJson.materialize([v1.geometry, v2.geometry]), RawJson.materialize([project.geometry, replaced.value.geometry]))
      assert.notDeepEqual(RawJson.materialize(v1.geometry), RawJson.materialize(v2.geometry))
    }))
})
