/**
 * The Python client (clients/python): its types checked by pyright (strict, Python 3.9) and
 * against the OpenAPI document (test_drift.py), its webhook signing checked against @canopy/core's
 * Signature module, and its scenario run by the system `python3` against a real `canopy serve`
 * process over a temporary SQLite file, which the scenario starts itself (test/canopy_serve.py)
 * with the Node running these tests. The same files are the package's own pytest/unittest suite.
 */
import { Signature } from "@canopy/core"
import { spawn, spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"

const pkg = join(import.meta.dirname, "..")
const root = join(pkg, "../..")
const INSTALL = "install python3 >= 3.9 (Debian: apt-get install python3)"

/** The system python3 and its version; a clear failure when it is missing or too old. */
const findPython = (): { bin: string; version: [number, number, number] } => {
  const bin = "python3"
  const r = spawnSync(bin, ["-c", "import sys, json; print(json.dumps(list(sys.version_info[:3])))"], { encoding: "utf8" })
  if (r.error || r.status !== 0) throw new Error(`python3 was not found or does not run (${r.error?.message ?? r.stderr.trim()}): ${INSTALL}`)
  const version = JSON.parse(r.stdout.trim()) as [number, number, number]
  if (version[0] < 3 || (version[0] === 3 && version[1] < 9)) throw new Error(`python3 is ${version.join(".")}: ${INSTALL}`)
  return { bin, version }
}

/** Environment for the Python processes: the package on the path, no bytecode left in the tree. */
const pyEnv = (extra: Record<string, string> = {}) => ({
  ...process.env,
  PYTHONPATH: join(pkg, "src"),
  PYTHONDONTWRITEBYTECODE: "1",
  PYTHONUNBUFFERED: "1",
  NO_PROXY: "127.0.0.1,localhost",
  no_proxy: "127.0.0.1,localhost",
  CANOPY_NODE: process.execPath,
  ...extra
})

/** Runs a Python script to completion; answers its exit code and output. */
const runPython = (bin: string, args: ReadonlyArray<string>, env: Record<string, string>, stdin?: string, timeoutMs = 150_000) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(bin, args, { cwd: pkg, env: pyEnv(env), stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`python3 ${args.join(" ")} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`))
    }, timeoutMs)
    child.on("error", (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
    child.stdin.end(stdin ?? "")
  })

/** The last line of stdout, parsed. */
const lastJson = (stdout: string): any => {
  const lines = stdout.trim().split("\n")
  return JSON.parse(lines[lines.length - 1]!)
}

let found: string | undefined
/** The python3 to run; each test that needs it fails with the install hint when it is missing. */
const py = (): string => (found ??= findPython().bin)

describe("Python client: package and types", () => {
  it("python3 >= 3.9 is installed", () => {
    const { version } = findPython()
    expect(version[0]).toBe(3)
    expect(version[1]).toBeGreaterThanOrEqual(9)
  })

  it("declares a build backend, the src layout and py.typed", () => {
    const pyproject = readFileSync(join(pkg, "pyproject.toml"), "utf8")
    expect(pyproject).toMatch(/^\[build-system\]\nrequires = \["setuptools>=61"\]\nbuild-backend = "setuptools\.build_meta"$/m)
    expect(pyproject).toMatch(/package-dir = \{ "" = "src" \}/)
    expect(pyproject).toMatch(/requires-python = ">=3\.9"/)
    expect(pyproject).toMatch(/dependencies = \[\]/)
    expect(readFileSync(join(pkg, "src/canopy/py.typed"), "utf8")).toBe("")
  })

  it("imports with the standard library only", () => {
    const r = spawnSync(py(), ["-c", [
      "import sys, sysconfig",
      "before = set(sys.modules)",
      "import canopy",
      "loaded = set(sys.modules) - before",
      "std = (sysconfig.get_paths()['stdlib'], sysconfig.get_paths()['platstdlib'])",
      // Every module the import brought in is the package's own or the standard library's.
      "files = [getattr(sys.modules[m], '__file__', None) or '' for m in loaded]",
      "bad = sorted(f for f in files if f and not f.startswith(std) and '/clients/python/src/canopy/' not in f)",
      "print(canopy.__version__, len([m for m in loaded if m.startswith('canopy')]), bad)"
    ].join("\n")], { env: pyEnv(), encoding: "utf8" })
    expect(r.stderr).toBe("")
    expect(r.stdout.trim()).toMatch(/^0\.1\.0 \d+ \[\]$/)
  })

  it("pyright (strict, Python 3.9) reports 0 errors", () => {
    const config = JSON.parse(readFileSync(join(pkg, "pyrightconfig.json"), "utf8"))
    expect(config.typeCheckingMode).toBe("strict")
    expect(config.pythonVersion).toBe("3.9")
    const r = spawnSync(join(root, "node_modules/.bin/pyright"), ["-p", join(pkg, "pyrightconfig.json"), "--outputjson"], {
      cwd: pkg,
      encoding: "utf8",
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
      timeout: 180_000
    })
    const out = JSON.parse(r.stdout)
    const errors = (out.generalDiagnostics ?? []).filter((d: any) => d.severity === "error")
    expect(errors.map((d: any) => `${d.file}:${d.range?.start?.line + 1}: ${d.message}`)).toEqual([])
    expect(out.summary.errorCount).toBe(0)
    expect(out.summary.filesAnalyzed).toBeGreaterThanOrEqual(8)
  }, 200_000)
})

describe("Python client: its own test suite (python3 -m pytest, python3 -m unittest discover)", () => {
  const SUITE = [
    "test_drift.py::DriftTest::test_the_comparison_finds_missing_and_extra_keys",
    "test_drift.py::DriftTest::test_types_match_the_openapi_document",
    "test_pagination.py::PaginationTest::test_empty_pages_and_intersects_on_the_wire",
    "test_scenario.py::ScenarioTest::test_scenario_against_a_live_server",
    "test_signature.py::SignatureTest::test_the_services_vectors"
  ]

  it("pytest collects every test (Debian: apt-get install python3-pytest)", async () => {
    const r = await runPython(py(), ["-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"], {})
    expect(r.stderr + r.stdout, "python3 -m pytest does not run: apt-get install python3-pytest").not.toMatch(/No module named pytest/)
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const ids = r.stdout.split("\n").filter((l) => l.startsWith("test/")).map((l) => l.slice("test/".length)).sort()
    expect(ids).toEqual(SUITE)
  })

  it("unittest discovery finds the same tests", async () => {
    const r = await runPython(py(), ["-c", [
      "import json, unittest",
      "def ids(s):",
      "    return [i for t in s for i in ids(t)] if isinstance(s, unittest.TestSuite) else [s.id()]",
      "print(json.dumps(sorted(ids(unittest.defaultTestLoader.discover('.')))))"
    ].join("\n")], {})
    expect(r.stderr).toBe("")
    const expected = SUITE.map((id) => "test." + id.replace(".py::", ".").replace("::", ".")).sort()
    expect(JSON.parse(r.stdout.trim())).toEqual(expected)
  })
})

describe("Python client: webhook signatures", () => {
  it("signs and verifies exactly as @canopy/core's Signature module", async () => {
    const event = (id: string) =>
      JSON.stringify({ id, type: "project.created", created_at: "2026-01-01T00:00:00.000Z", data: { id: "proj_1", name: "Fjäll – 北" },
        account: { id: "acc_1", name: "A" } })
    const ts = Math.floor(Date.now() / 1000)
    const secrets = [Signature.generateSecret(), Signature.generateSecret(), "plain-secret-ünïcode", "whsec_YW Jj-_ZA==xyz", "whsec_Y"]
    const vectors = secrets.map((secret, i) => {
      const id = `evt_vector${i}`
      const body = event(id)
      return { secret, body, id, timestamp: ts + i, service: Signature.sign(secret, body), standard: Signature.standard(secret, id, ts + i, body) }
    })
    const r = await runPython(py(), [join(pkg, "test/test_signature.py")], {}, JSON.stringify({ vectors }))
    expect(r.stderr).toBe("")
    const out = lastJson(r.stdout)
    expect(out.error).toBeUndefined()
    expect(out.ok).toBe(true)
    // Both directions: the Python values verify with the TypeScript module.
    out.python.forEach((p: { service: string; standard: string }, i: number) => {
      const v = vectors[i]!
      expect(Signature.verify(v.secret, v.body, p.service)).toBe(true)
      expect(Signature.verifyStandard(v.secret, v.id, v.timestamp, v.body, p.standard)).toBe(true)
    })
    expect(out.checks).toBe(vectors.length * 9)
  })

  it("the vectors the Python suite checks offline are what the Signature module computes", () => {
    const { vectors } = JSON.parse(readFileSync(join(pkg, "test/signature_vectors.json"), "utf8")) as {
      vectors: Array<{ secret: string; body: string; id: string; timestamp: number; service: string; standard: string }>
    }
    expect(vectors.length).toBeGreaterThanOrEqual(2)
    for (const v of vectors) {
      expect(v.service).toBe(Signature.sign(v.secret, v.body))
      expect(v.standard).toBe(Signature.standard(v.secret, v.id, v.timestamp, v.body))
    }
  })
})

describe("Python client: types against the OpenAPI document", () => {
  it("python3 -m unittest test.test_drift passes (every schema property is a key of the client's types, and back)", async () => {
    const r = await runPython(py(), ["-m", "unittest", "-v", "test.test_drift"], {})
    expect(r.stderr).toMatch(/test_types_match_the_openapi_document .*\.\.\. ok/)
    expect(r.stderr).toMatch(/test_the_comparison_finds_missing_and_extra_keys .*\.\.\. ok/)
    expect(r.code, r.stderr).toBe(0)
  }, 120_000)
})

describe("Python client: paging across empty pages, intersects on the wire", () => {
  it("follows has_more across pages of no rows and sends intersects as compact JSON", async () => {
    const r = await runPython(py(), [join(pkg, "test/test_pagination.py")], {})
    expect(r.stderr).toBe("")
    const out = lastJson(r.stdout)
    expect(out.error ? `${out.error}\n${out.trace ?? ""}` : "").toBe("")
    expect(out.ok).toBe(true)
    expect(out.checks).toBe(15)
    expect(out.sent.mapping).toEqual([JSON.stringify({ type: "MultiPolygon", coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]]] })])
    expect(out.sent.none).toBeNull()
  })
})

describe("Python client: scenario against a live canopy serve", () => {
  let result: any
  let run: { code: number | null; stdout: string; stderr: string }

  beforeAll(async () => {
    // No CANOPY_URL: the scenario starts a canopy serve of its own (with CANOPY_NODE, this Node).
    run = await runPython(py(), [join(pkg, "test/scenario.py")], { CANOPY_URL: "" }, undefined, 180_000)
    try {
      result = lastJson(run.stdout)
    } catch {
      result = { ok: false, error: `no JSON result line: ${run.stdout}\n${run.stderr}` }
    }
  }, 200_000)

  it("the scenario exits 0 and reports every step", () => {
    expect(result.error ? `${result.step}: ${result.error}\n${result.trace ?? ""}` : "").toBe("")
    expect(run.code).toBe(0)
    expect(result.ok).toBe(true)
    expect(Object.keys(result.steps)).toEqual([
      "auth_verify",
      "account",
      "webhook_create",
      "create",
      "get",
      "webhook_verify",
      "webhook_manage",
      "list_all_pages",
      "update",
      "archive_restore_delete",
      "not_found",
      "validation_error",
      "assets",
      "members",
      "events",
      "overlaps",
      "boundaries",
      "imports",
      "webhook_delete",
      "network_error_retry",
      "server_error_retry",
      "rate_limit_retry"
    ])
  })

  it("create → get → list all pages → update → archive → restore → delete", () => {
    const s = result.steps
    expect(s.create.id).toMatch(/^proj_/)
    expect(s.create.area_hectares).toBeGreaterThan(100)
    expect(s.get.id).toBe(s.create.id)
    expect(s.list_all_pages.pages).toBeGreaterThanOrEqual(3)
    expect(s.list_all_pages.items).toBe(s.list_all_pages.total)
    expect(s.list_all_pages.searched).toBe(7)
    expect(s.archive_restore_delete).toEqual({ archived: "archived", restored: "active", deleted: true })
  })

  it("typed errors: a 422 with details and a 404", () => {
    const s = result.steps
    expect(s.validation_error.status).toBe(422)
    expect(s.validation_error.details.some((d: { field: string }) => d.field.startsWith("geometry"))).toBe(true)
    expect(s.not_found).toMatchObject({ status: 404, code: "NOT_FOUND" })
    expect(s.not_found.request_id).toMatch(/^req_/)
  })

  it("retries through a 429, honouring Retry-After, with one Idempotency-Key", () => {
    const s = result.steps.rate_limit_retry
    expect(s.burst).toBeGreaterThan(1)
    expect(s.retry_after).toBeGreaterThanOrEqual(1)
    expect(s.retries).toBeGreaterThanOrEqual(1)
    expect(s.waited).toBeGreaterThanOrEqual(s.retry_after)
    expect(s.project).toMatch(/^proj_/)
    expect(result.steps.network_error_retry.retries).toBe(2)
    expect(result.steps.server_error_retry.attempts).toBe(3)
  })

  it("verifies a real webhook delivery and rejects a tampered one", () => {
    const s = result.steps
    expect(s.webhook_verify).toMatchObject({ type: "project.created", tampered_rejected: true })
    expect(s.webhook_verify.event_id).toMatch(/^evt_/)
    expect(s.events.found).toBe(s.webhook_verify.event_id)
    expect(s.webhook_manage.test_status).toBe("success")
  })

  it("overlaps reported with the other project and its shared hectares, bbox and intersects filters, overlap_policy reject", () => {
    const s = result.steps.overlaps
    expect(s.other).toBe(s.west)
    expect(s.overlap_hectares).toBeGreaterThan(0)
    expect(Math.abs(s.overlap_hectares - s.half_area)).toBeLessThanOrEqual(s.half_area * 0.01)
    expect(s.bbox).toEqual({ west: [s.west], east: [s.project], both: [s.project, s.west], none: [] })
    expect(s.intersects).toEqual({
      west: [s.west],
      east: [s.project],
      both: [s.project, s.west],
      edge: [s.west],
      outside: [],
      polygon: [s.project],
      touching: [],
      text: [s.west]
    })
    expect(s.rejected_status).toBe(409)
    expect(s.events).toBe(1)
  })

  it("assets, members, account", () => {
    const s = result.steps
    expect(s.assets).toEqual({ listed: 5, equipment: 4 })
    expect(s.members.role_after).toBe("viewer")
    expect(s.account.plan).toBe("pro")
    expect(s.auth_verify.type).toBe("api_key")
  })
})
