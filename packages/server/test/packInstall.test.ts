/**
 * What a user does: `npm pack` the packages, install the tarballs into an app OUTSIDE this
 * repository (from the npm registry for everything else), and run the README's library example and
 * the mount example with plain `node` — no `source` condition, no loader — on the oldest Node the
 * packages claim (`engines`), installed from the `node` npm package. Also: an app with the HTTP
 * package and no adapter gets no database driver, and `npx canopy serve` there says in one line
 * which package to install.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join, sep } from "node:path"

const repo = realpathSync(join(import.meta.dirname, "../../.."))
const work = realpathSync(mkdtempSync(join(tmpdir(), "canopy-pack-")))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** The oldest Node the packages claim: `engines.node` is ">=MAJOR.MINOR[.PATCH]". */
const oldestNode = (() => {
  const range = JSON.parse(readFileSync(join(repo, "packages/server/package.json"), "utf8")).engines.node as string
  const m = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range)
  if (!m) throw new Error(`engines.node is not ">=X.Y": ${range}`)
  return `${m[1]}.${m[2]}.${m[3] ?? 0}`
})()

/**
 * The environment of the child processes: this run's, without what `npm test` exported about the
 * repository's own project (its prefix, package, script allow-list): a child `npm` must see only
 * the scratch app. Registry, cache and proxy settings stay.
 */
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => {
  const key = k.toLowerCase()
  if (!key.startsWith("npm_")) return true
  return /^npm_config_(cache|cafile|registry|userconfig|globalconfig|proxy|https_proxy|noproxy|strict_ssl|fetch_.*|.*:registry|.*_auth.*)$/.test(key)
}))

interface Ran {
  readonly code: number | null
  readonly out: string
  readonly err: string
}

const run = (command: string, args: ReadonlyArray<string>, options: { cwd: string; path?: string; timeout?: number }) =>
  new Promise<Ran>((resolve, reject) => {
    const env = { ...baseEnv, ...(options.path ? { PATH: `${options.path}${delimiter}${baseEnv.PATH ?? ""}` } : {}) }
    const child = spawn(command, args, { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeout ?? 120_000)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, out, err })
    })
  })

/** Runs `command` and fails with its output when it does not exit 0. */
const ok = async (command: string, args: ReadonlyArray<string>, options: { cwd: string; path?: string; timeout?: number }) => {
  const r = await run(command, args, options)
  if (r.code !== 0) throw new Error(`${command} ${args.join(" ")} (in ${options.cwd}) exited ${r.code}\n${r.out}\n${r.err}`)
  return r
}

/** Is a package `name` installed anywhere in `dir`'s node_modules tree (hoisted or nested)? */
const installedAnywhere = (dir: string, name: string): boolean => {
  const modules = join(dir, "node_modules")
  if (!existsSync(modules)) return false
  if (existsSync(join(modules, name, "package.json"))) return true
  return readdirSync(modules).flatMap((entry) =>
    entry.startsWith("@") ? readdirSync(join(modules, entry)).map((e) => join(entry, e)) : entry.startsWith(".") ? [] : [entry]
  )
    .some((pkg) => installedAnywhere(join(modules, pkg), name))
}

const npmQuiet = ["--no-audit", "--no-fund", "--loglevel=error"]

/**
 * What the registry answers while a version it lists is still being published everywhere (seen
 * here: `ETARGET` for a dependency's version published minutes before), or while the network
 * falters. A user would retry; so does the install, twice, asking the registry afresh.
 */
const TRANSIENT_REGISTRY = /\b(ETARGET|E404|E429|E5\d\d|ECONNRESET|ETIMEDOUT|EAI_AGAIN)\b/

/** A scratch npm project: a package.json, then `npm install` of `specs` (retried on a transient registry answer). */
const app = async (name: string, specs: ReadonlyArray<string>, extra: Record<string, unknown> = {}, path?: string) => {
  const dir = join(work, name)
  mkdirSync(dir)
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module", ...extra }, null, 2))
  const options = { cwd: dir, timeout: 240_000, ...(path ? { path } : {}) }
  for (let attempt = 1;; attempt++) {
    const r = await run("npm", ["install", ...npmQuiet, ...(attempt > 1 ? ["--prefer-online"] : []), ...specs], options)
    if (r.code === 0) return dir
    if (attempt === 3 || !TRANSIENT_REGISTRY.test(r.err)) throw new Error(`npm install ${specs.join(" ")} (in ${dir}) exited ${r.code}\n${r.out}\n${r.err}`)
    await new Promise((resolve) => setTimeout(resolve, 20_000 * attempt))
  }
}

describe("the packages, installed from their tarballs outside the repository", () => {
  it(`run the README's library example and the mount example on plain Node ${oldestNode}; the HTTP package alone brings no driver`, async () => {
    assert.isFalse(work.startsWith(repo + sep), "the scratch directory is outside the repository")

    // The oldest Node, from the `node` npm package (as the root's devDependency brings Node 24): its
    // preinstall fetches the binary, so this one install may run scripts (npm ≥ 11 asks allowScripts).
    const node22 = app("node-runtime", [`node@${oldestNode}`], { allowScripts: { node: true } })

    // A clean build, then the four packages packed as `npm publish` would (their prepack finds dist/ up to date).
    const tarballs = join(work, "tarballs")
    mkdirSync(tarballs)
    await ok("npm", ["run", "clean"], { cwd: repo })
    await ok("npm", ["run", "build"], { cwd: repo, timeout: 180_000 })
    await ok("npm", ["pack", "--pack-destination", tarballs,
      ...["core", "adapter-sqlite", "adapter-postgres", "server"].flatMap((p) => ["-w", `packages/${p}`])], { cwd: repo, timeout: 180_000 })
    const tgz = (name: string) => {
      const file = readdirSync(tarballs).find((f) => f.startsWith(`canopy-${name}-`) && f.endsWith(".tgz"))
      if (!file) throw new Error(`no tarball for @canopy/${name} in ${readdirSync(tarballs).join(", ")}`)
      return join(tarballs, file)
    }

    // Tarballs: never the registry's @canopy packages. Drivers' binaries are prebuilt (no scripts).
    const [runtime, full, bare] = await Promise.all([
      node22,
      app("host-app", ["--ignore-scripts", tgz("core"), tgz("adapter-sqlite"), tgz("adapter-postgres"), tgz("server")]),
      app("bare-app", ["--ignore-scripts", tgz("core"), tgz("server")])
    ])
    const nodeBin = join(runtime, "node_modules", ".bin")
    const node = join(nodeBin, "node")
    assert.strictEqual((await ok(node, ["--version"], { cwd: runtime })).out.trim(), `v${oldestNode}`)

    // What was installed is the built package: dist/ with declarations, no build info.
    for (const pkg of ["core", "adapter-sqlite", "adapter-postgres", "server"]) {
      const dist = join(full, "node_modules/@canopy", pkg, "dist")
      assert.isTrue(existsSync(join(dist, "index.js")) && existsSync(join(dist, "index.d.ts")), `@canopy/${pkg} has dist/index.js and .d.ts`)
      assert.isFalse(existsSync(join(dist, "tsconfig.build.tsbuildinfo")), `@canopy/${pkg} ships no build info`)
    }

    // (a) The README's library example (examples/library-sqlite), as plain JavaScript.
    copyFileSync(join(repo, "examples/library-sqlite/src/main.ts"), join(full, "main.mjs"))
    const library = await ok(node, ["main.mjs", join(full, "library.db")], { cwd: full })
    assert.strictEqual(library.out,
      "Acme Forestry: amazon-reforestation covers 491.5243 ha\nits shell: 5 positions from -62.2, -3.4\nrefused: CONFLICT (a project with this slug already exists in the account)\n")

    // (b) The mount example (examples/embed-node-http): its app module as it is (Node strips the
    // types of a .ts file outside node_modules), driven by a host script.
    copyFileSync(join(repo, "examples/embed-node-http/src/app.ts"), join(full, "app.ts"))
    writeFileSync(join(full, "host.mjs"), `import { startApp } from "./app.ts"
const app = await startApp({ port: 0, db: process.argv[2] })
try {
  const { api_key } = await app.canopy.bootstrap({ account_name: "Host Co", email: "host@example.com" })
  const headers = { authorization: \`Bearer \${api_key.token}\` }
  const host = await fetch(\`\${app.url}/\`)
  const list = await fetch(\`\${app.url}/canopy/v1/projects\`, { headers })
  const anonymous = await fetch(\`\${app.url}/canopy/v1/projects\`)
  console.log(JSON.stringify({ host: [host.status, await host.text()], list: [list.status, await list.json()], anonymous: [anonymous.status, await anonymous.json()] }))
} finally {
  await app.close()
}
`)
    const mounted = JSON.parse((await ok(node, ["host.mjs", join(full, "mounted.db")], { cwd: full })).out) as {
      host: [number, string]
      list: [number, { data: Array<unknown>; meta: { total: number } }]
      anonymous: [number, { error: { code: string } }]
    }
    assert.deepStrictEqual(mounted.host, [200, "the host application\n"])
    assert.strictEqual(mounted.list[0], 200)
    assert.deepStrictEqual(mounted.list[1].data, [])
    assert.strictEqual(mounted.list[1].meta.total, 0)
    assert.deepStrictEqual([mounted.anonymous[0], mounted.anonymous[1].error.code], [401, "UNAUTHORIZED"])

    // The server from the installed package (dist/, plain node): init, serve; the PostgreSQL adapter loads.
    const init = await ok("npx", ["--no-install", "canopy", "init", "--json", "--db", join(full, "cli.db"), "--email", "cli@example.com"], { cwd: full,
      path: nodeBin })
    const { api_key } = JSON.parse(init.out) as { api_key: string }
    assert.match(api_key, /^cnp_key_/)
    const server = spawn(node, [join(full, "node_modules/.bin/canopy"), "serve", "--db", join(full, "cli.db"), "--port", "0"], { cwd: full, env: baseEnv,
      stdio: ["ignore", "ignore", "pipe"] })
    const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)))
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = ""
        server.stderr.on("data", (d) => {
          err += d
          const m = /serving (http:\/\/[\d.:]+)/.exec(err)
          if (m) resolve(m[1]!)
        })
        void exited.then((code) => reject(new Error(`canopy serve exited ${code}: ${err}`)))
      })
      const served = await fetch(`${url}/v1/projects`, { headers: { authorization: `Bearer ${api_key}` } })
      assert.strictEqual(served.status, 200)
      assert.deepStrictEqual(((await served.json()) as { data: Array<unknown> }).data, [])
    } finally {
      server.kill("SIGTERM")
      await exited
    }
    const pg = await ok(node, ["--input-type=module", "-e", `const pg = await import("@canopy/adapter-postgres"); console.log(typeof pg.postgresStorage)`], {
      cwd: full
    })
    assert.strictEqual(pg.out, "function\n")

    // (c) The HTTP package without an adapter: no driver installed, and the CLI names the package.
    for (const driver of ["better-sqlite3", "pg", "@effect/sql-pg", "@canopy/adapter-sqlite", "@canopy/adapter-postgres"]) {
      assert.isFalse(installedAnywhere(bare, driver), `${driver} is not installed with @canopy/core + @canopy/server`)
    }
    assert.isTrue(installedAnywhere(full, "better-sqlite3") && installedAnywhere(full, "@effect/sql-pg"), "the adapters bring their drivers")
    const serve = await run("npx", ["--no-install", "canopy", "serve", "--db", join(bare, "canopy.db"), "--port", "0"], { cwd: bare, path: nodeBin,
      timeout: 60_000 })
    assert.strictEqual(serve.code, 1)
    const said = serve.err.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("npm warn"))
    assert.deepStrictEqual(said, ["canopy serve: SQLite storage needs @canopy/adapter-sqlite, which is not installed: npm install @canopy/adapter-sqlite"])
    assert.isFalse(existsSync(join(bare, "canopy.db")), "nothing was created")
  }, 420_000)
})
