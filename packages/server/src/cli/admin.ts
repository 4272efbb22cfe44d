/**
 * The administrative commands: `init`, `owner`, `keys`, `service-tokens`, `account`, `migrate`, `backup`.
 */
import { Members, Plans, Principal } from "@canopy/core"
import { Effect } from "effect"
import { parseArgs } from "node:util"
import { loadPostgres, loadSqlite } from "../storageLoader.ts"
import { accountOf, bootstrap, httpUrl, linkBase, list, print, publicUrlOf, setPasswordUrl, storageOf, UsageError, withCanopy } from "./common.ts"
import { HELP } from "./help.ts"
import { optionsOf } from "./reference.ts"

export const adminCommands: Record<string, (argv: Array<string>) => Promise<void>> = {
  async init(argv) {
    const { values } = parseArgs({ args: argv, options: optionsOf("init") })
    if (values.help) return void console.log(HELP.init)
    if (!values.email) throw new UsageError("--email is required")
    const base = publicUrlOf(values) ?? linkBase(undefined, httpUrl(process.env.HOST || "127.0.0.1", process.env.PORT || 8080))
    if (values.plan && !(Plans.plans as ReadonlyArray<string>).includes(values.plan)) throw new UsageError(`--plan must be one of ${Plans.plans.join(", ")}`)
    await withCanopy(storageOf(values), async (canopy) => {
      const b = await bootstrap(canopy, { email: values.email!, name: values.name, accountName: values["account-name"], plan: values.plan })
      const link = setPasswordUrl(base, b.password_token)
      print(values.json, { account_id: b.account.id, user_id: b.user.id, api_key: b.api_key.token, set_password_url: link },
        `account  ${b.account.id} (${b.account.name}, plan ${b.account.plan})\nowner    ${b.user.id} <${b.user.email}>\napi key  ${b.api_key.token}\n\n` +
          `The owner sets a password (once, within 7 days) at:\n  ${link}\n\nThe key and the link are shown only now.`)
    }, true)
  },

  owner: (argv) => ownerCommand(argv),
  keys: (argv) => credentialCommand("api_key", "keys", argv),
  "service-tokens": (argv) => credentialCommand("service_token", "service-tokens", argv),
  backup: (argv) => backupCommand(argv),

  async account(argv) {
    const { positionals, values } = parseArgs({ args: argv, options: optionsOf("account"), allowPositionals: true })
    if (values.help) return void console.log(HELP.account)
    const [sub, plan] = positionals
    if (sub !== "set-plan" || !plan) throw new UsageError("expected: canopy account set-plan PLAN")
    if (!(Plans.plans as ReadonlyArray<string>).includes(plan)) throw new UsageError(`plan must be one of ${Plans.plans.join(", ")}`)
    await withCanopy(storageOf(values), async (canopy) => {
      const account = await canopy.account.setPlan(await accountOf(canopy, values.account), plan as Plans.Plan)
      print(values.json, account, `account ${account.id} is now on the ${account.plan} plan`)
    })
  },

  async migrate(argv) {
    const { values } = parseArgs({ args: argv, options: optionsOf("migrate") })
    if (values.help) return void console.log(HELP.migrate)
    const where = storageOf(values)
    const ran = await Effect.runPromise(
      where.databaseUrl ? (await loadPostgres()).migrate({ url: where.databaseUrl }) : (await loadSqlite()).migrate({ filename: where.db })
    )
    print(values.json, ran.map(([id, name]) => ({ id, name })),
      ran.length === 0 ? "schema is up to date" : ran.map(([id, name]) => `applied ${id}_${name}`).join("\n"))
  }
}

/**
 * `canopy owner reset-password`: a new one-time set-password link for an owner locked out (the
 * first link expired or was lost, or the password forgotten). Anyone who can run it can read the
 * database anyway; the link is printed, never stored in clear.
 */
const ownerCommand = async (argv: Array<string>) => {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: optionsOf("owner") })
  if (values.help) return void console.log(HELP.owner)
  if (positionals[0] !== "reset-password" || positionals.length > 1) throw new UsageError("expected: canopy owner reset-password")
  const base = publicUrlOf(values) ?? linkBase(undefined, httpUrl(process.env.HOST || "127.0.0.1", process.env.PORT || 8080))
  await withCanopy(storageOf(values), async (canopy) => {
    const accountId = await accountOf(canopy, values.account)
    const { data } = await canopy.members.list(Principal.system(accountId))
    const owners = data.filter((m) => m.role === "owner" && m.status === "active")
    const email = values.email?.toLowerCase()
    const owner = email !== undefined ? owners.find((m) => m.email === email) : owners.length === 1 ? owners[0] : undefined
    if (!owner) {
      throw new UsageError(email !== undefined ? `${values.email} is not an active owner of account ${accountId}`
        : `account ${accountId} has ${owners.length} owners: pass --email of the one locked out`)
    }
    const link = await canopy.run(Effect.flatMap(Members, (m) => m.passwordLink(accountId, owner.id)))
    const url = setPasswordUrl(base, link.token)
    print(values.json, { account_id: accountId, user_id: owner.id, email: owner.email, set_password_url: url, expires_at: link.expires_at },
      `The owner ${owner.email} sets a new password (once, until ${link.expires_at}) at:\n  ${url}\n\nThe link is shown only now.`)
  })
}

/** `canopy backup`: the online backup of a SQLite file. */
const backupCommand = async (argv: Array<string>) => {
  const { values } = parseArgs({ args: argv, options: optionsOf("backup") })
  if (values.help) return void console.log(HELP.backup)
  if (!values.to) throw new UsageError("--to FILE is required")
  const where = storageOf(values)
  if (where.databaseUrl) throw new UsageError("backup copies a SQLite file; for PostgreSQL use pg_dump")
  const { pages } = await (await loadSqlite()).backup(where.db, values.to)
  print(values.json, { database: where.db, backup: values.to, pages }, `backed up ${where.db} to ${values.to} (${pages} pages, integrity ok)`)
}

const credentialCommand = async (kind: "api_key" | "service_token", name: "keys" | "service-tokens", argv: Array<string>) => {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: optionsOf(name) })
  if (values.help) return void console.log(HELP[name])
  const [sub, id] = positionals
  await withCanopy(storageOf(values), async (canopy) => {
    const system = Principal.system(await accountOf(canopy, values.account))
    if (sub === "create") {
      if (!values.name || !values.permissions) throw new UsageError("--name and --permissions are required")
      const raw = (values as Record<string, unknown>)["ip-allowlist"]
      const allowlist = list(typeof raw === "string" ? raw : undefined)
      const c = await canopy.credentials.create(system, kind, {
        name: values.name,
        permissions: list(values.permissions),
        ...(allowlist.length ? { ip_allowlist: allowlist } : {})
      })
      print(values.json, c,
        `${c.id}  ${c.name}  [${c.permissions.join(", ")}]${
          c.ip_allowlist ? `  from ${c.ip_allowlist.join(", ")}` : ""
        }\n${c.token}\n\nThe value is shown only now.`)
    } else if (sub === "list") {
      const all = await canopy.credentials.list(system, kind)
      print(values.json, all, all.length === 0 ? "none" : all.map((c) =>
        `${c.id}  ${c.name.padEnd(24)} ${c.token_hint}  [${c.permissions.join(", ")}]  ${
          c.revoked_at ? `revoked ${c.revoked_at}` : `last used ${c.last_used_at ?? "never"}`
        }`
      ).join("\n"))
    } else if (sub === "revoke") {
      if (!id) throw new UsageError("expected the id to revoke")
      const c = await canopy.credentials.revoke(system, id)
      print(values.json, c, `revoked ${c.id} (${c.name})`)
    } else {
      throw new UsageError(`unknown subcommand: ${sub ?? "(none)"}`)
    }
  })
}
