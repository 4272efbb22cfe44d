/**
 * The limits and defaults the docs name are the code's: each figure below is read from the constant
 * that decides it (or, for the clients, from the default in their source) and must appear in the
 * docs in the sentence that states it. Changing a constant without its docs fails here.
 */
import { Delivery, Idempotency, Overlap, Plans, RetrySchedule, Schemas } from "@canopy/core"
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_POOL_SIZE, DEFAULT_STATEMENT_TIMEOUT_MS } from "@canopy/adapter-postgres"
import { Duration } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { COUNT_LIMIT, SEARCH_COUNT_LIMIT } from "../../core/src/storage/common.ts"
import { READY_TIMEOUT_MS } from "../src/http/readiness.ts"
import { MAX_BODY_BYTES } from "../src/index.ts"

const root = join(import.meta.dirname, "../../..")
const read = (path: string) => readFileSync(join(root, path), "utf8")
/** A doc's text with line breaks and indentation as single spaces, so a phrase may wrap. */
const doc = (path: string) => read(path).replace(/\s+/g, " ")
/** A number as the docs write it: 1,000 and 5,242,880. */
const n = (value: number) => value.toLocaleString("en-US")
const days = (ms: number) => ms / 86_400_000
/** The first capture of `pattern` in a source file, which must be there. */
const fromSource = (path: string, pattern: RegExp): string => {
  const m = pattern.exec(read(path))
  if (!m) throw new Error(`${pattern} not found in ${path}`)
  return m[1]!
}

/** Asserts `text` holds `phrase`, naming only the phrase when it does not. */
const says = (text: string, phrase: string) => expect(text.includes(phrase), `the docs should say: ${phrase}`).toBe(true)

const operating = doc("docs/operating.md")
const apiGuide = doc("docs/api-guide.md")
const decisions = doc("docs/decisions.md")
const embedding = doc("docs/embedding.md")

describe("the numbers in docs/ are the code's", () => {
  it("request body limit", () => {
    const mib = MAX_BODY_BYTES / 1024 / 1024
    says(operating, `is ${mib} MiB (${n(MAX_BODY_BYTES)} bytes;`)
    says(apiGuide, `over ${mib} MiB (${n(MAX_BODY_BYTES)} bytes)`)
    says(decisions, `Bodies over ${mib} MiB get 413`)
    says(doc("docs/gis.md"), `body limit (${mib} MiB, \`MAX_BODY_BYTES\``)
  })

  it("page sizes, page depth and count caps", () => {
    const { perPage, defaultPerPage, maxOffset } = Schemas.limits
    says(apiGuide, `\`per_page\` (1–${perPage}, default ${defaultPerPage})`)
    says(apiGuide, `for the first ${n(maxOffset)} rows (\`page × per_page ≤ ${n(maxOffset)}\`)`)
    says(decisions, `**Page numbers reach ${n(maxOffset)} rows deep** (\`page × per_page ≤ ${n(maxOffset)}\`)`)
    says(apiGuide, `count up to ${n(SEARCH_COUNT_LIMIT)} matches, other filtered lists (assets, events, delivery logs) up to ${n(COUNT_LIMIT)} rows`)
    says(decisions, `counting stops at ${n(COUNT_LIMIT)} rows, and at ${n(SEARCH_COUNT_LIMIT)} matches for a \`search\``)
  })

  it("rate-limit plans", () => {
    for (const plan of Plans.plans) {
      const { requestsPerMinute, requestsPerDay } = Plans.defaults[plan]
      says(apiGuide, `| ${plan} | ${n(requestsPerMinute)} | ${requestsPerDay === null ? "unlimited" : n(requestsPerDay)} |`)
    }
  })

  it("retention, idempotency window, webhook timeout and retry schedule", () => {
    expect(days(Delivery.LOG_RETENTION_MS)).toBe(days(Delivery.EVENT_RETENTION_MS))
    const retention = days(Delivery.LOG_RETENTION_MS)
    says(apiGuide, `blocked) and events are kept ${retention} days`)
    says(operating, `logs and events older than ${retention} days`)
    says(embedding, `settled events past their ${retention} days`)
    const hours = Idempotency.TTL_MS / 3_600_000
    says(apiGuide, `same key and body within ${hours} hours`)
    says(operating, `idempotency keys (kept ${hours} hours)`)
    says(apiGuide, `Receivers get ${Delivery.TIMEOUT_MS / 1000} seconds`)
    // The first attempt is immediate; the retries follow the schedule's later delays.
    const spoken = RetrySchedule.delays.filter((d) => Duration.toMillis(d) > 0).map((d) => {
      const minutes = Duration.toMillis(d) / 60_000
      return minutes < 60 ? `${minutes} min` : `${minutes / 60} h`
    })
    says(apiGuide, `retried ${spoken.slice(0, -1).join(", ")} and ${spoken.at(-1)} after each failure`)
  })

  it("overlap candidate cap and write deadline", () => {
    says(decisions, `\`complete\` is \`false\` when more than ${n(Overlap.MAX_CANDIDATES)} projects were near`)
    says(decisions, `**A write's comparisons stop ${Overlap.WRITE_DEADLINE_MS / 1000} s after its request began** (\`Overlap.WRITE_DEADLINE_MS\``)
  })

  it("PostgreSQL pool size, timeouts and readiness", () => {
    says(operating, `\`--pg-pool-size\` (default ${DEFAULT_POOL_SIZE})`)
    says(operating, `| \`CANOPY_PG_POOL_SIZE\` | ${DEFAULT_POOL_SIZE} |`)
    says(operating, `\`CANOPY_PG_STATEMENT_TIMEOUT_MS\` | ${n(DEFAULT_CONNECT_TIMEOUT_MS)}, ${n(DEFAULT_STATEMENT_TIMEOUT_MS)} |`)
    says(operating, `8 instances at the default pool size (8 × ${DEFAULT_POOL_SIZE + 1} = ${8 * (DEFAULT_POOL_SIZE + 1)} ≤ 97)`)
    says(operating, `200 only while the database answers within ${READY_TIMEOUT_MS / 1000} s`)
  })

  it("every benchmark bench/run.ts knows is listed in CONTRIBUTING.md", () => {
    const names = [...read("bench/run.ts").matchAll(/only === "(\w+)"/g)].map((m) => m[1]!)
    expect(names.length).toBeGreaterThan(5)
    const contributing = doc("CONTRIBUTING.md")
    for (const name of names) says(contributing, `- **${name}** —`)
  })

  it("the clients' retries and timeouts", () => {
    const ts = {
      retries: fromSource("clients/typescript/src/client.ts", /maxRetries: options\.maxRetries \?\? (\d+)/),
      timeoutMs: Number(fromSource("clients/typescript/src/client.ts", /timeoutMs: options\.timeoutMs \?\? ([\d_]+)/).replace(/_/g, ""))
    }
    const py = {
      retries: fromSource("clients/python/src/canopy/_client.py", /max_retries: int = (\d+)/),
      timeout: fromSource("clients/python/src/canopy/_client.py", /timeout: float = ([\d.]+)/)
    }
    const go = {
      retries: fromSource("clients/go/client.go", /DefaultMaxRetries\s*=\s*(\d+)/),
      timeoutS: fromSource("clients/go/client.go", /DefaultTimeout\s*=\s*(\d+) \* time\.Second/)
    }
    const tsReadme = doc("clients/typescript/README.md")
    const pyReadme = doc("clients/python/README.md")
    const goReadme = doc("clients/go/README.md")
    says(tsReadme, `| \`maxRetries\` | \`${ts.retries}\` |`)
    says(tsReadme, `| \`timeoutMs\` | \`${n(ts.timeoutMs).replace(/,/g, "_")}\` (${ts.timeoutMs / 1000} s) |`)
    says(pyReadme, `| \`max_retries\` | \`${py.retries}\` |`)
    says(pyReadme, `| \`timeout\` | \`${py.timeout}\` (seconds) |`)
    says(goReadme, `| \`WithMaxRetries\` | \`${go.retries}\` (\`DefaultMaxRetries\`) |`)
    says(goReadme, `a ${go.timeoutS} s timeout per attempt (\`DefaultTimeout\`)`)
  })
})
